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

**Replies** (``network.replies`` = R > 0, with a lookahead): the input is the two-ply
``Game.lookahead_batch(states, plies=2)``, which adds a block for every move and every reply to it
(what the position after both means to the mover). A reply encoder of width R reads each such
block (a linear layer on the scaled counts and the flags, plus the trunk's features; then a hidden
layer); for each move its replies' features are pooled — the maximum and the mean over the legal
replies, so the network can learn the reply that hurts most as well as the average one — and a
linear layer adds the pooled features to that move's per-move head, before its ReLU. That layer
starts at zero, so a new reply encoder leaves a one-ply network's play unchanged
(:func:`load_first_ply`: a two-ply run can start from a one-ply model).

**Files** (safe to load, as :mod:`agents.policy_files`): ``NAME.pt``, the weights
(``torch.load(weights_only=True)``), and ``NAME.json``, the config that rebuilds the network:
``format`` (``"mancala_envs.az"``), ``version``, ``game``, ``params``, ``observation_size``,
``num_actions``, ``network`` (``hidden``, ``one_hot_max``, ``scale``, and ``lookahead`` and
``replies`` when they are used), ``search`` (what the training used: ``sims``,
``max_considered``, ``c_visit``, ``c_scale``) and ``trained``.
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
    ``lookahead`` > 0 the rows of ``Game.lookahead_batch`` (two plies when ``replies`` > 0;
    module docstring)."""

    def __init__(
        self,
        holes: int,
        observation_size: int,
        total_seeds: int,
        hidden: tuple[int, ...] = (128, 128),
        one_hot_max: int = 20,
        scale: float = 10.0,
        lookahead: int = 0,
        replies: int = 0,
    ):
        super().__init__()
        if not hidden or min(hidden) < 1 or one_hot_max < 1 or lookahead < 0 or replies < 0:
            raise ValueError(
                f"hidden layers and one_hot_max must be positive and lookahead, replies >= 0, got "
                f"{hidden}, {one_hot_max}, {lookahead}, {replies}"
            )
        if replies and not lookahead:
            raise ValueError("a reply encoder (replies > 0) needs the per-move head (lookahead > 0)")
        self.holes, self.cells, self.one_hot_max = int(holes), 2 * int(holes), int(one_hot_max)
        self.view_size, self.lookahead, self.replies = int(observation_size), int(lookahead), int(replies)
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
        if self.replies:
            r = self.replies
            self.reply_counts_in = nn.Linear(self.view_size, r)
            self.reply_flags = nn.Linear(LOOKAHEAD_FLAGS, r)
            self.reply_context = nn.Linear(int(hidden[-1]), r)
            self.reply_hidden = nn.Linear(r, r)
            self.reply_to_move = nn.Linear(2 * r, self.lookahead)
            nn.init.zeros_(self.reply_to_move.weight)  # a new reply encoder changes nothing yet
            nn.init.zeros_(self.reply_to_move.bias)

    def scaled(self, views: torch.Tensor) -> torch.Tensor:
        """Raw-count views (last dimension) with the seed counts scaled, the flags kept."""
        cut = self.cells + 2
        return torch.cat([views[..., :cut] * self.factor, views[..., cut:]], dim=-1)

    def encode(self, views: torch.Tensor, counts_in: nn.Linear, one_hot_in: nn.EmbeddingBag) -> torch.Tensor:
        """A first layer (before its ReLU) on raw-count views: the scaled counts and the one-hot
        code of every hole's count."""
        index = views[:, : self.cells].round().long().clamp_(0, self.one_hot_max) + self.offsets
        return counts_in(self.scaled(views)) + one_hot_in(index)

    def body(self, views: torch.Tensor) -> torch.Tensor:
        """The trunk's features of float raw-count views (what the value and policy heads read)."""
        return self.trunk(torch.relu(self.encode(views, self.counts_in, self.one_hot_in)))

    def value(self, views: torch.Tensor) -> torch.Tensor:
        """The value head alone, ``(B,)``, for the player to move of raw-count ``views``: the value
        :meth:`forward` gives, which reads the view only (never the lookahead blocks)."""
        return torch.tanh(self.value_head(self.body(views.float()))).squeeze(1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x = x.float()
        h = self.body(x[:, : self.view_size])
        logits = self.policy_head(h)
        if self.lookahead:
            block, n = LOOKAHEAD_FLAGS + self.view_size, self.holes
            first = self.view_size + n * block
            blocks = x[:, self.view_size : first].reshape(len(x), n, block)
            flags = blocks[:, :, :LOOKAHEAD_FLAGS]
            views = blocks[:, :, LOOKAHEAD_FLAGS:].reshape(-1, self.view_size)
            after = self.encode(views, self.after_counts_in, self.after_one_hot_in)
            z = after.reshape(len(x), n, -1) + self.after_flags(flags) + self.after_context(h).unsqueeze(1)
            if self.replies:
                z = z + self.reply_to_move(self.pooled_replies(x[:, first:].reshape(len(x), n, n, block), h))
            logits = logits + self.after_score(torch.relu(self.after_hidden(torch.relu(z)))).squeeze(2)
        return logits, torch.tanh(self.value_head(h)).squeeze(1)

    def pooled_replies(self, blocks: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        """``(B, n, 2R)``: per move, the maximum and the mean of its legal replies' features
        (zero for a move with none); ``blocks``: ``(B, n, n, block)`` reply blocks."""
        legal = blocks[..., :1]
        e = self.reply_counts_in(self.scaled(blocks[..., LOOKAHEAD_FLAGS:])) + self.reply_flags(
            blocks[..., :LOOKAHEAD_FLAGS]
        )
        e = torch.relu(e + self.reply_context(h)[:, None, None, :])
        e = torch.relu(self.reply_hidden(e)) * legal  # features >= 0: an illegal reply adds 0
        count = legal.sum(2).clamp_min(1.0)
        return torch.cat([e.amax(2), e.sum(2) / count], dim=2)


def network_config(
    game: Any, hidden: list[int], one_hot_max: int, scale: float, lookahead: int = 0, replies: int = 0
) -> dict[str, Any]:
    """The ``network`` entry of a config and the game's shapes (the part that rebuilds the net)."""
    if replies and not lookahead:
        raise ValueError("a reply encoder (replies > 0) needs the per-move head (lookahead > 0)")
    network: dict[str, Any] = {
        "hidden": [int(h) for h in hidden],
        "one_hot_max": int(one_hot_max),
        "scale": float(scale),
    }
    if lookahead:
        network["lookahead"] = int(lookahead)
    if replies:
        network["replies"] = int(replies)
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
    return lookahead_plies(config) > 0


def input_plies(lookahead: int, replies: int) -> int:
    """The plies of the lookahead rows a network reads: 0 (raw counts: no per-move head), 1, or 2
    (with a reply encoder)."""
    return 0 if not lookahead else 2 if replies else 1


def lookahead_plies(config: dict[str, Any]) -> int:
    """:func:`input_plies` of the network of ``config``."""
    network = config.get("network", {})
    return input_plies(int(network.get("lookahead", 0)), int(network.get("replies", 0)))


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
        replies=int(net.get("replies", 0)),
    )


def load_first_ply(net: AZNet, weights: dict[str, torch.Tensor]) -> None:
    """Load a one-ply network's ``weights`` into the two-ply ``net`` of the same shapes: every
    layer but the reply encoder's, which keeps its initialisation (its output layer is zero, so
    ``net`` then plays as the one-ply network did). ``ValueError`` when anything else differs."""
    try:
        missing, unexpected = net.load_state_dict(weights, strict=False)
    except RuntimeError as e:  # a layer of another shape
        raise ValueError(f"not the same network apart from the reply encoder: {e}") from None
    extra = [k for k in missing if not k.startswith("reply_")]
    if extra or unexpected:
        raise ValueError(f"not the same network apart from the reply encoder: {sorted(extra + unexpected)}")


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
