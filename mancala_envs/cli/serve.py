"""``mancala serve``: play, analyse and replay games in the browser
(:func:`mancala_envs.web.server.serve`; the ``web`` extra)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mancala_envs.cli.parsing import PROG, command_args
from mancala_envs.web import server
from mancala_envs.web.workers import DEFAULT_QUEUE

NAME = "serve"


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        NAME,
        prog=f"{PROG} {NAME}",
        help="play, analyse and replay games in the browser (the web extra)",
        description="Play, analyse and replay games in the browser (a local web app; the web extra: "
        "pip install '.[web]' in a checkout).",
    )
    p.add_argument(
        "--host", default=server.DEFAULT_HOST, help="address to bind (default 127.0.0.1: this machine)"
    )
    p.add_argument("--port", type=int, default=0, help="port (default 0: a free one, printed)")
    p.add_argument("--open", action="store_true", help="open the page in the default browser")
    p.add_argument("--records", type=Path, metavar="DIR", help="folder of game records (*.jsonl) to replay")
    p.add_argument(
        "--tables",
        type=Path,
        metavar="DIR",
        help="folder of tablebases, one subfolder per variant (default: the per-user cache folder)",
    )
    p.add_argument(
        "--max-seconds",
        type=float,
        default=10.0,
        metavar="S",
        help="time cap of every search, per move or analysis column (default 10)",
    )
    p.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="N",
        help="worker processes that compute moves and analyses (default: half the processors, at most 4)",
    )
    p.add_argument(
        "--queue",
        type=int,
        default=DEFAULT_QUEUE,
        metavar="N",
        help=f"computations that may wait for a worker; more get 503 (default {DEFAULT_QUEUE})",
    )
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """``mancala serve`` (``argv``: its arguments); returns the exit status."""
    return run(command_args(add_parser, NAME, list(sys.argv[1:] if argv is None else argv)))


def run(args: argparse.Namespace) -> int:
    return server.serve(
        host=args.host,
        port=args.port,
        open_browser=args.open,
        records=args.records,
        tables=args.tables,
        max_seconds=args.max_seconds,
        workers=args.workers,
        queue=args.queue,
    )
