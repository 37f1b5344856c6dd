"""What every command module of :mod:`mancala_envs.cli` shares: the parser class and a command's
parser on its own (for its ``main(argv)``); the game flags are :mod:`mancala_envs.variant`'s.

A command module has ``NAME``, ``add_parser(subparsers)`` (adds its parser, returns it) and
``run(args) -> int | None`` (the exit status); :mod:`~mancala_envs.cli.main` lists them.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

PROG = "mancala"


class UsageError(Exception):
    """A bad command line; printed as one line, exit status 2."""


class CommandParser(argparse.ArgumentParser):
    """The parser of a command. ``one_line_errors``: a bad command line raises :class:`UsageError`
    (one line on stderr from :func:`mancala_envs.cli.main.main`, exit status 2); otherwise argparse's
    usage and message and ``SystemExit(2)``, as the commands that began as scripts of their own
    always did. ``parses_itself``: the command's script parses its arguments (the training
    scripts): the parser only lists it, and ``run`` gets the command line unparsed."""

    def __init__(self, *args: Any, one_line_errors: bool = False, parses_itself: bool = False, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.one_line_errors = one_line_errors
        self.parses_itself = parses_itself

    def error(self, message: str) -> NoReturn:
        if self.one_line_errors:
            raise UsageError(f"{message} (see '{self.prog} --help')")
        super().error(message)


def parse_command(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.Namespace:
    """``argv`` (``argv[0]`` a command) parsed by that command's parser alone; ``args.argv`` is
    ``argv`` (the command line as typed after ``mancala``)."""
    command = subparsers_of(parser).choices[argv[0]]
    args = argparse.Namespace() if command.parses_itself else command.parse_args(argv[1:])
    args.argv = list(argv)
    return args


def subparsers_of(parser: argparse.ArgumentParser) -> argparse._SubParsersAction:
    """The subcommands' action of ``parser``."""
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))


def standalone(add_parser: Callable[[Any], argparse.ArgumentParser]) -> argparse.ArgumentParser:
    """The parser ``add_parser`` makes, on its own (a command's ``main(argv)``)."""
    return add_parser(argparse.ArgumentParser(prog=PROG).add_subparsers(parser_class=CommandParser))


def command_args(
    add_parser: Callable[[Any], argparse.ArgumentParser], name: str, argv: Sequence[str]
) -> argparse.Namespace:
    """``argv`` parsed by the parser of the command ``name`` (made by ``add_parser``); ``args.argv``
    is the command line as typed after ``mancala``."""
    args = standalone(add_parser).parse_args(list(argv))
    args.argv = [name, *argv]
    return args


def passthrough(subparsers: Any, name: str, summary: str) -> argparse.ArgumentParser:
    """The entry of a command whose script parses its own arguments (``parses_itself``)."""
    return subparsers.add_parser(name, help=summary, add_help=False, parses_itself=True)


def usage_error(add_parser: Callable[[Any], argparse.ArgumentParser], message: str) -> NoReturn:
    """argparse's usage of the command ``add_parser`` makes, then ``message``; ``SystemExit(2)``."""
    standalone(add_parser).error(message)
