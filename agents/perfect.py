"""The ``perfect`` agent: exact play inside an endgame tablebase, a proof's strategy from a solved
opening, alpha-beta with exact leaves elsewhere.

``make_agent("perfect[:max_seeds=K][,path=DIR][,depth=D][,proof=PATH|off]")``. The table is opened
at the first move of a game: the folder ``path`` (default: the per-user cache folder of that game,
see :func:`mancala_envs.tablebase.default_path`); with ``max_seeds`` it is built there first if it
is missing or smaller (:func:`mancala_envs.tablebase.build`, which may take long for a large K).

**From a solved opening** (outside the table) the agent follows a proof (TABLEBASE.md §5) read as
a strategy (:mod:`mancala_envs.tablebase.strategy`): where the position is a node of a proof whose
claim serves the player to move, it plays the proof's move, a won proof (``>=1`` / ``<=-1``)
before a held draw (``>=0`` / ``<=0``), and keeps to the proof it followed last. The proofs are
those of the shipped solves of the game's variant (:mod:`mancala_envs.tablebase.shipped`: the
initial position's and each first move's), or those of ``proof`` (a proof file, or a solve's
folder with its ``solution.json``); ``proof=off`` plays without. Each is checked with the agent's
table before it is used, and used only when the table agrees with the one the proof rests on (at
least its ``max_seeds``, the same fingerprint): a shipped proof that does not is left out, with a
warning when it leaves the variant's opening to the search; a named one is a ``ValueError``. So
the proven winner plays the proof's moves until the game ends or the table covers it, and the
table converts from there: a won game is never lost.

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

**Elsewhere** (the losing side of a solved opening, an unsolved one) it searches ``depth`` plies
(default 4) of negamax with alpha-beta over :meth:`~mancala_envs.Game.cursor` positions; a covered
node is a leaf with its exact outcome and margin, ``WIN`` × outcome + ``MARGIN`` × margin (the
margin the winner forces, :meth:`~mancala_envs.tablebase.Tablebase.margin_packed`), a finished
game ±(``WIN`` + plies left) + ``MARGIN`` × its final margin, so that a lost side keeps the margin
smallest and a winning one largest; a running node at depth 0 gets
the minimax agent's static value (:func:`mancala_envs.agents.minimax.alphabeta.evaluate`, the weights of
:mod:`mancala_envs.agents.minimax.agent`). Moves are tried in an order shuffled by the agent's generator, so
equal
values are broken at random.
"""

from __future__ import annotations

import warnings
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
from mancala_envs.tablebase.strategy import Strategy, proofs_at, strategies_for

INF = float("inf")
MARGIN = 16  # a seed of exact margin outweighs the plies left (< 12), which only rank equal margins
NO_PROOF = "off"


class PerfectAgent(Agent):
    """Exact play within a tablebase of at most ``max_seeds`` seeds, ``depth``-ply search outside."""

    def __init__(
        self,
        max_seeds: int | None = None,
        path: str | Path | None = None,
        depth: int = 4,
        seed: int = 0,
        proof: str | Path | None = None,
    ):
        if max_seeds is not None and (
            isinstance(max_seeds, bool) or not isinstance(max_seeds, int | np.integer) or max_seeds < 0
        ):
            raise ValueError(f"perfect max_seeds must be a non-negative integer, got {max_seeds!r}")
        if isinstance(depth, bool) or not isinstance(depth, int | np.integer) or not 1 <= depth <= 12:
            raise ValueError(f"perfect depth must be an integer in 1..12, got {depth!r}")
        if proof is not None and proof != NO_PROOF:
            try:
                proofs_at(proof)
            except (TypeError, ValueError) as e:
                raise ValueError(
                    f"perfect proof must be a proof file, a solve folder or {NO_PROOF!r}, got {proof!r} ({e})"
                ) from None
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
                "proof": None if proof is None else str(proof),
            },
        )
        self.proof = None if proof is None else str(proof)
        self._tables: dict[str, tablebase.Tablebase] = {}
        self._strategies: dict[str, list[Strategy]] = {}
        self._following: Strategy | None = None
        self.proof_notes: dict[str, list[str]] = {}  # per variant: why proofs were left out
        self.last_source = ""  # "table", "proof" or "search": where the last move came from

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

    # ------------------------------------------------------------------ the proofs

    def strategies(self, game: Game, tb: tablebase.Tablebase) -> list[Strategy]:
        """The proofs' strategies this agent follows in ``game`` with ``tb`` (read once)."""
        key = store.table_name(game)
        if key not in self._strategies:
            found: list[Strategy] = []
            notes: list[str] = []
            if self.proof != NO_PROOF:
                found, notes = strategies_for(game, tb, self.proof)
            if notes and not found:
                warnings.warn(
                    f"perfect: no shipped proof of {game.variant} agrees with the table at {tb.path}, so "
                    "the opening is played by search: " + "; ".join(notes),
                    stacklevel=3,
                )
            self._strategies[key], self.proof_notes[key] = found, notes
        return self._strategies[key]

    def proof_move(self, game: Game, tb: tablebase.Tablebase, state: State) -> int | None:
        """A proof's move at ``state`` (module docstring), or None where no proof serves its mover."""
        order = sorted(self.strategies(game, tb), key=lambda s: (not s.wins, s is not self._following))
        for strategy in order:
            move = strategy.move(state)
            if move is not None:
                self._following = strategy
                return move
        return None

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
                result = 1 if s.winner == s.to_move else -1
                lead = int(
                    tb_probe.lead(arr, tb.rules)
                )  # 0 in a game won by survival: its result is its margin
                return float(result * (WIN + left) + MARGIN * (lead or result))
            return 0.0
        exact = tb.margin_packed(arr)
        if exact is not None:
            return float(exact[0] * WIN + MARGIN * exact[1])
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
        move = self.proof_move(game, tb, state)
        if move is not None:
            self.last_source = "proof"
            return move
        self.last_source = "search"
        if len(legal) == 1:
            return int(legal[0])
        return self.search(game, state, tb)[0]
