"""A width-independent az network (``"network": {"kind": "conv1d", ...}``): a circular 1-D
convolution over the board's ``2n`` holes as the mover sees them, so that the same weights play
any number of holes a row.

The board is a cycle (RULES.md §1) and the mover's raw-count view (``game.counts``) is the board
rolled to his seat: his row first, then the opponent's, then his and the opponent's captured
seeds (and Sadeqa II's opening flags). Every hole gets the input channels

    [count / seeds a hole at the start, one-hot of the count (0 .. one_hot_max, larger counts in
     the last slot), 1 on the mover's row, captured seeds / total seeds (mover, opponent), flags]

(the view's entries after the holes are the same in every hole). A first circular convolution of
``kernel`` holes and ``blocks`` residual blocks follow; a block is a convolution and its ReLU, plus
a linear layer of the mean over the holes (a global context, since a relay sowing can reach any
hole), then a second convolution added to the block's input before a ReLU. The policy reads one
logit per hole of the mover's row (a 1x1 convolution); the value head reads the mean and the
maximum of every channel over the holes and the entries after the holes (a hidden layer, tanh).

The number of holes is read from the input's width: nothing in the weights depends on it. The
entries after the holes (``extras``) and the seeds a hole at the start (``seeds_per_hole``) are
the game's and fixed.
"""

from __future__ import annotations

from typing import Any

from mancala_envs.infra.config_files import check_keys, need_choice, need_int
from mancala_envs.infra.extras import require

require("torch", "agents", "the az agent's network")

import torch  # noqa: E402  (after the clear message above)
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

KIND = "conv1d"
CONV_FIELDS = ("kind", "channels", "blocks", "kernel", "one_hot_max", "value_hidden")
CONV_DEFAULTS = {"channels": 32, "blocks": 3, "kernel": 5, "one_hot_max": 12, "value_hidden": 64}
MAX_CHANNELS, MAX_BLOCKS, MAX_KERNEL = 1024, 64, 11
CAPTURED = 2  # the view's captured seeds (mover, opponent), right after the holes


class ConvNet(nn.Module):
    """``forward(x) -> (logits (B, n), value (B,))`` for raw-count views ``x`` of any ``2n + extras``
    entries (module docstring)."""

    kind = KIND
    lookahead = replies = third = 0  # reads the raw-count view only

    def __init__(
        self,
        extras: int,
        seeds_per_hole: float,
        channels: int = 32,
        blocks: int = 3,
        kernel: int = 5,
        one_hot_max: int = 12,
        value_hidden: int = 64,
    ):
        super().__init__()
        if min(channels, value_hidden, one_hot_max, kernel) < 1 or blocks < 0 or kernel % 2 == 0:
            raise ValueError(
                f"channels, value_hidden, one_hot_max must be positive, blocks >= 0, kernel odd and "
                f"positive, got {channels}, {value_hidden}, {one_hot_max}, {blocks}, {kernel}"
            )
        if extras < CAPTURED or seeds_per_hole <= 0:
            raise ValueError(
                f"a view has >= 2 entries after the holes and seeds, got {extras}, {seeds_per_hole}"
            )
        self.extras, self.one_hot_max, self.kernel = int(extras), int(one_hot_max), int(kernel)
        self.per_hole = float(seeds_per_hole)
        self.in_channels = 2 + (self.one_hot_max + 1) + self.extras
        c = int(channels)

        def conv(a: int, b: int) -> nn.Conv1d:
            return nn.Conv1d(a, b, self.kernel, padding=self.kernel // 2, padding_mode="circular")

        self.conv_in = conv(self.in_channels, c)
        self.conv_a = nn.ModuleList(conv(c, c) for _ in range(blocks))
        self.context = nn.ModuleList(nn.Linear(c, c) for _ in range(blocks))
        self.conv_b = nn.ModuleList(conv(c, c) for _ in range(blocks))
        self.policy_head = nn.Conv1d(c, 1, 1)
        self.value_hidden = nn.Linear(2 * c + self.extras, int(value_hidden))
        self.value_head = nn.Linear(int(value_hidden), 1)

    def features(self, x: torch.Tensor) -> torch.Tensor:
        """``(B, in_channels, cells)``: the input channels of every hole (module docstring)."""
        x = x.float()
        cells = x.shape[1] - self.extras
        if cells < 2 or cells % 2:
            raise ValueError(
                f"a view of {x.shape[1]} entries has no even number of holes before its {self.extras}"
            )
        counts, rest = x[:, :cells], x[:, cells:]
        rest = torch.cat([rest[:, :CAPTURED] / (self.per_hole * cells), rest[:, CAPTURED:]], dim=1)
        code = F.one_hot(counts.round().long().clamp(0, self.one_hot_max), self.one_hot_max + 1)
        own = torch.zeros_like(counts)
        own[:, : cells // 2] = 1.0
        per_hole = [(counts / self.per_hole).unsqueeze(1), code.permute(0, 2, 1).float(), own.unsqueeze(1)]
        return torch.cat([*per_hole, rest.unsqueeze(2).expand(-1, -1, cells)], dim=1)

    def body(self, x: torch.Tensor) -> torch.Tensor:
        """``(B, channels, cells)``: the trunk's features of every hole of views ``x``."""
        return self.trunk(self.features(x))

    def trunk(self, features: torch.Tensor) -> torch.Tensor:
        """``(B, channels, cells)`` from the input channels (:meth:`features`): circular
        convolutions and means over the holes only, so rolling the holes of ``features`` rolls
        the result the same way."""
        h = torch.relu(self.conv_in(features))
        for conv_a, context, conv_b in zip(self.conv_a, self.context, self.conv_b, strict=True):
            y = torch.relu(conv_a(h))
            y = y + context(y.mean(dim=2)).unsqueeze(2)
            h = torch.relu(h + conv_b(y))
        return h

    def heads(self, x: torch.Tensor, h: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The policy logits of the mover's holes and the value, from the trunk's ``h``."""
        cells = h.shape[2]
        logits = self.policy_head(h[:, :, : cells // 2]).squeeze(1)
        rest = x.float()[:, cells:]
        rest = torch.cat([rest[:, :CAPTURED] / (self.per_hole * cells), rest[:, CAPTURED:]], dim=1)
        pooled = torch.cat([h.mean(dim=2), h.amax(dim=2), rest], dim=1)
        value = self.value_head(torch.relu(self.value_hidden(pooled)))
        return logits, torch.tanh(value).squeeze(1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.heads(x, self.body(x))

    def value(self, views: torch.Tensor) -> torch.Tensor:
        """The value head alone, ``(B,)``, for the player to move of raw-count ``views``."""
        return self.forward(views)[1]


def conv_network(
    channels: int, blocks: int, kernel: int, one_hot_max: int, value_hidden: int
) -> dict[str, Any]:
    """The ``network`` entry of a config of a :class:`ConvNet`."""
    sizes = (channels, blocks, kernel, one_hot_max, value_hidden)
    return {"kind": KIND, **{k: int(v) for k, v in zip(CONV_FIELDS[1:], sizes, strict=True)}}


def check_conv_network(net: Any, total_seeds: int) -> dict[str, Any]:
    """``ValueError`` naming the field unless ``net`` is a valid conv1d ``network`` entry."""
    check_keys(net, CONV_FIELDS, (), "network")
    need_choice(net["kind"], "network.kind", [KIND])
    need_int(net["channels"], "network.channels", 1, MAX_CHANNELS)
    need_int(net["blocks"], "network.blocks", 0, MAX_BLOCKS)
    need_int(net["kernel"], "network.kernel", 1, MAX_KERNEL)
    if net["kernel"] % 2 == 0:
        raise ValueError(f"network.kernel must be odd, got {net['kernel']}")
    need_int(net["one_hot_max"], "network.one_hot_max", 1, total_seeds)
    need_int(net["value_hidden"], "network.value_hidden", 1, MAX_CHANNELS * 4)
    return net


def build_conv(config: dict[str, Any]) -> ConvNet:
    """An untrained :class:`ConvNet` of ``config`` (its game's view: the entries after the holes
    and the seeds a hole at the start)."""
    net, cells = config["network"], 2 * int(config["num_actions"])
    return ConvNet(
        extras=int(config["observation_size"]) - cells,
        seeds_per_hole=int(config["total_seeds"]) / cells,
        **{k: int(net[k]) for k in CONV_FIELDS[1:]},
    )
