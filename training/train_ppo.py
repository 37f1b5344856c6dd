"""Train a MaskablePPO agent for one mancala game by self-play against an opponent pool (the
run-folder side — checkpoints, evaluations, snapshots — is :mod:`mancala_envs.training.ppo_trainer`).

One readable script in the CleanRL manner: the arguments are the fields of :class:`Args`
(``--total-timesteps``, ``--num-envs``, ... one flag per field), their defaults come from
``training/configs.toml`` (``[defaults]``, then the game's own section), the command line wins.

    python -m mancala_envs.training.train_ppo                         # the main job: Songo Ewondo, < 10 min
    on 2 cores
    python -m mancala_envs.training.train_ppo --game en_dodoi --total-timesteps 3000000 --out runs/en_dodoi
    python -m mancala_envs.training.train_ppo --resume runs/en_dodoi  # continue an interrupted run
    mancala train ...                                    # the same script

**Training.** sb3-contrib ``MaskablePPO`` (``MlpPolicy`` over
:class:`mancala_envs.agents.policies.features.CountFeatures`)
on :class:`~mancala_envs.envs.vector.MancalaVecEnv` with raw-count observations: the learner's seat
is drawn per episode (it plays both seats), its reward is its own result (+1 / -1 / 0) whoever the
opponent is. Episodes start from a suite of ``train_openings`` random openings (and the initial
position, a fifth of the time; ``--no-openings``: the initial position only). The opponent of
every episode is drawn from the :class:`~mancala_envs.training.opponents.OpponentPool`.

**Evaluation** every ``eval_freq`` steps and at the final step: the learner (argmax on its policy)
plays :func:`mancala_envs.evaluation.arena.play_match` against each of ``eval_opponents`` over the game's
default
opening suite, ``eval_games`` games (``eval_games / 2`` openings, both seatings) with the fixed seed
``eval_seed``. Scores, intervals over the opening pairs and distinct games go to TensorBoard
(``eval/score_vs_<opponent>``) and ``eval.csv``. With ``--eval-optimality`` the learner also moves
once in each position of the game's shipped optimality suite (:mod:`mancala_envs.evaluation.optimality`): the
share
of outcome-preserving moves goes to ``eval/optimality`` and ``optimality.csv`` (with its interval
and the blunders by kind). Each evaluation then writes the checkpoint and
decides the snapshot. At the end, ``final_eval_games`` games per opponent give ``report.md`` /
``report.json`` and the table printed, for the same final model as the last ``eval.csv`` rows.

**Run folder** (``--out``, never overwritten; default ``runs/<game>-seed<seed>[-k]``):
``config.json`` (the resolved arguments, with the device actually used), ``command.txt``,
``git_revision.txt``, ``policy.json`` + ``policy.pt`` (the latest policy in the safe format of
:mod:`mancala_envs.agents.model_files`: ``make_agent("policy:path=RUN/policy.json")``), ``best_policy.*``
(best mean evaluation score), ``model.zip`` (the full checkpoint for ``--resume``), ``state.json``
(steps, evaluation history, snapshots), ``snapshots/*.pt``, ``eval.csv``, ``optimality.csv``
(``--eval-optimality``), ``logs/session<k>/`` (TensorBoard events and SB3's ``progress.csv``),
``report.md``, ``report.json``, ``learning_curve.png``. Every file is written through a temporary
file and a rename.

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
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path

from mancala_envs.agents.policies.features import SeedFeatures  # noqa: F401  (0.1 checkpoints pickled this path)
from mancala_envs.training.common import (
    RunArgs,
    check_each,
    check_evaluation_args,
    final_evaluation,
    final_report,
    interrupted,
    load_toml_defaults,
    next_session,
    parse_run_args,
    record_run,
    script_main,
    start_run,
)
from mancala_envs.training.ppo_trainer import (  # noqa: F401  (re-exported: the script's parts by their old names)
    EVAL_COLUMNS,
    CaptureShaping,
    Trainer,
    load_checkpoint,
    optimality_suite,
    policy_config,
    policy_kwargs,
)

from mancala_envs import GAMES

CONFIG_FILE = Path(__file__).with_name("configs.toml")
RESUMABLE = ("total_timesteps", "torch_threads", "progress_bar")  # what --resume may change


@dataclass
class Args(RunArgs):
    """Every argument of a training run (``--field-name`` on the command line): the shared ones
    (:class:`mancala_envs.training.common.RunArgs`: game, seed, run folder, device, ...) and these."""

    total_timesteps: int = field(default=1_000_000, metadata={"help": "learner moves to train on"})
    num_envs: int = field(default=32, metadata={"help": "games played at once"})
    progress_bar: bool = field(default=True, metadata={"help": "show a progress bar"})
    config: str = field(default=str(CONFIG_FILE), metadata={"help": "TOML file of per-game defaults"})
    openings: bool = field(default=True, metadata={"help": "start episodes from random openings too"})
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
    """Dataclass defaults < configs.toml < command line (or the run's config.json < RESUMABLE flags)."""

    def toml_defaults(given: dict) -> dict:
        return load_toml_defaults(given.get("config", CONFIG_FILE), given.get("game", Args.game), Args)

    description = "Train MaskablePPO by self-play (training/train_ppo.py)."
    args = parse_run_args(Args, "mancala train", description, argv, RESUMABLE, toml_defaults)
    check_args(args)
    return args


def check_args(a: Args) -> None:
    """``ValueError`` naming the first bad argument (before anything is built or played)."""
    from mancala_envs.training.opponents import parse_pool

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
        optimality_suite(game)  # ValueError where no suite ships (en_dodoi: 8 holes only)


def train(args: Args, argv: list[str]) -> int:
    """Run (or resume) the training described by ``args``; returns the exit status."""
    import torch
    from mancala_envs.training.opponents import OpponentPool, parse_pool
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import configure
    from stable_baselines3.common.utils import set_random_seed

    from mancala_envs.envs.vector import MancalaVecEnv
    from mancala_envs.evaluation.arena import derive_seed
    from mancala_envs.evaluation.openings import DEFAULT_PLIES, random_openings
    from mancala_envs.infra import interrupts

    game, run, device, state, session_seed = start_run(args, "runs/", "num_timesteps")
    resuming = args.resume is not None
    set_random_seed(session_seed)
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
    command = record_run(run, args, device, "mancala_envs.training.train_ppo", argv)
    if resuming and (run / "model.zip").is_file():
        model = load_checkpoint(run / "model.zip", env, args, game, device)
        for key in ("evals", "optimality"):
            state[key] = [e for e in state.get(key, []) if e["timesteps"] <= model.num_timesteps]
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
                model.logger.dump(model.num_timesteps)  # learn() has returned: TensorBoard gets it here
            trainer.save_checkpoint()
    except KeyboardInterrupt:
        trainer.save_checkpoint()
        return interrupted(f"{model.num_timesteps} steps", run)
    finally:
        env.close()
    print(
        f"final evaluation: {args.final_eval_games} games against each of {args.eval_opponents}", flush=True
    )
    results = final_evaluation(
        lambda: trainer.evaluate(args.final_eval_games, progress=args.progress_bar),
        f"the trained policy is saved: {run / 'policy.json'}",
    )
    if results is None:
        return 130
    spent = trainer.state()
    notes = [
        f"Policy: `{run / 'policy.json'}` after {model.num_timesteps} steps: "
        f"{spent['wall_seconds'] / 60:.1f} min, "
        f"{spent['cpu_seconds'] / 60:.1f} CPU-min of training with its evaluations.",
        "",
        f"Command: `{command}`",
    ]
    title, agent = f"Training report: {game.name}", f"policy:path={run / 'policy.json'}"
    return final_report(run, game, results, args, title, notes, trainer.history, agent)


def main(argv: list[str] | None = None) -> int:
    """``mancala train`` / ``python -m mancala_envs.training.train_ppo``; returns the exit status."""
    return script_main("mancala train", resolve_args, train, argv)


if __name__ == "__main__":
    # run the module's own copy, so that checkpoints name mancala_envs.training.train_ppo, not __main__
    from mancala_envs.training.train_ppo import main as _main

    sys.exit(_main())
