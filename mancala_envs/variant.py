"""A game and its parameters on a command line: :func:`add_game_arguments` declares the flags of
every command that plays a game, :func:`game_from_arguments` turns the parsed arguments into the
:class:`~mancala_envs.game.Game`, and :func:`game_flags` writes a game back as flags.

The flags are derived from the registered games' declared parameters
(:attr:`~mancala_envs.rulesets.GameInfo.parameters`): the game (a positional ``GAME`` or
``--game``), one ``--<parameter>`` for each parameter some registered game declares (e.g.
``--holes-per-row``, ``--seeds-per-hole`` for a game that declares it) and ``--max-plies`` (TR1).
A value is validated once, by :func:`~mancala_envs.game.get_game`: a parameter the chosen game
does not declare, or a value outside its range, raises ``ValueError`` naming it.

This module does not import argparse: ``parser`` is anything with argparse's ``add_argument``
(a parser, a subparser, an argument group), and ``args`` anything with the parsed attributes
(an ``argparse.Namespace``, a dataclass).
"""

from __future__ import annotations

from typing import Any, Protocol

from mancala_envs.game import Game, get_game
from mancala_envs.rulesets import DEFAULT_MAX_PLIES, GAMES, declared_parameters, parameter_help

__all__ = [
    "add_game_arguments",
    "add_game_parameters",
    "declared_parameters",
    "game_flags",
    "game_from_arguments",
]


class ArgumentParser(Protocol):
    """What :func:`add_game_arguments` needs of a parser: argparse's ``add_argument``."""

    def add_argument(self, *name_or_flags: str, **kwargs: Any) -> Any: ...


def flag(param: str) -> str:
    """The command-line flag of the game parameter ``param``: ``--holes-per-row``."""
    return "--" + param.replace("_", "-")


def add_game_arguments(
    parser: ArgumentParser,
    *,
    positional: bool = True,
    default: str | None = None,
    max_plies: bool = True,
    required: bool = True,
) -> None:
    """Add the game's arguments to ``parser``: the game (a positional ``GAME`` with ``positional``,
    else ``--game``, required unless it has a ``default`` or ``required`` is false; a positional
    one then may be left out: ``mancala solve --check``), one ``--<parameter>`` per declared
    parameter of a registered game (default None: the game's own value) and, with ``max_plies``,
    ``--max-plies``. Read them back with :func:`game_from_arguments`."""
    names = ", ".join(GAMES)
    if positional:
        optional = {} if required else {"nargs": "?"}
        parser.add_argument("game", choices=GAMES, help=f"which game: {names}", **optional)
    else:
        about = f" (default: {default})" if default is not None else ""
        parser.add_argument(
            "--game",
            choices=GAMES,
            default=default,
            required=required and default is None,
            help=f"the game{about}: {names}",
        )
    add_game_parameters(parser)
    if max_plies:
        parser.add_argument(
            "--max-plies",
            type=int,
            default=None,
            metavar="N",
            help=f"truncate games after N plies (default {DEFAULT_MAX_PLIES})",
        )


def add_game_parameters(parser: ArgumentParser, default: Any = None) -> None:
    """Add one ``--<parameter>`` flag to ``parser`` per parameter some registered game declares
    (``--holes-per-row``, ...), each an int stored under the parameter's name, ``default`` when
    left out (None: the game's own value)."""
    for param in declared_parameters():
        parser.add_argument(flag(param), type=int, default=default, metavar="N", help=parameter_help(param))


def game_from_arguments(args: Any) -> Game:
    """The :class:`Game` of arguments declared by :func:`add_game_arguments`: ``args.game`` with
    every parameter flag that was given (None: the game's own value). A parameter the game does
    not declare, or a value outside its range, raises ``ValueError`` naming it."""
    names = ("max_plies", *declared_parameters())
    params = {p: getattr(args, p) for p in names if getattr(args, p, None) is not None}
    return get_game(args.game, **params)


def game_flags(game: Game, *, max_plies: bool = False) -> list[str]:
    """The flags that give ``game`` back through :func:`game_from_arguments` (the game itself
    aside): its declared parameters, e.g. ``["--holes-per-row", "6"]``, and, with ``max_plies``,
    ``--max-plies``."""
    params = game.params if max_plies else game.variant_params
    return [item for p, v in params.items() for item in (flag(p), str(v))]
