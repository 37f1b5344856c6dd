"""Tablebase builds: time, positions/s, peak memory and file size per game and K.

    python benchmarks/bench_tablebase.py                          # every game at a quick K
    python benchmarks/bench_tablebase.py sadeqa_ii:16 en_dodoi8:12 songo_ewondo:14 --tables DIR --out FILE
    python benchmarks/bench_tablebase.py sadeqa_ii:18 --builds default,low-memory   # both, same run
    python benchmarks/bench_tablebase.py songo_ewondo:14 --builds low-memory,retrograde

Each ``GAME[WIDTH]:K`` is built in its own subprocess (so its peak memory is its own) into
``DIR/<table name>`` (default: a temporary folder, deleted afterwards). An existing table there
is extended: ``build s`` is then the sum of its layers' build times over every run, as the
header records them. ``positions`` counts covered positions (both players to move);
``peak MB`` is the build process's maximum resident set (``resource.getrusage``), the
memory-mapped table pages included, and ``start MB`` the same before the build (the interpreter,
numba and the compiled kernels: the constant). ``--builds`` lists the kinds of build to measure
for every target (``default``, ``low-memory``: ``tablebase.build(low_memory=True)``, ``retrograde``:
``tablebase.build(retrograde=True)``), one after the other, each into its own folder. ``--out
FILE``: the table as a result file (``benchmarks/results_file.py``), rewritten after every build;
``--out`` with a name not ending in ``.json`` is the tables folder, as before ``--tables``. One
JSON line per build is appended to ``--json`` if given.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from results_file import per_second, start, variant, write_table

QUICK = ["songo_ewondo:8", "sadeqa_ii:10", "en_dodoi8:7"]


def parse_target(text: str) -> tuple[str, dict, int]:
    """``"en_dodoi8:12"`` -> ``("en_dodoi", {"holes_per_row": 8}, 12)``."""
    name, _, k = text.partition(":")
    if not k.isdigit():
        raise ValueError(f"expected GAME[WIDTH]:K, got {text!r}")
    params = {}
    if name.startswith("en_dodoi") and name != "en_dodoi":
        params["holes_per_row"] = int(name[len("en_dodoi") :])
        name = "en_dodoi"
    return name, params, int(k)


def megabytes(mb: float) -> str:
    """``0.4 MB``, ``961 MB``, ``1.4 GB``."""
    return f"{mb / 1024:.1f} GB" if mb >= 1024 else f"{mb:,.{0 if mb >= 10 else 1}f} MB"


BUILDS = {"default": {}, "low-memory": {"low_memory": True}, "retrograde": {"retrograde": True}}


def build_one(target: str, out: Path, build: str = "default") -> dict:
    """Build one table in this process and measure it (the subprocess side)."""
    from mancala_envs import get_game, tablebase

    name, params, k = parse_target(target)
    game = get_game(name, **params)
    kind = BUILDS[build]
    with tempfile.TemporaryDirectory() as warm:  # compile (or load the numba cache) off the clock
        tablebase.build(game, max_seeds=2, path=warm, **kind)
    path = out / (tablebase.table_name(game) + ("" if build == "default" else f"-{build}"))
    start_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    start = time.perf_counter()
    tb = tablebase.build(game, max_seeds=k, path=path, progress=sys.stderr.isatty(), **kind)
    wall = time.perf_counter() - start
    layers = tb.header["layers"][: k + 1]
    build_s = sum(layer["seconds"] for layer in layers)
    size = sum(f.stat().st_size for f in path.iterdir() if f.is_file())
    values = tb.values
    return {
        "table": tablebase.table_name(game),
        "build": build,
        "max_seeds": k,
        "positions": tb.covered_positions,
        "build_s": round(build_s, 1),
        "wall_s_this_run": round(wall, 1),
        "positions_per_s": round(tb.covered_positions / max(build_s, 1e-9)),
        "peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "start_mb": round(start_mb),
        "file_mb": round(size / 2**20, 1),
        "max_rounds": max(layer["rounds"] for layer in layers),
        "a_ne_b_share": round(float((values[:, 0] != values[:, 1]).mean()), 5),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("targets", nargs="*", default=QUICK, help="GAME[WIDTH]:K, e.g. en_dodoi8:12")
    parser.add_argument("--tables", type=Path, default=None, help="tables folder (default: temporary)")
    parser.add_argument(
        "--out", default=None, help="write the table as a result file (FILE.json; another name: --tables)"
    )
    parser.add_argument("--json", type=Path, default=None, help="append one JSON line per build here")
    parser.add_argument(
        "--builds",
        default="default",
        help=f"comma-separated kinds of build: {', '.join(BUILDS)} (default: default)",
    )
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)  # the subprocess side
    args = parser.parse_args(argv)
    if args.out is not None and not args.out.endswith(".json"):  # the old --out DIR
        if args.tables is not None:
            parser.error("--out names a tables folder (no .json) and --tables is given too")
        args.tables, args.out = Path(args.out), None
    for target in args.targets:
        parse_target(target)
    builds = args.builds.split(",")
    if not builds or any(b not in BUILDS for b in builds):
        parser.error(f"--builds takes {', '.join(BUILDS)}, got {args.builds!r}")
    if args.one:
        print(json.dumps(build_one(args.targets[0], args.tables, builds[0])))
        return
    from mancala_envs import get_game

    record = start()
    rows, raw = [], []
    with tempfile.TemporaryDirectory() as tmp:
        out = args.tables or Path(tmp)
        heads = (
            ("positions", 13),
            ("build s", 8),
            ("pos/s", 10),
            ("peak MB", 8),
            ("start MB", 8),
            ("file MB", 8),
        )
        print(f"{'table':<14} {'build':<10} {'K':>3} " + " ".join(f"{h:>{w}}" for h, w in heads))
        for target, build in [(t, b) for t in args.targets for b in builds]:
            name, params, _ = parse_target(target)
            cmd = [sys.executable, __file__, "--one", "--tables", str(out), "--builds", build, target]
            done = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True)
            row = json.loads(done.stdout.strip().splitlines()[-1])
            print(
                f"{row['table']:<14} {build:<10} {row['max_seeds']:>3} {row['positions']:>13,} "
                f"{row['build_s']:>8.1f} {row['positions_per_s']:>10,} {row['peak_mb']:>8,} "
                f"{row['start_mb']:>8,} {row['file_mb']:>8.1f}",
                flush=True,
            )
            if args.json is not None:
                with open(args.json, "a", encoding="utf-8") as fh:
                    fh.write(json.dumps(row) + "\n")
            rows.append(
                [
                    variant(get_game(name, **params)),
                    build,
                    row["max_seeds"],
                    f"{row['positions']:,}",
                    f"{row['build_s']:,.{0 if row['build_s'] >= 10 else 1}f} s",
                    per_second(row["positions_per_s"]),
                    megabytes(row["peak_mb"]),
                    f"{row['peak_mb'] * 2**20 / row['positions']:.1f}",
                    f"{(row['peak_mb'] - row['start_mb']) * 2**20 / row['positions']:.1f}",
                    megabytes(row["file_mb"]),
                    f"{row['file_mb'] * 2**20 / row['positions']:.2f}",
                ]
            )
            raw.append({"target": target, **row})
            write_table(  # after every build: an interrupt keeps the finished rows
                args.out,
                "Builds, one at a time",
                [
                    "table",
                    "build",
                    "K",
                    "positions",
                    "build time",
                    "positions/s",
                    "peak memory",
                    "bytes/position",
                    "above start, bytes/position",
                    "files",
                    "file bytes/position",
                ],
                rows,
                "---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:",
                [
                    "One build at a time, each in its own process (K: the most seeds on the board). "
                    "Build time: the sum of the table's layer build times (over every run, for a table "
                    "extended from an earlier build); peak memory: the build process's maximum resident "
                    "set, memory-mapped table pages included; above start: the peak less the process's "
                    "resident set before the build (interpreter, numba, compiled kernels); files: the table "
                    "folder's size; "
                    "bytes/position: per covered position (both players to move)."
                ],
                {"builds": raw},
                record,
            )


if __name__ == "__main__":
    main()
