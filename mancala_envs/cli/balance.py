"""``python -m mancala_envs.evaluation.balance GAME``: write a game's default opening suite and
measure how fair it is (:func:`mancala_envs.evaluation.balance.suite_balance`). Not a ``mancala``
command: the entry of that module, whose parser lives here."""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mancala_envs.cli.parsing import command_args
from mancala_envs.evaluation.balance import suite_balance
from mancala_envs.evaluation.openings import opening_plies, random_openings, save_openings
from mancala_envs.infra.results import provenance, write_result
from mancala_envs.variant import add_game_arguments, game_from_arguments

NAME = "balance"
PROG = "python -m mancala_envs.evaluation.balance"


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        NAME,
        prog=PROG,
        description=f"``{PROG} GAME [--holes-per-row N] [--n 200] [--agent SPEC] [--out FILE] "
        "[--report FILE]``: "
        "write the game's default suite (``--out``) and print its balance (and write it as a result file, "
        "``--report``).",
    )
    add_game_arguments(p, max_plies=False)
    p.add_argument("--n", type=int, default=200, help="openings in the suite (default 200)")
    p.add_argument("--agent", default="minimax:depth=4", help="the self-play agent of the balance")
    p.add_argument("--out", type=Path, default=None, help="also write the suite as JSONL here")
    p.add_argument("--report", type=Path, default=None, help="also write the result file (JSON) here")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m mancala_envs.evaluation.balance`` (``argv``: its arguments); the exit status."""
    return run(command_args(add_parser, NAME, list(sys.argv[1:] if argv is None else argv)))


def run(args: argparse.Namespace) -> int:
    game = game_from_arguments(args)
    if args.out is not None:
        save_openings(args.out, random_openings(game, args.n))
        print(f"wrote {args.n} openings to {args.out}")
    mean, games, (lo, hi) = suite_balance(game, args.agent, args.n)
    lo_p, hi_p = opening_plies(game, None)
    print(
        f"{game.name}: {args.agent} self-play from {games} openings of {lo_p}-{hi_p} random plies: "
        f"player to move scores {mean:.3f} [{lo:.3f}, {hi:.3f}]"
    )
    if args.report is not None:
        command = shlex.join([*PROG.split(), *args.argv[1:]])
        payload = {
            "game": game.name,
            "params": dict(game.params),
            "agent": args.agent,
            "openings": games,
            "plies": [lo_p, hi_p],
            "score": mean,
            "ci95": [lo, hi],
            "provenance": provenance(command),
        }
        write_result(args.report, payload)
    return 0
