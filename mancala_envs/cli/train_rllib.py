"""``mancala train-rllib``: :mod:`mancala_envs.training.train_rllib`, which parses its own arguments."""

from __future__ import annotations

import argparse
from typing import Any

from mancala_envs.cli.parsing import passthrough

NAME = "train-rllib"


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    return passthrough(subparsers, NAME, "train with RLlib (the rllib extra)")


def run(args: argparse.Namespace) -> int:
    from mancala_envs.training import train_rllib  # the train extra's imports, when run

    return train_rllib.main(args.argv[1:])
