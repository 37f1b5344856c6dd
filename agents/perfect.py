"""The ``perfect`` agent: exact play inside an endgame tablebase, alpha-beta with exact leaves outside.

``make_agent("perfect[:max_seeds=K][,path=DIR][,depth=D]")``. The table is opened at the first
move of a game: the folder ``path`` (default: the per-user cache folder of that game, see
:func:`mancala_envs.tablebase.default_path`); with ``max_seeds`` it is built there first if it is
missing or smaller (:func:`mancala_envs.tablebase.build`, which may take long for a large K).

**Inside the table** (``tb.covers(state)``) the agent plays an outcome-preserving move
(TABLEBASE.md §3) and **converts** wins. In a won position it plays a move that keeps the mover's
best forced margin ``A`` (``d + A > 0``) and, among those, the one that gets there soonest: a move
that ends the game, else one that captures (the seeds on the board drop), else the in-layer move
whose successor's value became final at the earliest value-iteration round (the table's
``rounds``). Why that ends the game: write ``M = d + A`` for the winner's guaranteed final lead.
His move keeps ``M``; any reply keeps or raises it (a reply that is not optimal for the loser
only hands him more), and ``M`` is bounded by the seeds in play, so it rises finitely often. While
``M`` stays, each of his moves and each optimal reply either lowers the seeds on the board or
lowers the round of the position's value by at least one (the round-``t`` value is forced within
``t`` plies of the layer, and it is built from the round ``t - 1`` values of the successors), so
the game reaches its end. A drawn position is held with any outcome-preserving move (random among
them); in a lost one the agent resists, keeping the opponent's bound ``B`` as high as it goes.

**Outside the table** it searches ``depth`` plies (default 4) of negamax with alpha-beta over
:meth:`~mancala_envs.Game.cursor` positions; a covered node is a leaf with its exact outcome
(±``WIN`` or 0), a finished game is ±(``WIN`` + plies left), and a running node at depth 0 gets
the minimax agent's static value (:func:`mancala_envs.agents.minimax.alphabeta.evaluate`, the weights of
:mod:`mancala_envs.agents.minimax.agent`). Moves are tried in an order shuffled by the agent's generator, so
equal
values are broken at random.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from mancala_envs import tablebase
from mancala_envs.agents.base import Agent, require_running, spec_name
from mancala_envs.agents.minimax.agent import MinimaxAgent
from mancala_envs.agents.minimax.alphabeta import WIN, evaluate
from mancala_envs.game import Game
from mancala_envs.state import State
from mancala_envs.tablebase import probe as tb_probe
from mancala_envs.tablebase import store

INF = float("inf")


class PerfectAgent(Agent):
    """Exact play within a tablebase of at most ``max_seeds`` seeds, ``depth``-ply search outside."""

    def __init__(
        self, max_seeds: int | None = None, path: str | Path | None = None, depth: int = 4, seed: int = 0
    ):
        if max_seeds is not None and (
            isinstance(max_seeds, bool) or not isinstance(max_seeds, int | np.integer) or max_seeds < 0
        ):
            raise ValueError(f"perfect max_seeds must be a non-negative integer, got {max_seeds!r}")
        if isinstance(depth, bool) or not isinstance(depth, int | np.integer) or not 1 <= depth <= 12:
            raise ValueError(f"perfect depth must be an integer in 1..12, got {depth!r}")
        super().__init__(seed)
        self.max_seeds = None if max_seeds is None else int(max_seeds)
        self.path = None if path is None else Path(path)
        self.depth = int(depth)
        self.name = spec_name(
            "perfect",
            {
                "max_seeds": self.max_seeds,
                "path": None if path is None else str(path),
                "depth": self.depth if self.depth != 4 else None,
            },
        )
        self._tables: dict[str, tablebase.Tablebase] = {}
        self.last_source = ""  # "table" or "search": where the last move came from

    # ------------------------------------------------------------------ the table

    def table(self, game: Game) -> tablebase.Tablebase:
        """The table this agent uses for ``game`` (opened, or built, once)."""
        key = store.table_name(game)
        if key not in self._tables:
            path = self.path if self.path is not None else tablebase.default_path(game)
            if self.max_seeds is not None:
                tb = tablebase.build(game, self.max_seeds, path)
            elif (path / store.HEADER).is_file():
                tb = tablebase.load(path, game)
            else:
                raise ValueError(
                    f"perfect: no {key} table at {path}; give max_seeds=K to build one there, or path=DIR"
                )
            self._tables[key] = tb
        return self._tables[key]

    def table_move(self, tb: tablebase.Tablebase, state: State) -> int:
        """The move inside the table (module docstring)."""
        p = tb.probe(state)
        moves = p.moves
        legal = np.flatnonzero(p.move_outcomes != tablebase.NO_MOVE)
        keep = [int(m) for m in legal if p.move_outcomes[m] == p.outcome]
        if p.outcome == 1:
            a = moves[keep, tb_probe.M_CAND_A].max()  # == A: the position's value is its best move's
            keep = [m for m in keep if moves[m, tb_probe.M_CAND_A] == a]
            keys = [self._progress(moves[m]) for m in keep]
        elif p.outcome == -1:
            keys = [-int(moves[m, tb_probe.M_CAND_B]) for m in keep]
        else:
            keys = [0] * len(keep)
        best = min(keys)
        ties = [m for m, k in zip(keep, keys, strict=True) if k == best]
        return int(ties[self.rng.integers(len(ties))])

    @staticmethod
    def _progress(row: np.ndarray) -> int:
        """How far a margin-keeping move leaves the winner from the end (smaller is sooner)."""
        if row[tb_probe.M_ENDS]:
            return -2
        if not row[tb_probe.M_IN_LAYER]:
            return -1
        return int(row[tb_probe.M_ROUND_A])

    # ------------------------------------------------------------------ the search

    def search(self, game: Game, state: State, tb: tablebase.Tablebase) -> tuple[int, dict[int, float]]:
        """The best move by ``depth``-ply alpha-beta with table leaves, and each root move's value
        (exact for the best one, bounds for the others)."""
        weights = MinimaxAgent.weights(game)
        cursor = game.cursor(state)
        me = state.to_move
        order = self.rng.permutation(np.array(game.legal_actions(state), dtype=np.int64))
        best, alpha, values = int(order[0]), -INF, {}
        for a in order:
            cursor.apply(int(a))
            if cursor.to_move == me:
                v = self._negamax(cursor, self.depth - 1, alpha, INF, tb, weights)
            else:
                v = -self._negamax(cursor, self.depth - 1, -INF, -alpha, tb, weights)
            cursor.undo()
            values[int(a)] = v
            if v > alpha:
                best, alpha = int(a), v
        return best, values

    def _negamax(self, cursor, left: int, alpha: float, beta: float, tb, weights) -> float:
        s = cursor.state()
        arr = s.array
        n = s.game.holes_per_row
        if s.is_over:
            if s.done and s.winner in (0, 1):
                return WIN + left if s.winner == s.to_move else -WIN - left
            return 0.0
        exact = tb.outcome_packed(arr)
        if exact != tb_probe.NOT_COVERED:
            return float(exact * WIN)
        if left == 0:
            return float(evaluate(arr, n, s.to_move, weights))
        me = s.to_move
        value = -INF
        for a in cursor.legal_actions():
            cursor.apply(a)
            if cursor.to_move == me:
                v = self._negamax(cursor, left - 1, alpha, beta, tb, weights)
            else:
                v = -self._negamax(cursor, left - 1, -beta, -alpha, tb, weights)
            cursor.undo()
            value = max(value, v)
            alpha = max(alpha, v)
            if alpha >= beta:
                break
        return value

    # ------------------------------------------------------------------ play

    def act(self, game: Game, state: State) -> int:
        legal = np.flatnonzero(require_running(game, state))
        tb = self.table(game)
        if tb.covers(state):
            self.last_source = "table"
            return self.table_move(tb, state)
        self.last_source = "search"
        if len(legal) == 1:
            return int(legal[0])
        return self.search(game, state, tb)[0]
