"""Train a MaskablePPO agent for one mancala game by self-play against an opponent pool.

One readable script in the CleanRL manner: the arguments are the fields of :class:`Args`
(``--total-timesteps``, ``--num-envs``, ... one flag per field), their defaults come from
``training/configs.toml`` (``[defaults]``, then the game's own section), the command line wins.

    python -m training.train_ppo                         # the main job: Songo Ewondo, < 10 min on 2 cores
    python -m training.train_ppo --game en_dodoi --total-timesteps 3000000 --out runs/en_dodoi
    python -m training.train_ppo --resume runs/en_dodoi  # continue an interrupted run
    mancala train ...                                    # the same script

**Training.** sb3-contrib ``MaskablePPO`` (``MlpPolicy``) on :class:`~mancala_envs.vector.MancalaVecEnv`:
the learner's seat is drawn per episode (it plays both seats), its reward is its own result (+1 /
-1 / 0) whoever the opponent is. The opponent of every episode is drawn from the
:class:`~training.opponents.OpponentPool` (baselines and frozen snapshots; schedule in that module).

**Evaluation** every ``eval_freq`` steps: the learner (greedy on its policy) plays
:func:`agents.arena.play_match` against each of ``eval_opponents``, ``eval_games`` games with the
fixed seed ``eval_seed`` (seats balanced). Scores go to TensorBoard (``eval/score_vs_<opponent>``)
and ``eval.csv``. Each evaluation then writes the checkpoint and decides the snapshot. At the end,
``final_eval_games`` games per opponent give ``report.md`` / ``report.json`` and the table printed.

**Run folder** (``--out``, never overwritten; default ``runs/<game>-seed<seed>``, or
``runs/<game>-seed<seed>-2``, ``-3``... if taken): ``config.json`` (the resolved
arguments), ``command.txt``, ``git_revision.txt``, ``model.zip`` (the latest checkpoint: loads with
``agents.make_agent("policy:path=RUN/model.zip")``), ``best_model.zip`` (best mean evaluation score),
``state.json`` (steps, evaluation history, snapshots), ``snapshots/*.pt``, ``eval.csv``,
``logs/session<k>/`` (TensorBoard events and SB3's ``progress.csv``), ``report.md``,
``report.json``, ``learning_curve.png``. Every file is written through a temporary file and a
rename, so an interruption never leaves a broken checkpoint.

**Resume.** ``--resume RUN`` reloads ``config.json`` (``--total-timesteps``, ``--device``,
``--torch-threads`` and ``--progress-bar`` may be changed), ``model.zip``, the evaluation history
and the snapshots, and trains the remaining steps: at most one evaluation interval is lost.
Ctrl-C saves a checkpoint at once (exit status 130).

**Determinism.** ``seed`` seeds Python, NumPy and torch (``set_random_seed``), the env, the pool and
the baselines; on CPU torch runs with ``use_deterministic_algorithms``; so the same seed, arguments
and torch thread count give the same training curve on the same machine and library versions. Not
covered: GPU runs (cuDNN/cuBLAS kernels may differ), other torch builds or thread counts, and a
resumed run, which continues deterministically from its checkpoint but reseeds the env and the
pool there (the rollout in progress when it stopped is lost), so it does not repeat the exact
numbers of an uninterrupted run.
"""

from __future__ import annotations

import argparse
import copy
import csv
import functools
import io
import json
import os
import shlex
import subprocess
import sys
import time
import tomllib
import types
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Union, get_args, get_origin, get_type_hints

import numpy as np
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from stable_baselines3.common.vec_env import VecEnvWrapper

from mancala_envs import GAMES, Game, get_game
from mancala_envs import kernels as K

CONFIG_FILE = Path(__file__).with_name("configs.toml")
# Arguments that --resume may change; every other one comes from the run's config.json.
RESUMABLE = ("total_timesteps", "device", "torch_threads", "progress_bar")


@dataclass
class Args:
    """Every argument of a training run (``--field-name`` on the command line)."""

    game: str = field(default="songo_ewondo", metadata={"help": "game: " + ", ".join(GAMES)})
    holes_per_row: int | None = field(default=None, metadata={"help": "en_dodoi only: 6..10 (8)"})
    max_plies: int | None = field(default=None, metadata={"help": "truncate games at N plies (1000)"})
    total_timesteps: int = field(default=1_000_000, metadata={"help": "learner moves to train on"})
    num_envs: int = field(default=32, metadata={"help": "games played at once"})
    seed: int = field(default=0, metadata={"help": "seed of every random choice"})
    out: str | None = field(default=None, metadata={"help": "run folder (a new runs/<game>-seed<seed>[-k])"})
    resume: str | None = field(default=None, metadata={"help": "continue the run in this folder"})
    device: str = field(default="auto", metadata={"help": "torch device: auto (a GPU if any), cpu, cuda"})
    torch_threads: int = field(default=1, metadata={"help": "torch CPU threads"})
    progress_bar: bool = field(default=True, metadata={"help": "show a progress bar"})
    config: str = field(default=str(CONFIG_FILE), metadata={"help": "TOML file of per-game defaults"})
    # PPO (sb3-contrib MaskablePPO)
    n_steps: int = field(default=128, metadata={"help": "rollout steps per game and update"})
    batch_size: int = field(default=512, metadata={"help": "minibatch size"})
    n_epochs: int = field(default=8, metadata={"help": "epochs per update"})
    learning_rate: float = field(default=3e-4, metadata={"help": "Adam learning rate"})
    gamma: float = field(default=0.99, metadata={"help": "discount"})
    gae_lambda: float = field(default=0.95, metadata={"help": "GAE lambda"})
    clip_range: float = field(default=0.2, metadata={"help": "PPO clip range"})
    ent_coef: float = field(default=0.01, metadata={"help": "entropy bonus"})
    vf_coef: float = field(default=0.5, metadata={"help": "value loss weight"})
    max_grad_norm: float = field(default=0.5, metadata={"help": "gradient clipping"})
    net_arch: list[int] = field(default_factory=lambda: [128, 128], metadata={"help": "hidden layers"})
    obs_scale: float = field(default=10.0, metadata={"help": "the policy multiplies observations by this"})
    one_hot_max: int = field(
        default=20, metadata={"help": "one-hot seed counts 0..N in the policy's input (0: off)"}
    )
    capture_shaping: float = field(
        default=0.0, metadata={"help": "weight of the potential-based capture-difference shaping (0: none)"}
    )
    # evaluation
    eval_freq: int = field(default=200_000, metadata={"help": "steps between evaluations/checkpoints"})
    eval_games: int = field(default=100, metadata={"help": "games per opponent per evaluation (even)"})
    final_eval_games: int = field(default=400, metadata={"help": "games per opponent, final report"})
    eval_opponents: list[str] = field(
        default_factory=lambda: ["random", "greedy", "minimax:depth=2"],
        metadata={"help": "agent specs the learner is evaluated against"},
    )
    eval_seed: int = field(default=2024, metadata={"help": "arena seed of every evaluation"})
    # opponent pool
    pool: list[str] = field(
        default_factory=lambda: ["random@0.15", "greedy@0.3", "minimax:depth=1@0.15", "minimax:depth=2@0.4"],
        metadata={"help": "baseline opponents, SPEC@WEIGHT"},
    )
    snapshot_weight: float = field(default=0.3, metadata={"help": "total draw weight of the snapshots"})
    max_snapshots: int = field(default=5, metadata={"help": "frozen learner snapshots kept"})


# ---------------------------------------------------------------------------- the policy's input


class SeedFeatures(BaseFeaturesExtractor):
    """The policy's input layer: the core's observation times ``scale`` (its seed counts are
    fractions of the total, a Songo hole of 5 seeds is 0.07: too small for Adam to fit quickly),
    followed by a one-hot code of each hole's seed count (0 .. ``one_hot_max``, larger counts in the
    last slot; ``one_hot_max=0``: none). Captures and relays turn on exact counts (a hole of 2-4
    seeds, a sowing that reaches a given hole), which one-hot codes make easy to pick up.
    Checkpoints name this class, so they load where ``training`` is importable."""

    def __init__(
        self, observation_space: Any, holes: int, total_seeds: int, scale: float = 10.0, one_hot_max: int = 0
    ):
        size = int(observation_space.shape[0])
        self.cells = 2 * int(holes) if one_hot_max > 0 else 0
        super().__init__(observation_space, size + self.cells * (int(one_hot_max) + 1))
        self.total, self.scale, self.one_hot_max = float(total_seeds), float(scale), int(one_hot_max)

    def forward(self, observations: Any) -> Any:
        import torch

        obs = observations.float().flatten(1)
        if not self.cells:
            return obs * self.scale
        counts = torch.round(obs[:, : self.cells] * self.total).long().clamp(0, self.one_hot_max)
        one_hot = torch.nn.functional.one_hot(counts, self.one_hot_max + 1).flatten(1).float()
        return torch.cat([obs * self.scale, one_hot], dim=1)


class CaptureShaping(VecEnvWrapper):
    """Potential-based shaping (Ng, Harada & Russell 1999) on the capture difference:
    ``Φ = weight * (learner's captured - opponent's captured) / total_seeds``, ``Φ = 0`` at the end of
    an episode; each step's reward gains ``gamma * Φ(next) - Φ(now)``. The shaping terms of an episode
    add up to zero (``Φ`` is 0 at the end, and at the start unless an opening move captured): the total is the
    learner's own result (+1 / -1 / 0), and the optimal policies are unchanged; the captures only
    give earlier credit. For games won on captures; ``weight=0`` turns it off."""

    def __init__(self, venv: Any, weight: float, gamma: float):
        super().__init__(venv)
        self.weight, self.gamma = float(weight), float(gamma)
        g = venv.game
        self._cap, self._total = K.off_captured(g.holes_per_row), float(g.total_seeds)
        self._phi = np.zeros(venv.num_envs)

    def potential(self) -> np.ndarray:
        states, seats = self.venv.states, self.venv.seats
        rows = np.arange(len(seats))
        own, opp = states[rows, self._cap + seats], states[rows, self._cap + 1 - seats]
        return self.weight * (own - opp) / self._total

    def reset(self) -> Any:
        obs = self.venv.reset()
        self._phi = self.potential()
        return obs

    def step_wait(self) -> Any:
        obs, rewards, dones, infos = self.venv.step_wait()
        after = self.potential()  # games that ended have restarted: the new episode's potential
        rewards = rewards + (self.gamma * np.where(dones, 0.0, after) - self._phi).astype(np.float32)
        self._phi = after
        return obs, rewards, dones, infos


# ---------------------------------------------------------------------------- arguments


def build_parser() -> argparse.ArgumentParser:
    """One flag per :class:`Args` field; unset flags stay absent (defaults are resolved later)."""
    p = argparse.ArgumentParser(
        prog="mancala train",
        description="Train MaskablePPO by self-play against an opponent pool (see training/train_ppo.py).",
        argument_default=argparse.SUPPRESS,
    )
    hints = get_type_hints(Args)
    for f in fields(Args):
        kind, flag = hints[f.name], "--" + f.name.replace("_", "-")
        default = f.default_factory() if callable(f.default_factory) else f.default
        text = f"{f.metadata.get('help', '')} (default {default})"
        if get_origin(kind) in (Union, types.UnionType):  # X | None
            kind = next(a for a in get_args(kind) if a is not type(None))
        if kind is bool:
            p.add_argument(flag, action=argparse.BooleanOptionalAction, help=text)
        elif get_origin(kind) is list:
            p.add_argument(flag, nargs="+", type=get_args(kind)[0], metavar="X", help=text)
        else:
            p.add_argument(flag, type=kind, metavar=f.name.upper(), help=text)
    return p


def load_config(path: str | Path, game: str) -> dict[str, Any]:
    """``[defaults]`` then ``[<game>]`` of the TOML file."""
    try:
        with open(path, "rb") as fh:
            table = tomllib.load(fh)
    except FileNotFoundError:
        raise ValueError(f"config file {str(path)!r} does not exist") from None
    merged = {**table.get("defaults", {}), **table.get(game, {})}
    known = {f.name for f in fields(Args)}
    unknown = sorted(set(merged) - known)
    if unknown:
        raise ValueError(f"{path}: unknown keys {unknown}; known: {sorted(known)}")
    return merged


def resolve_args(argv: list[str] | None = None) -> Args:
    """The run's arguments: dataclass defaults < configs.toml < command line (or the resumed run's
    ``config.json`` < the :data:`RESUMABLE` flags given)."""
    given = vars(build_parser().parse_args(argv))
    if "resume" in given:
        run = Path(given["resume"])
        if not (run / "config.json").is_file():
            raise ValueError(f"--resume {run}: no config.json there (not a run folder)")
        extra = sorted(set(given) - {"resume", *RESUMABLE})
        if extra:
            raise ValueError(
                f"--resume takes the run's own config; only {RESUMABLE} may be given, not {extra}"
            )
        saved = json.loads((run / "config.json").read_text())
        args = Args(**{**saved, **given, "out": str(run)})
    else:
        game = given.get("game", Args.game)
        if game not in GAMES:
            raise ValueError(f"unknown game {game!r}; known: {', '.join(GAMES)}")
        args = Args(**{**load_config(given.get("config", CONFIG_FILE), game), **given})
    check_args(args)
    return args


def check_args(a: Args) -> None:
    """``ValueError`` naming the first bad argument."""
    from agents.registry import make_agent
    from training.opponents import parse_pool

    for name in (
        "total_timesteps",
        "num_envs",
        "n_steps",
        "batch_size",
        "n_epochs",
        "eval_freq",
        "torch_threads",
    ):
        if getattr(a, name) < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be >= 1, got {getattr(a, name)}")
    for name in ("eval_games", "final_eval_games"):
        if getattr(a, name) < 2 or getattr(a, name) % 2:
            raise ValueError(f"--{name.replace('_', '-')} must be a positive even number (both seats)")
    if a.seed < 0 or a.eval_seed < 0:
        raise ValueError("seeds must be non-negative integers")
    for spec in [*a.eval_opponents, *parse_pool(a.pool)]:
        make_agent(spec)  # raises ValueError for a bad spec


def make_game(a: Args) -> Game:
    params = {
        k: v for k, v in (("holes_per_row", a.holes_per_row), ("max_plies", a.max_plies)) if v is not None
    }
    return get_game(a.game, **params)


def git_revision() -> str:
    """The project's git commit (``+dirty`` with uncommitted changes), or ``unknown`` (no git, not a
    repository). Read-only: ``GIT_OPTIONAL_LOCKS=0`` keeps ``git status`` from touching the index."""
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0"}
    try:
        run = functools.partial(subprocess.run, cwd=root, capture_output=True, text=True, timeout=10, env=env)
        rev = run(["git", "rev-parse", "HEAD"])
        if rev.returncode != 0:
            return "unknown"
        dirty = run(["git", "status", "--porcelain", "--untracked-files=no"])
        return rev.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


# ---------------------------------------------------------------------------- checkpoints


def save_model(model: Any, path: Path) -> None:
    """``model.save`` to a temporary ``.zip`` beside ``path``, then rename over it."""
    tmp = path.with_name(f".{path.stem}.tmp.zip")
    model.save(tmp)
    tmp.replace(path)


EVAL_COLUMNS = ("timesteps", "opponent", "games", "wins", "draws", "losses", "score", "ci_low", "ci_high")


class Trainer:
    """The run folder, the pool and the evaluation schedule; its :meth:`callback` plugs into
    ``model.learn``."""

    def __init__(self, args: Args, run: Path, game: Game, pool: Any, state: dict[str, Any]):
        self.args, self.run, self.game, self.pool = args, run, game, pool
        self.history: list[dict[str, Any]] = state.get("evals", [])
        self.best = state.get("best_score", -1.0)
        self.wall = state.get("wall_seconds", 0.0)
        self.cpu = state.get("cpu_seconds", 0.0)
        self.started, self.cpu_started = time.perf_counter(), time.process_time()
        self.model: Any = None

    def state(self) -> dict[str, Any]:
        return {
            "num_timesteps": int(self.model.num_timesteps),
            "evals": self.history,
            "best_score": self.best,
            "snapshots": self.pool.snapshot_order(),
            "wall_seconds": self.wall + time.perf_counter() - self.started,
            "cpu_seconds": self.cpu + time.process_time() - self.cpu_started,
        }

    def save_checkpoint(self) -> None:
        """``model.zip`` first, then ``state.json`` (which never claims more than the model holds)."""
        from training.evaluate import atomic_write

        save_model(self.model, self.run / "model.zip")
        atomic_write(self.run / "state.json", json.dumps(self.state(), indent=1))

    def evaluate(self, n_games: int, progress: bool = False) -> list[Any]:
        from agents.policy import PolicyAgent
        from training.evaluate import evaluate

        learner = PolicyAgent(model=self.model)
        learner.name = "learner"
        return evaluate(self.game, learner, self.args.eval_opponents, n_games, self.args.eval_seed, progress)

    def periodic_evaluation(self) -> None:
        """Evaluate, log, checkpoint, and freeze a snapshot if the mean score did not drop."""
        from training.evaluate import atomic_write

        steps = int(self.model.num_timesteps)
        results = self.evaluate(self.args.eval_games)
        for res in results:
            lo, hi = res.confidence_interval()
            row = dict(
                zip(
                    EVAL_COLUMNS,
                    (steps, res.b, res.games, res.wins, res.draws, res.losses, res.score, lo, hi),
                    strict=True,
                )
            )
            self.history.append(row)
            self.model.logger.record(f"eval/score_vs_{res.b}", res.score)
        mean = float(np.mean([r.score for r in results]))
        self.model.logger.record("eval/mean_score", mean)
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=EVAL_COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(self.history)
        atomic_write(self.run / "eval.csv", buf.getvalue())
        if mean >= self.best:
            self.best = mean
            name = f"snapshot_{steps}"
            import torch

            tmp = self.run / "snapshots" / f".{name}.pt.tmp"
            tmp.parent.mkdir(exist_ok=True)
            torch.save(self.model.policy.state_dict(), tmp)
            tmp.replace(self.run / "snapshots" / f"{name}.pt")
            self.pool.add_snapshot(self.model.policy, name)
            save_model(self.model, self.run / "best_model.zip")
        self.save_checkpoint()
        scores = ", ".join(f"{r.b} {r.score:.2f}" for r in results)
        print(f"[{steps} steps] eval: {scores} (mean {mean:.3f}, best {self.best:.3f})", flush=True)

    def callback(self) -> Any:
        from stable_baselines3.common.callbacks import BaseCallback

        trainer = self

        class _Callback(BaseCallback):
            def _init_callback(self) -> None:
                done = len({r["timesteps"] for r in trainer.history})
                self.next_eval = (done + 1) * trainer.args.eval_freq

            def _on_step(self) -> bool:
                dones = self.locals["dones"]
                if dones.any():
                    idx = np.flatnonzero(dones)
                    infos = [self.locals["infos"][i] for i in idx]
                    results = [
                        0 if f["winner"] in (None, -1) else (1 if f["winner"] == f["seat"] else -1)
                        for f in infos
                    ]
                    trainer.pool.record_results(idx, np.array(results))
                if self.num_timesteps >= self.next_eval:
                    while self.next_eval <= self.num_timesteps:
                        self.next_eval += trainer.args.eval_freq
                    trainer.periodic_evaluation()
                return True

            def _on_rollout_end(self) -> None:
                merged: dict[str, list[int]] = {}
                for name, tally in trainer.pool.pop_results().items():
                    key = "snapshots" if name.startswith("snapshot_") else name
                    merged[key] = [x + y for x, y in zip(merged.get(key, [0, 0, 0]), tally, strict=True)]
                for key, (w, d, lo) in merged.items():
                    self.logger.record(f"pool/score_vs_{key}", (w + d / 2) / (w + d + lo))
                    self.logger.record(f"pool/episodes_vs_{key}", w + d + lo)

        return _Callback()


# ---------------------------------------------------------------------------- main


def default_run_folder(game: Game, args: Args) -> Path:
    """``runs/<game>-seed<seed>``, or ``...-2``, ``-3``... when that one already holds a run."""
    base = f"runs/{game.name}{args.holes_per_row or ''}-seed{args.seed}"
    k = 1
    while (Path(base if k == 1 else f"{base}-{k}") / "config.json").exists():
        k += 1
    return Path(base if k == 1 else f"{base}-{k}")


def train(args: Args, argv: list[str]) -> int:
    """Run (or resume) the training described by ``args``; returns the exit status."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import configure
    from stable_baselines3.common.utils import set_random_seed

    from agents.arena import derive_seed
    from mancala_envs.vector import MancalaVecEnv
    from training.evaluate import atomic_write, table, write_report
    from training.opponents import OpponentPool, parse_pool

    game = make_game(args)
    run = Path(args.out) if args.out else default_run_folder(game, args)
    resuming = args.resume is not None
    if not resuming and (run / "config.json").exists():
        raise ValueError(
            f"{run} already holds a run: continue it with --resume {run} or choose another --out"
        )
    run.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(args.torch_threads)
    state = json.loads((run / "state.json").read_text()) if resuming and (run / "state.json").exists() else {}
    # seeds: the run's seed, or (resuming) one derived from it and the checkpoint's step count
    session_seed = derive_seed(args.seed, int(state.get("num_timesteps", 0))) if resuming else args.seed
    set_random_seed(session_seed)
    device = args.device
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cpu":
        torch.use_deterministic_algorithms(True)
    pool = OpponentPool(
        game,
        args.num_envs,
        parse_pool(args.pool),
        args.snapshot_weight,
        args.max_snapshots,
        seed=derive_seed(session_seed, 1),
    )
    env = MancalaVecEnv(game, args.num_envs, opponent=pool, seed=derive_seed(session_seed, 2))
    if args.capture_shaping:
        env = CaptureShaping(env, args.capture_shaping, args.gamma)
    config = {k: v for k, v in asdict(args).items() if k != "resume"}
    if resuming and (run / "model.zip").is_file():
        model = MaskablePPO.load(run / "model.zip", env=env, device=device)
        state["evals"] = [e for e in state.get("evals", []) if e["timesteps"] <= model.num_timesteps]
        for name in state.get("snapshots", []):  # rebuild the pool, oldest snapshot first
            policy = copy.deepcopy(model.policy)
            policy.load_state_dict(torch.load(run / "snapshots" / f"{name}.pt", map_location=device))
            pool.add_snapshot(policy, name)
        print(f"resuming {run} at {model.num_timesteps} steps", flush=True)
    else:
        if resuming:
            print(f"{run} has no checkpoint yet: starting it from scratch", flush=True)
        state = {}
        model = MaskablePPO(
            "MlpPolicy",
            env,
            learning_rate=args.learning_rate,
            n_steps=args.n_steps,
            batch_size=args.batch_size,
            n_epochs=args.n_epochs,
            gamma=args.gamma,
            gae_lambda=args.gae_lambda,
            clip_range=args.clip_range,
            ent_coef=args.ent_coef,
            vf_coef=args.vf_coef,
            max_grad_norm=args.max_grad_norm,
            policy_kwargs={
                "net_arch": list(args.net_arch),
                "features_extractor_class": SeedFeatures,
                "features_extractor_kwargs": {
                    "holes": game.holes_per_row,
                    "total_seeds": game.total_seeds,
                    "scale": args.obs_scale,
                    "one_hot_max": args.one_hot_max,
                },
            },
            seed=args.seed,
            device=device,
            verbose=0,
        )
    atomic_write(run / "config.json", json.dumps(config, indent=2) + "\n")
    command = shlex.join(["python", "-m", "training.train_ppo", *argv])
    with open(run / "command.txt", "a") as fh:
        fh.write(command + "\n")
    atomic_write(run / "git_revision.txt", git_revision() + "\n")
    sessions = len(list((run / "logs").glob("session*"))) if (run / "logs").exists() else 0
    model.set_logger(configure(str(run / "logs" / f"session{sessions}"), ["csv", "tensorboard"]))
    trainer = Trainer(args, run, game, pool, state)
    trainer.model = model
    remaining = args.total_timesteps - model.num_timesteps
    print(
        f"training {game.name} in {run}: {remaining} steps left of {args.total_timesteps}, device {device}",
        flush=True,
    )
    try:
        if remaining > 0:
            model.learn(
                remaining,
                callback=trainer.callback(),
                reset_num_timesteps=False,
                progress_bar=args.progress_bar,
            )
        trainer.save_checkpoint()
    except KeyboardInterrupt:
        trainer.save_checkpoint()
        print(
            f"\ninterrupted at {model.num_timesteps} steps: checkpoint saved; continue with --resume {run}",
            flush=True,
        )
        return 130
    finally:
        env.close()
    print(
        f"final evaluation: {args.final_eval_games} games against each of {args.eval_opponents}", flush=True
    )
    results = trainer.evaluate(args.final_eval_games, progress=args.progress_bar)
    spent = trainer.state()
    notes = [
        f"Model: `{run / 'model.zip'}` after {model.num_timesteps} steps: "
        f"{spent['wall_seconds'] / 60:.1f} min, {spent['cpu_seconds'] / 60:.1f} CPU-min of training "
        "with its evaluations "
        f"(git {git_revision()}).",
        "",
        f"Command: `{command}`",
    ]
    rows = write_report(
        run, game, results, args.eval_seed, f"Training report: {game.name}", notes, trainer.history
    )
    print(table(rows))
    print(f"report: {run / 'report.md'}; agent: policy:path={run / 'model.zip'}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """``mancala train`` / ``python -m training.train_ppo``; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = resolve_args(argv)
        return train(args, argv)
    except ValueError as e:
        print(f"mancala train: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    # run the module's own copy, so that checkpoints name training.train_ppo.SeedFeatures, not __main__'s
    from training.train_ppo import main as _main

    sys.exit(_main())
