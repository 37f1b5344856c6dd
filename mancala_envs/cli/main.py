"""The ``mancala`` command: a table of its subcommands, one module each (``NAME``,
``add_parser(subparsers)``, ``run(args)``; :mod:`~mancala_envs.cli.parsing`).
``mancala <command> --help`` documents each one.

Bad arguments, and the ``ValueError`` s the library raises for them, end in one line on stderr,
``mancala: error: ...``, and exit status 2 — never a traceback; so does a failed write (a full
disk), naming the file. Ctrl-C ends with a line saying what was kept and exit status 130, SIGTERM
likewise with 143 (:mod:`mancala_envs.infra.interrupts`). A game of ``play`` abandoned by a human
(``q``, or the input closed) ends with exit status 1; an abandoned game (Ctrl-C too) writes no
record, and leaves the ``--out`` file as it was (absent if it was).
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from collections.abc import Sequence
from functools import partial
from typing import Any

from mancala_envs import __version__
from mancala_envs.agents.human import QuitGame
from mancala_envs.cli import (
    dataset,
    distill_az,
    evaluate,
    optimality,
    play,
    replay,
    serve,
    solve,
    tablebase,
    tournament,
    train,
    train_az,
    train_rllib,
)
from mancala_envs.cli.parsing import PROG, CommandParser, UsageError, parse_command, subparsers_of
from mancala_envs.cli.play import AGENT_SPECS, board_text
from mancala_envs.infra import interrupts
from mancala_envs.infra.errors import one_line

__all__ = ["AGENT_SPECS", "COMMANDS", "PROG", "UsageError", "board_text", "build_parser", "main"]

# The subcommands in the order of ``mancala --help``.
COMMANDS = {
    command.NAME: command
    for command in (
        play,
        tournament,
        replay,
        train,
        train_az,
        distill_az,
        evaluate,
        optimality,
        tablebase,
        solve,
        dataset,
        train_rllib,
        serve,
    )
}


def build_parser() -> argparse.ArgumentParser:
    """The ``mancala`` parser, every command's parser below it."""
    parser = CommandParser(
        prog=PROG,
        description="Mancala games: play, run tournaments, replay recorded games, train and evaluate agents.",
        formatter_class=lambda prog: argparse.HelpFormatter(prog, max_help_position=28),
        one_line_errors=True,
    )
    parser.add_argument("--version", action="version", version=f"{PROG} (mancala_envs) {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=CommandParser)
    for command in COMMANDS.values():
        command.add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``mancala`` console script; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    with interrupts.sigterm_raises():
        return _main(argv)


def parse(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace | int:
    """``argv`` parsed, or the exit status when there is nothing to run (``--help``, ``--version``,
    no command). A command with argparse's own errors parses alone, and its ``SystemExit`` (errors,
    ``--help``) passes through, as when it was a script of its own."""
    command = subparsers_of(parser).choices.get(argv[0]) if argv else None
    if command is not None and not command.one_line_errors:
        return parse_command(parser, argv)
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # --help, --version
        return int(e.code or 0)
    if args.command is None:
        parser.print_help()
        return 2
    args.argv = argv  # the command as typed, for the result files
    return args


def _main(argv: list[str]) -> int:
    try:
        args = parse(build_parser(), argv)
        if isinstance(args, int):
            return args
        return int(COMMANDS[argv[0]].run(args) or 0)
    except BrokenPipeError:  # output piped into e.g. head, which has gone: stop quietly
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - lets the interpreter's final flush succeed
        return 141
    except (UsageError, ValueError, OSError) as e:
        print(f"{PROG}: error: {one_line(e)}", file=sys.stderr)
        return 2
    except ImportError as e:  # an optional dependency of an agent or subcommand
        print(f"{PROG}: error: {one_line(e)}", file=sys.stderr)
        return 1
    except EOFError:
        print(f"\n{PROG}: input closed; game abandoned", file=sys.stderr)
        return 1
    except QuitGame as e:
        print(f"{PROG}: {e}; game abandoned")
        return 1
    except KeyboardInterrupt as e:
        print(f"\n{PROG}: {interrupts.stopped(e)}", file=sys.stderr)
        return interrupts.exit_status(e)


def run_command(name: str, argv: Sequence[str]) -> int:
    """The command ``name`` on its arguments ``argv``, parsed by its own parser; the exit status."""
    return int(COMMANDS[name].run(parse_command(build_parser(), [name, *argv])) or 0)


def __getattr__(name: str) -> Any:
    """``EXTERNAL_COMMANDS``, deprecated: the commands that began as scripts of their own, as
    ``{name: (main(argv), summary)}``; the table is :data:`COMMANDS`."""
    if name != "EXTERNAL_COMMANDS":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    message = "mancala_envs.cli.main.EXTERNAL_COMMANDS is deprecated: use COMMANDS (name -> module)"
    warnings.warn(message, DeprecationWarning, stacklevel=2)
    subparsers = subparsers_of(build_parser())
    summaries = {action.dest: action.help for action in subparsers._choices_actions}
    return {
        command: (partial(run_command, command), summaries[command])
        for command, parser in subparsers.choices.items()
        if not parser.one_line_errors
    }


if __name__ == "__main__":
    sys.exit(main())
