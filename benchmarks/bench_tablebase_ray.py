"""A table build on Ray workers against the local build: time and scaling from 1 to N workers.

    python benchmarks/bench_tablebase_ray.py sadeqa_ii:14 --workers 1 2 --out results/tablebase/ray.json

Builds ``GAME[WIDTH]:K`` from scratch, each build in its own subprocess: locally with one numba
thread (the baseline a worker is compared with), then with ``--ray-address local`` and each
``--workers`` count (a fresh local Ray instance of that many CPUs; its start-up is counted in the
wall time, not in the build time, which is the sum of the layers' times). Every Ray build's files
are compared byte for byte with the local build's. ``--out FILE``: the table as a result file.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("target", help="GAME[WIDTH]:K, e.g. sadeqa_ii:14")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="Ray worker counts (1 2)")
    parser.add_argument("--out", default=None, help="write the table as a result file (FILE.json)")
    parser.add_argument("--one", type=int, default=None, help=argparse.SUPPRESS)  # the subprocess side
    parser.add_argument("--folder", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    parse_target(args.target)
    if args.one is not None:
        print(json.dumps(build_one(args.target, args.folder, args.one)))
        return
    from mancala_envs import get_game

    name, params, k = parse_target(args.target)
    record = start()
    env = {**os.environ, "NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}  # one thread a process
    rows, raw = [], []
    with tempfile.TemporaryDirectory() as tmp:
        local = None
        for workers in [0, *args.workers]:
            folder = Path(tmp) / f"w{workers}"
            cmd = [sys.executable, __file__, args.target, "--one", str(workers), "--folder", str(folder)]
            done = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True, env=env)
            row = json.loads(done.stdout.strip().splitlines()[-1])
            if workers == 0:
                local = row
                same = "(reference)"
            else:
                from mancala_envs.tablebase import store

                files = (store.VALUES, store.ROUNDS)
                identical = all(filecmp.cmp(Path(tmp) / "w0" / f, folder / f, shallow=False) for f in files)
                same = "yes" if identical else "NO"
                row["identical"] = identical
            rate = row["positions"] / max(row["build_s"], 1e-9)
            speedup = local["build_s"] / row["build_s"] if local else 1.0
            one = next((r for r in raw if r["workers"] == 1), row if workers == 1 else None)
            scaling = f"{one['build_s'] / row['build_s']:.2f}" if workers and one else ""
            label = "local, 1 thread" if workers == 0 else f"Ray, {workers} worker{'s' * (workers > 1)}"
            cells = [
                f"{row['build_s']:,.1f} s",
                f"{row['wall_s']:,.1f} s",
                per_second(rate),
                f"{speedup:.2f}",
                scaling,
            ]
            print(f"{label:<18} " + "  ".join(cells) + f"  same files: {same}", flush=True)
            rows.append([label, *cells, same])
            raw.append({"workers": workers, **row})
            write_table(
                args.out,
                f"Ray build of {variant(get_game(name, **params))}, K = {k}",
                [
                    "build",
                    "build time",
                    "wall time",
                    "positions/s",
                    "vs local",
                    "vs 1 worker",
                    "files identical",
                ],
                rows,
                "---|---:|---:|---:|---:|---:|---",
                [
                    f"{local['positions']:,} positions. Each build from scratch in its own process; "
                    "build time: the sum of the layers' times (moves played on the workers, value "
                    "iteration on the driver); wall time adds Ray's start-up. Speed-ups in build time: "
                    "against the local build with one thread, and against one Ray worker. Files identical: "
                    "values and rounds byte for byte equal to the local build's."
                ],
                {"target": args.target, "builds": raw},
                record,
            )


if __name__ == "__main__":
    main()
