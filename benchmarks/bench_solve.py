"""The two proof searches side by side: iterative deepening (``method="id"``) and proof-number
search (``method="pn"``) on the same positions, with the same node budget.

    python benchmarks/bench_solve.py --positions 30 --out results/benchmarks/solve-methods.json

Per game (each on its narrowest board), a table of ``K`` seeds is built in a temporary folder and
``--positions`` running positions of seeded random games with ``K + 3 .. K + 4`` seeds on the
board (outside the table) are solved by each method; a larger table (``K + 4``) gives each
position's true value, and every value proven is checked against it. Reported per method: the
positions proven within the budget, the nodes and seconds they took in all (a position not proven
counts its whole budget), and the median nodes over the positions both methods proved.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from results_file import start, variant, write_table

from mancala_envs import get_game, tablebase
from mancala_envs.tablebase.solve import METHODS, solve

GAMES = (("sadeqa_ii", {}, 8), ("en_dodoi", {"holes_per_row": 6}, 6), ("songo_ewondo", {}, 4))


def sample(game, table, count: int, seed: int) -> list:
    """Running positions of seeded random games with K + 3 .. K + 4 seeds, outside ``table``."""
    rng = np.random.default_rng(seed)
    lo, hi = table.max_seeds + 3, table.max_seeds + 4
    out = []
    while len(out) < count:
        state = game.initial_state()
        while not state.is_over and state.seeds_on_board > hi:
            legal = game.legal_actions(state)
            state = game.apply(state, int(legal[rng.integers(len(legal))]))
        if not state.is_over and lo <= state.seeds_on_board and not table.covers(state):
            out.append(state)
    return out


def measure(game, table, truth, states, method: str, max_nodes: int) -> list[dict]:
    """Per position: proven or not, nodes and seconds (every proven value checked against
    ``truth``)."""
    rows = []
    for state in states:
        begin = time.perf_counter()
        found = solve(game, table, state, max_nodes=max_nodes, method=method)
        seconds = time.perf_counter() - begin
        if found.value is not None and found.value != truth.outcome(state):
            sys.exit(f"{game.variant}: {method} proved {found.value}, the larger table says otherwise")
        rows.append({"proven": found.value is not None, "nodes": found.nodes_searched, "seconds": seconds})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=30)
    parser.add_argument("--max-nodes", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--out", help="write the table as a result file")
    args = parser.parse_args()
    record = start()
    rows, raw = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, params, k in GAMES:
            game = get_game(name, **params)
            table = tablebase.build(game, k, Path(tmp) / f"{game.variant}-{k}")
            truth = tablebase.build(game, k + 4, Path(tmp) / f"{game.variant}-{k + 4}")
            states = sample(game, table, args.positions, args.seed)
            runs = {m: measure(game, table, truth, states, m, args.max_nodes) for m in METHODS}
            both = [i for i in range(len(states)) if all(runs[m][i]["proven"] for m in METHODS)]
            raw[game.variant] = runs
            for m in METHODS:
                proven = sum(r["proven"] for r in runs[m])
                nodes = sum(r["nodes"] for r in runs[m])
                seconds = sum(r["seconds"] for r in runs[m])
                median = statistics.median(runs[m][i]["nodes"] for i in both) if both else float("nan")
                rows.append([
                    variant(game), "3..4", m, f"{proven} / {len(states)}",
                    f"{nodes:,}", f"{seconds:.1f} s", f"{median:,.0f}",
                ])  # fmt: skip
                print(" | ".join(rows[-1]), flush=True)
    write_table(
        args.out,
        "Proof searches: iterative deepening (id) and proof-number search (pn)",
        ["game", "seeds (K +)", "method", "proven", "nodes, all", "time, all", "median nodes, both proven"],
        rows,
        notes=[
            f"{args.positions} positions a game from seeded random games (seed {args.seed}), a budget of "
            f"{args.max_nodes:,} nodes a position (a position not proven counts its whole budget); every "
            "value proven agrees with a table of K + 4 seeds.",
        ],
        raw={"max_nodes": args.max_nodes, "seed": args.seed, "positions": raw},
        record=record,
    )


if __name__ == "__main__":
    main()
