"""``mancala distill-az``: :mod:`mancala_envs.training.distill_az`, which parses its own arguments."""

from __future__ import annotations

import argparse
from typing import Any

from mancala_envs.cli.parsing import passthrough

NAME = "distill-az"


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    return passthrough(subparsers, NAME, "distil minimax over an az model's value into more plies")


def run(args: argparse.Namespace) -> int:
    from mancala_envs.training import distill_az  # the train extra's imports, when run

    return distill_az.main(args.argv[1:])
