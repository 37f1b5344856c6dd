"""Value iteration within one layer: Jacobi steps of the TABLEBASE.md §2 equations, from
``A = -inf, B = +inf`` (finished positions hold their value from round 0) to the fixpoint.

Round ``t`` computes every position from its children's values of round ``t - 1``:
``A_t = max(const_A, max over edges of -B_{t-1}(q))``, ``B_t = max(const_B, max of -A_{t-1}(q))``
(``+A`` / ``+B`` on an edge where the same player moves again). ``A_t`` is the margin the mover
can force within ``t`` plies of the layer (leaving it, by a capture or the end of the game, is
folded into the constants), so the round at which a value last changed — stored per position
as its *round* — counts the plies he needs to keep that value until he leaves the layer.

Only positions with a child that changed in the previous round can change (a position's new value
is a function of its children's), so after round 1 each round recomputes just the predecessors
of the last round's changes (found through the reversed edges): the same iterates as full sweeps,
at a fraction of the work.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from mancala_envs.core.fast import inline_kernel
from mancala_envs.tablebase.kernels import NEG_INF, POS_INF, edge_terms


@njit(cache=True, parallel=True)
def start_values(const, moves, cur):
    """Round 0: a finished position holds its value, every other one (-inf, +inf)."""
    for i in prange(cur.shape[0]):
        if moves[i] == 0:
            cur[i, 0] = const[i, 0]
            cur[i, 1] = const[i, 1]
        else:
            cur[i, 0] = NEG_INF
            cur[i, 1] = POS_INF


@njit(cache=True)
def predecessors(edges, size):
    """The reversed edges in compressed rows, for targets ``0 .. size - 1``: the rows of ``edges``
    with a move to ``q`` are ``preds[starts[q]:starts[q + 1]]`` (a row appears once per such move)."""
    rows, width = edges.shape
    starts = np.zeros(size + 1, dtype=np.int64)
    for i in range(rows):
        for j in range(width):
            e = edges[i, j]
            if e >= 0:
                starts[(e >> 1) + 1] += 1
    for q in range(size):
        starts[q + 1] += starts[q]
    fill = starts[:-1].copy()
    preds = np.empty(starts[size], dtype=np.int32)
    for i in range(rows):
        for j in range(width):
            e = edges[i, j]
            if e >= 0:
                q = e >> 1
                preds[fill[q]] = i
                fill[q] += 1
    return starts, preds


@njit(cache=True, parallel=True)
def recompute(dirty, edges, const, cur, fresh):
    """``fresh[i]`` = the §2 right-hand side from the values ``cur``, at every row ``i`` of ``edges``
    flagged in ``dirty`` (the edges' ranks index ``cur``). Returns how many there are."""
    width = edges.shape[1]
    count = 0
    for i in prange(edges.shape[0]):
        if dirty[i] == 0:
            continue
        count += 1
        a = np.int32(const[i, 0])
        b = np.int32(const[i, 1])
        for j in range(width):
            e = edges[i, j]
            if e < 0:
                continue
            ta, tb = edge_terms(e, cur, 0)
            a = max(a, ta)
            b = max(b, tb)
        fresh[i, 0] = a
        fresh[i, 1] = b
    return count


@inline_kernel
def commit_one(k, q, round_no, fresh, cur, rounds):
    """Row ``k`` of new values ``fresh`` into position ``q`` of ``cur``, recording ``round_no`` in
    ``rounds`` for each side that changed; True if one did."""
    moved = False
    for side in range(2):
        if fresh[k, side] != cur[q, side]:
            cur[q, side] = fresh[k, side]
            rounds[q, side] = round_no
            moved = True
    return moved


@njit(cache=True, parallel=True)
def commit(round_no, dirty, fresh, cur, rounds, starts, preds, next_dirty):
    """Write round ``round_no``'s values at the flagged positions (clearing ``dirty``); a value
    that changed records the round there and flags the positions with a move to it in
    ``next_dirty`` (concurrent flags all write 1). Returns the number of positions that changed."""
    changed = 0
    for i in prange(cur.shape[0]):
        if dirty[i] == 0:
            continue
        dirty[i] = 0
        if commit_one(i, i, round_no, fresh, cur, rounds):
            changed += 1
            for j in range(starts[i], starts[i + 1]):
                next_dirty[preds[j]] = 1
    return changed


def solve_layer(edges, const, moves, on_round=None) -> tuple[np.ndarray, np.ndarray, int]:
    """The fixpoint ``(values, rounds)`` of one layer (int8 ``(S, 2)``, uint16 ``(S, 2)``) and the
    number of rounds that changed something. ``on_round(round, changed)`` is called after each."""
    size = edges.shape[0]
    cur = np.empty((size, 2), dtype=np.int8)
    start_values(const, moves, cur)
    rounds = np.zeros((size, 2), dtype=np.uint16)
    n_rounds = iterate(edges, const, cur, rounds, (moves > 0).astype(np.uint8), 0, on_round)
    return cur, rounds, n_rounds


def iterate(edges, const, cur, rounds, dirty, round_no, on_round=None) -> int:
    """Rounds ``round_no + 1, ...`` from the values ``cur`` of round ``round_no`` to the fixpoint,
    in place (``rounds`` records the round of each change), recomputing first the positions flagged
    in ``dirty``. Returns the last round that changed something."""
    size = edges.shape[0]
    starts, preds = predecessors(edges, size)
    next_dirty = np.zeros(size, dtype=np.uint8)
    fresh = np.empty((size, 2), dtype=np.int8)
    while recompute(dirty, edges, const, cur, fresh):
        round_no += 1
        if round_no > np.iinfo(np.uint16).max:
            raise ValueError(f"value iteration needs more than {round_no - 1} rounds: rounds overflow uint16")
        changed = commit(round_no, dirty, fresh, cur, rounds, starts, preds, next_dirty)
        if on_round is not None:
            on_round(round_no, changed)
        if changed == 0:
            return round_no - 1
        dirty, next_dirty = next_dirty, dirty
    return round_no
