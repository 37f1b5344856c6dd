"""mancala_envs: Songo Ewondo, Sadeqa II and En Dodoi as reinforcement-learning environments.

The rules core (RULES.md §5): :func:`get_game`, :class:`Game`, :class:`State`,
:class:`IllegalMoveError` (and :class:`UnknownArgumentError`, an env's unknown keyword), the
batched :func:`random_games` and :func:`outcome`, the one result helper; :func:`variants`, every game at
every parameter value. Environments: the
PettingZoo modules ``songo_ewondo_v0``, ``sadeqa_ii_v0``, ``en_dodoi_v0``, and
:mod:`mancala_envs.envs` (AEC, single-agent Gymnasium, vector envs). Games as data:
:class:`GameInfo`, :func:`register_game`.
"""

from typing import Any

import mancala_envs._numba_cache  # noqa: F401  (first: keys numba's cache on the kernels' sources)
from mancala_envs.envs.common import UnknownArgumentError, register_agent_resolver
from mancala_envs.game import Game, get_game, outcome, variants
from mancala_envs.random_play import RandomGames, random_games
from mancala_envs.registration import register_envs, register_game, unregister_game
from mancala_envs.rulesets import GAMES, GameInfo, Ruleset
from mancala_envs.rulesets import RULESETS as RULESETS  # the names of GAMES with their rulesets
from mancala_envs.state import IllegalMoveError, State


def _resolve_agent(opponent: object, seed: int = 0, batched_callable: bool = False) -> Any:
    """The envs' agent resolver (:func:`mancala_envs.envs.common.register_agent_resolver`):
    :func:`mancala_envs.agents.registry.as_agent`, imported on the first opponent spec. The
    package's root is where the layers are wired together: the envs below take it injected."""
    from mancala_envs.agents.registry import as_agent

    return as_agent(opponent, seed=seed, batched_callable=batched_callable)


register_agent_resolver(_resolve_agent)
register_envs()

__all__ = [
    "GAMES",
    "Game",
    "GameInfo",
    "IllegalMoveError",
    "RandomGames",
    "Ruleset",
    "State",
    "UnknownArgumentError",
    "get_game",
    "outcome",
    "random_games",
    "register_game",
    "unregister_game",
    "variants",
]
__version__ = "0.2.0"
