"""``mancala train``: :mod:`mancala_envs.training.train_ppo`, which parses its own arguments."""

from __future__ import annotations

import argparse
from typing import Any

from mancala_envs.cli.parsing import passthrough

NAME = "train"


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    return passthrough(subparsers, NAME, "train a MaskablePPO policy by self-play")


def run(args: argparse.Namespace) -> int:
    from mancala_envs.training import train_ppo  # the train extra's imports, when run

    return train_ppo.main(args.argv[1:])
