"""The AlphaZero network and its files: a small torch MLP over the core's raw seed counts, with a
policy head (one logit per hole) and a value head (tanh, for the player to move).

**Input** (``game.counts``, ``game.counts_batch``: the mover's view, raw counts): the counts
scaled by ``scale / total_seeds``, the opening flags (Sadeqa II) and a one-hot code of every hole's
count (0 .. ``one_hot_max``, larger counts in the last slot). The one-hot code enters the first
layer as an ``EmbeddingBag`` (a sum of one learnt row per hole and count), which is that linear
layer on the one-hot vector without building it.

**Lookahead** (``network.lookahead`` = W > 0; ``observation: "lookahead"``): the input is
``Game.lookahead_batch`` — the view, then for each move the core's result of playing it (legal,
game over, the mover's outcome, his view after the move). The trunk reads the view as above; a
per-move head of width W scores each move from its block (the same first layer on the view after
the move, plus the flags and the trunk's features) and adds the score to that move's policy logit.
The value head reads the trunk only. The rules are not in the network: the core plays each move,
the network learns what the results are worth.

**Files** (safe to load, as :mod:`agents.policy_files`): ``NAME.pt``, the weights
(``torch.load(weights_only=True)``), and ``NAME.json``, the config that rebuilds the network:
``format`` (``"mancala_envs.az"``), ``version``, ``game``, ``params``, ``observation_size``,
``num_actions``, ``network`` (``hidden``, ``one_hot_max``, ``scale``, and ``lookahead`` when
it is used), ``search`` (what the training used: ``sims``, ``max_considered``, ``c_visit``,
``c_scale``) and ``trained``.
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
from mancala_envs.core.batch import LOOKAHEAD_FLAGS

FORMAT, VERSION = "mancala_envs.az", 1


class AZNet(nn.Module):
    """``forward(x) -> (logits (B, n), value (B,))``; ``x``: float raw-count views, or with
    ``lookahead`` > 0 the rows of ``Game.lookahead_batch`` (module docstring)."""

    def __init__(
        self,
        holes: int,
        observation_size: int,
        total_seeds: int,
        hidden: tuple[int, ...] = (128, 128),
        one_hot_max: int = 20,
        scale: float = 10.0,
        lookahead: int = 0,
    ):
        super().__init__()
        if not hidden or min(hidden) < 1 or one_hot_max < 1 or lookahead < 0:
            raise ValueError(
                f"hidden layers and one_hot_max must be positive and lookahead >= 0, got {hidden}, "
                f"{one_hot_max}, {lookahead}"
            )
        self.holes, self.cells, self.one_hot_max = int(holes), 2 * int(holes), int(one_hot_max)
        self.view_size, self.lookahead = int(observation_size), int(lookahead)
        self.factor = float(scale) / float(total_seeds)
        width, codes = int(hidden[0]), self.cells * (self.one_hot_max + 1)
        self.counts_in = nn.Linear(self.view_size, width)
        self.one_hot_in = nn.EmbeddingBag(codes, width, mode="sum")
        self.register_buffer(
            "offsets", torch.arange(self.cells, dtype=torch.long) * (self.one_hot_max + 1), persistent=False
        )
        layers: list[nn.Module] = []
        for a, b in itertools.pairwise(hidden):
            layers += [nn.Linear(int(a), int(b)), nn.ReLU()]
        self.trunk = nn.Sequential(*layers)
        self.policy_head = nn.Linear(int(hidden[-1]), self.holes)
        self.value_head = nn.Linear(int(hidden[-1]), 1)
        if self.lookahead:
            w = self.lookahead
            self.after_counts_in = nn.Linear(self.view_size, w)
            self.after_one_hot_in = nn.EmbeddingBag(codes, w, mode="sum")
            self.after_flags = nn.Linear(LOOKAHEAD_FLAGS, w)
            self.after_context = nn.Linear(int(hidden[-1]), w)
            self.after_hidden = nn.Linear(w, w)
            self.after_score = nn.Linear(w, 1)

    def encode(self, views: torch.Tensor, counts_in: nn.Linear, one_hot_in: nn.EmbeddingBag) -> torch.Tensor:
        """A first layer (before its ReLU) on raw-count views: the scaled counts and the one-hot
        code of every hole's count."""
        scaled = torch.cat([views[:, : self.cells + 2] * self.factor, views[:, self.cells + 2 :]], dim=1)
        index = views[:, : self.cells].round().long().clamp_(0, self.one_hot_max) + self.offsets
        return counts_in(scaled) + one_hot_in(index)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x = x.float()
        h = self.trunk(torch.relu(self.encode(x[:, : self.view_size], self.counts_in, self.one_hot_in)))
        logits = self.policy_head(h)
        if self.lookahead:
            blocks = x[:, self.view_size :].reshape(len(x), self.holes, LOOKAHEAD_FLAGS + self.view_size)
            flags = blocks[:, :, :LOOKAHEAD_FLAGS]
            views = blocks[:, :, LOOKAHEAD_FLAGS:].reshape(-1, self.view_size)
            after = self.encode(views, self.after_counts_in, self.after_one_hot_in)
            z = after.reshape(len(x), self.holes, -1) + self.after_flags(flags)
            z = torch.relu(z + self.after_context(h).unsqueeze(1))
            logits = logits + self.after_score(torch.relu(self.after_hidden(z))).squeeze(2)
        return logits, torch.tanh(self.value_head(h)).squeeze(1)


def network_config(
    game: Any, hidden: list[int], one_hot_max: int, scale: float, lookahead: int = 0
) -> dict[str, Any]:
    """The ``network`` entry of a config and the game's shapes (the part that rebuilds the net)."""
    network: dict[str, Any] = {
        "hidden": [int(h) for h in hidden],
        "one_hot_max": int(one_hot_max),
        "scale": float(scale),
    }
    if lookahead:
        network["lookahead"] = int(lookahead)
    return {
        "game": game.name,
        "params": dict(game.params),
        "observation": "lookahead" if lookahead else "counts",
        "observation_size": game.observation_size,
        "num_actions": game.num_actions,
        "total_seeds": game.total_seeds,
        "network": network,
    }


def uses_lookahead(config: dict[str, Any]) -> bool:
    """Whether the network of ``config`` reads ``Game.lookahead_batch`` rows (else raw counts)."""
    return int(config.get("network", {}).get("lookahead", 0)) > 0


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
        lookahead=int(net.get("lookahead", 0)),
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
