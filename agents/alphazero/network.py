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

**Third moves** (``network.third`` = T > 0, with a reply encoder): the input is the three-ply
``Game.lookahead_batch(states, plies=3)``, which adds a block for every move after every move and
reply. A third-move encoder of width T reads each such block (the scaled counts, the one-hot code
and the flags, plus a linear layer on the block of its move and reply; then a hidden layer); for
each move and reply the maximum and the mean of its legal third moves' features go, through a
linear layer that starts at zero, into that reply's features before their first ReLU (so a new
third-move encoder leaves a two-ply network's play unchanged: :func:`load_first_ply`).

**Files** (safe to load, as :mod:`mancala_envs.agents.model_files`): ``NAME.pt``, the weights
(``torch.load(weights_only=True)``), and ``NAME.json``, the config that rebuilds the network:
``format`` (``"mancala_envs.az"``), ``version``, ``game``, ``params``, ``observation_size``,
``num_actions``, ``network`` (``hidden``, ``one_hot_max``, ``scale``, and ``lookahead`` and
``replies`` and ``third`` when they are used; or a width-independent network's entry, ``"kind":
"conv1d"``: :mod:`~mancala_envs.agents.alphazero.conv_net`), ``widths`` (a width-independent
network's: every ``holes_per_row`` it was trained for and plays; ``params`` names one of them),
``search`` (what the training used: ``sims``,
``max_considered``, ``c_visit``, ``c_scale``, ``settle_decided``), ``sha256`` (the weights file's
SHA-256, checked before they are read) and ``trained``. :func:`validate_az_config` checks every
field, also against the game being played.
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path
from typing import Any

import numpy as np

from mancala_envs.agents.alphazero.conv_net import KIND as CONV_KIND
from mancala_envs.agents.alphazero.conv_net import ConvNet, build_conv, check_conv_network
from mancala_envs.agents.model_files import (
    check_file_record,
    check_model_game,
    config_game,
    load_pair,
    pair_paths,
    save_pair,
    with_width,
)
from mancala_envs.core.batch import LOOKAHEAD_FLAGS
from mancala_envs.infra.config_files import (
    check_keys,
    need_choice,
    need_equal,
    need_int,
    need_list,
    need_number,
)
from mancala_envs.infra.extras import require

require("torch", "agents", "the az agent's network")

import torch  # noqa: E402  (after the clear message above)
from torch import nn  # noqa: E402

FORMAT, VERSION = "mancala_envs.az", 1


class AZNet(nn.Module):
    """``forward(x) -> (logits (B, n), value (B,))``; ``x``: float raw-count views, or with
    ``lookahead`` > 0 the rows of ``Game.lookahead_batch`` (two plies when ``replies`` > 0, three
    when ``third`` > 0 too; module docstring)."""

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
        third: int = 0,
    ):
        super().__init__()
        if not hidden or min(hidden) < 1 or one_hot_max < 1 or min(lookahead, replies, third) < 0:
            raise ValueError(
                f"hidden layers and one_hot_max must be positive and lookahead, replies, third >= 0, "
                f"got {hidden}, {one_hot_max}, {lookahead}, {replies}, {third}"
            )
        check_plies(lookahead, replies, third)
        self.holes, self.cells, self.one_hot_max = int(holes), 2 * int(holes), int(one_hot_max)
        self.view_size, self.lookahead, self.replies = int(observation_size), int(lookahead), int(replies)
        self.third = int(third)
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
        if self.third:
            t, block = self.third, LOOKAHEAD_FLAGS + self.view_size
            self.third_counts_in = nn.Linear(self.view_size, t)
            self.third_one_hot_in = nn.EmbeddingBag(codes, t, mode="sum")
            self.third_flags = nn.Linear(LOOKAHEAD_FLAGS, t)
            self.third_context = nn.Linear(block, t)
            self.third_hidden = nn.Linear(t, t)
            self.third_to_reply = nn.Linear(2 * t, self.replies)
            nn.init.zeros_(self.third_to_reply.weight)  # a new third-move encoder changes nothing yet
            nn.init.zeros_(self.third_to_reply.bias)

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
                second = first + n * n * block
                replies = x[:, first:second].reshape(len(x), n, n, block)
                third = 0
                if self.third:
                    third = self.pooled_third(x[:, second:].reshape(len(x), n, n, n, block), replies)
                z = z + self.reply_to_move(self.pooled_replies(replies, h, third))
            logits = logits + self.after_score(torch.relu(self.after_hidden(torch.relu(z)))).squeeze(2)
        return logits, torch.tanh(self.value_head(h)).squeeze(1)

    def pooled_replies(
        self, blocks: torch.Tensor, h: torch.Tensor, third: torch.Tensor | int = 0
    ) -> torch.Tensor:
        """``(B, n, 2R)``: per move, the maximum and the mean of its legal replies' features
        (zero for a move with none); ``blocks``: ``(B, n, n, block)`` reply blocks; ``third``:
        :meth:`pooled_third`'s ``(B, n, n, R)`` for a three-ply network."""
        legal = blocks[..., :1]
        e = self.reply_counts_in(self.scaled(blocks[..., LOOKAHEAD_FLAGS:])) + self.reply_flags(
            blocks[..., :LOOKAHEAD_FLAGS]
        )
        e = torch.relu(e + self.reply_context(h)[:, None, None, :] + third)
        e = torch.relu(self.reply_hidden(e)) * legal  # features >= 0: an illegal reply adds 0
        return pool(e, legal, 2)

    def pooled_third(self, blocks: torch.Tensor, replies: torch.Tensor) -> torch.Tensor:
        """``(B, n, n, R)``: per move and reply, the maximum and the mean of its legal third
        moves' features, through ``third_to_reply``; ``blocks``: ``(B, n, n, n, block)``,
        ``replies``: their ``(B, n, n, block)`` reply blocks. Only the legal blocks (about a third
        of them) go through the encoder; the others count as zero features."""
        legal = blocks[..., 0] > 0
        where = legal.nonzero(as_tuple=True)
        chosen = blocks[where]
        context = torch.cat([replies[..., :LOOKAHEAD_FLAGS], self.scaled(replies[..., LOOKAHEAD_FLAGS:])], -1)
        e = self.encode(chosen[:, LOOKAHEAD_FLAGS:], self.third_counts_in, self.third_one_hot_in)
        e = e + self.third_flags(chosen[:, :LOOKAHEAD_FLAGS]) + self.third_context(context[where[:3]])
        e = torch.relu(self.third_hidden(torch.relu(e)))
        features = e.new_zeros((*legal.shape, e.shape[-1])).index_put(where, e)
        return self.third_to_reply(pool(features, legal.unsqueeze(-1).to(e.dtype), 3))


def pool(features: torch.Tensor, legal: torch.Tensor, dim: int) -> torch.Tensor:
    """The maximum and the mean over ``dim`` of non-negative ``features`` (zero where ``legal`` is
    0), side by side; zero where nothing is legal."""
    count = legal.sum(dim).clamp_min(1.0)
    return torch.cat([features.amax(dim), features.sum(dim) / count], dim=-1)


def check_plies(lookahead: int, replies: int, third: int) -> None:
    """``ValueError`` unless each ply's encoder has the one before it."""
    if replies and not lookahead:
        raise ValueError("a reply encoder (replies > 0) needs the per-move head (lookahead > 0)")
    if third and not replies:
        raise ValueError("a third-move encoder (third > 0) needs the reply encoder (replies > 0)")


def network_config(
    game: Any,
    hidden: list[int],
    one_hot_max: int,
    scale: float,
    lookahead: int = 0,
    replies: int = 0,
    third: int = 0,
    conv: dict[str, Any] | None = None,
    widths: list[int] | None = None,
) -> dict[str, Any]:
    """The ``network`` entry of a config and the game's shapes (the part that rebuilds the net):
    the MLP of ``hidden``..., or a width-independent network's entry ``conv``
    (:func:`~mancala_envs.agents.alphazero.conv_net.conv_network`), with the ``widths`` it plays."""
    check_plies(lookahead, replies, third)
    network: dict[str, Any] = {
        "hidden": [int(h) for h in hidden],
        "one_hot_max": int(one_hot_max),
        "scale": float(scale),
    }
    if conv is not None:
        if lookahead:
            raise ValueError("a width-independent network reads the counts only: lookahead must be 0")
        network, lookahead, replies, third = dict(conv), 0, 0, 0
    if lookahead:
        network["lookahead"] = int(lookahead)
    if replies:
        network["replies"] = int(replies)
    if third:
        network["third"] = int(third)
    return {
        "game": game.name,
        "params": dict(game.params),
        "observation": "lookahead" if lookahead else "counts",
        "observation_size": game.observation_size,
        "num_actions": game.num_actions,
        "total_seeds": game.total_seeds,
        "network": network,
    } | ({"widths": sorted(int(w) for w in widths)} if widths else {})


def uses_lookahead(config: dict[str, Any]) -> bool:
    """Whether the network of ``config`` reads ``Game.lookahead_batch`` rows (else raw counts)."""
    return lookahead_plies(config) > 0


def input_plies(lookahead: int, replies: int, third: int = 0) -> int:
    """The plies of the lookahead rows a network reads: 0 (raw counts: no per-move head), 1, 2
    (with a reply encoder) or 3 (with a third-move encoder too)."""
    return 0 if not lookahead else 1 if not replies else 3 if third else 2


def lookahead_plies(config: dict[str, Any]) -> int:
    """:func:`input_plies` of the network of ``config``."""
    network = config.get("network", {})
    return input_plies(*(int(network.get(k, 0)) for k in ("lookahead", "replies", "third")))


def engine_moves_per_evaluation(config: dict[str, Any]) -> int:
    """The engine moves one evaluation's input costs: the lookahead rows ``n + n**2 + ...`` to
    :func:`lookahead_plies` plies (``n`` holes a row, every move legal or not), 0 for raw counts."""
    n = int(config["num_actions"])
    return sum(n**k for k in range(1, lookahead_plies(config) + 1))


AZ_FIELDS = ("game", "params", "observation", "observation_size", "num_actions", "total_seeds", "network")
AZ_OPTIONAL = ("format", "version", "search", "trained", "digest", "sha256", "widths")
NETWORK_FIELDS, NETWORK_OPTIONAL = ("hidden", "one_hot_max", "scale"), ("lookahead", "replies", "third")
SEARCH_FIELDS = ("sims", "max_considered", "c_visit", "c_scale", "settle_decided")
MAX_LAYERS, MAX_WIDTH, MAX_SEARCH = 16, 4096, 100_000


def validate_az_config(config: Any, game: Any = None) -> Any:
    """The game of an az config after checking every field (module docstring): none missing or
    unknown, each of its type and range, the shapes and ``total_seeds`` those of the config's
    game, ``observation`` what the network reads, and, with ``game``, that game the one being
    played (any ``max_plies``). A file's ``search``, where it has one, lists ``sims``,
    ``max_considered``, ``c_visit`` and ``c_scale`` (``settle_decided``: True when absent, as in
    models from before the key); without one the agent's defaults search. ``ValueError`` naming
    the field otherwise."""
    check_keys(config, AZ_FIELDS, AZ_OPTIONAL)
    if "format" in config or "version" in config:
        need_choice(config.get("format"), "format", [FORMAT])
        need_choice(config.get("version"), "version", [VERSION])
    model_game = config_game(config)
    widths = check_widths(config, model_game)
    if game is not None:
        check_model_game(model_game, game, "az", widths)
    need_equal(config["observation_size"], "observation_size", model_game.observation_size)
    need_equal(config["num_actions"], "num_actions", model_game.num_actions)
    seeds = need_equal(config["total_seeds"], "total_seeds", model_game.total_seeds)
    if is_conv(config):
        check_conv_network(config["network"], seeds)
        plies = [0]
    else:
        net = check_keys(config["network"], NETWORK_FIELDS, NETWORK_OPTIONAL, "network")
        for i, width in enumerate(need_list(net["hidden"], "network.hidden", 1, MAX_LAYERS)):
            need_int(width, f"network.hidden[{i}]", 1, MAX_WIDTH)
        need_int(net["one_hot_max"], "network.one_hot_max", 1, seeds)
        need_number(net["scale"], "network.scale", positive=True)
        plies = [need_int(net.get(k, 0), f"network.{k}", 0, MAX_WIDTH) for k in NETWORK_OPTIONAL]
        check_plies(*plies)
    need_choice(config["observation"], "observation", ["lookahead" if plies[0] else "counts"])
    # a file's search block lists its four settings (settle_decided: True when absent); a network
    # saved without one (save_network of a bare network_config) searches with the agent's defaults
    required = SEARCH_FIELDS[:4] if "format" in config and "search" in config else ()
    search = check_keys(config.get("search", {}), required, SEARCH_FIELDS, "search")
    if "sims" in search:
        need_int(search["sims"], "search.sims", 0, MAX_SEARCH)
    if "max_considered" in search:
        need_int(search["max_considered"], "search.max_considered", 1, MAX_SEARCH)
    for key in ("c_visit", "c_scale"):
        if key in search:
            need_number(search[key], f"search.{key}", minimum=0)
    if "settle_decided" in search and not isinstance(search["settle_decided"], bool):
        raise ValueError(f"search.settle_decided must be true or false, got {search['settle_decided']!r}")
    check_file_record(config)
    return model_game


def is_conv(config: dict[str, Any]) -> bool:
    """Whether ``config``'s network is the width-independent one (``network.kind``)."""
    network = config.get("network")
    return isinstance(network, dict) and network.get("kind") == CONV_KIND


def check_widths(config: dict[str, Any], model_game: Any) -> tuple[int, ...]:
    """A config's ``widths`` (none: ``()``), checked: only with a width-independent network, a
    game with a ``holes_per_row`` parameter, each a valid one, ``params``' among them."""
    if "widths" not in config:
        return ()
    if not is_conv(config):
        raise ValueError("widths needs a width-independent network (network.kind conv1d)")
    if "holes_per_row" not in model_game.params:
        raise ValueError(f"widths: {model_game.title} has no holes_per_row parameter")
    widths = need_list(config["widths"], "widths", 1, MAX_LAYERS)
    for i, w in enumerate(widths):
        with_width(model_game, need_int(w, f"widths[{i}]"))  # ValueError: not a width of the game
    if model_game.holes_per_row not in widths or len(set(widths)) != len(widths):
        raise ValueError(f"widths must be distinct and hold params.holes_per_row, got {widths}")
    return tuple(int(w) for w in widths)


def build_network(config: dict[str, Any]) -> AZNet | ConvNet:
    """An untrained :class:`AZNet` (or :class:`ConvNet`) of the architecture ``config`` describes."""
    if is_conv(config):
        return build_conv(config)
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
        third=int(net.get("third", 0)),
    )


def load_first_ply(net: AZNet, weights: dict[str, torch.Tensor]) -> None:
    """Load a network of fewer plies' ``weights`` into ``net`` of the same shapes otherwise: every
    layer but the encoders of the plies it lacks (a one-ply network's into a two- or three-ply
    ``net``, a two-ply one's into a three-ply ``net``), which keep their initialisation (their
    output layers are zero, so ``net`` then plays as the smaller network did). ``ValueError`` when
    anything else differs."""
    try:
        missing, unexpected = net.load_state_dict(weights, strict=False)
    except RuntimeError as e:  # a layer of another shape
        raise ValueError(f"not the same network apart from the reply encoders: {e}") from None
    extra = [k for k in missing if not k.startswith(("reply_", "third_"))]
    if extra or unexpected:
        raise ValueError(f"not the same network apart from the reply encoders: {sorted(extra + unexpected)}")


def save_network(net: AZNet, path: str | os.PathLike, config: dict[str, Any]) -> tuple[Path, Path]:
    """Write the weights, then the config (:func:`mancala_envs.agents.model_files.save_pair`)."""
    return save_pair(net, path, FORMAT, VERSION, config)


def load_network(path: str | os.PathLike) -> tuple[AZNet, dict[str, Any]]:
    """The network (CPU, eval mode) and config of a saved pair, every field checked
    (:func:`validate_az_config`) and the weights against the config's ``sha256``; ``ValueError``
    naming the file for anything missing, damaged or of another format
    (:func:`mancala_envs.agents.model_files.load_pair`)."""
    net, config = load_pair(*pair_paths(path), "az model", FORMAT, VERSION, build_network, validate_az_config)
    net.eval()
    return net, config


def torch_evaluator(net: AZNet):
    """An evaluator for :class:`mancala_envs.agents.alphazero.search.GumbelSearch`: ``obs -> (logits,
    values)`` as
    numpy, the network run on the device its weights are on."""
    device = next(net.parameters()).device

    def evaluate(obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        with torch.inference_mode():
            logits, value = net(torch.from_numpy(obs).to(device))
        return logits.cpu().numpy(), value.cpu().numpy()

    return evaluate
