"""``python -m mancala_envs.demo [--seed 0]``: one seeded game of each game between uniformly
random players, the final board printed (:func:`mancala_envs.demo.play_random_game`). Not a
``mancala`` command: the entry of that module, whose parser lives here."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from mancala_envs import GAMES
from mancala_envs.cli.parsing import command_args
from mancala_envs.demo import play_random_game

NAME = "demo"
PROG = "python -m mancala_envs.demo"


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        NAME,
        prog=PROG,
        description="Play one seeded game of each game between uniformly random players and print the "
        f"final board.\n\n{PROG} [--seed 0]\n",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--seed", type=int, default=0)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m mancala_envs.demo`` (``argv``: its arguments); the exit status."""
    return run(command_args(add_parser, NAME, list(sys.argv[1:] if argv is None else argv)))


def run(args: argparse.Namespace) -> int:
    for name in GAMES:
        print(play_random_game(name, args.seed), end="\n\n")
    return 0
