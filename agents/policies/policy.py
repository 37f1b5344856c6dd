"""An agent that plays a trained MaskablePPO policy: ``make_agent("policy[:path=...][,sample=true]")``.

Files: the safe pair ``NAME.json`` + ``NAME.pt`` that ``training/train_ppo.py`` writes
(:mod:`mancala_envs.agents.model_files`; give either path), played by a torch-only network
(:class:`~mancala_envs.agents.policies.network.PolicyNet`: the ``[agents]`` extra, no SB3), or,
with ``trusted=true``, an sb3-contrib ``.zip`` checkpoint (a pickle: only from a source you
trust; the ``[sb3]`` extra). With no path the agent plays the shipped
model of the game being played, ``models/<game>.json``. ``model=`` takes a policy in memory: a
``MaskablePPO`` model, its ``policy``, or a callable ``f(obs, mask) -> logits`` on torch tensors.

The policy sees the core's view of the player to move (``game.counts`` for models trained on raw
counts, ``game.observation`` otherwise) and his legal mask. Illegal moves get no probability; the
agent plays the most likely legal move, or samples one with its own generator when ``sample``
(``temperature=T``: a sample of the softmax of logits / T).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from mancala_envs.agents.base import CHECKED_KEPT, NetworkAgent, spec_name, spec_number
from mancala_envs.agents.model_files import shipped_model
from mancala_envs.game import Game
from mancala_envs.infra.extras import require
from mancala_envs.infra.lru import LRU


def shipped_policy(game: Game) -> Path:
    """The shipped ``<variant>.json`` (package data ``mancala_envs.models``); ``ValueError`` when it
    is not there."""
    return shipped_model(game, "policy", "policy")


class PolicyAgent(NetworkAgent):
    """Plays the policy loaded from ``path`` (or ``model``, or the shipped one for the game)."""

    def __init__(
        self,
        path: str | Path | None = None,
        sample: bool = False,
        trusted: bool = False,
        temperature: float | None = None,
        seed: int = 0,
        model: Any = None,
        observation: str = "fractions",
    ):
        for what, flag in (("sample", sample), ("trusted", trusted)):
            if not isinstance(flag, bool):
                raise ValueError(f"policy {what} must be true or false, got {flag!r}")
        if path is not None and model is not None:
            raise ValueError("give a policy path or a model, not both")
        if temperature is not None and (isinstance(temperature, bool) or not 0 < temperature < float("inf")):
            raise ValueError(f"policy temperature must be a positive number, got {temperature!r}")
        super().__init__(seed)
        params = {
            "path": path,
            "sample": "true" if sample and temperature is None else None,
            "temperature": None if temperature is None else spec_number(temperature),
            "trusted": "true" if trusted else None,
        }
        self.name = spec_name("policy", params)
        self.sample = sample or temperature is not None
        self.temperature = 1.0 if temperature is None else float(temperature)
        self._config: dict[str, Any] = {}
        self._shipped: dict[str, tuple[Any, dict[str, Any]]] = {}
        self._checked: LRU[bool] = LRU(CHECKED_KEPT)  # (config, game) pairs validate_policy_config accepted
        self._from_file = path is not None and Path(path).suffix != ".zip"
        self.model = None if path is None else self._load(Path(path), trusted)
        if model is not None:
            if observation not in ("fractions", "counts"):
                raise ValueError(f"observation must be 'fractions' or 'counts', got {observation!r}")
            self.model = getattr(model, "policy", model)
            self._config = {"observation": observation}

    def _load(self, path: Path, trusted: bool) -> Any:
        from mancala_envs.agents.model_files import load_zip

        if path.suffix == ".zip":
            return load_zip(path, trusted).policy
        from mancala_envs.agents.policies.network import load_policy

        policy, self._config = load_policy(path)
        return policy

    def _model_for(self, game: Game) -> Any:
        if self.model is not None:
            self.counts = self._config.get("observation") == "counts"
            if self._from_file:
                self._check_game(self.model, self._config, game)
            return self.model
        if game.name not in self._shipped:
            from mancala_envs.agents.policies.network import load_policy

            self._shipped[game.name] = load_policy(shipped_policy(game))
        policy, config = self._shipped[game.name]
        self._check_game(policy, config, game)
        self.counts = config.get("observation") == "counts"
        return policy

    def _check_game(self, policy: Any, config: dict[str, Any], game: Game) -> None:
        """``ValueError`` unless the policy of a safe pair can play ``game``: its shapes, then its
        config's game and parameters (any ``max_plies``); once per config and game."""
        key = (id(config), game.name, tuple(sorted(game.params.items())))
        if key in self._checked:
            return
        from mancala_envs.agents.policies.network import validate_policy_config

        _check_shapes(game, (policy.observation_size,), policy.num_actions)
        validate_policy_config(config, game)
        self._checked.put(key, True)

    def prepare(self, game: Game) -> None:
        """Load the game's policy now (and learn which observation it reads)."""
        self._model_for(game)

    def act(self, game: Game, state: Any) -> int:
        self.prepare(game)
        return super().act(game, state)

    def act_batch(self, game: Game, states: np.ndarray) -> np.ndarray:
        self.prepare(game)
        return super().act_batch(game, states)

    def logits(self, game: Game, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Masked logits ``(B, n)`` (``-inf`` on illegal moves) for a batch of observations: the
        log-probabilities of the policy's masked distribution (or what a callable model gives)."""
        torch = require("torch", "agents", "the policy agent")

        model = self._model_for(game)
        mask = masks.astype(bool)
        with torch.no_grad():
            if hasattr(model, "get_distribution"):  # an SB3 policy
                from gymnasium import spaces

                space = model.observation_space
                as_dict = isinstance(space, spaces.Dict)
                expected = tuple((space["observation"] if as_dict else space).shape)
                _check_shapes(game, expected, getattr(model.action_space, "n", None))
                obs: Any = (
                    {"observation": observations, "action_mask": masks.astype(np.int8)}
                    if as_dict
                    else observations
                )
                tensor, _ = model.obs_to_tensor(obs)
                out = model.get_distribution(tensor, action_masks=mask).distribution.logits
            else:
                if hasattr(model, "observation_size"):  # a PolicyNet, the torch-only network of a safe pair
                    _check_shapes(game, (model.observation_size,), model.num_actions)
                out = model(torch.as_tensor(observations), torch.as_tensor(mask))
        out = np.asarray(out.detach().cpu().numpy() if hasattr(out, "detach") else out, dtype=np.float64)
        if out.shape != mask.shape:
            raise ValueError(f"the policy gave logits of shape {out.shape}, expected {mask.shape}")
        return np.where(mask, out, -np.inf)

    def values(self, game: Game, observations: np.ndarray) -> np.ndarray | None:
        """The value head's estimate ``(B,)`` of a batch of observations (the learner's expected
        return), or None for a model without one (a callable)."""
        torch = require("torch", "agents", "the policy agent")

        model = self._model_for(game)
        with torch.no_grad():
            if hasattr(model, "predict_values"):  # an SB3 policy
                tensor, _ = model.obs_to_tensor(observations)
                return model.predict_values(tensor).cpu().numpy().reshape(-1).astype(np.float64)
            if hasattr(model, "value"):  # a PolicyNet
                return model.value(torch.as_tensor(observations)).numpy().astype(np.float64)
        return None


def _check_shapes(game: Game, observation: tuple[int, ...], actions: int | None) -> None:
    """``ValueError`` when a policy's observation shape or number of actions is not ``game``'s."""
    if observation != (game.observation_size,) or actions != game.num_actions:
        raise ValueError(
            f"the policy expects observations of shape {observation} and {actions} actions; "
            f"{game.name} has ({game.observation_size},) and {game.num_actions}"
        )
