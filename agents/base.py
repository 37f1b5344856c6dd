"""The one agent protocol: ``name`` and ``act(game, state) -> int`` (a legal local action).

Every agent holds its own seeded :class:`numpy.random.Generator`, so the same seed gives the same
games. Agents are judged only through :mod:`agents.arena`.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from mancala_envs import Game, State


@runtime_checkable
class Agent(Protocol):
    """What the arena and the environments call."""

    name: str  # the spec string that rebuilds this agent with make_agent, e.g. "minimax:depth=4"

    def act(self, game: Game, state: State) -> int: ...


class RandomAgent:
    """Uniform over the legal moves."""

    def __init__(self, seed: int = 0):
        self.name = "random"
        self.rng = np.random.default_rng(seed)

    def act(self, game: Game, state: State) -> int:
        legal = game.legal_actions(state)
        if not legal:
            raise ValueError("no legal move: the game is over")
        return int(legal[self.rng.integers(len(legal))])
