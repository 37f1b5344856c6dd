"""Run one benchmark in two checkouts, alternately, so that both figures come from the same window
of machine time (on a shared VM the speed drifts by tens of percent within minutes).

Each checkout runs its own copy of the benchmark (``benchmarks/NAME`` in that tree, its own
package on ``PYTHONPATH``), ``--rounds`` times, before and after taking turns; every output is
printed under its label. Make the older checkout with ``git worktree add``::

    git worktree add /tmp/before a521dfa            # release 0.1
    python benchmarks/before_after.py --before /tmp/before bench_envs.py
    python benchmarks/before_after.py --before /tmp/before --rounds 3 bench_core.py -- --quick
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def run(tree: Path, script: str, extra: list[str]) -> str:
    """The benchmark's output in ``tree`` (its stdout, or its error)."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(
        [sys.executable, str(tree / "benchmarks" / script), *extra],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
    )
    return done.stdout if done.returncode == 0 else f"exit {done.returncode}\n{done.stderr[-2000:]}"


def main() -> None:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("--before", type=Path, required=True, help="the older checkout")
    parser.add_argument("--after", type=Path, default=HERE, help="the newer checkout (default: this one)")
    parser.add_argument("--rounds", type=int, default=2, help="before/after runs each (default 2)")
    parser.add_argument("script", help="a file in benchmarks/, e.g. bench_envs.py")
    parser.add_argument("extra", nargs="*", help="arguments for the benchmark (after --)")
    args = parser.parse_args()
    for tree in (args.before, args.after):
        if not (tree / "benchmarks" / args.script).is_file():
            raise SystemExit(f"{tree}: no benchmarks/{args.script} there")
    if args.rounds < 1:
        raise SystemExit(f"--rounds must be at least 1, got {args.rounds}")
    for r in range(1, args.rounds + 1):
        for label, tree in (("before", args.before), ("after", args.after)):
            print(f"===== round {r}, {label} ({tree})", flush=True)
            print(run(tree, args.script, args.extra), flush=True)


if __name__ == "__main__":
    main()
