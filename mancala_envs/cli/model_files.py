"""``python -m mancala_envs.agents.model_files MODEL.zip OUT --game G [--holes-per-row N]``:
convert a trusted MaskablePPO ``.zip`` into the safe pair ``OUT.json`` + ``OUT.pt``
(:func:`mancala_envs.agents.model_files.export_zip`). Not a ``mancala`` command: the entry of that
module, whose parser lives here."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from mancala_envs.agents.model_files import export_zip
from mancala_envs.cli.parsing import command_args
from mancala_envs.variant import add_game_arguments, game_from_arguments

NAME = "model-files"
PROG = "python -m mancala_envs.agents.model_files"


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        NAME, prog=PROG, description="Convert a trusted MaskablePPO .zip into OUT.json + OUT.pt."
    )
    p.add_argument("zip")
    p.add_argument("out")
    add_game_arguments(p, positional=False, max_plies=False)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m mancala_envs.agents.model_files`` (``argv``: its arguments); the exit status."""
    return run(command_args(add_parser, NAME, list(sys.argv[1:] if argv is None else argv)))


def run(args: argparse.Namespace) -> int:
    for f in export_zip(args.zip, args.out, game_from_arguments(args)):
        print(f"wrote {f}")
    return 0
