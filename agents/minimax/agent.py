"""Alpha-beta minimax agent over the compiled core (search in :mod:`mancala_envs.agents.minimax.alphabeta`).

Heuristics (value for the player ``p`` to move of a running position; a finished game is worth
±1,000,000 (more for a quicker win), a draw or a truncated game 0). ``row(x)`` is the seeds on x's
row, ``holes(x)`` his non-empty holes, ``cap(x)`` his captured seeds, ``opp`` the opponent. The
weights are data of each game (``GameInfo.heuristic_weights`` in :mod:`mancala_envs.rulesets`); a
game without its own gets the default of its result rule: ``4 * cap + row`` differences when
captures decide (SE10/ED5), ``row + holes`` differences when survival does (SQ6), no extension.

- ``songo_ewondo`` (won on captures): ``4 * (cap(p) - cap(opp)) + (row(p) - row(opp))`` — captures
  decide the game, and the seeds left on the board go to the last mover at the end (SE9), usually
  the player who still has them.
- ``en_dodoi`` (won on captures): the same terms (ED4 gives the board to the last mover), and a
  line is searched one ply deeper (once) where a row holds 6 seeds or fewer: endgames are
  tactical.
- ``sadeqa_ii`` (won by survival, captures do not score): ``(row(p) - row(opp)) + (holes(p) -
  holes(opp))`` — seeds and occupied holes keep a player alive; a line is searched one ply deeper
  (once) where a row holds 4 seeds or fewer.

Search: iterative deepening to ``depth`` plies, negamax with alpha-beta credited by player id (a
child's value is negated only when its player to move differs), forced moves and low-material nodes
extended (every child of a node searched to the same depth; the exact definition of the value is in
:mod:`mancala_envs.agents.minimax.alphabeta`), a transposition table (2**18 entries at depth 4, up to 2**20
deeper; entries are reused only for the same depth and extension, never within reach of
``max_plies``, and cleared between moves so that a move depends only on the position and the seed),
moves ordered by the table's best move, then by the children's static values. Root moves are first
shuffled by the agent's generator, so equal-valued moves are chosen at random. With ``time``
(seconds) the deepening stops when the budget is spent: an iteration that would overrun it is cut
short and the previous depth's move is played. A time budget makes the move depend on the machine's
speed. With ``epsilon`` the agent plays a uniformly random legal move with that probability (noise
for users who want varied games without an opening suite; the arena's opening pairs are the sound
route).
"""

from __future__ import annotations

import time as _time

import numpy as np

from mancala_envs.agents.base import Agent, spec_name, spec_number, time_budget
from mancala_envs.agents.minimax.alphabeta import (
    CTX_ABORTED,
    CTX_GENERATION,
    CTX_MAX_NODES,
    CTX_NODES,
    INF,
    alphabeta_root,
)
from mancala_envs.game import Game
from mancala_envs.rulesets import GameTable, default_heuristic_weights, game_info
from mancala_envs.state import State

# (captured, row, non-empty holes) difference weights, then the low-material extension threshold
# (-1 none), of every registered game: a live view of GameInfo.weights
HEURISTIC_WEIGHTS: GameTable[str, tuple[int, ...]] = GameTable(lambda info: (info.name, info.weights))
MAX_TT_BITS = 20
DEFAULT_DEPTH, MAX_DEPTH = 4, 60
NO_LIMIT = 1 << 62


class MinimaxAgent(Agent):
    """Alpha-beta to ``depth`` plies (1..60), optionally within ``time`` seconds per move. Without
    ``time`` the depth defaults to 4; with ``time`` alone the deepening goes on until the budget is
    spent (to depth 60), so that ``minimax:time=S`` thinks as long as ``az:time=S``.

    After each move ``last_nodes``, ``last_seconds`` and ``last_depth`` (deepest completed
    iteration) report the work done; ``nodes_per_second`` their ratio.
    """

    def __init__(
        self, depth: int | None = None, time: float | None = None, epsilon: float = 0.0, seed: int = 0
    ):
        given = depth
        if depth is None:
            depth = DEFAULT_DEPTH if time is None else MAX_DEPTH
        if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or not 1 <= depth <= MAX_DEPTH:
            raise ValueError(f"minimax depth must be an integer in 1..{MAX_DEPTH}, got {depth!r}")
        if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float)) or not 0 <= epsilon <= 1:
            raise ValueError(f"minimax epsilon must be a number in [0, 1], got {epsilon!r}")
        super().__init__(seed)
        self.depth = int(depth)
        self.time = time_budget(time, "minimax")
        self.epsilon = float(epsilon)
        self.name = spec_name(
            "minimax",
            {
                "depth": None if given is None and time is not None else self.depth,
                "time": None if time is None else spec_number(self.time),
                "epsilon": spec_number(self.epsilon) if self.epsilon else None,
            },
        )
        size = 1 << min(MAX_TT_BITS, 10 + 2 * self.depth)
        self._tt_key = np.zeros(size, dtype=np.int64)
        self._tt_val = np.zeros(size, dtype=np.int64)
        self._tt_info = np.zeros(size, dtype=np.int64)
        self._ctx = np.zeros(4, dtype=np.int64)
        self._generation = 0
        self.last_nodes = 0
        self.last_seconds = 0.0
        self.last_depth = 0

    @property
    def nodes_per_second(self) -> float:
        return self.last_nodes / self.last_seconds if self.last_seconds > 0 else 0.0

    @staticmethod
    def weights(game: Game) -> np.ndarray:
        """The heuristic weights of ``game``: its GameInfo's, or for a ruleset that is not
        registered the default of its result rule (see the module docstring)."""
        try:
            weights = game_info(game.name).weights
        except ValueError:
            weights = default_heuristic_weights(game.ruleset)
        return np.array(weights, dtype=np.int64)

    def search(self, game: Game, state: State) -> tuple[int, np.ndarray]:
        """The chosen move and, from the deepest completed iteration, the value of each legal move
        for the player to move: exact for the chosen move, an upper bound for the others (alpha-beta
        cuts them off once they cannot be better); illegal moves hold a large negative number."""
        return self._deepen(game, state, every_move=False)

    def move_values(self, game: Game, state: State) -> tuple[np.ndarray, int]:
        """The exact value of every legal move for the player to move (each searched with a full
        window), from the deepest iteration completed within ``depth`` and ``time``, and that depth
        (0 when not even depth 1 finished); illegal moves hold a large negative number. Slower than
        :meth:`search`, which needs only the best move: an analysis tool."""
        _, values = self._deepen(game, state, every_move=True)
        return values, self.last_depth

    def _deepen(self, game: Game, state: State, every_move: bool) -> tuple[int, np.ndarray]:
        """Iterative deepening (class docstring); ``every_move`` searches each root move alone."""
        legal = game.legal_actions(state)
        if not legal:
            raise ValueError("no legal move: the game is over")
        weights = self.weights(game)
        order = self.rng.permutation(np.array(legal, dtype=np.int64))
        ctx = self._ctx
        ctx[:] = 0
        self._generation += 1  # table entries of earlier moves no longer match
        ctx[CTX_GENERATION] = self._generation
        start = _time.perf_counter()
        best, values = int(order[0]), np.full(game.num_actions, -INF, dtype=np.int64)
        self.last_depth = 0
        tables = (self._tt_key, self._tt_val, self._tt_info)
        for d in range(1, self.depth + 1):
            ctx[CTX_MAX_NODES] = NO_LIMIT
            if self.time is not None and d > 1:
                elapsed = _time.perf_counter() - start
                left = self.time - elapsed
                if left <= 0:
                    break
                rate = float(ctx[CTX_NODES]) / max(elapsed, 1e-6)  # a huge budget caps at no limit
                ctx[CTX_MAX_NODES] = ctx[CTX_NODES] + int(min(rate * left, NO_LIMIT // 2))
            if every_move:
                vals = np.full(game.num_actions, -INF, dtype=np.int64)
                for a in order:
                    _, v, _ = alphabeta_root(state.array, d, np.array([a]), game.rules, weights, *tables, ctx)
                    if ctx[CTX_ABORTED]:
                        break
                    vals[a] = v
                move = int(order[np.argmax(vals[order])])
            else:
                root_order = np.concatenate(([best], order[order != best]))
                move, _, vals = alphabeta_root(state.array, d, root_order, game.rules, weights, *tables, ctx)
            if ctx[CTX_ABORTED]:
                break
            best, values, self.last_depth = int(move), vals, d
        self.last_nodes = int(ctx[CTX_NODES])
        self.last_seconds = _time.perf_counter() - start
        return best, values

    def act(self, game: Game, state: State) -> int:
        legal = game.legal_actions(state)
        if self.epsilon and self.rng.random() < self.epsilon:  # epsilon-greedy noise (module docstring)
            self.last_nodes, self.last_seconds, self.last_depth = 0, 0.0, 0
            return legal[int(self.rng.integers(len(legal)))]
        if len(legal) == 1:  # nothing to search
            self.last_nodes, self.last_seconds, self.last_depth = 0, 0.0, 0
            return legal[0]
        return self.search(game, state)[0]
