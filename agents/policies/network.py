"""The policy of a safe model file (``NAME.json`` + ``NAME.pt``) as a torch-only network (the
``[agents]`` extra, no SB3): :class:`PolicyNet` reproduces sb3-contrib's
``MaskableActorCriticPolicy`` on the same state dict. :func:`load_policy` reads the pair, whose
every field :func:`validate_policy_config` checks (also against the game being played);
:func:`build_sb3_policy` builds the SB3 policy of the same architecture (the ``[sb3]`` extra).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from gymnasium import spaces

from mancala_envs.agents.model_files import (
    FORMAT,
    VERSION,
    check_file_record,
    check_model_game,
    config_game,
    load_pair,
    pair_paths,
)
from mancala_envs.agents.policies.features import EXTRACTORS
from mancala_envs.infra.config_files import (
    check_keys,
    need_choice,
    need_equal,
    need_int,
    need_list,
    need_number,
)
from mancala_envs.infra.extras import require

require("torch", "agents", "the policy agent's network")

import torch  # noqa: E402  (after the clear message above)
from torch import nn  # noqa: E402


class _MlpExtractor(nn.Module):
    """SB3's ``MlpExtractor`` layout for a list ``net_arch``: a policy and a value MLP of
    ``Linear`` + ``Tanh`` layers (same parameter names, so the same state dict)."""

    def __init__(self, features_dim: int, net_arch: list[int]):
        super().__init__()
        for name in ("policy_net", "value_net"):
            layers: list[nn.Module] = []
            width = features_dim
            for size in net_arch:
                layers += [nn.Linear(width, size), nn.Tanh()]
                width = size
            setattr(self, name, nn.Sequential(*layers))
        self.latent_dim = width


class PolicyNet(nn.Module):
    """The torch-only policy of a safe model file (``NAME.json`` + ``NAME.pt``): the features
    extractor, the policy MLP (``mlp_extractor.policy_net``) and ``action_net``, with the value
    layers too, under the parameter names of sb3-contrib's ``MaskableActorCriticPolicy``, whose
    logits it reproduces without SB3.

    ``forward(observations)`` gives the raw logits ``(B, num_actions)``;
    ``forward(observations, masks)`` the log-probabilities of the masked distribution, computed
    as sb3-contrib's ``MaskableCategorical`` does (illegal moves at about -1e8)."""

    def __init__(
        self,
        observation_size: int,
        num_actions: int,
        net_arch: list[int],
        features: str,
        features_kwargs: dict[str, Any],
    ):
        super().__init__()
        if features not in EXTRACTORS:
            raise ValueError(f"unknown features extractor {features!r}; known: {sorted(EXTRACTORS)}")
        self.observation_size, self.num_actions = int(observation_size), int(num_actions)
        space = spaces.Box(0.0, np.inf, (self.observation_size,), np.float32)  # the extractors read its shape
        self.features_extractor = EXTRACTORS[features](space, **features_kwargs)
        self.mlp_extractor = _MlpExtractor(self.features_extractor.features_dim, [int(x) for x in net_arch])
        self.action_net = nn.Linear(self.mlp_extractor.latent_dim, self.num_actions)
        self.value_net = nn.Linear(self.mlp_extractor.latent_dim, 1)

    def forward(self, observations: torch.Tensor, masks: torch.Tensor | None = None) -> torch.Tensor:
        features = self.features_extractor(observations.float())
        logits = self.action_net(self.mlp_extractor.policy_net(features))
        if masks is None:
            return logits
        logits = logits - logits.logsumexp(dim=-1, keepdim=True)  # torch's Categorical(logits=...)
        masked = torch.where(masks.bool(), logits, torch.tensor(-1e8, dtype=logits.dtype))
        return masked - masked.logsumexp(dim=-1, keepdim=True)

    def value(self, observations: torch.Tensor) -> torch.Tensor:
        """The value head's estimate ``(B,)`` (the learner's expected return)."""
        features = self.features_extractor(observations.float())
        return self.value_net(self.mlp_extractor.value_net(features)).squeeze(1)


POLICY_FIELDS = (
    "format",
    "version",
    "algorithm",
    "game",
    "params",
    "observation",
    "observation_size",
    "num_actions",
    "net_arch",
    "features",
)
POLICY_OPTIONAL = ("trained", "digest", "sha256")
FEATURES_KWARGS = ("holes", "total_seeds", "scale", "one_hot_max")
OBSERVATIONS = {"counts": "counts", "seed": "fractions"}  # what each features extractor reads
MAX_LAYERS, MAX_WIDTH = 16, 4096


def validate_policy_config(config: Any, game: Any = None) -> Any:
    """The game of a policy config after checking every field (module docstring of
    :mod:`~mancala_envs.agents.model_files`): no field missing or unknown, each of its type and
    range, the shapes and the features' ``holes`` and ``total_seeds`` those of the config's game,
    and, with ``game``, that game the one being played (any ``max_plies``). ``ValueError`` naming
    the field otherwise; ``trained`` is for the reader and only has to be an object."""
    check_keys(config, POLICY_FIELDS, POLICY_OPTIONAL)
    need_choice(config["format"], "format", [FORMAT])
    need_choice(config["version"], "version", [VERSION])
    need_choice(config["algorithm"], "algorithm", ["MaskablePPO"])
    model_game = config_game(config)
    if game is not None:
        check_model_game(model_game, game, "policy")
    need_equal(config["observation_size"], "observation_size", model_game.observation_size)
    need_equal(config["num_actions"], "num_actions", model_game.num_actions)
    for i, width in enumerate(need_list(config["net_arch"], "net_arch", 0, MAX_LAYERS)):
        need_int(width, f"net_arch[{i}]", 1, MAX_WIDTH)
    features = check_keys(config["features"], ("name", "kwargs"), (), "features")
    name = need_choice(features["name"], "features.name", sorted(EXTRACTORS))
    need_choice(config["observation"], "observation", [OBSERVATIONS[name]])
    kwargs = check_keys(features["kwargs"], FEATURES_KWARGS, (), "features.kwargs")
    holes, seeds = model_game.holes_per_row, model_game.total_seeds
    need_equal(kwargs["holes"], "features.kwargs.holes", holes)
    need_equal(kwargs["total_seeds"], "features.kwargs.total_seeds", seeds)
    need_number(kwargs["scale"], "features.kwargs.scale", positive=True)
    need_int(kwargs["one_hot_max"], "features.kwargs.one_hot_max", 0, seeds)
    check_file_record(config)
    return model_game


def build_policy(config: dict[str, Any]) -> PolicyNet:
    """An untrained :class:`PolicyNet` of the architecture ``config`` describes."""
    features = config["features"]
    return PolicyNet(
        int(config["observation_size"]),
        int(config["num_actions"]),
        [int(x) for x in config["net_arch"]],
        features["name"],
        dict(features.get("kwargs", {})),
    )


def build_sb3_policy(config: dict[str, Any]) -> Any:
    """An untrained sb3-contrib ``MaskableActorCriticPolicy`` of the architecture ``config``
    describes (the ``[sb3]`` extra); it takes the same state dict as :func:`build_policy`'s."""
    require("sb3_contrib", "sb3", "an SB3 policy")
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    features = config["features"]
    if features["name"] not in EXTRACTORS:
        raise ValueError(f"unknown features extractor {features['name']!r}; known: {sorted(EXTRACTORS)}")
    high = np.inf if config["observation"] == "counts" else 1.0
    obs_space = spaces.Box(0.0, high, (int(config["observation_size"]),), np.float32)
    return MaskableActorCriticPolicy(
        obs_space,
        spaces.Discrete(int(config["num_actions"])),
        lr_schedule=lambda _: 0.0,
        net_arch=[int(x) for x in config["net_arch"]],
        features_extractor_class=EXTRACTORS[features["name"]],
        features_extractor_kwargs=dict(features.get("kwargs", {})),
    )


def load_policy(path: str | os.PathLike) -> tuple[PolicyNet, dict[str, Any]]:
    """The :class:`PolicyNet` (on the CPU, in eval mode) and config of a safe pair, every field
    checked (:func:`validate_policy_config`) and the weights against the config's ``sha256``;
    ``ValueError`` naming the file for anything missing, damaged or of another format
    (:func:`~mancala_envs.agents.model_files.load_pair`)."""
    policy, config = load_pair(
        *pair_paths(path), "policy", FORMAT, VERSION, build_policy, validate_policy_config
    )
    policy.eval()
    return policy, config
