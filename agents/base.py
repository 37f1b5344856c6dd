"""The one agent protocol, and the base class the project's agents share.

An agent has

- ``name``: the spec string that rebuilds it with :func:`mancala_envs.agents.make_agent`
  (``"minimax:depth=4"``);
- ``rng``: its own seeded :class:`numpy.random.Generator` (the same seed gives the same games);
  ``reseed(seed)`` replaces it;
- ``act(game, state) -> int``: a legal local action for ``state.to_move``;
- ``act_batch(game, states) -> actions``: one action per row of a batch of packed running states
  (shape ``(B, game.state_size)``, int64 actions). :class:`Agent` loops :meth:`Agent.act` over the
  rows; agents with a compiled batched form (random, greedy, networks) override it.

Who calls what: the arena and the single-agent env call ``act``; the vector env and the training
pool call ``act_batch``. Anything else a caller holds — a spec string, an agent, a callable — goes
through one adapter, :func:`mancala_envs.agents.registry.as_agent`.

An agent that plays a different policy in each game of a vector env (the training pool) may also
have ``episodes_started(env_indices)``; the vector env then calls it when games start an episode
and passes ``env_indices`` (the games of the rows) to ``act_batch``.
"""

from __future__ import annotations

import numpy as np

from mancala_envs.core.batch import random_actions
from mancala_envs.game import Game
from mancala_envs.state import State

CHECKED_KEPT = 64  # (model config, game) pairs a network agent remembers as checked (bounded)


class Agent:
    """Base class: ``name``, a seeded ``rng``, ``act`` (to override) and a looping ``act_batch``."""

    name: str = "agent"

    def __init__(self, seed: int = 0):
        self.rng = np.random.default_rng(seed)

    def reseed(self, seed: int) -> None:
        """Start a fresh generator from ``seed`` (the arena does this before every game)."""
        self.rng = np.random.default_rng(seed)

    def act(self, game: Game, state: State) -> int:
        raise NotImplementedError

    def act_batch(self, game: Game, states: np.ndarray) -> np.ndarray:
        """:meth:`act` on each row of ``states`` (every row checked, see ``Game.check_states``)."""
        game.check_states(states)
        return np.array([self.act(game, State(game, row.copy())) for row in states], dtype=np.int64)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


def require_running(game: Game, state: State) -> np.ndarray:
    """The legal mask of ``state``; ``ValueError`` when the game is over (no move to choose)."""
    mask = game.legal_mask(state)
    if not mask.any():
        raise ValueError("no legal move: the game is over")
    return mask


def time_budget(value: object, who: str) -> float | None:
    """A per-move time budget: None, or a positive finite number of seconds (``ValueError`` otherwise)."""
    if value is None:
        return None
    number = isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool)
    if not number or not 0 < value < float("inf"):
        raise ValueError(f"{who} time must be a positive, finite number of seconds, got {value!r}")
    return float(value)


def spec_name(name: str, params: dict[str, object]) -> str:
    """``"name"`` or ``"name:key=value,..."`` — the spec of an agent, parameters at their defaults
    left out by the caller (``None`` values are skipped)."""
    items = [f"{k}={v}" for k, v in params.items() if v is not None]
    return name + (":" + ",".join(items) if items else "")


def spec_number(x: float) -> str:
    """A float as it reads in a spec string, exactly (``0.5``, ``2``, ``0.123456789``)."""
    return repr(int(x)) if float(x).is_integer() else repr(float(x))


class RandomAgent(Agent):
    """Uniform over the legal moves."""

    name = "random"

    def act(self, game: Game, state: State) -> int:
        legal = np.flatnonzero(require_running(game, state))
        return int(legal[self.rng.integers(len(legal))])

    def act_batch(self, game: Game, states: np.ndarray) -> np.ndarray:
        """One uniformly random legal action per packed state (-1 for finished rows)."""
        game.check_states(states, full=False)
        return random_actions(states, game.rules, self.rng)


class NetworkAgent(Agent):
    """Shared play of network policies (:class:`~mancala_envs.agents.policies.policy.PolicyAgent`,
    :class:`~mancala_envs.agents.policies.rllib.RLlibAgent`,
    :class:`~mancala_envs.agents.alphazero.agent.AZAgent` with ``sims=0``): a subclass
    sets ``sample`` and provides ``logits(game, observations, masks)`` (illegal moves at ``-inf``);
    this class picks the masked argmax, or samples the masked softmax when ``sample`` is true."""

    sample: bool = False
    temperature: float = 1.0  # of the sampled softmax, when ``sample``
    counts: bool = False  # the network reads raw seed counts (game.counts), not fractions

    def logits(self, game: Game, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _choose(self, logits: np.ndarray) -> np.ndarray:
        if not self.sample:
            return np.argmax(logits, axis=1)
        g = self.rng.gumbel(size=logits.shape)  # Gumbel-max: a draw from the masked softmax
        return np.argmax(np.where(np.isfinite(logits), logits / self.temperature + g, -np.inf), axis=1)

    def inputs(self, game: Game, states: np.ndarray) -> np.ndarray:
        """The network's ``float32`` inputs for running packed states: the mover's view (raw
        counts when ``counts``)."""
        views = game.counts_batch if self.counts else game.observations
        return views(states, states[:, game.layout.to_move]).astype(np.float32)

    def act(self, game: Game, state: State) -> int:
        mask = require_running(game, state)
        obs = self.inputs(game, state.array[None])
        return int(self._choose(self.logits(game, obs, mask[None]))[0])

    def act_batch(self, game: Game, states: np.ndarray) -> np.ndarray:
        """One action per running packed state (rows must not be finished; no rows, no actions)."""
        masks = game.legal_masks(states)
        if not masks.any(axis=1).all():
            raise ValueError("act_batch needs running states: some rows have no legal move")
        if not len(states):
            return np.zeros(0, dtype=np.int64)
        return self._choose(self.logits(game, self.inputs(game, states), masks)).astype(np.int64)
