"""UCT Monte-Carlo tree search with random rollouts, run in compiled code
(:func:`mancala_envs.agents.mcts.kernels.mcts_run`) through the core's engine.

The tree lives in preallocated numpy arrays (one row per node: packed state, children by action,
visits, reward). A rollout's result is credited by player id: 1 to the winner's moves, 0.5 each
for a draw or a truncated game, 0 to the loser's. The agent plays the most visited root move.
"""

from __future__ import annotations

import time as _time

import numpy as np

from mancala_envs.agents.base import Agent, spec_number, time_budget
from mancala_envs.agents.mcts.kernels import mcts_run
from mancala_envs.game import Game
from mancala_envs.state import State

MAX_SIMS = 10_000_000  # the tree holds one node per simulation
DEFAULT_SIMS = 1000
FIRST_NODES = 1 << 14  # with a time budget the tree starts this large and doubles as it fills


class MCTSAgent(Agent):
    """UCT with ``sims`` simulations per move, exploration constant ``c`` (rewards in [0, 1]) and
    an optional ``time`` budget in seconds. Without a time budget ``sims`` defaults to 1000; with
    one, the search runs until the budget is spent (capped by ``sims`` only when it is given, else
    by :data:`MAX_SIMS`), so that ``mcts:time=S`` thinks as long as ``minimax:time=S`` and
    ``az:time=S``; its tree then grows as it fills, about 200 bytes a simulation. ``last_sims``
    and ``last_seconds`` report the work done for the last move."""

    def __init__(self, sims: int | None = None, c: float = 1.4, time: float | None = None, seed: int = 0):
        self.time = time_budget(time, "mcts")
        given = sims
        if sims is None:
            sims = DEFAULT_SIMS if self.time is None else MAX_SIMS
        if isinstance(sims, bool) or not isinstance(sims, (int, np.integer)) or not 1 <= sims <= MAX_SIMS:
            raise ValueError(f"mcts sims must be an integer in 1..{MAX_SIMS}, got {sims!r}")
        if isinstance(c, bool) or not isinstance(c, (int, float)) or not 0 <= c < float("inf"):
            raise ValueError(f"mcts c must be a finite non-negative number, got {c!r}")
        super().__init__(seed)
        self.sims = int(sims)
        self.c = float(c)
        parts = [] if self.time is not None and given is None else [f"sims={self.sims}"]
        parts += [] if self.c == 1.4 else [f"c={spec_number(self.c)}"]
        parts += [] if self.time is None else [f"time={spec_number(self.time)}"]
        self.name = "mcts:" + ",".join(parts)
        self.last_sims = 0
        self.last_seconds = 0.0
        self._shape: tuple[int, int, int] | None = None

    def _allocate(self, game: Game, nodes: int) -> None:
        """Room for at least ``nodes`` tree nodes (one expansion per simulation, plus the root); a
        tree grown on an earlier move of the same game is kept."""
        shape = self._shape
        if shape is None or shape[1:] != (game.state_size, game.num_actions) or shape[0] < nodes:
            self._states = np.zeros((nodes, game.state_size), dtype=np.int32)
            self._children = np.empty((nodes, game.num_actions), dtype=np.int32)
            self._visits = np.zeros(nodes, dtype=np.float64)
            self._value = np.zeros(nodes, dtype=np.float64)
            self._mover = np.zeros(nodes, dtype=np.int32)
            self._path = np.zeros(nodes + 1, dtype=np.int64)
            self._scratch = np.zeros(game.state_size, dtype=np.int32)
            self._shape = (nodes, game.state_size, game.num_actions)

    def _grow(self, used: int) -> None:
        """Double the tree's arrays (to ``sims + 1`` nodes at most), keeping its first ``used``
        nodes (child links stay valid)."""
        old_nodes, size, n = self._shape
        nodes = min(2 * old_nodes, self.sims + 1)
        old = (self._states, self._children, self._visits, self._value, self._mover)
        self._states = np.zeros((nodes, size), dtype=np.int32)
        self._children = np.full((nodes, n), -1, dtype=np.int32)
        self._visits = np.zeros(nodes, dtype=np.float64)
        self._value = np.zeros(nodes, dtype=np.float64)
        self._mover = np.zeros(nodes, dtype=np.int32)
        new = (self._states, self._children, self._visits, self._value, self._mover)
        for grown, arr in zip(new, old, strict=True):
            grown[:used] = arr[:used]
        self._path = np.zeros(nodes + 1, dtype=np.int64)
        self._shape = (nodes, size, n)

    def search(self, game: Game, state: State) -> np.ndarray:
        """Run the simulations from ``state``; returns the visit count of each root move."""
        if not game.legal_actions(state):
            raise ValueError("no legal move: the game is over")
        self._allocate(game, self.sims + 1 if self.time is None else min(self.sims + 1, FIRST_NODES))
        self._children.fill(-1)
        self._states[0] = state.array
        self._visits[0] = 0.0
        self._value[0] = 0.0
        start = _time.perf_counter()
        nodes = 1
        if self.time is None:
            nodes = mcts_run(self.sims, self.c, *self._tree(game), nodes, self._path, self._scratch)
            done = self.sims
        else:
            done, chunk = 0, 16
            while done < self.sims and _time.perf_counter() - start < self.time:
                k = min(chunk, self.sims - done)
                while nodes + k > self._shape[0]:
                    self._grow(nodes)
                nodes = mcts_run(k, self.c, *self._tree(game), nodes, self._path, self._scratch)
                done += k
                chunk = min(chunk * 2, 256)
        self.last_sims = done
        self.last_seconds = _time.perf_counter() - start
        return self._at_root(self._visits)

    def root_values(self) -> np.ndarray:
        """After :meth:`search`: each root move's mean result for the root's mover (1 win, 0.5
        draw, 0 loss; NaN for a move not visited or illegal)."""
        visits, totals = self._at_root(self._visits), self._at_root(self._value)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(visits > 0, totals / visits, np.nan)

    def _at_root(self, per_node: np.ndarray) -> np.ndarray:
        """``per_node`` at each root move's child (0 for a move without one)."""
        kids = self._children[0]
        return np.where(kids >= 0, per_node[np.maximum(kids, 0)], 0.0)

    def _tree(self, game: Game) -> tuple:
        return (game.rules, self.rng, self._states, self._children, self._visits, self._value, self._mover)

    def act(self, game: Game, state: State) -> int:
        legal = game.legal_actions(state)
        if len(legal) == 1:
            self.last_sims, self.last_seconds = 0, 0.0
            return legal[0]
        return int(np.argmax(self.search(game, state)))
