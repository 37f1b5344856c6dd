"""``mancala optimality``: how often an agent's move keeps the exact outcome, over a suite of
positions (:mod:`mancala_envs.evaluation.optimality`).

::

    mancala optimality GAME AGENT... [--holes-per-row N] [--suite FILE] [--seed S] [--out FILE]
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from typing import Any

from mancala_envs.agents.registry import models_played
from mancala_envs.cli.parsing import PROG, command_args
from mancala_envs.evaluation.optimality import OptimalityResult, header, optimality, result_rows
from mancala_envs.infra import interrupts
from mancala_envs.infra.results import provenance, write_result
from mancala_envs.tablebase.optimality_suite import load_suite
from mancala_envs.variant import add_game_arguments, game_from_arguments

NAME = "optimality"


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        NAME,
        prog=f"{PROG} {NAME}",
        help="how often an agent's moves keep the exact outcome",
        description="How often an agent's move keeps the exact outcome: the optimality rate over a suite "
        "of positions.",
    )
    add_game_arguments(p, max_plies=False)
    p.add_argument("agents", nargs="+", metavar="AGENT", help="agent specs, e.g. minimax:depth=4")
    p.add_argument("--suite", default=None, metavar="FILE", help="suite JSONL (default: shipped)")
    p.add_argument("--seed", type=int, default=0, help="seed of the agents (0)")
    p.add_argument("--out", default=None, metavar="FILE", help="also write the rows as a result file (JSON)")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """``mancala optimality`` (``argv``: its arguments); returns the exit status."""
    return run(command_args(add_parser, NAME, list(sys.argv[1:] if argv is None else argv)))


def run(args: argparse.Namespace) -> int:
    game = game_from_arguments(args)
    suite = load_suite(game, args.suite)
    won = sum(e.outcome == 1 for e in suite)
    print(f"{game.name} suite: {len(suite)} positions ({won} won, {len(suite) - won} drawn for the mover)")
    print(header())
    record = provenance(shlex.join([PROG, *args.argv]), models_played(game, args.agents))
    results: list[OptimalityResult] = []
    try:
        with interrupts.sigterm_raises():
            for spec in args.agents:
                results.append(optimality(game, spec, suite, seed=args.seed))
                print(results[-1].row(), flush=True)
                if args.out is not None:  # rewritten after every agent: an interrupt keeps the rows
                    payload = {
                        "game": game.name,
                        "params": dict(game.params),
                        "suite": {"file": args.suite or "shipped", "positions": len(suite), "won": won},
                        "seed": args.seed,
                        "rows": result_rows(results),
                        "provenance": record,
                    }
                    write_result(args.out, payload)
    except KeyboardInterrupt as e:  # the finished agents' rows are printed
        print(f"\n{PROG} {NAME}: {interrupts.stopped(e)}", file=sys.stderr)
        return interrupts.exit_status(e)
    return 0
