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


class NetworkAgent:
    """Shared play of network policies (:class:`~agents.policy.PolicyAgent`,
    :class:`~agents.rllib_agent.RLlibAgent`): a subclass sets ``sample`` and ``rng`` and provides
    ``logits(game, observations, masks)`` (illegal moves at ``-inf``); this class picks the masked
    argmax, or samples the masked softmax when ``sample`` is true."""

    sample: bool
    rng: np.random.Generator

    def logits(self, game: Game, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _choose(self, logits: np.ndarray) -> np.ndarray:
        if not self.sample:
            return np.argmax(logits, axis=1)
        probs = np.exp(logits - logits.max(axis=1, keepdims=True))
        probs /= probs.sum(axis=1, keepdims=True)
        return np.array([self.rng.choice(len(p), p=p) for p in probs])

    def act(self, game: Game, state: State) -> int:
        mask = game.legal_mask(state)
        if not mask.any():
            raise ValueError("no legal move: the game is over")
        obs = game.observation(state, state.to_move)
        return int(self._choose(self.logits(game, obs[None], mask[None]))[0])

    def act_batch(self, game: Game, states: np.ndarray) -> np.ndarray:
        """One action per running packed state (rows must not be finished)."""
        masks = game.legal_masks(states)
        if not masks.any(axis=1).all():
            raise ValueError("act_batch needs running states: some rows have no legal move")
        obs = game.observations(states, states[:, K.off_to_move(game.holes_per_row)])
        return self._choose(self.logits(game, obs, masks)).astype(np.int64)
