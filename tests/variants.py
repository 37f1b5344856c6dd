"""The variants under test, in one place: every list of ``(game name, params)`` pairs the tests
parametrize over, derived from the built-in games so that a new game or width joins them all.

- :data:`ALL`: every built-in game at every value of its parameters (En Dodoi at 6..10 holes).
- :data:`SPREAD`: every game at the smallest, default and largest value of each parameter
  (En Dodoi at 6, 8 and 10 holes): the ends and the middle, for tests too slow for :data:`ALL`.
- :data:`DEFAULTS`: every game once, at its default parameters (En Dodoi at 8 holes), spelled out.
- :data:`NARROWEST`: every game once, at its smallest parameters (En Dodoi at 6 holes): the
  cheapest board of each game, for the slowest tests.

A test file whose list is deliberately different (a subset for cost, extra values such as a short
``max_plies``) derives it from these and says why in a comment.
"""

from __future__ import annotations

import itertools

from mancala_envs.rulesets import BUILTIN_GAMES, GameInfo

Variant = tuple[str, dict[str, int]]

GAME_NAMES: tuple[str, ...] = tuple(info.name for info in BUILTIN_GAMES)


def variant_id(name: str, params: dict) -> str:
    """``songo_ewondo``, ``en_dodoi6``: the game's name and its parameters' values, for test ids."""
    return name + "".join(str(v) for v in params.values())


def ids(variants: list[Variant]) -> list[str]:
    """The test ids of ``variants``."""
    return [variant_id(name, params) for name, params in variants]


def _named(info: GameInfo, values: tuple[int, ...]) -> Variant:
    return info.name, dict(zip([p for p, _ in info.parameters], values, strict=True))


def _spread(info: GameInfo) -> list[tuple[int, ...]]:
    """The smallest, default and largest value of each parameter (in that order, no repeats)."""
    per_param = [dict.fromkeys([v[0], getattr(info.ruleset, p), v[-1]]) for p, v in info.parameters]
    return list(itertools.product(*per_param))


ALL: list[Variant] = [
    _named(info, values)
    for info in BUILTIN_GAMES
    for values in itertools.product(*(v for _, v in info.parameters))
]
SPREAD: list[Variant] = [_named(info, values) for info in BUILTIN_GAMES for values in _spread(info)]
DEFAULTS: list[Variant] = [
    _named(info, tuple(getattr(info.ruleset, p) for p, _ in info.parameters)) for info in BUILTIN_GAMES
]
NARROWEST: list[Variant] = [_named(info, tuple(v[0] for _, v in info.parameters)) for info in BUILTIN_GAMES]

ALL_IDS = ids(ALL)
SPREAD_IDS = ids(SPREAD)
DEFAULTS_IDS = ids(DEFAULTS)
NARROWEST_IDS = ids(NARROWEST)
