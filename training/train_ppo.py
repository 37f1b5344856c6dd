"""Train a MaskablePPO agent for one mancala game by self-play against an opponent pool.

One readable script in the CleanRL manner: the arguments are the fields of :class:`Args` (one
``--field-name`` flag per field, its defaults the defaults; ``configs.toml`` overrides a few per
game, the command line wins), the checkpoint reader (:func:`load_checkpoint`), evaluation and
snapshots (:class:`Trainer`), the loop's setup (the pool, the env, the model: plain functions),
the loop (:func:`train`) and the report; the run folder is :mod:`mancala_envs.training.run`.

::

    python -m mancala_envs.training.train_ppo          # Songo Ewondo, the default job
    python -m mancala_envs.training.train_ppo --resume runs/songo_ewondo-seed0
    mancala train ...                                   # the same script

Guide: docs/training/ppo.md
"""

from __future__ import annotations

from mancala_envs.infra.extras import require

# ruff: noqa: E402 (the imports below come after the check that the [train] extra is installed)
require("torch", "train", "mancala train")  # without it: one clear MissingExtraError, here
require("sb3_contrib", "train", "mancala train")

import copy
import json
import math
import sys
import zipfile
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import configure
from stable_baselines3.common.utils import get_schedule_fn, set_random_seed
from stable_baselines3.common.vec_env import VecEnvWrapper

from mancala_envs import GAMES, Game, get_game
from mancala_envs.agents.model_files import save_policy
from mancala_envs.agents.policies.features import CountFeatures
from mancala_envs.agents.policies.policy import PolicyAgent
from mancala_envs.envs.vector import MancalaVecEnv
from mancala_envs.evaluation.arena import derive_seed
from mancala_envs.evaluation.evaluate import evaluate
from mancala_envs.evaluation.openings import DEFAULT_PLIES, random_openings
from mancala_envs.evaluation.optimality import BLUNDER_KINDS, optimality
from mancala_envs.infra import interrupts
from mancala_envs.infra.files import atomic_write
from mancala_envs.tablebase.optimality_suite import load_suite
from mancala_envs.training.args import (
    SHIPPED_OVERRIDES,
    RunArgs,
    check_each,
    check_evaluation_args,
    game_overrides,
    parse_run_args,
)
from mancala_envs.training.opponents import OpponentPool, parse_pool
from mancala_envs.training.run import Run, script_main, torch_bytes, write_csv

RESUMABLE = ("total_timesteps", "torch_threads", "progress_bar")  # what --resume may change
BLUNDER_COLUMNS = ("win_to_draw", "win_to_loss", "draw_to_loss")  # optimality.BLUNDER_KINDS
OPTIMALITY_COLUMNS = ("timesteps", "positions", "optimal", "rate", "ci_low", "ci_high", *BLUNDER_COLUMNS)


@dataclass
class Args(RunArgs):
    """Every argument of a training run (``--field-name`` on the command line): the shared ones
    (:class:`mancala_envs.training.args.RunArgs`: game, seed, run folder, device, ...) and these."""

    total_timesteps: int = field(default=1_000_000, metadata={"help": "learner moves to train on"})
    num_envs: int = field(default=32, metadata={"help": "games played at once"})
    progress_bar: bool = field(default=True, metadata={"help": "show a progress bar"})
    config: str = field(
        default=str(SHIPPED_OVERRIDES), metadata={"help": "TOML file of per-game overrides ([<game>])"}
    )
    openings: bool = field(default=True, metadata={"help": "start episodes from random openings too"})
    # PPO (sb3-contrib MaskablePPO): 32 games x 128 steps = 4096 steps per update
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
    eval_optimality: bool = field(
        default=False,
        metadata={"help": "also score each evaluation's learner on the game's shipped optimality suite"},
    )
    # opponent pool
    pool: list[str] = field(
        default_factory=lambda: ["random@0.15", "greedy@0.3", "minimax:depth=1@0.15", "minimax:depth=2@0.4"],
        metadata={"help": "baseline opponents, SPEC@WEIGHT"},
    )
    snapshot_weight: float = field(default=0.3, metadata={"help": "total draw weight of the snapshots"})
    max_snapshots: int = field(default=5, metadata={"help": "frozen learner snapshots kept"})


def resolve_args(argv: list[str] | None = None) -> Args:
    """Dataclass defaults < the game's overrides in configs.toml < command line (or the run's
    config.json < RESUMABLE flags)."""
    description = "Train MaskablePPO by self-play (training/train_ppo.py)."
    args = parse_run_args(Args, "mancala train", description, argv, RESUMABLE, config_overrides)
    check_args(args)
    return args


def config_overrides(given: dict[str, Any]) -> dict[str, Any]:
    """The overrides of the given game (none given: the default) in the given ``--config`` file
    (none: the shipped configs.toml)."""
    return game_overrides(given.get("config"), given.get("game", Args.game), Args)


def check_args(a: Args) -> None:
    """``ValueError`` naming the first bad argument (before anything is built or played)."""
    if a.game not in GAMES:
        raise ValueError(f"unknown game {a.game!r}; known: {', '.join(GAMES)}")
    positive = ("total_timesteps", "num_envs", "n_steps", "n_epochs", "eval_freq")
    check_each(a, (*positive, "torch_threads", "train_openings"), lambda v: v >= 1, ">= 1")
    # MaskablePPO normalises the advantages of each minibatch: one sample has no spread (NaN)
    check_each(a, ("batch_size",), lambda v: v >= 2, ">= 2")
    check_each(a, ("max_snapshots", "one_hot_max"), lambda v: v >= 0, ">= 0")
    positive_reals = ("learning_rate", "clip_range", "max_grad_norm", "obs_scale")
    check_each(a, positive_reals, lambda v: math.isfinite(v) and v > 0, "a finite number > 0")
    check_each(a, ("gamma", "gae_lambda"), lambda v: 0 < v <= 1, "in (0, 1]")
    non_negative = ("ent_coef", "vf_coef", "snapshot_weight", "capture_shaping")
    check_each(a, non_negative, lambda v: math.isfinite(v) and v >= 0, "a finite number >= 0")
    if not a.net_arch or min(a.net_arch) < 1:
        raise ValueError(f"--net-arch must be positive layer widths, got {a.net_arch}")
    pool = parse_pool(a.pool)
    if sum(pool.values()) <= 0 and a.snapshot_weight <= 0:
        raise ValueError("--pool weights are all zero and --snapshot-weight is 0: no opponent to draw")
    game = check_evaluation_args(a, [*a.eval_opponents, *pool])
    if a.eval_optimality:
        optimality_suite(game)  # ValueError where no suite ships (a game of one's own)


def optimality_suite(game: Game) -> tuple[Game, list[Any]]:
    """The shipped optimality suite of ``game`` (``ValueError`` where none ships) and the game its
    positions are states of: ``game`` with the default ``max_plies``, so that a run's own
    truncation never rejects a suite position (a value does not depend on it)."""
    suite_game = get_game(game.name, **{k: v for k, v in game.params.items() if k != "max_plies"})
    return suite_game, load_suite(suite_game)


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
        mine, theirs = states[rows, self._cap + seats], states[rows, self._cap + 1 - seats]
        return self.weight * (mine - theirs) / self._total

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


def policy_kwargs(a: Args, game: Game) -> dict[str, Any]:
    """The ``MlpPolicy``'s layers and its input (:class:`CountFeatures`)."""
    features = {"holes": game.holes_per_row, "total_seeds": game.total_seeds, "scale": a.obs_scale}
    return {
        "net_arch": list(a.net_arch),
        "features_extractor_class": CountFeatures,
        "features_extractor_kwargs": features | {"one_hot_max": a.one_hot_max},
    }


def policy_config(a: Args, game: Game, steps: int, command: str, revision: str) -> dict[str, Any]:
    """The safe policy file's config (:mod:`mancala_envs.agents.model_files`)."""
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
        "trained": {"steps": steps, "command": command, "git": revision},
    }


def load_checkpoint(path: Path, env: Any, a: Args, game: Game, device: str) -> MaskablePPO:
    """``MaskablePPO.load`` of the run's own ``model.zip`` without unpickling anything: every
    pickled entry is rebuilt from the run's arguments; an entry we cannot rebuild is refused."""
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
    """PPO's side of the run: the evaluation schedule, snapshots into the pool, checkpoints;
    :meth:`callback` plugs into ``learn``."""

    def __init__(self, args: Args, run: Run, pool: OpponentPool, model: MaskablePPO):
        self.args, self.run, self.game, self.pool, self.model = args, run, run.game, pool, model
        self.optimality: list[dict[str, Any]] = run.state.get("optimality", [])
        self.suite = optimality_suite(run.game) if args.eval_optimality else None
        self.best = run.state.get("best_score", -1.0)

    def state(self) -> dict[str, Any]:
        return {
            "num_timesteps": int(self.model.num_timesteps),
            "evals": self.run.history,
            "optimality": self.optimality,
            "best_score": self.best,
            "snapshots": self.pool.snapshot_order(),
            "wall_seconds": self.run.wall_seconds(),
            "cpu_seconds": self.run.cpu_seconds(),
        }

    def save_policy(self, stem: str) -> None:
        steps, run = int(self.model.num_timesteps), self.run
        config = policy_config(self.args, self.game, steps, run.command, run.revision)
        save_policy(self.model.policy, self.run.path / stem, config)

    def save_checkpoint(self) -> None:
        """``model.zip`` and the policy files first, then ``state.json`` (never ahead of them)."""
        tmp = self.run.path / ".model.tmp.zip"
        self.model.save(tmp)
        tmp.replace(self.run.path / "model.zip")
        self.save_policy("policy")
        self.run.save_state(self.state())

    def learner(self) -> PolicyAgent:
        """The model being trained as an agent (argmax on its policy)."""
        learner = PolicyAgent(model=self.model, observation="counts")
        learner.name = "learner"
        return learner

    def evaluate(self, n_games: int, progress: bool = False) -> list[Any]:
        a = self.args
        return evaluate(
            self.game, self.learner(), a.eval_opponents, n_games, a.eval_seed, "default", progress
        )

    def evaluate_optimality(self, steps: int) -> float:
        """The learner's optimality rate on the game's shipped suite, logged as ``eval/optimality``
        and to ``optimality.csv``."""
        suite_game, suite = self.suite
        res = optimality(suite_game, self.learner(), suite, seed=self.args.eval_seed)
        lo, hi = res.interval
        row = dict(
            zip(OPTIMALITY_COLUMNS, (steps, res.positions, res.optimal, res.rate, lo, hi), strict=False)
        )
        row |= {col: res.blunders[kind] for col, kind in zip(BLUNDER_COLUMNS, BLUNDER_KINDS, strict=True)}
        self.optimality = [r for r in self.optimality if r["timesteps"] != steps] + [row]
        self.model.logger.record("eval/optimality", res.rate)
        write_csv(self.run.path / "optimality.csv", OPTIMALITY_COLUMNS, self.optimality)
        return res.rate

    @property
    def last_eval_step(self) -> int:
        return max((r["step"] for r in self.run.history), default=-1)

    def periodic_evaluation(self) -> None:
        """Evaluate, log, checkpoint, and freeze a snapshot if the mean score did not drop."""
        steps = int(self.model.num_timesteps)
        results = self.evaluate(self.args.eval_games)
        self.run.add_evaluation(results, steps, timesteps=steps)
        for res in results:
            self.model.logger.record(f"eval/score_vs_{res.b}", res.score)
            self.model.logger.record(f"eval/distinct_vs_{res.b}", res.distinct_share)
        mean = float(np.mean([r.score for r in results]))
        self.model.logger.record("eval/mean_score", mean)
        rate = self.evaluate_optimality(steps) if self.suite is not None else None
        if mean >= self.best:
            self.best = mean
            name = f"snapshot_{steps}"
            snapshot = torch_bytes(self.model.policy.state_dict())
            atomic_write(self.run.path / "snapshots" / f"{name}.pt", snapshot)
            self.pool.add_snapshot(self.model.policy, name)
            self.save_policy("best_policy")
        self.save_checkpoint()
        scores = ", ".join(f"{r.b} {r.score:.2f}" for r in results)
        extra = "" if rate is None else f", optimality {rate:.3f}"
        print(f"[{steps} steps] eval: {scores} (mean {mean:.3f}, best {self.best:.3f}){extra}", flush=True)

    def callback(self) -> BaseCallback:
        return _Callback(self)


class _Callback(BaseCallback):
    """Tallies the pool's results, evaluates every ``eval_freq`` steps, stops on Ctrl-C."""

    def __init__(self, trainer: Trainer):
        super().__init__()
        self.trainer = trainer

    def _init_callback(self) -> None:
        done = len({r["step"] for r in self.trainer.run.history})
        self.next_eval = (done + 1) * self.trainer.args.eval_freq

    def _on_step(self) -> bool:
        dones = self.locals["dones"]
        if dones.any():
            idx = np.flatnonzero(dones)
            results = [
                0 if f["winner"] not in (0, 1) else (1 if f["winner"] == f["seat"] else -1)
                for f in (self.locals["infos"][i] for i in idx)
            ]
            self.trainer.pool.record_results(idx, np.array(results))
        if self.num_timesteps >= self.next_eval and not self._last_step_of_learning():
            while self.next_eval <= self.num_timesteps:
                self.next_eval += self.trainer.args.eval_freq
            self.trainer.periodic_evaluation()
        return not interrupts.pending()  # Ctrl-C: stop here, the caller saves this step

    def _last_step_of_learning(self) -> bool:
        """The last step of the last rollout: the update on that rollout follows, and then
        ``learn`` returns, so its evaluation waits for train()'s at the final step (the last
        evaluation is then of the model saved; skipping it changes no training)."""
        n, last = self.locals.get("n_steps"), self.locals.get("n_rollout_steps")
        return self.num_timesteps >= self.model._total_timesteps and n is not None and n == last - 1

    def _on_rollout_end(self) -> None:
        merged: dict[str, list[int]] = {}
        for name, tally in self.trainer.pool.pop_results().items():
            key = "snapshots" if name.startswith("snapshot_") else name
            merged[key] = [x + y for x, y in zip(merged.get(key, [0, 0, 0]), tally, strict=True)]
        for key, (w, d, lo) in merged.items():
            self.logger.record(f"pool/score_vs_{key}", (w + d / 2) / (w + d + lo))
            self.logger.record(f"pool/episodes_vs_{key}", w + d + lo)


def opponent_pool(a: Args, run: Run) -> OpponentPool:
    """The learner's opponents: the ``pool`` baselines and, as they come, its frozen snapshots."""
    pool = parse_pool(a.pool)
    seed = derive_seed(run.session_seed, 1)
    return OpponentPool(
        run.game, a.num_envs, pool, a.snapshot_weight, a.max_snapshots, seed=seed, counts=True
    )


def training_env(a: Args, run: Run, pool: OpponentPool) -> Any:
    """``num_envs`` games against the pool, from random openings (``openings``) and the initial
    position, with capture shaping where asked."""
    game, starts = run.game, None
    if a.openings:
        suite = random_openings(game, a.train_openings, plies=(1, DEFAULT_PLIES[game.name][1]), seed=a.seed)
        starts = suite + [game.initial_state()] * max(1, len(suite) // 4)
    env = MancalaVecEnv(
        game,
        a.num_envs,
        opponent=pool,
        seed=derive_seed(run.session_seed, 2),
        counts=True,
        openings=starts,
        infos="ends",  # the learner reads finished games only: no dict per game per step
    )
    return CaptureShaping(env, a.capture_shaping, a.gamma) if a.capture_shaping else env


def resumed_model(a: Args, run: Run, env: Any, pool: OpponentPool) -> MaskablePPO:
    """The run's ``model.zip``; the history cut to its step and the pool's snapshots back, oldest
    first."""
    model = load_checkpoint(run.path / "model.zip", env, a, run.game, run.device)
    run.history = [e for e in run.history if e["step"] <= model.num_timesteps]
    run.state["optimality"] = [
        e for e in run.state.get("optimality", []) if e["timesteps"] <= model.num_timesteps
    ]
    for name in run.state.get("snapshots", []):
        policy = copy.deepcopy(model.policy)
        policy.load_state_dict(
            torch.load(run.path / "snapshots" / f"{name}.pt", map_location=run.device, weights_only=True)
        )
        pool.add_snapshot(policy, name)
    print(f"resuming {run.path} at {model.num_timesteps} steps", flush=True)
    return model


def new_model(a: Args, run: Run, env: Any) -> MaskablePPO:
    """A fresh MaskablePPO (the run starts from scratch)."""
    if run.resuming:
        print(f"{run.path} has no checkpoint yet: starting it from scratch", flush=True)
    run.afresh()
    return MaskablePPO(
        "MlpPolicy",
        env,
        learning_rate=a.learning_rate,
        n_steps=a.n_steps,
        batch_size=a.batch_size,
        n_epochs=a.n_epochs,
        gamma=a.gamma,
        gae_lambda=a.gae_lambda,
        clip_range=a.clip_range,
        ent_coef=a.ent_coef,
        vf_coef=a.vf_coef,
        max_grad_norm=a.max_grad_norm,
        policy_kwargs=policy_kwargs(a, run.game),
        seed=a.seed,
        device=run.device,
        verbose=0,
    )


def final_report(a: Args, run: Run, trainer: Trainer) -> int:
    """The final evaluation of the trained policy (Ctrl-C there keeps it) and the report with the
    learning curve; returns the exit status."""
    print(f"final evaluation: {a.final_eval_games} games against each of {a.eval_opponents}", flush=True)
    evaluation = partial(trainer.evaluate, a.final_eval_games, progress=a.progress_bar)
    results = run.final_evaluation(evaluation, f"the trained policy is saved: {run.path / 'policy.json'}")
    if results is None:
        return run.stop_status
    notes = [
        f"Policy: `{run.path / 'policy.json'}` after {trainer.model.num_timesteps} steps: "
        f"{run.wall_seconds() / 60:.1f} min, "
        f"{run.cpu_seconds() / 60:.1f} CPU-min of training with its evaluations.",
        "",
        f"Command: `{run.command}`",
    ]
    title, agent = f"Training report: {run.game.name}", f"policy:path={run.path / 'policy.json'}"
    return run.final_report(results, title, notes, run.history, agent)


def train(args: Args, argv: list[str]) -> int:
    """Run (or resume) the training described by ``args``; returns the exit status."""
    run = Run(args, "runs/", progress="num_timesteps", step="timesteps")
    set_random_seed(run.session_seed)
    pool = opponent_pool(args, run)
    env = training_env(args, run, pool)
    run.record("mancala_envs.training.train_ppo", argv)
    if run.resuming and (run.path / "model.zip").is_file():
        model = resumed_model(args, run, env, pool)
    else:
        model = new_model(args, run, env)
    model.set_logger(configure(str(run.logs()), ["csv", "tensorboard"]))
    trainer = Trainer(args, run, pool, model)
    remaining = args.total_timesteps - model.num_timesteps
    print(
        f"training {run.game.name} in {run.path}: {max(remaining, 0)} steps left of {args.total_timesteps}, "
        f"device {run.device}",
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
                model.logger.dump(model.num_timesteps)  # learn() has returned: TensorBoard gets it here
            trainer.save_checkpoint()
    except KeyboardInterrupt as e:
        trainer.save_checkpoint()
        return run.interrupted(f"{model.num_timesteps} steps", e)
    finally:
        env.close()
    return final_report(args, run, trainer)


def main(argv: list[str] | None = None) -> int:
    """``mancala train`` / ``python -m mancala_envs.training.train_ppo``; returns the exit status."""
    return script_main("mancala train", resolve_args, train, argv)


if __name__ == "__main__":
    # run the module's own copy, so that checkpoints name mancala_envs.training.train_ppo, not __main__
    from mancala_envs.training.train_ppo import main as _main

    sys.exit(_main())
