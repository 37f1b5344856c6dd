"""Train an AlphaZero-style agent for one mancala game: Gumbel MuZero self-play over the compiled
core, a small network learning the search's improved policy and the games' results.

One readable script in the CleanRL manner, top to bottom: the arguments (:class:`Args`, one
``--field-name`` flag per field, its defaults the defaults), self-play (:class:`SelfPlay`), the
replay buffer (:class:`Replay`), the learning step (:func:`learn`), the loop's steps (self-play,
learning, evaluation, saving: plain functions of the :class:`Learner`) and the loop (:func:`train`).

::

    python -m mancala_envs.training.train_alphazero --game en_dodoi --max-minutes 60 --out runs/az_en_dodoi
    python -m mancala_envs.training.train_alphazero --resume runs/az_en_dodoi --max-minutes 90
    python -m mancala_envs.training.train_alphazero --game en_dodoi --network conv1d --lookahead 0 \
        --widths 6 7 8 9 10 --out runs/az_en_dodoi-all        # one network for every width
    mancala train-az ...                                   # the same script

Guide: docs/training/alphazero.md
"""

from __future__ import annotations

from mancala_envs.infra.extras import require

# ruff: noqa: E402 (the imports below come after the check that the [train] extra is installed)
require("torch", "train", "mancala train-az")  # without it: one clear MissingExtraError, here

import io
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from mancala_envs import GAMES, Game, tablebase
from mancala_envs.agents.alphazero.conv_net import KIND as CONV_KIND
from mancala_envs.agents.alphazero.conv_net import conv_network
from mancala_envs.agents.alphazero.losses import policy_value_losses
from mancala_envs.agents.alphazero.network import (
    build_network,
    input_plies,
    load_first_ply,
    load_network,
    network_config,
    save_network,
    torch_evaluator,
)
from mancala_envs.agents.alphazero.search import GumbelSearch, known_results
from mancala_envs.agents.alphazero.tree import input_width
from mancala_envs.agents.model_files import with_width
from mancala_envs.evaluation.openings import DEFAULT_PLIES, random_openings
from mancala_envs.infra import interrupts
from mancala_envs.infra.files import atomic_write
from mancala_envs.tablebase.probe import NOT_COVERED  # Tablebase.outcomes where it does not cover
from mancala_envs.training.args import RunArgs, check_each, check_evaluation_args, make_game, parse_run_args
from mancala_envs.training.run import Run, evaluate_az, final_az_report, script_main

RESUMABLE = ("total_positions", "max_minutes", "torch_threads")


@dataclass
class Args(RunArgs):
    """Every argument of a training run (``--field-name`` on the command line): the shared ones
    (:class:`mancala_envs.training.args.RunArgs`: game, seed, run folder, device, ...) and these."""

    game: str = field(default="en_dodoi", metadata={"help": "the game", "choices": GAMES})
    # evaluation (see also eval_every, eval_opponents below; these come first in config.json)
    eval_games: int = field(default=40, metadata={"help": "games per opponent per evaluation (even)"})
    final_eval_games: int = field(default=100, metadata={"help": "games per opponent, final report (even)"})
    eval_sims: int = field(default=32, metadata={"help": "simulations per move of the evaluated agent"})
    eval_net_opponents: list[str] = field(
        default_factory=lambda: ["minimax:depth=2"],
        metadata={"help": "agent specs the network alone (sims=0) is evaluated against"},
    )
    # budget
    total_positions: int = field(default=2_000_000, metadata={"help": "self-play positions to train on"})
    max_minutes: float | None = field(
        default=None, metadata={"help": "stop after this wall time (none: no limit)"}
    )
    # self-play and search
    games: int = field(default=256, metadata={"help": "self-play games played at once"})
    sims: int = field(default=16, metadata={"help": "simulations per self-play move"})
    max_considered: int = field(default=16, metadata={"help": "root actions sampled (Gumbel-top-k)"})
    c_visit: float = field(default=50.0, metadata={"help": "sigma(q) = (c_visit + max N) * c_scale * q"})
    c_scale: float = field(default=0.1, metadata={"help": "see c_visit"})
    gumbel_scale: float = field(default=1.0, metadata={"help": "root Gumbel noise in self-play"})
    opening_share: float = field(
        default=0.5, metadata={"help": "share of games started from random openings"}
    )
    settle_decided: bool = field(
        default=True,
        metadata={
            "help": "a game whose winner on captures is decided ends there, in self-play and search;"
            " --no-settle-decided plays it out (a never-ending game is a draw)"
        },
    )
    # network and learning
    init_from: str | None = field(
        default=None, metadata={"help": "a new run's starting network: an az model's az.json"}
    )
    network: str = field(
        default="mlp",
        metadata={
            "help": "mlp: a network of one width; conv1d: width-independent (needs --lookahead 0)",
            "choices": ["mlp", CONV_KIND],
            "resumed_default": "mlp",
        },
    )
    widths: list[int] = field(
        default_factory=list,
        metadata={
            "help": "holes a row to train together, one network for all (--network conv1d; each"
            " width plays --games games; none: the game's own)",
            "resumed_default": [],
        },
    )
    channels: int = field(default=32, metadata={"help": "conv1d: channels of every hole"})
    blocks: int = field(default=3, metadata={"help": "conv1d: residual blocks"})
    kernel: int = field(default=5, metadata={"help": "conv1d: holes a convolution reads (odd)"})
    value_hidden: int = field(default=64, metadata={"help": "conv1d: the value head's hidden layer"})
    hidden: list[int] = field(default_factory=lambda: [128, 128], metadata={"help": "hidden layers"})
    one_hot_max: int = field(default=20, metadata={"help": "one-hot seed counts 0..N in the input"})
    lookahead: int = field(
        default=64,
        metadata={
            "help": "width of the policy's per-move head on each move's result (Game.lookahead_batch);"
            " 0: the network reads the position's counts only",
            "resumed_default": 0,  # runs from before the flag: raw-count networks
        },
    )
    replies: int = field(
        default=0,
        metadata={
            "help": "width of the reply encoder that reads every reply to every move (a two-ply"
            " lookahead; needs --lookahead); 0: one ply",
            "resumed_default": 0,  # runs from before the flag: one ply
        },
    )
    learning_rate: float = field(default=2e-3, metadata={"help": "AdamW learning rate"})
    weight_decay: float = field(default=1e-4, metadata={"help": "AdamW weight decay"})
    batch_size: int = field(default=512, metadata={"help": "positions per update"})
    replay_size: int = field(default=200_000, metadata={"help": "positions kept in the replay buffer"})
    min_replay: int = field(
        default=5_000, metadata={"help": "positions in the buffer before learning starts"}
    )
    moves_per_iteration: int = field(
        default=8, metadata={"help": "self-play moves (all games) per iteration"}
    )
    sample_reuse: float = field(default=4.0, metadata={"help": "updates x batch / new positions"})
    value_weight: float = field(default=1.0, metadata={"help": "weight of the value loss"})
    tablebase: str | None = field(
        default=None,
        metadata={
            "help": "a table folder of this game (mancala tablebase build): the positions it covers"
            " get their exact value as value target, not the game's result (off by default)",
            "resumed_default": None,
        },
    )
    # evaluation
    eval_every: int = field(default=200_000, metadata={"help": "self-play positions between evaluations"})
    eval_opponents: list[str] = field(
        default_factory=lambda: ["greedy", "minimax:depth=2", "minimax:depth=4", "mcts:sims=200"],
        metadata={"help": "agent specs the searching agent is evaluated against"},
    )


def resolve_args(argv: list[str] | None = None) -> Args:
    """Dataclass defaults < command line (or the run's config.json < RESUMABLE flags)."""
    description = "Train an AlphaZero-style agent (training/train_alphazero.py)."
    args = parse_run_args(Args, "mancala train-az", description, argv, RESUMABLE)
    if args.widths and "holes_per_row" not in args.game_params:  # the run's game: its first width
        args.game_params = {**args.game_params, "holes_per_row": args.widths[0]}
    check_args(args)
    return args


def check_args(a: Args) -> None:
    """``ValueError`` naming the first bad argument (before anything is built or played)."""
    positive = ("total_positions", "games", "sims", "max_considered", "train_openings", "one_hot_max")
    positive += ("batch_size", "replay_size", "moves_per_iteration", "eval_every", "torch_threads")
    positive += ("channels", "kernel", "value_hidden")
    check_each(a, (*positive, "eval_sims"), lambda v: v >= 1, ">= 1")
    check_each(a, ("learning_rate", "sample_reuse", "obs_scale"), lambda v: v > 0, "positive")
    non_negative = ("weight_decay", "value_weight", "gumbel_scale", "c_visit", "c_scale", "min_replay")
    non_negative += ("lookahead", "replies", "blocks")
    check_each(a, non_negative, lambda v: v >= 0, ">= 0")
    check_each(a, ("opening_share",), lambda v: 0 <= v <= 1, "in [0, 1]")
    if a.max_minutes is not None and not a.max_minutes > 0:
        raise ValueError(f"--max-minutes must be positive, got {a.max_minutes}")
    if a.replies and not a.lookahead:
        raise ValueError("--replies needs the per-move head: --lookahead must be positive")
    if not a.hidden or min(a.hidden) < 1:
        raise ValueError(f"--hidden must be positive layer widths, got {a.hidden}")
    check_evaluation_args(a, [*a.eval_opponents, *a.eval_net_opponents])
    check_widths(a)
    if a.resume is None:
        initial_network(a)  # a bad --init-from fails before the run folder is made
        for game in run_games(a):
            exact_table(a, game)  # and a bad --tablebase


def check_widths(a: Args) -> None:
    """``ValueError`` for a width-independent network with a lookahead, or ``--widths`` without
    one, repeated, not of the game, or without the run's own width."""
    if a.network == CONV_KIND and (a.lookahead or a.replies):
        raise ValueError("--network conv1d reads the raw counts: give --lookahead 0 (and no --replies)")
    if a.network == CONV_KIND and a.kernel % 2 == 0:
        raise ValueError(f"--kernel must be odd, got {a.kernel}")
    if not a.widths:
        return
    if a.network != CONV_KIND:
        raise ValueError("--widths needs the width-independent network: --network conv1d")
    if len(set(a.widths)) != len(a.widths) or a.game_params.get("holes_per_row") not in a.widths:
        raise ValueError(f"--widths must be distinct and hold --holes-per-row, got {a.widths}")
    run_games(a)  # ValueError: a width the game does not have


def run_games(a: Args) -> list[Game]:
    """The games a run trains on: one per ``--widths`` entry, else the run's game."""
    game = make_game(a)
    return [with_width(game, w) for w in a.widths] if a.widths else [game]


def exact_table(a: Args, game: Game | None = None) -> Any:
    """The table of ``--tablebase`` for ``game`` (default the run's; ``ValueError`` unless a
    complete table of it), None without the flag. With ``--widths``, the path holds
    ``{variant}`` (``tables/{variant}``), filled with each width's variant (``en_dodoi_7``)."""
    if a.tablebase is None:
        return None
    game = game or make_game(a)
    if a.widths and "{variant}" not in a.tablebase:
        raise ValueError(
            f"--tablebase {a.tablebase}: with --widths, name each width's table with {{variant}}"
        )
    path = a.tablebase.replace("{variant}", game.variant)
    try:
        return tablebase.load(path, game)
    except (OSError, ValueError) as e:
        raise ValueError(f"--tablebase {path}: not a table of {game.title} ({e})") from None


def starting_model(path: str) -> dict[str, Any]:
    """``init_sha256`` and ``init_trained`` of the ``--init-from`` model (its weights' checksum and
    its own training), read from its file at each save: replace that file only after the run ends."""
    saved = json.loads(Path(path).read_text(encoding="utf-8"))
    return {"init_sha256": saved.get("sha256"), "init_trained": saved.get("trained", {})}


def initial_network(a: Args) -> Any:
    """The network of ``--init-from`` (``ValueError`` unless it is an az model of this run's game
    and network shape, or of that shape without the reply encoder; a width-independent network
    of any widths of the game: per-width fine-tuning of a model of all widths); None without the
    flag."""
    if a.init_from is None:
        return None
    try:
        net, saved = load_network(a.init_from)
    except (OSError, ValueError) as e:
        raise ValueError(f"--init-from {a.init_from}: not an az model ({e})") from None
    want = net_config(a, make_game(a))
    if a.replies and "replies" not in saved.get("network", {}):
        want["network"].pop("replies")  # a one-ply model: the reply encoder starts afresh
    keys = ("game", "network") if a.network == CONV_KIND else tuple(want)  # conv: any widths
    differ = [k for k in keys if saved.get(k) != want[k]]
    if differ:
        raise ValueError(
            f"--init-from {a.init_from}: a model of another game or network (its {', '.join(differ)} differ)"
        )
    return net


class Replay:
    """A ring buffer of training positions: the network's input for the mover (his raw-count
    view, or his lookahead rows), his legal mask, the policy target and the value target."""

    FIELDS = ("obs", "mask", "policy", "value")

    def __init__(self, game: Game, capacity: int, lookahead: int = 0):
        self.capacity, self.size, self.next = capacity, 0, 0
        self.obs = np.zeros((capacity, input_width(game, lookahead)), dtype=np.float32)
        self.mask = np.zeros((capacity, game.num_actions), dtype=bool)
        self.policy = np.zeros((capacity, game.num_actions), dtype=np.float32)
        self.value = np.zeros(capacity, dtype=np.float32)

    def add(self, obs: np.ndarray, mask: np.ndarray, policy: np.ndarray, value: np.ndarray) -> None:
        rows = (self.next + np.arange(len(obs))) % self.capacity
        self.obs[rows], self.mask[rows], self.policy[rows], self.value[rows] = obs, mask, policy, value
        self.next = int((self.next + len(obs)) % self.capacity)
        self.size = min(self.capacity, self.size + len(obs))

    def sample(self, rng: np.random.Generator, k: int) -> tuple[np.ndarray, ...]:
        idx = rng.integers(0, self.size, k)
        return tuple(getattr(self, f)[idx] for f in self.FIELDS)

    def to_bytes(self) -> bytes:
        buf = io.BytesIO()
        n = self.size
        np.savez(buf, next=self.next, **{f: getattr(self, f)[:n] for f in self.FIELDS})
        return buf.getvalue()

    def load(self, path: Path) -> None:
        try:
            with np.load(path, allow_pickle=False) as data:
                n = len(data["value"])
                for f in self.FIELDS:
                    getattr(self, f)[: min(n, self.capacity)] = data[f][: self.capacity]
                self.size, self.next = min(n, self.capacity), int(data["next"]) % self.capacity
        except (OSError, KeyError, ValueError) as e:
            raise ValueError(f"{path}: not a replay buffer of this run ({type(e).__name__}: {e})") from None


class SelfPlay:
    """``games`` games in lockstep, one batched search per move. Each position records the
    network's input, the mover's legal mask and the search's improved policy; when a game ends
    (or, with ``settle_decided``, its result is decided) every one of its positions gets the
    result for the player who moved there (+1 / 0 / -1 from player 0's result, credited by the
    mover's id) — or, with a ``table`` (a :class:`~mancala_envs.tablebase.Tablebase`), the exact
    value for the mover of every position the table covers (a game that never ends is a draw)."""

    def __init__(
        self,
        a: Any,
        game: Game,
        evaluate: Any,
        rng: np.random.Generator,
        starts: list[Any],
        table: Any = None,
    ):
        self.a, self.game, self.evaluate, self.rng, self.starts = a, game, evaluate, rng, starts
        self.table = table
        self.lookahead = input_plies(a.lookahead, a.replies)
        self.search = GumbelSearch(
            game, a.games, a.sims, a.max_considered, a.c_visit, a.c_scale, self.lookahead, a.settle_decided
        )
        self.states = np.zeros((a.games, game.state_size), dtype=np.int32)
        horizon = game.max_plies + 1
        width = input_width(game, self.lookahead)
        self.pending_obs = np.zeros((a.games, horizon, width), dtype=np.float32)
        self.pending_mask = np.zeros((a.games, horizon, game.num_actions), dtype=bool)
        self.pending_policy = np.zeros((a.games, horizon, game.num_actions), dtype=np.float32)
        self.pending_mover = np.zeros((a.games, horizon), dtype=np.int8)
        self.pending_exact = np.full((a.games, horizon), NOT_COVERED, dtype=np.int8)  # the table's values
        self.length = np.zeros(a.games, dtype=np.int64)
        self.finished_games = 0
        for i in range(a.games):
            self.new_game(i)

    def new_game(self, i: int) -> None:
        """Game ``i`` starts again: from a random opening (``opening_share``) or the initial position."""
        use_opening = self.starts and self.rng.random() < self.a.opening_share
        start = (
            self.starts[int(self.rng.integers(len(self.starts)))]
            if use_opening
            else self.game.initial_state()
        )
        self.states[i] = start.array
        self.length[i] = 0

    def step(self, replay: Replay) -> int:
        """One move of every game; finished games go to ``replay``. Returns the positions searched."""
        game, a = self.game, self.a
        gumbel = (
            a.gumbel_scale * self.rng.gumbel(size=(a.games, game.num_actions)) if a.gumbel_scale else None
        )
        result = self.search.run(self.states, self.evaluate, gumbel)
        rows, t = np.arange(a.games), self.length
        movers = self.states[:, game.layout.to_move]
        self.pending_obs[rows, t] = result.inputs  # the network inputs the search built for the roots
        self.pending_mask[rows, t] = self.states[:, game.layout.mask] != 0
        self.pending_policy[rows, t] = result.policy
        self.pending_mover[rows, t] = movers
        if self.table is not None:
            self.pending_exact[rows, t] = self.table.outcomes(self.states)
        self.length += 1
        game.apply_batch(self.states, result.action, out=self.states)
        known, value = known_results(self.states, game.rules, a.settle_decided)
        for i in np.flatnonzero(known):
            self.finish(i, float(value[i]), replay)
        return a.games

    def finish(self, i: int, value0: float, replay: Replay) -> None:
        """Game ``i`` is over with ``value0`` for player 0: its positions go to ``replay``."""
        k = int(self.length[i])
        movers = self.pending_mover[i, :k].astype(np.float32)
        values = value0 * (1.0 - 2.0 * movers)  # each position's result for its mover
        exact = self.pending_exact[i, :k]
        values = np.where(exact != NOT_COVERED, exact, values).astype(np.float32)
        replay.add(self.pending_obs[i, :k], self.pending_mask[i, :k], self.pending_policy[i, :k], values)
        self.finished_games += 1
        self.new_game(i)


def learn(
    net: Any, optimizer: Any, replays: list[Replay], a: Args, rng: np.random.Generator, device: str
) -> dict:
    """One AdamW step on a minibatch of the buffers (with several widths, an equal share of
    ``batch_size`` from each, their losses averaged); returns the losses."""
    share = max(1, a.batch_size // len(replays))
    policy_loss = value_loss = entropy = torch.zeros((), device=device)
    for replay in replays:
        obs, mask, policy, value = (torch.from_numpy(x).to(device) for x in replay.sample(rng, share))
        losses = policy_value_losses(net, obs, mask, policy, value)
        policy_loss = policy_loss + losses[0] / len(replays)
        value_loss = value_loss + losses[1] / len(replays)
        entropy = entropy - (policy * torch.log(policy.clamp_min(1e-12))).sum(1).mean() / len(replays)
    loss = policy_loss + a.value_weight * value_loss
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    return {
        "loss_policy": policy_loss.item(),
        "loss_value": value_loss.item(),
        "loss_policy_kl": (policy_loss - entropy).item(),  # cross-entropy minus the target's entropy
    }


@dataclass
class Learner:
    """What the loop trains and how far it is: the network, its optimizer, the replay buffers (one
    per width), the self-play positions searched and the updates made."""

    net: Any
    optimizer: Any
    replays: list[Replay]
    positions: int = 0
    updates: int = 0


def replay_file(run: Run, game: Game, games: list[Game]) -> Path:
    """``replay.npz``, or with several widths one buffer a width: ``replay_<variant>.npz``."""
    return run.path / ("replay.npz" if len(games) == 1 else f"replay_{game.variant}.npz")


def net_config(a: Args, game: Game) -> dict[str, Any]:
    """The network part of the model's config: the MLP, or the width-independent network with the
    ``--widths`` it plays."""
    if a.network == CONV_KIND:
        conv = conv_network(a.channels, a.blocks, a.kernel, a.one_hot_max, a.value_hidden)
        return network_config(game, a.hidden, a.one_hot_max, a.obs_scale, conv=conv, widths=a.widths)
    return network_config(game, a.hidden, a.one_hot_max, a.obs_scale, a.lookahead, a.replies)


def model_config(a: Args, run: Run, positions: int, updates: int) -> dict[str, Any]:
    """``az.json``'s config: the network, the search it was trained for, the training so far."""
    config = net_config(a, run.game)
    search = {k: getattr(a, k) for k in ("sims", "max_considered", "c_visit", "c_scale", "settle_decided")}
    trained = {"positions": positions, "updates": updates, "minutes": round(run.minutes(), 2)}
    if a.init_from is not None:  # the counts above are this run's only; the start's own training:
        trained |= {"init_from": a.init_from, **starting_model(a.init_from)}
    if a.tablebase is not None:
        trained["value_targets"] = f"exact where the table {a.tablebase} covers the position"
    return {**config, "search": search, "trained": {**trained, "command": run.command, "git": run.revision}}


def new_learner(a: Args, run: Run, games: list[Game]) -> Learner:
    """The network, optimizer and buffers (one per game): a resumed run's checkpoint and buffers,
    else a fresh network (``--init-from``'s layers where given)."""
    positions, updates = int(run.state.get("positions", 0)), int(run.state.get("updates", 0))
    net = build_network(model_config(a, run, positions, updates)).to(run.device)
    optimizer = torch.optim.AdamW(net.parameters(), lr=a.learning_rate, weight_decay=a.weight_decay)
    size, plies = max(1, a.replay_size // len(games)), input_plies(a.lookahead, a.replies)
    replays = [Replay(game, size, plies) for game in games]
    if run.state and (run.path / "checkpoint.pt").is_file():
        run.read_checkpoint(net=net, optimizer=optimizer)
        for game, replay in zip(games, replays, strict=True):
            replay.load(replay_file(run, game, games))
        run.history = [e for e in run.history if e["step"] <= positions]
        print(f"resuming {run.path} at {positions} positions ({run.minutes():.1f} min)", flush=True)
    elif a.init_from is not None:
        load_first_ply(net, initial_network(a).state_dict())
        print(f"starting the network from {a.init_from}", flush=True)
    elif run.resuming:
        print(f"{run.path} has no checkpoint yet: starting it from scratch", flush=True)
    return Learner(net, optimizer, replays, positions, updates)


def self_play(a: Args, selfplays: list[SelfPlay], learner: Learner) -> dict[str, Any]:
    """``moves_per_iteration`` moves of every game of every width into its buffer; returns their
    throughput."""
    t0, evals0 = time.perf_counter(), sum(sp.search.evaluations for sp in selfplays)
    learner.net.eval()
    for _ in range(a.moves_per_iteration):
        for selfplay, replay in zip(selfplays, learner.replays, strict=True):
            learner.positions += selfplay.step(replay)
            interrupts.check()
    seconds = time.perf_counter() - t0
    return {
        "positions_per_second": len(selfplays) * a.games * a.moves_per_iteration / seconds,
        "evaluations_per_second": (sum(sp.search.evaluations for sp in selfplays) - evals0) / seconds,
        "finished_games": sum(sp.finished_games for sp in selfplays),
    }


def learn_from_replay(a: Args, learner: Learner, rng: np.random.Generator, device: str) -> dict[str, Any]:
    """``sample_reuse`` x the iteration's new positions, in minibatches (once the buffer holds
    ``min_replay``); returns the last update's losses (none: no update)."""
    replays = learner.replays
    if sum(r.size for r in replays) < max(a.min_replay, a.batch_size) or min(r.size for r in replays) == 0:
        return {}
    learner.net.train()
    steps = max(1, round(a.sample_reuse * len(replays) * a.games * a.moves_per_iteration / a.batch_size))
    losses: dict[str, Any] = {}
    for _ in range(steps):
        losses = learn(learner.net, learner.optimizer, replays, a, rng, device)
        learner.updates += 1
        interrupts.check()
    return losses


def periodic_evaluation(a: Args, run: Run, learner: Learner, writer: Any) -> None:
    """Evaluate (:func:`~mancala_envs.training.run.evaluate_az`, every width of ``--widths``);
    eval.csv, TensorBoard, the learning curve."""
    started, positions, updates = time.perf_counter(), learner.positions, learner.updates
    config = model_config(a, run, positions, updates)
    results = evaluate_az(run_games(a), learner.net, config, a, a.eval_games)
    run.log_evaluation(results, positions, writer, started, positions, updates)


def save(a: Args, run: Run, learner: Learner) -> None:
    """Network files, checkpoint and buffer first, ``state.json`` last (never ahead of them)."""
    save_network(learner.net, run.path / "az", model_config(a, run, learner.positions, learner.updates))
    run.write_checkpoint(net=learner.net, optimizer=learner.optimizer)
    games = run_games(a)
    for game, replay in zip(games, learner.replays, strict=True):
        atomic_write(replay_file(run, game, games), replay.to_bytes())
    state = {"positions": learner.positions, "updates": learner.updates, "evals": run.history}
    run.save_state(state | {"wall_seconds": run.wall_seconds(), "cpu_seconds": run.cpu_seconds()})


def out_of_budget(a: Args, run: Run, learner: Learner) -> bool:
    """``total_positions`` searched or ``max_minutes`` spent."""
    return learner.positions >= a.total_positions or (
        a.max_minutes is not None and run.minutes() >= a.max_minutes
    )


def train(a: Args, argv: list[str]) -> int:
    """Run (or resume) the training described by ``a``; returns the exit status."""
    run = Run(a, "runs/az_", progress="positions", step="positions")
    torch.manual_seed(run.session_seed)
    rng = np.random.default_rng(run.session_seed)
    run.record("mancala_envs.training.train_alphazero", argv)
    games = run_games(a)
    learner = new_learner(a, run, games)
    selfplays = []
    for g in games:
        suite = random_openings(g, a.train_openings, plies=(1, DEFAULT_PLIES[g.name][1]), seed=a.seed)
        table = exact_table(a, g)
        selfplays.append(SelfPlay(a, g, torch_evaluator(learner.net), rng, suite, table))
        if table is not None:
            print(f"value targets of {g.variant}: exact where {table!r} covers the position", flush=True)
    writer = run.summary_writer()
    budget = f"{a.total_positions} positions" + (f" or {a.max_minutes} min" if a.max_minutes else "")
    variants = ", ".join(g.variant for g in games)
    print(f"training az on {variants} in {run.path}: {budget}, device {run.device}", flush=True)
    next_eval = (learner.positions // a.eval_every + 1) * a.eval_every
    try:
        with interrupts.deferred_interrupts():
            if not run.history:
                periodic_evaluation(a, run, learner, writer)  # the untrained network: the curve's origin
            while not out_of_budget(a, run, learner):
                row = self_play(a, selfplays, learner)
                row |= learn_from_replay(a, learner, rng, run.device)
                row |= {"positions": learner.positions, "updates": learner.updates, "minutes": run.minutes()}
                run.log_metrics(row, writer, learner.positions)
                if learner.positions >= next_eval:
                    next_eval += a.eval_every
                    periodic_evaluation(a, run, learner, writer)
                    save(a, run, learner)
            if not run.history or run.history[-1]["step"] != learner.positions:
                periodic_evaluation(a, run, learner, writer)  # eval.csv ends with the final network
            save(a, run, learner)
    except KeyboardInterrupt as e:
        save(a, run, learner)
        return run.interrupted(f"{learner.positions} positions", e)
    finally:
        writer.close()
    summary = (
        f"Network: `{run.path / 'az.json'}` after {learner.positions} self-play positions, "
        f"{learner.updates} updates: {run.minutes():.1f} min of training with its evaluations."
    )
    config = model_config(a, run, learner.positions, learner.updates)
    title = f"AlphaZero training report: {', '.join(g.variant for g in games)}"
    return final_az_report(run, learner.net, config, summary, title, games)


def main(argv: list[str] | None = None) -> int:
    """``mancala train-az`` / ``python -m mancala_envs.training.train_alphazero``; returns the exit status."""
    return script_main("mancala train-az", resolve_args, train, argv)


if __name__ == "__main__":
    sys.exit(main())
