"""mancala_envs: Songo Ewondo, Sadeqa II and En Dodoi as reinforcement-learning environments.

The rules core (RULES.md §5): :func:`get_game`, :class:`Game`, :class:`State`,
:class:`IllegalMoveError`, and the batched :func:`random_games`.
"""

import mancala_envs._numba_cache  # noqa: F401  (first: keys numba's cache on the kernels' sources)
from mancala_envs.game import Game, IllegalMoveError, RandomGames, State, get_game, random_games
from mancala_envs.registration import register_envs
from mancala_envs.rulesets import RULESETS, Ruleset

GAMES = tuple(RULESETS)
register_envs()  # pettingzoo.make("aec", "mancala/<game>-v0")

__all__ = [
    "GAMES",
    "Game",
    "IllegalMoveError",
    "RandomGames",
    "Ruleset",
    "State",
    "get_game",
    "random_games",
]
__version__ = "0.1.0"
