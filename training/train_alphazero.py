"""Train an AlphaZero-style agent for one mancala game: Gumbel MuZero self-play over the compiled
core, a small network learning the search's improved policy and the games' results.

One readable script in the CleanRL manner: the arguments are the fields of :class:`Args`
(``--sims``, ``--games``, ... one flag per field), the command line wins over the defaults.

    python -m training.train_alphazero --game en_dodoi --max-minutes 60 --out runs/az_en_dodoi
    python -m training.train_alphazero --resume runs/az_en_dodoi --max-minutes 90
    mancala train-az ...                                   # the same script

**Self-play.** ``games`` games are played at once. Every move of every game is one batched Gumbel
MuZero search (:class:`agents.az_search.GumbelSearch`: Gumbel-top-k and sequential halving at the
root, ``sims`` simulations; the network evaluates the new leaves of all games in one forward pass
per simulation). The move played is the search's action (Gumbel noise of scale
``gumbel_scale``: the exploration); each position records the improved policy
``softmax(logits + sigma(completed Q))`` as its policy target. A game that ends — or whose result
is decided (in a game won on captures, one player holds more than half the seeds) — gives every
one of its positions the result for the player who moved there (+1 / 0 / -1, credited by player
id), or, with ``--tablebase FILE``, the exact value where the table covers the position. A new
game starts from a random opening (``opening_share`` of the time) or the initial position.

**Learning.** Positions go into a replay buffer of the last ``replay_size``; after every
``moves_per_iteration`` moves of all games, ``sample_reuse * new positions / batch_size`` Adam
steps on ``cross-entropy(policy target, masked logits) + value_weight * (value - result)^2``.

**Evaluation** every ``eval_every`` self-play positions and at the end: the agent (``az`` with
``eval_sims`` simulations, deterministic) plays :func:`agents.arena.play_match` against each of
``eval_opponents`` over the game's default opening suite (``eval_games`` games: pairs of openings
with swapped seats), and the network alone (``sims=0``) against ``eval_net_opponents``. Scores and
intervals go to ``eval.csv`` and TensorBoard, and ``learning_curve.png`` plots them against the
training wall time.

**Run folder** (``--out``, never overwritten; default ``runs/az_<game>-seed<seed>[-k]``):
``config.json`` (the resolved arguments, with the device actually used), ``command.txt``,
``git_revision.txt``, ``az.json`` + ``az.pt`` (the latest network in the agent's safe format:
``make_agent("az:path=RUN/az.json")``), ``checkpoint.pt`` (network and optimizer, read with
``weights_only=True``), ``replay.npz`` (the buffer, no pickles), ``state.json`` (counters, timing,
evaluation history; written last), ``eval.csv``, ``logs/session<k>/`` (TensorBoard),
``learning_curve.png``, and at the end ``report.md`` / ``report.json``.

**Budget, resume, Ctrl-C.** Training stops at ``total_positions`` self-play positions or after
``max_minutes`` of wall time (the run's, over all sessions), whichever comes first. ``--resume RUN``
reloads the run and continues (``total_positions``, ``max_minutes``, ``torch_threads`` may be
changed); games in flight at a checkpoint are not kept. Ctrl-C stops at the next move or update
with a checkpoint of that moment (exit 130).

**Determinism.** ``seed`` seeds every draw (self-play, openings, sampling of the buffer, torch);
on CPU torch runs with ``use_deterministic_algorithms``: the same seed, arguments and thread count
give the same run on the same machine and library versions — with ``total_positions`` as the
budget (``max_minutes`` stops where the machine's speed says).
"""

from __future__ import annotations

import csv
import io
import json
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agents.files import atomic_write, read_json
from mancala_envs import GAMES, Game, get_game
from training.common import (
    build_parser,
    default_run_folder,
    next_session,
    record_run,
    resolve_device,
    resume_config,
)

RESUMABLE = ("total_positions", "max_minutes", "torch_threads")
EVAL_COLUMNS = (
    "positions",
    "minutes",
    "agent",
    "opponent",
    "pairs",
    "games",
    "wins",
    "draws",
    "losses",
    "score",
    "ci_low",
    "ci_high",
)


@dataclass
class Args:
    """Every argument of a training run (``--field-name`` on the command line)."""

    game: str = field(default="en_dodoi", metadata={"help": "the game", "choices": GAMES})
    holes_per_row: int | None = field(default=None, metadata={"help": "en_dodoi only: 6..10 (none: 8)"})
    max_plies: int | None = field(default=None, metadata={"help": "truncate games at N plies (none: 1000)"})
    total_positions: int = field(default=2_000_000, metadata={"help": "self-play positions to train on"})
    max_minutes: float | None = field(
        default=None, metadata={"help": "stop after this wall time (none: no limit)"}
    )
    seed: int = field(default=0, metadata={"help": "seed of every random choice"})
    out: str | None = field(
        default=None, metadata={"help": "run folder (none: runs/az_<game>-seed<seed>[-k])"}
    )
    resume: str | None = field(default=None, metadata={"help": "continue the run in this folder"})
    device: str = field(default="auto", metadata={"help": "torch device: auto (a GPU if any), cpu, cuda"})
    torch_threads: int = field(default=1, metadata={"help": "torch CPU threads"})
    # self-play and search
    games: int = field(default=256, metadata={"help": "self-play games played at once"})
    sims: int = field(default=32, metadata={"help": "simulations per self-play move"})
    max_considered: int = field(default=16, metadata={"help": "root actions sampled (Gumbel-top-k)"})
    c_visit: float = field(default=50.0, metadata={"help": "sigma(q) = (c_visit + max N) * c_scale * q"})
    c_scale: float = field(default=0.1, metadata={"help": "see c_visit"})
    gumbel_scale: float = field(default=1.0, metadata={"help": "root Gumbel noise in self-play"})
    opening_share: float = field(
        default=0.5, metadata={"help": "share of games started from random openings"}
    )
    train_openings: int = field(default=2000, metadata={"help": "random openings self-play starts from"})
    tablebase: str | None = field(
        default=None, metadata={"help": "value targets from this tablebase (none: off)"}
    )
    # network and learning
    hidden: list[int] = field(default_factory=lambda: [128, 128], metadata={"help": "hidden layers"})
    one_hot_max: int = field(default=20, metadata={"help": "one-hot seed counts 0..N in the input"})
    obs_scale: float = field(default=10.0, metadata={"help": "the input's counts x scale / total seeds"})
    learning_rate: float = field(default=1e-3, metadata={"help": "Adam learning rate"})
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
    # evaluation
    eval_every: int = field(default=200_000, metadata={"help": "self-play positions between evaluations"})
    eval_games: int = field(default=40, metadata={"help": "games per opponent per evaluation (even)"})
    final_eval_games: int = field(default=100, metadata={"help": "games per opponent, final report (even)"})
    eval_sims: int = field(default=32, metadata={"help": "simulations per move of the evaluated agent"})
    eval_opponents: list[str] = field(
        default_factory=lambda: ["greedy", "minimax:depth=2", "minimax:depth=4", "mcts:sims=200"],
        metadata={"help": "agent specs the searching agent is evaluated against"},
    )
    eval_net_opponents: list[str] = field(
        default_factory=lambda: ["minimax:depth=2"],
        metadata={"help": "agent specs the network alone (sims=0) is evaluated against"},
    )
    eval_seed: int = field(default=2024, metadata={"help": "arena seed of every evaluation"})


def resolve_args(argv: list[str] | None = None) -> Args:
    """Dataclass defaults < command line (or the run's config.json < RESUMABLE flags)."""
    parser = build_parser(
        Args, "mancala train-az", "Train an AlphaZero-style agent (training/train_alphazero.py)."
    )
    given = vars(parser.parse_args(argv))
    if "resume" in given:
        args = Args(**resume_config(Path(given["resume"]), given, RESUMABLE))
    else:
        args = Args(**given)
    check_args(args)
    return args


def check_args(a: Args) -> None:
    """``ValueError`` naming the first bad argument (before anything is built or played)."""
    from agents.registry import make_agent

    positive = ("total_positions", "games", "sims", "max_considered", "train_openings", "one_hot_max")
    positive += (
        "batch_size",
        "replay_size",
        "moves_per_iteration",
        "eval_every",
        "torch_threads",
        "eval_sims",
    )
    for name in positive:
        if getattr(a, name) < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be >= 1, got {getattr(a, name)}")
    for name in ("eval_games", "final_eval_games"):
        if getattr(a, name) < 2 or getattr(a, name) % 2:
            raise ValueError(f"--{name.replace('_', '-')} must be a positive even number (both seatings)")
    for name in ("learning_rate", "sample_reuse", "obs_scale"):
        if not getattr(a, name) > 0:
            raise ValueError(f"--{name.replace('_', '-')} must be positive, got {getattr(a, name)}")
    for name in ("weight_decay", "value_weight", "gumbel_scale", "c_visit", "c_scale", "min_replay"):
        if getattr(a, name) < 0:
            raise ValueError(f"--{name.replace('_', '-')} must be >= 0, got {getattr(a, name)}")
    if not 0 <= a.opening_share <= 1:
        raise ValueError(f"--opening-share must be in [0, 1], got {a.opening_share}")
    if a.max_minutes is not None and not a.max_minutes > 0:
        raise ValueError(f"--max-minutes must be positive, got {a.max_minutes}")
    if not a.hidden or min(a.hidden) < 1:
        raise ValueError(f"--hidden must be positive layer widths, got {a.hidden}")
    if a.seed < 0 or a.eval_seed < 0:
        raise ValueError("seeds must be non-negative integers")
    if a.tablebase is not None and not Path(a.tablebase).exists():
        raise ValueError(f"--tablebase {a.tablebase}: no such file")
    make_game(a)
    for spec in [*a.eval_opponents, *a.eval_net_opponents]:
        make_agent(spec)  # raises ValueError for a bad spec


def make_game(a: Args) -> Game:
    params = {
        k: v for k, v in (("holes_per_row", a.holes_per_row), ("max_plies", a.max_plies)) if v is not None
    }
    return get_game(a.game, **params)


class Replay:
    """A ring buffer of training positions: the mover's raw-count view, his legal mask, the policy
    target and the value target."""

    FIELDS = ("obs", "mask", "policy", "value")

    def __init__(self, game: Game, capacity: int):
        self.capacity, self.size, self.next = capacity, 0, 0
        self.obs = np.zeros((capacity, game.observation_size), dtype=np.float32)
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
    """``games`` games in lockstep, one batched search per move (module docstring)."""

    def __init__(self, a: Args, game: Game, evaluate: Any, rng: np.random.Generator, starts: list[Any]):
        from agents.az_search import GumbelSearch

        self.a, self.game, self.evaluate, self.rng, self.starts = a, game, evaluate, rng, starts
        self.search = GumbelSearch(game, a.games, a.sims, a.max_considered, a.c_visit, a.c_scale)
        self.states = np.zeros((a.games, game.state_size), dtype=np.int32)
        horizon = game.max_plies + 1
        self.pending_obs = np.zeros((a.games, horizon, game.observation_size), dtype=np.float32)
        self.pending_mask = np.zeros((a.games, horizon, game.num_actions), dtype=bool)
        self.pending_policy = np.zeros((a.games, horizon, game.num_actions), dtype=np.float32)
        self.pending_mover = np.zeros((a.games, horizon), dtype=np.int8)
        self.length = np.zeros(a.games, dtype=np.int64)
        self.tablebase = load_tablebase(a.tablebase, game) if a.tablebase else None
        self.finished_games = 0
        for i in range(a.games):
            self.new_game(i)

    def new_game(self, i: int) -> None:
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
        from agents.az_search import known_results

        game, a = self.game, self.a
        gumbel = (
            a.gumbel_scale * self.rng.gumbel(size=(a.games, game.num_actions)) if a.gumbel_scale else None
        )
        result = self.search.run(self.states, self.evaluate, gumbel)
        rows, t = np.arange(a.games), self.length
        movers = self.states[:, game.layout.to_move]
        self.pending_obs[rows, t] = game.counts_batch(self.states, movers)
        self.pending_mask[rows, t] = self.states[:, game.layout.mask] != 0
        self.pending_policy[rows, t] = result.policy
        self.pending_mover[rows, t] = movers
        self.length += 1
        game.apply_batch(self.states, result.action, out=self.states)
        known, value = known_results(self.states, game.rules)
        for i in np.flatnonzero(known):
            self.finish(i, float(value[i]), replay)
        return a.games

    def finish(self, i: int, value0: float, replay: Replay) -> None:
        """Game ``i`` is over with ``value0`` for player 0: its positions go to ``replay``."""
        k = int(self.length[i])
        movers = self.pending_mover[i, :k].astype(np.float32)
        values = value0 * (1.0 - 2.0 * movers)  # each position's result for its mover
        if self.tablebase is not None:
            values = self.tablebase_values(i, values)
        replay.add(self.pending_obs[i, :k], self.pending_mask[i, :k], self.pending_policy[i, :k], values)
        self.finished_games += 1
        self.new_game(i)

    def tablebase_values(self, i: int, values: np.ndarray) -> np.ndarray:
        """The exact value (for the mover) of every position the table covers; the result elsewhere."""
        n = self.game.holes_per_row
        out = values.copy()
        for t in range(len(values)):
            obs = self.pending_obs[i, t]
            if obs[2 * n + 2 :].any():  # a pending opening move (Sadeqa II): never in a table
                continue
            board = np.concatenate([obs[:n], obs[n : 2 * n]]).astype(np.int64)  # the mover's view, seat 0
            state = self.game.state_from(board, obs[2 * n : 2 * n + 2].astype(np.int64), to_move=0)
            if self.tablebase.covers(state):
                out[t] = float(self.tablebase.outcome(state))
        return out


def load_tablebase(path: str, game: Game) -> Any:
    """The tablebase at ``path`` (``mancala_envs.tablebase``, imported only when asked for)."""
    try:
        from mancala_envs import tablebase
    except ImportError:
        raise ValueError(
            "--tablebase: mancala_envs.tablebase is not available in this installation"
        ) from None
    table = tablebase.load(path)
    if table.game != game:
        raise ValueError(f"--tablebase {path} is a table of {table.game!r}, not {game!r}")
    return table


def learn(net: Any, optimizer: Any, replay: Replay, a: Args, rng: np.random.Generator, device: str) -> dict:
    """One Adam step on a minibatch; returns the losses."""
    import torch

    obs, mask, policy, value = (torch.from_numpy(x).to(device) for x in replay.sample(rng, a.batch_size))
    logits, v = net(obs)
    log_p = torch.log_softmax(logits.masked_fill(~mask, -1e9), dim=1)
    policy_loss = -(policy * log_p).sum(1).mean()
    value_loss = ((v - value) ** 2).mean()
    loss = policy_loss + a.value_weight * value_loss
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    entropy = -(policy * torch.log(policy.clamp_min(1e-12))).sum(1).mean()
    return {
        "loss/policy": policy_loss.item(),
        "loss/value": value_loss.item(),
        "loss/policy_kl": (policy_loss - entropy).item(),  # cross-entropy minus the target's entropy
    }


class Run:
    """The run folder: checkpoints, evaluations, logs, the learning curve."""

    def __init__(self, a: Args, run: Path, game: Game, command: str, state: dict[str, Any], device: str):
        self.a, self.run, self.game, self.command, self.device = a, run, game, command, device
        self.positions = int(state.get("positions", 0))
        self.updates = int(state.get("updates", 0))
        self.history: list[dict[str, Any]] = state.get("evals", [])
        self.wall = float(state.get("wall_seconds", 0.0))
        self.cpu = float(state.get("cpu_seconds", 0.0))
        self.started, self.cpu_started = time.perf_counter(), time.process_time()

    def minutes(self) -> float:
        return (self.wall + time.perf_counter() - self.started) / 60

    def az_config(self) -> dict[str, Any]:
        from agents.az_net import network_config
        from training.common import git_revision

        config = network_config(self.game, self.a.hidden, self.a.one_hot_max, self.a.obs_scale)
        search = {k: getattr(self.a, k) for k in ("sims", "max_considered", "c_visit", "c_scale")}
        trained = {"positions": self.positions, "updates": self.updates, "minutes": round(self.minutes(), 2)}
        return {
            **config,
            "search": search,
            "trained": {**trained, "command": self.command, "git": git_revision()},
        }

    def save(self, net: Any, optimizer: Any, replay: Replay) -> None:
        """Network files, checkpoint and buffer first, ``state.json`` last (never ahead of them)."""
        import torch

        from agents.az_net import save_network

        save_network(net, self.run / "az", self.az_config())
        buf = io.BytesIO()
        torch.save({"net": net.state_dict(), "optimizer": optimizer.state_dict()}, buf)
        atomic_write(self.run / "checkpoint.pt", buf.getvalue())
        atomic_write(self.run / "replay.npz", replay.to_bytes())
        state = {
            "positions": self.positions,
            "updates": self.updates,
            "evals": self.history,
            "wall_seconds": self.minutes() * 60,
            "cpu_seconds": self.cpu + time.process_time() - self.cpu_started,
        }
        atomic_write(self.run / "state.json", json.dumps(state, indent=1))

    def evaluate(self, net: Any, n_games: int, progress: bool = False) -> list[Any]:
        from agents.az import AZAgent
        from training.evaluate import evaluate

        config = self.az_config()
        results = []
        for sims, opponents in ((self.a.eval_sims, self.a.eval_opponents), (0, self.a.eval_net_opponents)):
            if opponents:
                agent = AZAgent(network=net, config=config, sims=sims)
                agent.name = f"learner:sims={sims}"
                results += evaluate(
                    self.game, agent, opponents, n_games, self.a.eval_seed, "default", progress
                )
        return results

    def periodic_evaluation(self, net: Any, writer: Any) -> None:
        net.eval()
        start = time.perf_counter()
        results = self.evaluate(net, self.a.eval_games)
        minutes = round(self.minutes(), 3)
        for res in results:
            lo, hi = res.confidence_interval()
            values = (self.positions, minutes, res.a, res.b, res.pairs, res.games, res.wins, res.draws)
            values += (res.losses, res.score, lo, hi)
            self.history.append(dict(zip(EVAL_COLUMNS, values, strict=True)))
            writer.add_scalar(f"eval/{res.a}/score_vs_{res.b}", res.score, self.positions)
        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=EVAL_COLUMNS, lineterminator="\n")
        w.writeheader()
        w.writerows(self.history)
        atomic_write(self.run / "eval.csv", buf.getvalue())
        self.plot()
        scores = ", ".join(f"{r.a.split(':')[1]} vs {r.b} {r.score:.2f}" for r in results)
        print(
            f"[{self.positions} positions, {minutes:.1f} min] "
            f"eval ({time.perf_counter() - start:.0f} s): {scores}",
            flush=True,
        )

    def plot(self) -> None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(7, 4))
        keys = sorted({(r["agent"], r["opponent"]) for r in self.history})
        for agent, opp in keys:
            rows = [r for r in self.history if (r["agent"], r["opponent"]) == (agent, opp)]
            x = [r["minutes"] for r in rows]
            ax.plot(x, [r["score"] for r in rows], marker="o", label=f"{agent.split(':')[1]} vs {opp}")
            ax.fill_between(x, [r["ci_low"] for r in rows], [r["ci_high"] for r in rows], alpha=0.12)
        ax.set(
            xlabel="training wall time (minutes)",
            ylabel="score",
            ylim=(0, 1),
            title=f"AlphaZero: {self.game.name}",
        )
        ax.axhline(0.5, color="grey", lw=0.5)
        ax.legend(fontsize=7, loc="lower right")
        fig.tight_layout()
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=110)
        plt.close(fig)
        atomic_write(self.run / "learning_curve.png", buf.getvalue())


def train(a: Args, argv: list[str]) -> int:
    """Run (or resume) the training described by ``a``; returns the exit status."""
    import torch
    from torch.utils.tensorboard import SummaryWriter

    from agents import interrupts
    from agents.arena import derive_seed
    from agents.az_net import build_network, torch_evaluator
    from agents.openings import DEFAULT_PLIES, random_openings
    from training.evaluate import table, write_report

    game = make_game(a)
    run = (
        Path(a.out)
        if a.out
        else default_run_folder(f"runs/az_{game.name}{a.holes_per_row or ''}-seed{a.seed}")
    )
    resuming = a.resume is not None
    if not resuming and (run / "config.json").exists():
        raise ValueError(
            f"{run} already holds a run: continue it with --resume {run} or choose another --out"
        )
    device = resolve_device(a.device)
    run.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(a.torch_threads)
    state = read_json(run / "state.json") if resuming and (run / "state.json").exists() else {}
    session_seed = derive_seed(a.seed, int(state.get("positions", 0))) if resuming else a.seed
    torch.manual_seed(session_seed)
    if device == "cpu":
        torch.use_deterministic_algorithms(True)
    rng = np.random.default_rng(session_seed)
    config = {k: v for k, v in asdict(a).items() if k != "resume"} | {"device": device}
    command = record_run(run, config, "training.train_alphazero", argv)
    book = Run(a, run, game, command, state, device)
    net = build_network(book.az_config()).to(device)
    optimizer = torch.optim.AdamW(net.parameters(), lr=a.learning_rate, weight_decay=a.weight_decay)
    replay = Replay(game, a.replay_size)
    if state and (run / "checkpoint.pt").is_file():
        try:
            saved = torch.load(run / "checkpoint.pt", map_location=device, weights_only=True)
            net.load_state_dict(saved["net"])
            optimizer.load_state_dict(saved["optimizer"])
        except Exception as e:  # a damaged file or the weights of another network
            raise ValueError(f"{run / 'checkpoint.pt'}: cannot resume from it ({type(e).__name__})") from None
        replay.load(run / "replay.npz")
        book.history = [e for e in book.history if e["positions"] <= book.positions]
        print(f"resuming {run} at {book.positions} positions ({book.minutes():.1f} min)", flush=True)
    elif resuming:
        print(f"{run} has no checkpoint yet: starting it from scratch", flush=True)
    suite = random_openings(game, a.train_openings, plies=(1, DEFAULT_PLIES[game.name][1]), seed=a.seed)
    selfplay = SelfPlay(a, game, torch_evaluator(net), rng, suite)
    writer = SummaryWriter(str(next_session(run)))
    budget = f"{a.total_positions} positions" + (f" or {a.max_minutes} min" if a.max_minutes else "")
    print(f"training az on {game.name} in {run}: {budget}, device {device}", flush=True)

    def out_of_budget() -> bool:
        return book.positions >= a.total_positions or (
            a.max_minutes is not None and book.minutes() >= a.max_minutes
        )

    next_eval = (book.positions // a.eval_every + 1) * a.eval_every
    try:
        with interrupts.deferred_interrupts():
            if not book.history:
                book.periodic_evaluation(net, writer)  # the untrained network: the curve's origin
            while not out_of_budget():
                t0, evals0 = time.perf_counter(), selfplay.search.evaluations
                net.eval()
                for _ in range(a.moves_per_iteration):
                    book.positions += selfplay.step(replay)
                    interrupts.check()
                t1 = time.perf_counter()
                writer.add_scalar(
                    "selfplay/positions_per_second",
                    a.games * a.moves_per_iteration / (t1 - t0),
                    book.positions,
                )
                writer.add_scalar(
                    "selfplay/evaluations_per_second",
                    (selfplay.search.evaluations - evals0) / (t1 - t0),
                    book.positions,
                )
                writer.add_scalar("selfplay/finished_games", selfplay.finished_games, book.positions)
                if replay.size >= max(a.min_replay, a.batch_size):
                    net.train()
                    steps = max(1, round(a.sample_reuse * a.games * a.moves_per_iteration / a.batch_size))
                    for _ in range(steps):
                        losses = learn(net, optimizer, replay, a, rng, device)
                        book.updates += 1
                        interrupts.check()
                    for key, value in losses.items():
                        writer.add_scalar(key, value, book.positions)
                    writer.add_scalar(
                        "learn/updates_per_second", steps / (time.perf_counter() - t1), book.positions
                    )
                if book.positions >= next_eval:
                    next_eval += a.eval_every
                    book.periodic_evaluation(net, writer)
                    book.save(net, optimizer, replay)
            if not book.history or book.history[-1]["positions"] != book.positions:
                book.periodic_evaluation(net, writer)  # eval.csv ends with the final network
            book.save(net, optimizer, replay)
    except KeyboardInterrupt:
        book.save(net, optimizer, replay)
        print(
            f"\ninterrupted at {book.positions} positions: checkpoint saved; continue with --resume {run}",
            flush=True,
        )
        return 130
    finally:
        writer.close()
    print(f"final evaluation: {a.final_eval_games} games against each opponent", flush=True)
    try:
        with interrupts.deferred_interrupts():
            results = book.evaluate(net.eval(), a.final_eval_games)
    except KeyboardInterrupt:
        print(
            f"\ninterrupted during the final evaluation; the network is saved: {run / 'az.json'}", flush=True
        )
        return 130
    notes = [
        f"Network: `{run / 'az.json'}` after {book.positions} self-play positions, {book.updates} updates: "
        f"{book.minutes():.1f} min of training with its evaluations.",
        "",
        "![learning curve](learning_curve.png)",
        "",
        f"Command: `{command}`",
    ]
    rows = write_report(run, game, results, a.eval_seed, f"AlphaZero training report: {game.name}", notes, [])
    print(table(rows))
    print(f"report: {run / 'report.md'}; agent: az:path={run / 'az.json'}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """``mancala train-az`` / ``python -m training.train_alphazero``; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        return train(resolve_args(argv), argv)
    except ValueError as e:
        print(f"mancala train-az: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
