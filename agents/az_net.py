"""The AlphaZero network and its files: a small torch MLP over the core's raw seed counts, with a
policy head (one logit per hole) and a value head (tanh, for the player to move).

**Input** (``game.counts``, ``game.counts_batch``: the mover's view, raw counts): the features of
:class:`training.features.CountFeatures` — the counts scaled by ``scale / total_seeds``, the
opening flags (Sadeqa II) and a one-hot code of every hole's count (0 .. ``one_hot_max``, larger
counts in the last slot). The one-hot code enters the first layer as an ``EmbeddingBag`` (a sum
of one learnt row per hole and count), which is that linear layer on the one-hot vector without
building it.

**Files** (safe to load, as :mod:`agents.policy_files`): ``NAME.pt``, the weights
(``torch.load(weights_only=True)``), and ``NAME.json``, the config that rebuilds the network:
``format`` (``"mancala_envs.az"``), ``version``, ``game``, ``params``, ``observation_size``,
``num_actions``, ``network`` (``hidden``, ``one_hot_max``, ``scale``), ``search`` (what the
training used: ``sims``, ``max_considered``, ``c_visit``, ``c_scale``) and ``trained``.
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.policy_files import load_pair, pair_paths, save_pair

FORMAT, VERSION = "mancala_envs.az", 1


class AZNet(nn.Module):
    """``forward(counts) -> (logits (B, n), value (B,))``; ``counts``: float raw-count views."""

    def __init__(
        self,
        holes: int,
        observation_size: int,
        total_seeds: int,
        hidden: tuple[int, ...] = (128, 128),
        one_hot_max: int = 20,
        scale: float = 10.0,
    ):
        super().__init__()
        if not hidden or min(hidden) < 1 or one_hot_max < 1:
            raise ValueError(f"hidden layers and one_hot_max must be positive, got {hidden}, {one_hot_max}")
        self.holes, self.cells, self.one_hot_max = int(holes), 2 * int(holes), int(one_hot_max)
        self.factor = float(scale) / float(total_seeds)
        width = int(hidden[0])
        self.counts_in = nn.Linear(int(observation_size), width)
        self.one_hot_in = nn.EmbeddingBag(self.cells * (self.one_hot_max + 1), width, mode="sum")
        self.register_buffer(
            "offsets", torch.arange(self.cells, dtype=torch.long) * (self.one_hot_max + 1), persistent=False
        )
        layers: list[nn.Module] = []
        for a, b in itertools.pairwise(hidden):
            layers += [nn.Linear(int(a), int(b)), nn.ReLU()]
        self.trunk = nn.Sequential(*layers)
        self.policy_head = nn.Linear(int(hidden[-1]), self.holes)
        self.value_head = nn.Linear(int(hidden[-1]), 1)

    def forward(self, counts: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x = counts.float()
        scaled = torch.cat([x[:, : self.cells + 2] * self.factor, x[:, self.cells + 2 :]], dim=1)
        index = x[:, : self.cells].round().long().clamp_(0, self.one_hot_max) + self.offsets
        h = torch.relu(self.counts_in(scaled) + self.one_hot_in(index))
        h = self.trunk(h)
        return self.policy_head(h), torch.tanh(self.value_head(h)).squeeze(1)


def network_config(game: Any, hidden: list[int], one_hot_max: int, scale: float) -> dict[str, Any]:
    """The ``network`` entry of a config and the game's shapes (the part that rebuilds the net)."""
    return {
        "game": game.name,
        "params": dict(game.params),
        "observation": "counts",
        "observation_size": game.observation_size,
        "num_actions": game.num_actions,
        "total_seeds": game.total_seeds,
        "network": {
            "hidden": [int(h) for h in hidden],
            "one_hot_max": int(one_hot_max),
            "scale": float(scale),
        },
    }


def build_network(config: dict[str, Any]) -> AZNet:
    """An untrained :class:`AZNet` of the architecture ``config`` describes."""
    net = config["network"]
    return AZNet(
        holes=int(config["num_actions"]),
        observation_size=int(config["observation_size"]),
        total_seeds=int(config["total_seeds"]),
        hidden=tuple(int(h) for h in net["hidden"]),
        one_hot_max=int(net["one_hot_max"]),
        scale=float(net["scale"]),
    )


def save_network(net: AZNet, path: str | os.PathLike, config: dict[str, Any]) -> tuple[Path, Path]:
    """Write the weights, then the config (:func:`agents.policy_files.save_pair`)."""
    return save_pair(net, path, FORMAT, VERSION, config)


def load_network(path: str | os.PathLike) -> tuple[AZNet, dict[str, Any]]:
    """The network (CPU, eval mode) and config of a saved pair; ``ValueError`` naming the file for
    anything missing, damaged or of another format (:func:`agents.policy_files.load_pair`)."""
    net, config = load_pair(*pair_paths(path), "az model", FORMAT, VERSION, build_network)
    net.eval()
    return net, config


def torch_evaluator(net: AZNet):
    """An evaluator for :class:`agents.az_search.GumbelSearch`: ``obs -> (logits, values)`` as
    numpy, the network run on the device its weights are on."""
    device = next(net.parameters()).device

    def evaluate(obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        with torch.inference_mode():
            logits, value = net(torch.from_numpy(obs).to(device))
        return logits.cpu().numpy(), value.cpu().numpy()

    return evaluate
