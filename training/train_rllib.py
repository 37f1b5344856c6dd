"""Train a mancala policy with Ray RLlib's PPO (new API stack), locally or on a Ray cluster.

``mancala train-rllib --game sadeqa_ii --iterations 50 --out runs/sq`` (or
``python -m mancala_envs.training.train_rllib ...``).

:class:`RLlibMancalaEnv` is RLlib's :class:`PettingZooEnv` over the project's AEC env with the
observation keys RLlib's action-masking RLModule expects. One shared masked module ``main`` plays
both seats; the opponent of each episode is drawn from the ``--opponent WEIGHT SPEC`` mixture
(``self``, ``frozen`` copies ``frozen_0..K-1``, or any agent spec played inside the env). The
agent id is ``"<module>@<seat>"`` and the policy mapping is the part before ``@``.

Guide: docs/training/rllib.md
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mancala_envs import get_game
from mancala_envs.agents.registry import make_agent
from mancala_envs.evaluation.arena import play_match
from mancala_envs.infra import interrupts
from mancala_envs.infra.errors import one_line
from mancala_envs.infra.files import atomic_write
from mancala_envs.infra.locks import folder_lock
from mancala_envs.training.rllib_env import (  # noqa: F401  (re-exported)
    CHECKPOINT,
    DEFAULT_OPPONENTS,
    GAMES,
    LEAGUE,
    MAIN,
    RUN_DEFINING,
    RLlibMancalaEnv,
    frozen_ids,
    module_of,
    parse_opponents,
)
from mancala_envs.variant import add_game_arguments, declared_parameters, game_from_arguments


def game_params(opts: dict[str, Any]) -> dict[str, Any]:
    """The ``get_game`` keyword arguments of a run."""
    given = {p: opts[p] for p in declared_parameters() if opts.get(p) is not None}
    return {"max_plies": opts["max_plies"], **given}


def build_config(opts: dict[str, Any]) -> Any:
    """The RLlib ``PPOConfig`` of a run described by ``opts`` (the contents of ``config.json``)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    env_config = {
        "game": opts["game"],
        "game_params": game_params(opts),
        "opponents": opts["opponents"],
        "frozen": opts["frozen"],
        "seed": opts["seed"],
    }
    probe = RLlibMancalaEnv(env_config)
    spec = RLModuleSpec(
        module_class=ActionMaskingTorchRLModule,
        observation_space=probe.observation_spaces[f"{MAIN}@0"],
        action_space=probe.action_spaces[f"{MAIN}@0"],
        model_config={"fcnet_hiddens": list(opts["hidden"]), "fcnet_activation": "relu"},
    )
    modules = [MAIN, *frozen_ids(opts["frozen"])]
    return (
        PPOConfig()
        # RLlib's env checker steps unmasked random actions (illegal-move warnings); the env is
        # checked by tests/training/test_rllib.py instead.
        .environment(RLlibMancalaEnv, env_config=env_config, disable_env_checking=True)
        .env_runners(
            num_env_runners=opts["num_env_runners"],
            num_cpus_per_env_runner=opts["cpus_per_env_runner"],
            num_envs_per_env_runner=opts["envs_per_env_runner"],
        )
        .learners(num_learners=0)
        .training(
            train_batch_size_per_learner=opts["train_batch_size"],
            minibatch_size=opts["minibatch_size"],
            num_epochs=opts["num_epochs"],
            lr=opts["lr"],
            entropy_coeff=opts["entropy_coeff"],
        )
        .multi_agent(policies=set(modules), policy_mapping_fn=module_of, policies_to_train=[MAIN])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=dict.fromkeys(modules, spec)))
        .debugging(seed=opts["seed"])
    )


def snapshot(algo: Any, slot: str) -> None:
    """Copy the learner's ``main`` weights into the frozen module ``slot`` (learner and env runners)."""
    state = algo.learner_group.get_state(components=f"learner/rl_module/{MAIN}")
    weights = state["learner"]["rl_module"][MAIN]
    algo.learner_group.set_state({"learner": {"rl_module": {slot: weights}}})
    algo.env_runner_group.sync_weights(
        from_worker_or_learner_group=algo.learner_group, policies=[slot], inference_only=True
    )


def save(algo: Any, out: Path) -> Path:
    """Write the algorithm checkpoint to ``out/checkpoint`` (a fresh folder renamed into place)."""
    final, tmp, old = out / CHECKPOINT, out / f"{CHECKPOINT}.tmp", out / f"{CHECKPOINT}.old"
    shutil.rmtree(tmp, ignore_errors=True)
    algo.save_to_path(str(tmp.resolve()))
    if final.exists():
        shutil.rmtree(old, ignore_errors=True)
        final.rename(old)
    tmp.rename(final)
    shutil.rmtree(old, ignore_errors=True)
    return final


def evaluate(out: Path, game: Any, opponents: Sequence[str], n_games: int, seed: int) -> list[dict[str, Any]]:
    """Arena matches of the checkpoint in ``out`` (as ``rllib:path=OUT``) against each opponent."""
    agent = make_agent(f"rllib:path={out}", seed=seed)
    rows = []
    for spec in opponents:
        m = play_match(game, agent, spec, n_games, seed=seed, openings="default")
        lo, hi = m.confidence_interval()
        rows.append(
            {
                "opponent": spec,
                "pairs": m.pairs,
                "games": m.games,
                "distinct": m.distinct,
                "wins": m.wins,
                "draws": m.draws,
                "losses": m.losses,
                "score": round(m.score, 4),
                "ci95": [round(lo, 4), round(hi, 4)],
            }
        )
    return rows


def _append_json(path: Path, row: dict[str, Any]) -> None:
    with path.open("a") as fh:
        fh.write(json.dumps(row) + "\n")


def _keep_until(path: Path, iteration: int) -> None:
    """Keep the lines of a JSON-lines log whose ``iteration`` is at most ``iteration``."""
    if path.is_file():
        lines = [line for line in path.read_text().splitlines() if line.strip()]
        kept = [line for line in lines if json.loads(line)["iteration"] <= iteration]
        path.write_text("".join(line + "\n" for line in kept))


def iteration_row(result: dict[str, Any], seconds: float) -> dict[str, Any]:
    """The line of ``progress.jsonl`` for one ``algo.train()`` result."""
    runners = result.get("env_runners", {})
    steps = runners.get("num_env_steps_sampled", 0)
    return {
        "iteration": result["training_iteration"],
        "env_steps": int(steps),
        "env_steps_lifetime": int(runners.get("num_env_steps_sampled_lifetime", 0)),
        "episodes": int(runners.get("num_episodes", 0)),
        "seconds": round(seconds, 3),
        "env_steps_per_s": round(steps / seconds, 1) if seconds > 0 else None,  # sampling + learning
        "main_return_mean": runners.get("module_episode_returns_mean", {}).get(MAIN),
    }


# ---------------------------------------------------------------------------- command line


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="mancala train-rllib",
        description="PPO with Ray RLlib: one shared masked policy, self-play against frozen copies and "
        "baselines, arena evaluation, checkpoints and resume (docs/training/rllib.md).",
    )
    add_game_arguments(p, positional=False, max_plies=False)
    p.add_argument("--iterations", type=int, required=True, help="train until this many iterations in total")
    p.add_argument(
        "--out", required=True, help="run folder: config.json, checkpoint/, progress.jsonl, eval.jsonl"
    )
    p.add_argument("--resume", action="store_true", help="continue the run in --out from its checkpoint")
    p.add_argument(
        "--address", help="Ray cluster to join (e.g. HEAD_IP:6379 or auto); default: start a local one"
    )
    p.add_argument("--num-cpus", type=int, help="CPUs of the local Ray instance (default: min(2, cores))")
    p.add_argument("--num-env-runners", type=int, default=1, help="0 samples in the driver process")
    p.add_argument("--cpus-per-env-runner", type=float, default=1.0, help="CPUs Ray reserves per env runner")
    p.add_argument("--envs-per-env-runner", type=int, default=8, help="vectorised envs in each env runner")
    p.add_argument("--seed", type=int, default=0, help="seed of RLlib and of every env generator")
    p.add_argument("--max-plies", type=int, default=1000, help="truncate games at N plies")
    p.add_argument("--hidden", type=int, nargs="+", default=[128, 128], help="hidden layer sizes")
    p.add_argument("--frozen", type=int, default=3, help="number of frozen copies of main (0: none)")
    p.add_argument("--snapshot-every", type=int, default=5, help="iterations between frozen snapshots")
    p.add_argument(
        "--opponent",
        nargs=2,
        action="append",
        metavar=("WEIGHT", "SPEC"),
        help="training opponent mixture, repeatable: self, frozen or an agent spec "
        "(default: 0.4 self, 0.4 frozen, 0.1 random, 0.1 greedy)",
    )
    p.add_argument("--train-batch-size", type=int, default=4000, help="env steps per iteration")
    p.add_argument("--minibatch-size", type=int, default=256, help="PPO minibatch size")
    p.add_argument("--num-epochs", type=int, default=5, help="PPO epochs per iteration")
    p.add_argument("--lr", type=float, default=3e-4, help="Adam learning rate")
    p.add_argument("--entropy-coeff", type=float, default=0.01, help="entropy bonus")
    p.add_argument(
        "--checkpoint-every", type=int, default=5, help="iterations between checkpoints (+ at the end)"
    )
    p.add_argument(
        "--eval-opponents",
        nargs="*",
        default=["random", "greedy"],
        help="agent specs the checkpoints are evaluated against",
    )
    p.add_argument(
        "--eval-games", type=int, default=20, help="games per opponent at each checkpoint (0: none)"
    )
    return p


def _options(args: argparse.Namespace) -> dict[str, Any]:
    positive = (
        "iterations",
        "train_batch_size",
        "minibatch_size",
        "num_epochs",
        "checkpoint_every",
        "snapshot_every",
        "envs_per_env_runner",
    )
    for name in positive:
        if getattr(args, name) < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be at least 1, got {getattr(args, name)}")
    for name in ("num_env_runners", "frozen", "eval_games", "seed"):
        if getattr(args, name) < 0:
            raise ValueError(f"--{name.replace('_', '-')} must be >= 0, got {getattr(args, name)}")
    if args.cpus_per_env_runner <= 0:
        raise ValueError(f"--cpus-per-env-runner must be > 0, got {args.cpus_per_env_runner}")
    if args.eval_games % 2:
        raise ValueError(f"--eval-games must be even (seat-balanced matches), got {args.eval_games}")
    game_from_arguments(args)  # validates the game and its parameters
    for spec in args.eval_opponents:
        make_agent(spec)
    opts = {
        k: v for k, v in vars(args).items() if k not in ("resume", "address", "num_cpus", "opponent", "out")
    }
    opts["opponents"] = parse_opponents(args.opponent or DEFAULT_OPPONENTS, args.frozen)
    return opts


def _check_out(out: Path, opts: dict[str, Any], resume: bool) -> None:
    """``ValueError`` unless ``out`` can take this run: a new one, or the same one resumed."""
    config_file = out / "config.json"
    if resume:
        if not (out / CHECKPOINT).is_dir() or not config_file.is_file():
            raise ValueError(f"--resume: {out} holds no run to resume (no {CHECKPOINT}/ and config.json)")
        saved = json.loads(config_file.read_text())
        changed = [k for k in (*RUN_DEFINING, *declared_parameters()) if saved.get(k) != opts.get(k)]
        if changed:
            raise ValueError(f"--resume: options differ from the saved run in {out}: {', '.join(changed)}")
    elif (out / CHECKPOINT).exists():
        raise ValueError(f"{out} already holds a run; pass --resume to continue it or choose another --out")


def _prepare_out(out: Path, opts: dict[str, Any], resume: bool) -> None:
    _check_out(out, opts, resume)
    out.mkdir(parents=True, exist_ok=True)
    atomic_write(out / "config.json", json.dumps(opts, indent=2) + "\n")


def train(args: argparse.Namespace) -> int:
    """Run the training described by the parsed command line, holding ``--out``'s lock (a second
    run there is refused); returns the exit status."""
    opts = _options(args)
    out = Path(args.out)
    _check_out(out, opts, args.resume)  # before the lock makes the folder
    with folder_lock(out, "is in use by another training run"):
        _prepare_out(out, opts, args.resume)  # again, holding the lock
        return _train(args, opts, out)


def _train(args: argparse.Namespace, opts: dict[str, Any], out: Path) -> int:
    """:func:`train` in its locked folder; Ctrl-C or SIGTERM saves a checkpoint at the end of the
    iteration and returns 128 + the signal."""
    try:
        import ray
    except ImportError:
        raise ValueError("train-rllib needs the rllib extra: pip install -e '.[rllib]'") from None

    own_ray = not ray.is_initialized()
    if own_ray:
        if args.address:
            ray.init(address=args.address)
        else:
            cpus = args.num_cpus or min(2, os.cpu_count() or 1)
            ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False)
    game = get_game(args.game, **game_params(opts))
    algo = None
    try:
        needed = opts["num_env_runners"] * opts["cpus_per_env_runner"]
        cpus = ray.cluster_resources().get("CPU", 0)
        if needed > cpus:
            raise ValueError(
                f"{opts['num_env_runners']} env runners x {opts['cpus_per_env_runner']} CPUs need {needed:g} "
                f"CPUs, the Ray cluster has {cpus:g} (use --num-cpus, fewer runners or --cpus-per-env-runner)"
            )
        algo = build_config(opts).build_algo()
        if args.resume:
            algo.restore_from_path(str((out / CHECKPOINT).resolve()))
            print(f"resumed {out / CHECKPOINT} at iteration {algo.iteration}", flush=True)
            for log in ("progress.jsonl", "eval.jsonl"):  # drop what was logged after the checkpoint
                _keep_until(out / log, algo.iteration)
        with interrupts.deferred_interrupts():
            try:
                _iterations(algo, args, opts, out, game)
            except KeyboardInterrupt as e:
                save(algo, out)
                resume = f"checkpoint saved; continue with --resume --out {out}"
                print(f"\n{interrupts.stopped(e)} at iteration {algo.iteration}: {resume}", flush=True)
                return interrupts.exit_status(e)
    finally:
        if algo is not None:
            algo.stop()
        if own_ray:
            ray.shutdown()
    return 0


def _iterations(algo: Any, args: argparse.Namespace, opts: dict[str, Any], out: Path, game: Any) -> None:
    """Train, log, checkpoint and evaluate until ``--iterations``; stops (``KeyboardInterrupt``)
    after an iteration when a signal came."""
    while algo.iteration < args.iterations:
        start = time.perf_counter()
        result = algo.train()
        row = iteration_row(result, time.perf_counter() - start)
        it = algo.iteration
        if opts["frozen"] and it % args.snapshot_every == 0:
            slot = frozen_ids(opts["frozen"])[(it // args.snapshot_every - 1) % opts["frozen"]]
            snapshot(algo, slot)
            row["snapshot"] = slot
        _append_json(out / "progress.jsonl", row)
        print(
            f"iter {it}: {row['env_steps']} env steps in {row['seconds']:.1f}s "
            f"({row['env_steps_per_s']} steps/s), main return {row['main_return_mean']}",
            flush=True,
        )
        if it % args.checkpoint_every == 0 or it == args.iterations:
            path = save(algo, out)
            print(f"checkpoint: {path}", flush=True)
            if args.eval_games and args.eval_opponents:
                for match in evaluate(out, game, args.eval_opponents, args.eval_games, args.seed + it):
                    _append_json(out / "eval.jsonl", {"iteration": it, **match})
                    print(
                        f"  eval vs {match['opponent']}: score {match['score']} "
                        f"({match['wins']}W {match['draws']}D {match['losses']}L)",
                        flush=True,
                    )
        interrupts.check()


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point (``mancala train-rllib``); bad options print one line and return 2."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        return int(e.code or 0)
    try:
        with interrupts.sigterm_raises():
            return train(args)
    except ValueError as e:
        print(f"mancala train-rllib: error: {e}", file=sys.stderr)
        return 2
    except OSError as e:  # a failed write (a full disk): the last checkpoint stays whole
        print(f"mancala train-rllib: error: {one_line(e)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as e:  # before the training loop
        print(f"\nmancala train-rllib: {interrupts.stopped(e)}", file=sys.stderr)
        return interrupts.exit_status(e)


if __name__ == "__main__":
    sys.exit(main())
