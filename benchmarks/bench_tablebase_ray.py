"""A table build on Ray workers against the local build: time and scaling from 1 to N workers.

    python benchmarks/bench_tablebase_ray.py sadeqa_ii:15 --repeat 3 --out results/tablebase/ray.json

Builds ``GAME[WIDTH]:K`` from scratch, each build in its own subprocess: locally with one numba
thread (the baseline a worker is compared with), then with ``--ray-address local`` and each
``--workers`` count (a fresh local Ray instance of that many CPUs; its start-up is counted in the
wall time, not in the build time, which is the sum of the layers' times), ``--repeat`` times
interleaved, medians reported. Every Ray build's files are compared byte for byte with the local
build's. ``--out FILE``: the table as a result file.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_tablebase import parse_target
from results_file import per_second, start, variant, write_table


def build_one(target: str, folder: Path, workers: int) -> dict:
    """One build in this process (the subprocess side); ``workers`` 0: local."""
    from mancala_envs import get_game, tablebase

    name, params, k = parse_target(target)
    game = get_game(name, **params)
    with tempfile.TemporaryDirectory() as warm:  # compile (or load the numba cache) off the clock
        tablebase.build(game, max_seeds=2, path=warm)
    begin = time.perf_counter()
    options = {"ray_address": "local", "ray_workers": workers} if workers else {}
    tb = tablebase.build(game, max_seeds=k, path=folder, **options)
    wall = time.perf_counter() - begin
    build_s = sum(layer["seconds"] for layer in tb.header["layers"][: k + 1])
    return {"positions": tb.covered_positions, "build_s": round(build_s, 2), "wall_s": round(wall, 2)}


def run_builds(target: str, workers: list[int], repeat: int, tmp: Path) -> dict[int, list[dict]]:
    """Every build ``repeat`` times, interleaved (drift in the machine's load reaches each the
    same), each in its own subprocess with one thread; every Ray build's files checked against the
    local build's of the same repeat."""
    from mancala_envs.tablebase import store

    env = {**os.environ, "NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}  # one thread a process
    builds: dict[int, list[dict]] = {w: [] for w in [0, *workers]}
    for r in range(repeat):
        for w in builds:
            folder = tmp / f"r{r}-w{w}"
            cmd = [sys.executable, __file__, target, "--one", str(w), "--folder", str(folder)]
            done = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True, env=env)
            row = json.loads(done.stdout.strip().splitlines()[-1])
            if w:
                files = (store.VALUES, store.ROUNDS)
                row["identical"] = all(
                    filecmp.cmp(tmp / f"r{r}-w0" / f, folder / f, shallow=False) for f in files
                )
            print(f"repeat {r + 1}, {w} worker(s): {row}", flush=True)
            builds[w].append(row)
        for w in builds:
            if w:
                shutil.rmtree(tmp / f"r{r}-w{w}")
    return builds


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("target", help="GAME[WIDTH]:K, e.g. sadeqa_ii:14")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="Ray worker counts (1 2)")
    parser.add_argument("--repeat", type=int, default=3, help="builds of each kind; medians reported (3)")
    parser.add_argument("--out", default=None, help="write the table as a result file (FILE.json)")
    parser.add_argument("--one", type=int, default=None, help=argparse.SUPPRESS)  # the subprocess side
    parser.add_argument("--folder", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    parse_target(args.target)
    if args.repeat < 1:
        parser.error(f"--repeat must be at least 1, got {args.repeat}")
    if args.one is not None:
        print(json.dumps(build_one(args.target, args.folder, args.one)))
        return
    from mancala_envs import get_game

    name, params, k = parse_target(args.target)
    record = start()
    with tempfile.TemporaryDirectory() as tmp:
        builds = run_builds(args.target, args.workers, args.repeat, Path(tmp))
    median = {w: statistics.median(b["build_s"] for b in rows) for w, rows in builds.items()}
    positions = builds[0][0]["positions"]
    rows = []
    for w, runs in builds.items():
        same = "(reference)" if w == 0 else ("yes" if all(b["identical"] for b in runs) else "NO")
        label = "local, 1 thread" if w == 0 else f"Ray, {w} worker{'s' * (w > 1)}"
        cells = [
            f"{median[w]:,.1f} s",
            ", ".join(f"{b['build_s']:.1f}" for b in runs),
            f"{statistics.median(b['wall_s'] for b in runs):,.1f} s",
            per_second(positions / max(median[w], 1e-9)),
            f"{median[0] / median[w]:.2f}",
            f"{median[1] / median[w]:.2f}" if w and 1 in median else "",
            same,
        ]
        print(f"{label:<18} " + "  ".join(cells), flush=True)
        rows.append([label, *cells])
    write_table(
        args.out,
        f"Ray build of {variant(get_game(name, **params))}, K = {k}",
        [
            "build",
            "build time",
            "each build (s)",
            "wall time",
            "positions/s",
            "vs local",
            "vs 1 worker",
            "files identical",
        ],
        rows,
        "---|---:|---|---:|---:|---:|---:|---",
        [
            f"{positions:,} positions. Each build from scratch in its own process with one thread, "
            f"{args.repeat} times, interleaved; build time: the median of the sum of the layers' times "
            "(each layer partitioned across the workers: its moves and its value iteration, the rounds "
            "exchanging only the changed values); wall time (median) adds Ray's start-up. Speed-ups "
            "in median build time: against the local build, and against one Ray worker. Files "
            "identical: values and rounds byte for byte equal to the local build's, in every repeat."
        ],
        {"target": args.target, "repeat": args.repeat, "builds": builds},
        record,
    )


if __name__ == "__main__":
    main()
