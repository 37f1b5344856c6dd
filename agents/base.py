"""The one agent protocol: ``name`` and ``act(game, state) -> int`` (a legal local action).

Every agent holds its own seeded :class:`numpy.random.Generator` (``rng``), so the same seed gives
the same games. An agent may also offer ``act_batch(game, states) -> actions`` over packed state
arrays (shape ``(B, game.state_size)``) where that is natural. Agents are judged only through
:mod:`agents.arena`; :func:`agents.make_agent` builds them from spec strings.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from mancala_envs import Game, State
from mancala_envs import kernels as K


@runtime_checkable
class Agent(Protocol):
    """What the arena and the environments call."""

    name: str  # the spec string that rebuilds this agent with make_agent, e.g. "minimax:depth=4"

    def act(self, game: Game, state: State) -> int: ...


def time_budget(value: object, who: str) -> float | None:
    """A per-move time budget: None, or a positive number of seconds (``ValueError`` otherwise)."""
    if value is None:
        return None
    number = isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool)
    if not number or not value > 0:
        raise ValueError(f"{who} time must be a positive number of seconds, got {value!r}")
    return float(value)


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

    def act_batch(self, game: Game, states: np.ndarray) -> np.ndarray:
        """One uniformly random legal action per packed state (-1 for finished rows)."""
        game.legal_masks(states)  # validates the batch
        return K.random_actions(states, game.rules, self.rng)
