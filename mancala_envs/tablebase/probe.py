"""Compiled look-ups in a built table: a position's values, its exact outcome, its moves.

A packed state is read from its mover's seat (:mod:`~mancala_envs.tablebase.index`); its moves
are the engine's :func:`~mancala_envs.core.engine.play` on the canonical scratch state, as in
the build (:mod:`~mancala_envs.tablebase.kernels`), so a probe and the table cannot disagree on a
rule. ``d`` is the mover's captured lead (TABLEBASE.md §1), 0 for a game won by survival.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mancala_envs.core.engine import new_work, play
from mancala_envs.core.fast import inline_kernel, kernel
from mancala_envs.core.layout import (
    DONE,
    RUNNING,
    copy_row,
    off_captured,
    off_pending,
    off_status,
    off_to_move,
    state_length,
)
from mancala_envs.rulesets import R_HOLES, R_RESULT, RESULT_BY_CAPTURES
from mancala_envs.tablebase.index import board_rank
from mancala_envs.tablebase.kernels import minus, move_gain, plus, reset_scratch

NOT_COVERED = -2
# columns of probe_moves' rows, one row per hole
M_LEGAL, M_ENDS, M_GAIN, M_CAND_A, M_CAND_B, M_IN_LAYER, M_ROUND_A, M_ROUND_B = range(8)
MOVE_COLUMNS = 8


@inline_kernel
def seeds_on_board(state, n):
    k = 0
    for i in range(2 * n):
        k += state[i]
    return k


@inline_kernel
def lead(state, rules):
    """``d``: the mover's captured lead (0 in a game won by survival)."""
    if rules[R_RESULT] != RESULT_BY_CAPTURES:
        return 0
    n = rules[R_HOLES]
    cap = off_captured(n)
    p = state[off_to_move(n)]
    return state[cap + p] - state[cap + 1 - p]


@inline_kernel
def covered(state, rules, max_seeds):
    """Running, no pending opening move (SQ4), at most ``max_seeds`` seeds on the board."""
    n = rules[R_HOLES]
    if state[off_status(n)] != RUNNING or state[off_pending(n)] != 0 or state[off_pending(n) + 1] != 0:
        return False
    return seeds_on_board(state, n) <= max_seeds


@inline_kernel
def table_index(state, n, comp, offsets):
    """Global index of the canonical position of ``state`` (read from its mover's seat)."""
    k = seeds_on_board(state, n)
    return offsets[k] + board_rank(state, state[off_to_move(n)] * n, 2 * n, k, comp)


@inline_kernel
def outcome_of(d, a, b):
    """TABLEBASE.md §2: +1 if d + A > 0, -1 if d + B < 0, else 0 (sentinels never pass a test)."""
    if a != -127 and d + a > 0:
        return 1
    if b != 127 and d + b < 0:
        return -1
    return 0


@kernel
def exact_outcome(state, rules, comp, offsets, values, max_seeds):
    """The outcome (+1 / 0 / -1) for the player to move, or NOT_COVERED."""
    if max_seeds < 0 or not covered(state, rules, max_seeds):
        return NOT_COVERED
    q = table_index(state, rules[R_HOLES], comp, offsets)
    return outcome_of(lead(state, rules), values[q, 0], values[q, 1])


@njit(cache=True)
def outcomes_batch(states, rules, comp, offsets, values, max_seeds):
    """:func:`exact_outcome` of every row (int8)."""
    out = np.empty(states.shape[0], dtype=np.int8)
    for i in range(states.shape[0]):
        out[i] = exact_outcome(states[i], rules, comp, offsets, values, max_seeds)
    return out


@njit(cache=True)
def probe_moves(state, rules, comp, offsets, values, rounds, out):
    """Every move of a covered ``state`` (``rules`` with ``max_plies`` unbounded): row ``a`` of
    ``out`` holds M_LEGAL, M_ENDS, the mover's gain, his candidates ``g - B(q)`` and ``g - A(q)``
    for A and B (``+`` for the same mover again; ``g`` when the move ends the game), whether the
    child is in the same layer, and the rounds of the child values behind each candidate.
    Returns the position's ``(A, B, round of A, round of B)``."""
    n = rules[R_HOLES]
    holes = 2 * n
    scratch = np.empty(state_length(n), dtype=np.int32)
    child = np.empty(state_length(n), dtype=np.int32)
    work = new_work(n)
    reset_scratch(scratch, n)
    p = state[off_to_move(n)]
    for i in range(holes):
        scratch[i] = state[(i + p * n) % holes]
    k = seeds_on_board(scratch, n)
    q0 = table_index(scratch, n, comp, offsets)
    for a in range(n):
        for c in range(MOVE_COLUMNS):
            out[a, c] = 0
        copy_row(child, scratch)
        if not play(child, a, rules, work, False):
            continue
        out[a, M_LEGAL] = 1
        g = move_gain(child, n, rules)
        out[a, M_GAIN] = g
        if child[off_status(n)] == DONE:
            out[a, M_ENDS] = 1
            out[a, M_CAND_A] = g
            out[a, M_CAND_B] = g
            continue
        q = table_index(child, n, comp, offsets)
        out[a, M_IN_LAYER] = seeds_on_board(child, n) == k
        if child[off_to_move(n)] == 0:
            out[a, M_CAND_A] = plus(g, values[q, 0])
            out[a, M_CAND_B] = plus(g, values[q, 1])
            out[a, M_ROUND_A] = rounds[q, 0]
            out[a, M_ROUND_B] = rounds[q, 1]
        else:
            out[a, M_CAND_A] = minus(g, values[q, 1])
            out[a, M_CAND_B] = minus(g, values[q, 0])
            out[a, M_ROUND_A] = rounds[q, 1]
            out[a, M_ROUND_B] = rounds[q, 0]
    return values[q0, 0], values[q0, 1], rounds[q0, 0], rounds[q0, 1]
