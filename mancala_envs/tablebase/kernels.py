"""Compiled parts of a tablebase build and probe: the moves of a layer, the value-iteration sweeps.

Every move is the engine's :func:`~mancala_envs.core.engine.play` on a scratch state of the
canonical position (player 0 to move, no captures, ply 0, ``max_plies`` unbounded); a position
with no legal move is ended by the engine's :func:`~mancala_envs.core.engine.finish_game`. The
gain of a move for its mover is read off the scratch state (TABLEBASE.md §2): the captured
difference it made (captures and the SE9/ED4 end credit) or, for a game won by survival (SQ6),
+1 / 0 / -1 when the move ends the game.

Values are ``int8`` pairs ``(A, B)`` with :data:`NEG_INF` / :data:`POS_INF` for -inf / +inf (a
margin never exceeds the seeds on the board, at most :data:`MAX_MARGIN`); negation maps the two
sentinels onto each other, so ``-x`` is exact. A layer's moves either stay in the layer (no seed
leaves the board, so the gain is 0: an *edge*, stored as ``(local index << 1) | same_mover``) or
leave it, towards final values of lower layers or the end of the game: those are folded at once
into the constants ``const = (max of g - B(q), max of g - A(q))``; :mod:`~.sweeps` then iterates
the §2 equations over the layer's edges.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from mancala_envs.core.engine import finish_game, new_work, outcome, play
from mancala_envs.core.fast import inline_kernel, kernel
from mancala_envs.core.layout import (
    DONE,
    NO_ACTION,
    NO_WINNER,
    copy_row,
    off_captured,
    off_last_action,
    off_status,
    off_to_move,
    off_winner,
    state_length,
)
from mancala_envs.rulesets import R_HOLES, R_RESULT, RESULT_BY_CAPTURES
from mancala_envs.tablebase.index import board_next, board_rank, board_unrank

NEG_INF = -127  # A or B = -inf
POS_INF = 127  # +inf
MAX_MARGIN = 120  # largest table: margins stay within +-MAX_MARGIN, away from the sentinels
CHUNK = 2048  # positions per parallel work item
NO_EDGE = -1
MAX_LAYER = 1 << 30  # boards a layer may hold: an in-layer move is the int32 (rank << 1) | same_mover


@inline_kernel
def minus(g, x):
    """``g - x`` with ``x`` possibly infinite."""
    if x == POS_INF:
        return NEG_INF
    if x == NEG_INF:
        return POS_INF
    return g - x


@inline_kernel
def plus(g, x):
    """``g + x`` with ``x`` possibly infinite."""
    if x in (POS_INF, NEG_INF):
        return x
    return g + x


@inline_kernel
def edge_terms(e, values, base):
    """The terms ``(A, B)`` of the in-layer move coded ``e`` (``(rank << 1) | same_mover``) for its
    mover, from the child's values at row ``base + rank`` of ``values``: the same player moves
    again (his values carry over) or the opponent does (``-B``, ``-A``)."""
    q = base + (e >> 1)
    if e & 1:
        return np.int32(values[q, 0]), np.int32(values[q, 1])
    return -np.int32(values[q, 1]), -np.int32(values[q, 0])


@inline_kernel
def move_gain(child, n, rules):
    """The mover's gain (TABLEBASE.md §2) of the move that made ``child`` from a scratch state
    with player 0 to move and no captures."""
    if rules[R_RESULT] == RESULT_BY_CAPTURES:
        cap = off_captured(n)
        return child[cap] - child[cap + 1]
    if child[off_status(n)] == DONE:
        return outcome(child[off_winner(n)], 0)
    return 0


@kernel
def reset_scratch(state, n):
    """Header fields of a canonical scratch state: no captures, player 0 to move, ply 0, running."""
    cap = off_captured(n)
    for i in range(cap, state.shape[0]):
        state[i] = 0
    state[off_winner(n)] = NO_WINNER
    state[off_last_action(n)] = NO_ACTION


@kernel
def expand_one(state, child, seeds, rules, comp, offsets, values, work, edges, const):
    """The moves of the canonical position in ``state``: writes its in-layer ``edges`` (one slot
    per hole, NO_EDGE where there is none) and ``const``; returns the number of legal moves (0:
    the game is over, ``const`` then holds the final value twice)."""
    n = rules[R_HOLES]
    holes = 2 * n
    best_a = NEG_INF
    best_b = NEG_INF
    moves = 0
    for a in range(n):
        edges[a] = NO_EDGE
        copy_row(child, state)
        if not play(child, a, rules, work, False):
            continue
        moves += 1
        g = move_gain(child, n, rules)
        if child[off_status(n)] == DONE:
            ca = g
            cb = g
        else:
            mover = child[off_to_move(n)]
            k = 0
            for i in range(holes):
                k += child[i]
            r = board_rank(child, mover * n, holes, k, comp)
            if k == seeds:  # no seed left the board: no capture, g == 0
                edges[a] = (r << 1) | (1 if mover == 0 else 0)
                continue
            q = offsets[k] + r
            if mover == 0:  # the same player moves again: his values carry over
                ca = plus(g, values[q, 0])
                cb = plus(g, values[q, 1])
            else:
                ca = minus(g, values[q, 1])
                cb = minus(g, values[q, 0])
        best_a = max(best_a, ca)
        best_b = max(best_b, cb)
    if moves == 0:
        copy_row(child, state)
        finish_game(child, rules, 1)
        best_a = move_gain(child, n, rules)
        best_b = best_a
    const[0] = best_a
    const[1] = best_b
    return moves


@njit(cache=True, parallel=True)
def expand_layer(seeds, start, count, rules, comp, offsets, values, edges, const, moves):
    """:func:`expand_one` for the positions ``start .. start + count - 1`` of layer ``seeds``
    (rows ``0 .. count - 1`` of ``edges``, ``const``, ``moves``)."""
    n = rules[R_HOLES]
    holes = 2 * n
    length = state_length(n)
    chunks = (count + CHUNK - 1) // CHUNK
    for c in prange(chunks):
        lo = c * CHUNK
        hi = min(count, lo + CHUNK)
        state = np.empty(length, dtype=np.int32)
        child = np.empty(length, dtype=np.int32)
        work = new_work(n)
        reset_scratch(state, n)
        board_unrank(start + lo, holes, seeds, comp, state)
        for i in range(lo, hi):
            moves[i] = expand_one(state, child, seeds, rules, comp, offsets, values, work, edges[i], const[i])
            board_next(state, holes)
