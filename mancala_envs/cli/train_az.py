"""``mancala train-az``: :mod:`mancala_envs.training.train_alphazero`, which parses its own arguments."""

from __future__ import annotations

import argparse
from typing import Any

from mancala_envs.cli.parsing import passthrough

NAME = "train-az"


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    return passthrough(subparsers, NAME, "train an AlphaZero-style agent by self-play")


def run(args: argparse.Namespace) -> int:
    from mancala_envs.training import train_alphazero  # the train extra's imports, when run

    return train_alphazero.main(args.argv[1:])
