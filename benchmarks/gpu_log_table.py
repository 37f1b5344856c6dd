"""A result file from the printed lines of ``bench_jax.py`` runs that were stopped by their time
limit before writing one (``benchmarks/gpu_session.sh`` gives each step a limit).

    python benchmarks/gpu_log_table.py LOG [LOG ...] [--add RESULT.json ...] --title T --note N --out FILE

Each line ``LABEL batch N: X steps/s (compiled in S s)`` of the logs is one figure; ``--add`` takes
the rows of complete result files of the same benchmark (their ``raw``). A label seen twice at the
same batch keeps its first figure. The table is bench_jax.py's, with the peer's column computed
from the figures; the provenance names the logs and the commands that printed them.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from results_file import per_second, start, times, write_table

LINE = re.compile(r"^(?P<label>.+?)\s+batch\s+(?P<batch>\d+):\s+(?P<rate>[\d,]+) steps/s")
PEER = "pgx connect_four (peer)"


def figures(logs: list[str], added: list[str]) -> dict[str, dict[int, float]]:
    """``{label: {batch: steps/s}}`` in the order first seen."""
    out: dict[str, dict[int, float]] = {}
    for log in logs:
        for line in Path(log).read_text().splitlines():
            if m := LINE.match(line):
                rate = float(m["rate"].replace(",", ""))
                out.setdefault(m["label"].strip(), {}).setdefault(int(m["batch"]), rate)
    for path in added:
        for label, rates in json.loads(Path(path).read_text())["raw"]["steps_per_second"].items():
            for batch, rate in rates.items():
                out.setdefault(label, {}).setdefault(int(batch), rate)
    return out


def main() -> None:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("logs", nargs="+")
    parser.add_argument("--add", nargs="*", default=[])
    parser.add_argument("--title", required=True)
    parser.add_argument("--note", action="append", default=[])
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    rates = figures(args.logs, args.add)
    batches = sorted({b for r in rates.values() for b in r})
    last = batches[-1]
    rows = [
        [label, *(per_second(r[b]) if b in r else "—" for b in batches),
         times(r[last] / rates[PEER][last]) if last in r else "—"]
        for label, r in rates.items()
    ]  # fmt: skip
    columns = ["game", *(f"batch {b:,}" for b in batches), f"vs connect_four at {last:,}"]
    raw = {"steps_per_second": {k: {str(b): v for b, v in r.items()} for k, r in rates.items()},
           "logs": args.logs, "added": args.add}  # fmt: skip
    align = "---|" + "|".join(["---:"] * (len(columns) - 1))
    write_table(args.out, args.title, columns, rows, align, args.note, raw, start())


if __name__ == "__main__":
    main()
