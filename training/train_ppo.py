"""Train a MaskablePPO agent for one mancala game by self-play against an opponent pool.

One readable script in the CleanRL manner: the arguments are the fields of :class:`Args`
(``--total-timesteps``, ``--num-envs``, ... one flag per field), their defaults come from
``training/configs.toml`` (``[defaults]``, then the game's own section), the command line wins.

    python -m training.train_ppo                         # the main job: Songo Ewondo, < 10 min on 2 cores
    python -m training.train_ppo --game en_dodoi --total-timesteps 3000000 --out runs/en_dodoi
    python -m training.train_ppo --resume runs/en_dodoi  # continue an interrupted run
    mancala train ...                                    # the same script

**Training.** sb3-contrib ``MaskablePPO`` (``MlpPolicy`` over :class:`training.features.CountFeatures`)
on :class:`~mancala_envs.envs.vector.MancalaVecEnv` with raw-count observations: the learner's seat
is drawn per episode (it plays both seats), its reward is its own result (+1 / -1 / 0) whoever the
opponent is. Episodes start from a suite of ``train_openings`` random openings (and the initial
position, a fifth of the time; ``--no-openings``: the initial position only). The opponent of
every episode is drawn from the :class:`~training.opponents.OpponentPool`.

**Evaluation** every ``eval_freq`` steps and at the final step: the learner (argmax on its policy)
plays :func:`agents.arena.play_match` against each of ``eval_opponents`` over the game's default
opening suite, ``eval_games`` games (``eval_games / 2`` openings, both seatings) with the fixed seed
``eval_seed``. Scores, intervals over the opening pairs and distinct games go to TensorBoard
(``eval/score_vs_<opponent>``) and ``eval.csv``. Each evaluation then writes the checkpoint and
decides the snapshot. At the end, ``final_eval_games`` games per opponent give ``report.md`` /
``report.json`` and the table printed, for the same final model as the last ``eval.csv`` rows.

**Run folder** (``--out``, never overwritten; default ``runs/<game>-seed<seed>[-k]``):
``config.json`` (the resolved arguments, with the device actually used), ``command.txt``,
``git_revision.txt``, ``policy.json`` + ``policy.pt`` (the latest policy in the safe format of
:mod:`agents.policy_files`: ``make_agent("policy:path=RUN/policy.json")``), ``best_policy.*``
(best mean evaluation score), ``model.zip`` (the full checkpoint for ``--resume``), ``state.json``
(steps, evaluation history, snapshots), ``snapshots/*.pt``, ``eval.csv``, ``logs/session<k>/``
(TensorBoard events and SB3's ``progress.csv``), ``report.md``, ``report.json``,
``learning_curve.png``. Every file is written through a temporary file and a rename.

**Resume and Ctrl-C.** ``--resume RUN`` reloads ``config.json`` (``--total-timesteps``,
``--torch-threads`` and ``--progress-bar`` may be changed), ``model.zip`` (read without unpickling
anything: every pickled entry is rebuilt from the config), the evaluation history and the
snapshots, and trains the remaining steps. Ctrl-C stops at the next step with a checkpoint of that
step (exit 130); during the final evaluation it leaves the trained model saved.

**Determinism.** ``seed`` seeds Python, NumPy and torch (``set_random_seed``), the env, the pool and
the baselines; on CPU torch runs with ``use_deterministic_algorithms``; so the same seed, arguments
and torch thread count give the same training curve on the same machine and library versions. Not
covered: GPU runs, other torch builds or thread counts, and a resumed run, which continues
deterministically from its checkpoint but reseeds the env and the pool there.
"""

from __future__ import annotations

import copy
import csv
import io
import json
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env import VecEnvWrapper

from agents.files import atomic_write, read_json
from mancala_envs import GAMES, Game, get_game
from training.common import (
    build_parser,
    default_run_folder,
    load_toml_defaults,
    next_session,
    record_run,
    resolve_device,
    resume_config,
)
from training.features import SeedFeatures  # noqa: F401  (0.1 checkpoints pickled this path)

CONFIG_FILE = Path(__file__).with_name("configs.toml")
RESUMABLE = ("total_timesteps", "torch_threads", "progress_bar")  # what --resume may change
EVAL_COLUMNS = (
    "timesteps",
    "opponent",
    "pairs",
    "games",
    "distinct",
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

    game: str = field(default="songo_ewondo", metadata={"help": "the game", "choices": GAMES})
    holes_per_row: int | None = field(default=None, metadata={"help": "en_dodoi only: 6..10 (none: 8)"})
    max_plies: int | None = field(default=None, metadata={"help": "truncate games at N plies (none: 1000)"})
    total_timesteps: int = field(default=1_000_000, metadata={"help": "learner moves to train on"})
    num_envs: int = field(default=32, metadata={"help": "games played at once"})
    seed: int = field(default=0, metadata={"help": "seed of every random choice"})
    out: str | None = field(
        default=None, metadata={"help": "run folder (none: a new runs/<game>-seed<seed>[-k])"}
    )
    resume: str | None = field(default=None, metadata={"help": "continue the run in this folder"})
    device: str = field(default="auto", metadata={"help": "torch device: auto (a GPU if any), cpu, cuda"})
    torch_threads: int = field(default=1, metadata={"help": "torch CPU threads"})
    progress_bar: bool = field(default=True, metadata={"help": "show a progress bar"})
    config: str = field(default=str(CONFIG_FILE), metadata={"help": "TOML file of per-game defaults"})
    openings: bool = field(default=True, metadata={"help": "start episodes from random openings too"})
    train_openings: int = field(default=2000, metadata={"help": "random openings episodes start from"})
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
    obs_scale: float = field(default=10.0, metadata={"help": "the policy's input: counts x scale / total"})
    one_hot_max: int = field(
        default=20, metadata={"help": "one-hot seed counts 0..N in the policy's input (0: off)"}
    )
    capture_shaping: float = field(
        default=0.0, metadata={"help": "potential-based capture shaping weight (0: none)"}
    )
    # evaluation
    eval_freq: int = field(default=200_000, metadata={"help": "steps between evaluations/checkpoints"})
    eval_games: int = field(default=100, metadata={"help": "games per opponent per evaluation (even)"})
    final_eval_games: int = field(default=400, metadata={"help": "games per opponent, final report (even)"})
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


class CaptureShaping(VecEnvWrapper):
    """Potential-based shaping (Ng, Harada & Russell 1999) on the capture difference:
    ``Φ = weight * (learner's captured - opponent's captured) / total_seeds``, ``Φ = 0`` at the end of
    an episode; each step's reward gains ``gamma * Φ(next) - Φ(now)``. The optimal policies are
    unchanged; captures only give earlier credit. For games won on captures; ``weight=0``: off."""

    def __init__(self, venv: Any, weight: float, gamma: float):
        super().__init__(venv)
        self.weight, self.gamma = float(weight), float(gamma)
        self._cap, self._total = venv.game.layout.captured.start, float(venv.game.total_seeds)
        self._phi = np.zeros(venv.num_envs)

    def potential(self) -> np.ndarray:
        states, seats = self.venv.states, self.venv.seats
        rows = np.arange(len(seats))
        return (
            self.weight
            * (states[rows, self._cap + seats] - states[rows, self._cap + 1 - seats])
            / self._total
        )

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


def resolve_args(argv: list[str] | None = None) -> Args:
    """Dataclass defaults < configs.toml < command line (or the run's config.json < RESUMABLE flags)."""
    given = vars(
        build_parser(
            Args, "mancala train", "Train MaskablePPO by self-play (training/train_ppo.py)."
        ).parse_args(argv)
    )
    if "resume" in given:
        args = Args(**resume_config(Path(given["resume"]), given, RESUMABLE))
    else:
        game = given.get("game", Args.game)
        args = Args(**{**load_toml_defaults(given.get("config", CONFIG_FILE), game, Args), **given})
    check_args(args)
    return args


def check_args(a: Args) -> None:
    """``ValueError`` naming the first bad argument (before anything is built or played)."""
    from agents.registry import make_agent
    from training.opponents import parse_pool

    if a.game not in GAMES:
        raise ValueError(f"unknown game {a.game!r}; known: {', '.join(GAMES)}")
    for name in (
        "total_timesteps",
        "num_envs",
        "n_steps",
        "batch_size",
        "n_epochs",
        "eval_freq",
        "torch_threads",
        "train_openings",
    ):
        if getattr(a, name) < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be >= 1, got {getattr(a, name)}")
    for name in ("eval_games", "final_eval_games"):
        if getattr(a, name) < 2 or getattr(a, name) % 2:
            raise ValueError(f"--{name.replace('_', '-')} must be a positive even number (both seatings)")
    if a.seed < 0 or a.eval_seed < 0:
        raise ValueError("seeds must be non-negative integers")
    make_game(a)
    for spec in [*a.eval_opponents, *parse_pool(a.pool)]:
        make_agent(spec)  # raises ValueError for a bad spec


def make_game(a: Args) -> Game:
    params = {
        k: v for k, v in (("holes_per_row", a.holes_per_row), ("max_plies", a.max_plies)) if v is not None
    }
    return get_game(a.game, **params)


def policy_kwargs(a: Args, game: Game) -> dict[str, Any]:
    from training.features import CountFeatures

    return {
        "net_arch": list(a.net_arch),
        "features_extractor_class": CountFeatures,
        "features_extractor_kwargs": {
            "holes": game.holes_per_row,
            "total_seeds": game.total_seeds,
            "scale": a.obs_scale,
            "one_hot_max": a.one_hot_max,
        },
    }


def policy_config(a: Args, game: Game, steps: int, command: str) -> dict[str, Any]:
    """The safe policy file's config (:mod:`agents.policy_files`)."""
    from training.common import git_revision

    kw = policy_kwargs(a, game)
    return {
        "algorithm": "MaskablePPO",
        "game": game.name,
        "params": dict(game.params),
        "observation": "counts",
        "observation_size": game.observation_size,
        "num_actions": game.num_actions,
        "net_arch": kw["net_arch"],
        "features": {"name": "counts", "kwargs": kw["features_extractor_kwargs"]},
        "trained": {"steps": steps, "command": command, "git": git_revision()},
    }


def load_checkpoint(path: Path, env: Any, a: Args, game: Game, device: str) -> Any:
    """``MaskablePPO.load`` of the run's own ``model.zip`` without unpickling anything: every
    pickled entry is rebuilt from the run's arguments; an entry we cannot rebuild is refused."""
    import zipfile

    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from stable_baselines3.common.utils import get_schedule_fn

    custom = {
        "policy_class": MaskableActorCriticPolicy,
        "policy_kwargs": policy_kwargs(a, game),
        "observation_space": env.observation_space,
        "action_space": env.action_space,
        "lr_schedule": get_schedule_fn(a.learning_rate),
        "clip_range": get_schedule_fn(a.clip_range),
        "rollout_buffer_class": None,
        "_last_obs": None,
        "_last_episode_starts": None,
        "ep_info_buffer": None,
        "ep_success_buffer": None,
    }
    try:
        with zipfile.ZipFile(path) as z:
            data = json.loads(z.read("data"))
    except (zipfile.BadZipFile, KeyError, json.JSONDecodeError, OSError) as e:
        raise ValueError(f"{path}: not a MaskablePPO checkpoint ({e})") from None
    pickled = sorted(k for k, v in data.items() if isinstance(v, dict) and ":serialized:" in v)
    unknown = [k for k in pickled if k not in custom]
    if unknown:
        raise ValueError(
            f"{path}: pickled entries {unknown} cannot be rebuilt safely; refusing to unpickle them"
        )
    try:
        return MaskablePPO.load(path, env=env, device=device, custom_objects=custom)
    except Exception as e:  # a damaged archive or weights of another network
        raise ValueError(f"{path}: cannot resume from this checkpoint ({type(e).__name__}: {e})") from None


class Trainer:
    """The run folder, the pool and the evaluation schedule; :meth:`callback` plugs into ``learn``."""

    def __init__(self, args: Args, run: Path, game: Game, pool: Any, state: dict[str, Any], command: str):
        self.args, self.run, self.game, self.pool, self.command = args, run, game, pool, command
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

    def save_policy(self, stem: str) -> None:
        from agents.policy_files import save_policy

        config = policy_config(self.args, self.game, int(self.model.num_timesteps), self.command)
        save_policy(self.model.policy, self.run / stem, config)

    def save_checkpoint(self) -> None:
        """``model.zip`` and the policy files first, then ``state.json`` (never ahead of them)."""
        tmp = self.run / ".model.tmp.zip"
        self.model.save(tmp)
        tmp.replace(self.run / "model.zip")
        self.save_policy("policy")
        atomic_write(self.run / "state.json", json.dumps(self.state(), indent=1))

    def evaluate(self, n_games: int, progress: bool = False) -> list[Any]:
        from agents.policy import PolicyAgent
        from training.evaluate import evaluate

        learner = PolicyAgent(model=self.model, observation="counts")
        learner.name = "learner"
        return evaluate(
            self.game, learner, self.args.eval_opponents, n_games, self.args.eval_seed, "default", progress
        )

    @property
    def last_eval_step(self) -> int:
        return max((r["timesteps"] for r in self.history), default=-1)

    def periodic_evaluation(self) -> None:
        """Evaluate, log, checkpoint, and freeze a snapshot if the mean score did not drop."""
        import torch

        steps = int(self.model.num_timesteps)
        results = self.evaluate(self.args.eval_games)
        for res in results:
            lo, hi = res.confidence_interval()
            values = (
                steps,
                res.b,
                res.pairs,
                res.games,
                res.distinct,
                res.wins,
                res.draws,
                res.losses,
                res.score,
                lo,
                hi,
            )
            self.history.append(dict(zip(EVAL_COLUMNS, values, strict=True)))
            self.model.logger.record(f"eval/score_vs_{res.b}", res.score)
            self.model.logger.record(f"eval/distinct_vs_{res.b}", res.distinct_share)
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
            weights = io.BytesIO()
            torch.save(self.model.policy.state_dict(), weights)
            atomic_write(self.run / "snapshots" / f"{name}.pt", weights.getvalue())
            self.pool.add_snapshot(self.model.policy, name)
            self.save_policy("best_policy")
        self.save_checkpoint()
        scores = ", ".join(f"{r.b} {r.score:.2f}" for r in results)
        print(f"[{steps} steps] eval: {scores} (mean {mean:.3f}, best {self.best:.3f})", flush=True)

    def callback(self) -> Any:
        from stable_baselines3.common.callbacks import BaseCallback

        from agents import interrupts

        trainer = self

        class _Callback(BaseCallback):
            def _init_callback(self) -> None:
                done = len({r["timesteps"] for r in trainer.history})
                self.next_eval = (done + 1) * trainer.args.eval_freq

            def _on_step(self) -> bool:
                dones = self.locals["dones"]
                if dones.any():
                    idx = np.flatnonzero(dones)
                    results = [
                        0 if f["winner"] in (None, -1) else (1 if f["winner"] == f["seat"] else -1)
                        for f in (self.locals["infos"][i] for i in idx)
                    ]
                    trainer.pool.record_results(idx, np.array(results))
                if self.num_timesteps >= self.next_eval:
                    while self.next_eval <= self.num_timesteps:
                        self.next_eval += trainer.args.eval_freq
                    trainer.periodic_evaluation()
                return not interrupts.pending()  # Ctrl-C: stop here, the caller saves this step

            def _on_rollout_end(self) -> None:
                merged: dict[str, list[int]] = {}
                for name, tally in trainer.pool.pop_results().items():
                    key = "snapshots" if name.startswith("snapshot_") else name
                    merged[key] = [x + y for x, y in zip(merged.get(key, [0, 0, 0]), tally, strict=True)]
                for key, (w, d, lo) in merged.items():
                    self.logger.record(f"pool/score_vs_{key}", (w + d / 2) / (w + d + lo))
                    self.logger.record(f"pool/episodes_vs_{key}", w + d + lo)

        return _Callback()


def train(args: Args, argv: list[str]) -> int:
    """Run (or resume) the training described by ``args``; returns the exit status."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import configure
    from stable_baselines3.common.utils import set_random_seed

    from agents import interrupts
    from agents.arena import derive_seed
    from agents.openings import DEFAULT_PLIES, random_openings
    from mancala_envs.envs.vector import MancalaVecEnv
    from training.evaluate import table, write_report
    from training.opponents import OpponentPool, parse_pool

    game = make_game(args)
    run = (
        Path(args.out)
        if args.out
        else default_run_folder(f"runs/{game.name}{args.holes_per_row or ''}-seed{args.seed}")
    )
    resuming = args.resume is not None
    if not resuming and (run / "config.json").exists():
        raise ValueError(
            f"{run} already holds a run: continue it with --resume {run} or choose another --out"
        )
    device = resolve_device(args.device)
    run.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(args.torch_threads)
    state = read_json(run / "state.json") if resuming and (run / "state.json").exists() else {}
    session_seed = derive_seed(args.seed, int(state.get("num_timesteps", 0))) if resuming else args.seed
    set_random_seed(session_seed)
    if device == "cpu":
        torch.use_deterministic_algorithms(True)
    pool = OpponentPool(
        game,
        args.num_envs,
        parse_pool(args.pool),
        args.snapshot_weight,
        args.max_snapshots,
        seed=derive_seed(session_seed, 1),
        counts=True,
    )
    starts = None
    if args.openings:
        suite = random_openings(
            game, args.train_openings, plies=(1, DEFAULT_PLIES[game.name][1]), seed=args.seed
        )
        starts = suite + [game.initial_state()] * max(1, len(suite) // 4)
    env = MancalaVecEnv(
        game, args.num_envs, opponent=pool, seed=derive_seed(session_seed, 2), counts=True, openings=starts
    )
    if args.capture_shaping:
        env = CaptureShaping(env, args.capture_shaping, args.gamma)
    config = {k: v for k, v in asdict(args).items() if k != "resume"} | {"device": device}
    command = record_run(run, config, "training.train_ppo", argv)
    if resuming and (run / "model.zip").is_file():
        model = load_checkpoint(run / "model.zip", env, args, game, device)
        state["evals"] = [e for e in state.get("evals", []) if e["timesteps"] <= model.num_timesteps]
        for name in state.get("snapshots", []):  # rebuild the pool, oldest snapshot first
            policy = copy.deepcopy(model.policy)
            policy.load_state_dict(
                torch.load(run / "snapshots" / f"{name}.pt", map_location=device, weights_only=True)
            )
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
            policy_kwargs=policy_kwargs(args, game),
            seed=args.seed,
            device=device,
            verbose=0,
        )
    model.set_logger(configure(str(next_session(run)), ["csv", "tensorboard"]))
    trainer = Trainer(args, run, game, pool, state, command)
    trainer.model = model
    remaining = args.total_timesteps - model.num_timesteps
    print(
        f"training {game.name} in {run}: {max(remaining, 0)} steps left of {args.total_timesteps}, "
        f"device {device}",
        flush=True,
    )
    try:
        with interrupts.deferred_interrupts():
            if remaining > 0:
                model.learn(
                    remaining,
                    callback=trainer.callback(),
                    reset_num_timesteps=False,
                    progress_bar=args.progress_bar,
                )
            interrupts.check()
            if trainer.last_eval_step != model.num_timesteps:
                trainer.periodic_evaluation()  # at the final step: eval.csv ends with the final model
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
    try:
        with interrupts.deferred_interrupts():
            results = trainer.evaluate(args.final_eval_games, progress=args.progress_bar)
    except KeyboardInterrupt:
        print(
            f"\ninterrupted during the final evaluation; the trained policy is saved: {run / 'policy.json'}",
            flush=True,
        )
        return 130
    spent = trainer.state()
    notes = [
        f"Policy: `{run / 'policy.json'}` after {model.num_timesteps} steps: "
        f"{spent['wall_seconds'] / 60:.1f} min, "
        f"{spent['cpu_seconds'] / 60:.1f} CPU-min of training with its evaluations.",
        "",
        f"Command: `{command}`",
    ]
    rows = write_report(
        run, game, results, args.eval_seed, f"Training report: {game.name}", notes, trainer.history
    )
    print(table(rows))
    print(f"report: {run / 'report.md'}; agent: policy:path={run / 'policy.json'}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """``mancala train`` / ``python -m training.train_ppo``; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        return train(resolve_args(argv), argv)
    except ValueError as e:
        print(f"mancala train: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    # run the module's own copy, so that checkpoints name training.train_ppo, not __main__
    from training.train_ppo import main as _main

    sys.exit(_main())
