"""A loaded table: :class:`Tablebase` (TABLEBASE.md §4) and :func:`load`."""

from __future__ import annotations

import math
from pathlib import Path
from typing import NamedTuple

import numpy as np

from mancala_envs.game import Game
from mancala_envs.rulesets import MAX_PLIES_LIMIT, R_MAX_PLIES
from mancala_envs.state import State
from mancala_envs.tablebase import probe, store
from mancala_envs.tablebase.index import compositions_table, layer_offsets
from mancala_envs.tablebase.kernels import NEG_INF, POS_INF

NO_MOVE = -2  # move_outcomes() of an illegal hole


def unbounded_rules(game: Game) -> np.ndarray:
    """The game's rules vector with ``max_plies`` unbounded (a value never depends on it)."""
    rules = game.rules.copy()
    rules[R_MAX_PLIES] = MAX_PLIES_LIMIT
    rules.setflags(write=False)
    return rules


def as_bound(x: int) -> float:
    return -math.inf if x == NEG_INF else math.inf if x == POS_INF else float(x)


class Probe(NamedTuple):
    """Everything a table says about one position (values for ``state.to_move``)."""

    outcome: int  # +1 / 0 / -1 with the state's captured lead d
    bounds: tuple[float, float]  # (A, B)
    rounds: tuple[int, int]  # value-iteration rounds at which A and B became final (or ranks)
    lead: int  # d
    move_outcomes: np.ndarray  # int8 (n,): the outcome of each legal move, NO_MOVE elsewhere
    moves: np.ndarray  # int64 (n, 8): probe.probe_moves' rows


class Tablebase:
    """Exact values of every position with at most ``max_seeds`` seeds on the board, both players
    to move (TABLEBASE.md). Build one with :func:`mancala_envs.tablebase.build`, open one with
    :func:`load`. ``game`` is the table's game with the default ``max_plies``; the table serves
    states of that game with any ``max_plies``."""

    def __init__(self, path: Path, header: dict, values: np.ndarray, rounds: np.ndarray, max_seeds: int):
        self.path = path
        self.header = header
        self.game: Game = store.game_of(header, path)
        self.max_seeds = int(max_seeds)
        holes = 2 * self.game.holes_per_row
        self.positions = int(layer_offsets(self.max_seeds, holes)[self.max_seeds + 1])  # canonical
        self.values = values[: self.positions]
        self.rounds = rounds[: self.positions]
        self.comp = compositions_table(max(self.max_seeds, 0), holes)
        self.offsets = layer_offsets(max(self.max_seeds, 0), holes)
        self.rules = unbounded_rules(self.game)

    def __repr__(self) -> str:
        return (
            f"Tablebase({store.table_name(self.game)}, max_seeds={self.max_seeds}, path={str(self.path)!r})"
        )

    def fingerprint(self, max_seeds: int | None = None) -> str:
        """The fingerprint of layers ``0..max_seeds`` (default: all) of the table
        (:func:`~mancala_envs.tablebase.store.fingerprint`): a proof records the one it rests on."""
        return store.fingerprint(self.header, self.max_seeds if max_seeds is None else max_seeds)

    @property
    def covered_positions(self) -> int:
        """Positions the table covers: every canonical one, with either player to move."""
        return 2 * self.positions

    # ------------------------------------------------------------------ checks

    def _check_state(self, state: object) -> State:
        if not isinstance(state, State):
            raise ValueError(f"expected a State, got {type(state).__name__}")
        g = state.game
        if g.name != self.game.name or g.holes_per_row != self.game.holes_per_row:
            raise ValueError(
                f"a {store.table_name(g)} state, but this is a table of {store.table_name(self.game)}"
            )
        return state

    def why_not_covered(self, state: State) -> str | None:
        """Why the table does not cover ``state`` (None when it does)."""
        self._check_state(state)
        if state.is_over:
            return f"the game is over ({'truncated' if state.truncated else 'done'})"
        if state.first_move_pending is not None and any(state.first_move_pending):
            return "an opening move is pending (SQ4); tables never cover one"
        if state.seeds_on_board > self.max_seeds:
            return f"{state.seeds_on_board} seeds on the board, the table holds at most {self.max_seeds}"
        return None

    def covers(self, state: State) -> bool:
        """False for more than ``max_seeds`` seeds on the board, a finished game, or a pending
        opening move (Sadeqa II); ``ValueError`` for a state of another game."""
        return self.why_not_covered(state) is None

    def _covered(self, state: State) -> State:
        why = self.why_not_covered(state)
        if why is not None:
            raise ValueError(f"the table does not cover this state: {why}")
        return state

    # ------------------------------------------------------------------ values

    def _index_values(self, state: State) -> tuple[int, int, int, int]:
        arr = state.array
        q = probe.table_index(arr, self.game.holes_per_row, self.comp, self.offsets)
        a, b = self.values[q]
        ra, rb = self.rounds[q]
        return int(a), int(b), int(ra), int(rb)

    def lead(self, state: State) -> int:
        """``d``, the mover's captured lead (0 in Sadeqa II, won by survival)."""
        return int(probe.lead(self._check_state(state).array, self.rules))

    def outcome(self, state: State) -> int:
        """The outcome (+1 / 0 / -1, as :func:`mancala_envs.outcome`) for ``state.to_move`` under
        optimal play, with ``d`` from ``state.captured``."""
        a, b, _, _ = self._index_values(self._covered(state))
        return int(probe.outcome_of(self.lead(state), a, b))

    def bounds(self, state: State) -> tuple[float, float]:
        """``(A, B)`` as floats, ``-inf`` / ``+inf`` where unbounded."""
        a, b, _, _ = self._index_values(self._covered(state))
        return as_bound(a), as_bound(b)

    def rounds_of(self, state: State) -> tuple[int, int]:
        """The rounds at which ``A`` and ``B`` became final (:mod:`~.sweeps`; for a layer of the
        retrograde build, its ranks: :mod:`~.retrograde`)."""
        _, _, ra, rb = self._index_values(self._covered(state))
        return ra, rb

    def probe(self, state: State) -> Probe:
        """Values, outcome and the outcome of every legal move (TABLEBASE.md §3)."""
        self._covered(state)
        n = self.game.holes_per_row
        moves = np.zeros((n, probe.MOVE_COLUMNS), dtype=np.int64)
        a, b, ra, rb = probe.probe_moves(
            state.array, self.rules, self.comp, self.offsets, self.values, self.rounds, moves
        )
        d = self.lead(state)
        outcomes = np.full(n, NO_MOVE, dtype=np.int8)
        for m in range(n):
            if moves[m, probe.M_LEGAL]:
                outcomes[m] = probe.outcome_of(d, moves[m, probe.M_CAND_A], moves[m, probe.M_CAND_B])
        return Probe(
            int(probe.outcome_of(d, a, b)), (as_bound(a), as_bound(b)), (int(ra), int(rb)), d, outcomes, moves
        )

    def move_outcomes(self, state: State) -> np.ndarray:
        """int8 ``(n,)``: the outcome for the mover of each legal move, ``NO_MOVE`` (-2) elsewhere."""
        return self.probe(state).move_outcomes

    def best_actions(self, state: State) -> np.ndarray:
        """int8 mask ``(n,)`` of the outcome-preserving legal actions (TABLEBASE.md §3)."""
        p = self.probe(state)
        return ((p.move_outcomes == p.outcome) & (p.move_outcomes != NO_MOVE)).astype(np.int8)

    def outcome_packed(self, array: np.ndarray) -> int:
        """The outcome of one packed state (a checked ``State.array``), ``-2`` where the table
        does not cover it: the unchecked fast path of searches."""
        return int(
            probe.exact_outcome(array, self.rules, self.comp, self.offsets, self.values, self.max_seeds)
        )

    def margin_packed(self, array: np.ndarray) -> tuple[int, int] | None:
        """``(outcome, margin)`` of one packed state for its mover, None where the table does not
        cover it: the margin he forces in a win (``d + A``), the one forced on him in a loss
        (``d + B``), 0 in a draw (TABLEBASE.md §2; in Sadeqa II, won by survival, the outcome
        again). The unchecked fast path of searches, as :meth:`outcome_packed`."""
        result = self.outcome_packed(array)
        if result == probe.NOT_COVERED:
            return None
        if result == 0:
            return 0, 0
        q = probe.table_index(array, self.game.holes_per_row, self.comp, self.offsets)
        bound = self.values[q, 0 if result == 1 else 1]
        return result, int(probe.lead(array, self.rules)) + int(bound)

    def outcomes(self, states: np.ndarray) -> np.ndarray:
        """int8 outcome of each packed state of a batch (rows of ``game.state_size``), ``-2`` where
        the table does not cover it."""
        states = self.game.check_states(np.ascontiguousarray(states, dtype=np.int32), full=False)
        return probe.outcomes_batch(states, self.rules, self.comp, self.offsets, self.values, self.max_seeds)

    def layer(self, seeds: int) -> tuple[np.ndarray, np.ndarray]:
        """``(values, rounds)`` of every canonical position with exactly ``seeds`` seeds (views)."""
        if not 0 <= seeds <= self.max_seeds:
            raise ValueError(f"seeds must be in 0..{self.max_seeds}, got {seeds}")
        lo, hi = int(self.offsets[seeds]), int(self.offsets[seeds + 1])
        return self.values[lo:hi], self.rounds[lo:hi]


def load(
    path: str | Path, game: Game | None = None, max_seeds: int | None = None, verify: bool = True
) -> Tablebase:
    """The table in folder ``path``. Checks the header (:func:`~.header.check_header`: every field,
    the files' sizes), the game and its parameters
    (against ``game`` when given) and, with ``verify``, every layer's checksum; ``max_seeds``
    opens only the layers up to it. ``ValueError`` naming the problem otherwise."""
    path = Path(path)
    header = store.read_header(path)  # every field checked, before anything is allocated
    if game is not None:
        store.check_game(header, game, path)
    else:
        store.game_of(header, path)
    complete = int(header["max_seeds"])
    if complete < 0:
        raise ValueError(f"{path} holds no complete layer yet (an interrupted build: run it again)")
    if max_seeds is None:
        max_seeds = complete
    elif isinstance(max_seeds, bool) or not isinstance(max_seeds, int | np.integer) or max_seeds < 0:
        raise ValueError(f"max_seeds must be a non-negative integer, got {max_seeds!r}")
    elif max_seeds > complete:
        raise ValueError(f"{path} holds layers up to {complete} seeds, not {max_seeds}")
    positions = int(layer_offsets(complete, int(header["holes"]))[complete + 1])
    values, rounds = store.open_arrays(path, positions, writable=False, version=header["version"])
    if verify:
        store.verify_layers(path, header, values, rounds)
    return Tablebase(path, header, values, rounds, max_seeds)


__all__ = ["NO_MOVE", "Probe", "Tablebase", "load"]
