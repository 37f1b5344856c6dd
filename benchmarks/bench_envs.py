"""Environment speed, measured side by side in one run (pinned to one core).

    python benchmarks/bench_envs.py [--quick] [--out FILE]

(1) AEC steps/s through ``mancala_envs.<game>_v0.env()`` against PettingZoo's own
    ``connect_four_v3.env()``: the same loop (``reset(seed)``, ``agent_iter``/``last``/``step``,
    a uniformly random legal move from ``obs["action_mask"]``, ``None`` for done agents);
    target >= 5x connect_four_v3.
(2) ``MancalaVecEnv`` env-steps/s (one env-step = one learner move with the random opponent's
    reply, auto-reset and the observations) at 1, 64 and 1024 envs on one core, and at 1024 envs
    with ``num_threads=2`` on every core the process may use; the loop also picks random legal
    learner actions from ``action_masks()`` with numpy. Target >= 1,000,000 at 1024 envs.

Each figure is the best of ``--repeats`` timed runs of ``--seconds`` each. Other processes on
the machine lower the figures, the threaded one most. ``--out FILE``: both as one table in a
result file (``benchmarks/results_file.py``).
"""

from __future__ import annotations

import argparse
import importlib
import os
import random
import time

import numpy as np
from results_file import per_second, start, times, variant, write_table

import mancala_envs
from mancala_envs.envs.vector import MancalaVecEnv

GAMES = ["songo_ewondo", "sadeqa_ii", "en_dodoi"]
VEC_SIZES = [1, 64, 1024]
VEC_TARGET = 1_000_000
AEC_TARGET = 5.0


def set_cores(cores: set[int] | None) -> None:
    if cores and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, cores)


def aec_steps_per_second(env, seconds: float) -> float:
    """Whole random games through the AEC API for at least ``seconds``; returns env.step calls/s."""
    rr = random.Random(0)
    steps = episodes = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset(seed=episodes)
        for _agent in env.agent_iter():
            obs, _reward, terminated, truncated, _info = env.last()
            if terminated or truncated:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rr.randrange(len(legal))])
            env.step(action)
            steps += 1
        episodes += 1
    return steps / (time.perf_counter() - start)


def vec_steps_per_second(vec: MancalaVecEnv, seconds: float) -> float:
    """Random legal learner actions for at least ``seconds``; returns env-steps/s."""
    vec.reset()
    noise = np.random.default_rng(0).random((16, vec.num_envs, vec.action_space.n))
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for k in range(16):
            vec.step(np.argmax(vec.action_masks() * noise[k], axis=1))
        steps += 16 * vec.num_envs
    return steps / (time.perf_counter() - start)


def best_of(repeats: int, fn) -> float:
    return max(fn() for _ in range(repeats))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="short runs (a smoke run, noisier figures)")
    parser.add_argument(
        "--repeats", type=int, default=None, help="best of this many runs (default 3, quick 1)"
    )
    parser.add_argument("--seconds", type=float, default=None, help="per run (default 1.0, quick 0.25)")
    parser.add_argument("--out", default=None, help="also write the table as a result file (JSON) here")
    args = parser.parse_args()
    record = start()
    repeats = args.repeats or (1 if args.quick else 3)
    seconds = args.seconds or (0.25 if args.quick else 1.0)
    all_cores = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    set_cores({min(all_cores)} if all_cores else None)

    from pettingzoo.classic import connect_four_v3

    envs = {"connect_four_v3": connect_four_v3.env()}
    for name in GAMES:
        envs[f"{name}_v0"] = importlib.import_module(f"mancala_envs.{name}_v0").env()
    for env in envs.values():  # imports, compilation, first-call costs
        aec_steps_per_second(env, 0.0)
    rates = {
        label: best_of(repeats, lambda env=env: aec_steps_per_second(env, seconds))
        for label, env in envs.items()
    }
    base = rates["connect_four_v3"]
    print(f"(1) AEC env() steps/s, random legal moves (target >= {AEC_TARGET:.0f}x connect_four_v3)")
    for label, rate in rates.items():
        print(f"    {label:<18}{rate:>12,.0f}{rate / base:>8.2f}x")

    print(f"(2) MancalaVecEnv env-steps/s, random opponent (target >= {VEC_TARGET:,} at 1024 envs)")
    threads = f"1024, {len(all_cores or [1])} cores"
    header = "".join(f"{f'{n} envs':>13}" for n in VEC_SIZES) + f"{threads:>19}"
    header += f"{'1024, infos=ends':>18}{'best / target':>15}"
    print(f"    {'game':<14}{header}")

    def measure(name: str, n: int, num_threads: int, infos: str = "all") -> float:
        vec = MancalaVecEnv(name, n, seed=0, num_threads=num_threads, infos=infos)
        vec_steps_per_second(vec, 0.0)
        rate = best_of(repeats, lambda: vec_steps_per_second(vec, seconds))
        vec.close()
        return rate

    none = ["—"] * (len(VEC_SIZES) + 3)
    rows = [["PettingZoo connect_four_v3 (peer)", per_second(base), times(1.0), *none]]
    raw: dict = {"aec": rates, "vec": {}}
    label = "AEC env steps/s (× PettingZoo's connect_four_v3)"
    headline: dict = {label: {}}
    for name in GAMES:
        set_cores({min(all_cores)} if all_cores else None)
        row = [measure(name, n, 1) for n in VEC_SIZES]
        set_cores(all_cores)
        row.append(measure(name, 1024, 2))
        set_cores({min(all_cores)} if all_cores else None)
        lean = measure(name, 1024, 1, infos="ends")
        best = max(row[-2:])
        print(
            f"    {name:<14}"
            + "".join(f"{r:>13,.0f}" for r in row[:-1])
            + f"{row[-1]:>19,.0f}{lean:>18,.0f}{best / VEC_TARGET:>14.2f}x"
        )
        aec = rates[f"{name}_v0"]
        vec_cells = [per_second(r) for r in [*row, lean]]
        rows.append(
            [
                variant(mancala_envs.get_game(name)),
                per_second(aec),
                times(aec / base),
                *vec_cells,
                times(best / VEC_TARGET),
            ]
        )
        headline[label][variant(mancala_envs.get_game(name))] = f"{per_second(aec)} ({times(aec / base)})"
        raw["vec"][name] = {
            **{f"{n}_envs": r for n, r in zip(VEC_SIZES, row[:-1], strict=True)},
            "1024_envs_threads_2": row[-1],
            "1024_envs_infos_ends": lean,
        }
    print("    (the threaded column uses MancalaVecEnv(..., num_threads=2); best / target: the default")
    print("    infos, every game's keys every step; infos='ends', what the training scripts use)")
    write_table(
        args.out,
        "Environments: AEC steps/s vs connect_four_v3, vector env-steps/s",
        [
            "game",
            "AEC steps/s",
            "vs connect_four_v3",
            *(f"vector, {n} env{'s' * (n > 1)}" for n in VEC_SIZES),
            f"vector, {threads} (2 threads)",
            "vector, 1024, infos='ends'",
            "best / target",
        ],
        rows,
        "|".join(["---", "---:", "---:", *["---:"] * len(VEC_SIZES), "---:", "---:", "---:"]),
        [
            f"Each figure the best of {repeats} runs of {seconds:g} s. AEC: whole random games through "
            "`mancala_envs.<game>_v0.env()` and PettingZoo's `connect_four_v3.env()`, the same loop; "
            f"target ≥ {AEC_TARGET:.0f}× connect_four_v3.",
            "Vector: `MancalaVecEnv` env-steps/s (a learner move, the random opponent's reply, auto-reset "
            "and the observations) with random legal learner moves; one core except the threaded column "
            f"(`num_threads=2` on {len(all_cores or [1])} cores). Best / target: the better of 1024 envs "
            f"on one core and threaded, default infos, over {VEC_TARGET:,}; infos='ends' is what the "
            "training scripts use.",
        ],
        raw,
        record,
        headline,
    )


if __name__ == "__main__":
    main()
