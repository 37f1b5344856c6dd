"""The relay games' captures and move restrictions: SQ3, SQ4, SQ5 (Sadeqa II), ED2, ED3 (En Dodoi).

As in :mod:`mancala_envs.core.songo`, legality is a context read once per position
(:func:`relay_context`: SQ4's forced opening or not) and a predicate per hole
(:func:`relay_hole_legal`), which simulates the hole's relay into ``work``; :func:`relay_resolve`
then commits that simulation, so a legal move is sown exactly once.
"""

from __future__ import annotations

from numba import njit

from mancala_envs.core.layout import opposite
from mancala_envs.core.sowing import NEVER_ENDS, relay_sow
from mancala_envs.rulesets import (
    CAPTURE_OPPOSITE_EITHER_SIDE,
    CAPTURE_OPPOSITE_OWN_SIDE,
    R_CAPTURE,
    R_OPENING_HOLE,
)

CTX_NORMAL = -1  # every own non-empty hole whose relay ends (SQ5, ED3)
CTX_OPENING = -2  # SQ4: the opening hole is legal and the only move


@njit(cache=True)
def relay_capture(board, captured, n, mover, landing, rules):
    """SQ3 / ED2: capture after a relay that ended in ``landing``; returns the seeds taken.

    SQ3 (either side): the opposite hole's seeds, wherever the landing hole is; the landing seed
    stays. ED2 (own side): only when landing in the mover's row; the opposite seeds and the
    landing seed."""
    facing = opposite(landing, n)
    if board[facing] == 0:
        return 0
    style = rules[R_CAPTURE]
    if style == CAPTURE_OPPOSITE_EITHER_SIDE:
        gained = board[facing]
        board[facing] = 0
    elif style == CAPTURE_OPPOSITE_OWN_SIDE and landing // n == mover:
        gained = board[facing] + board[landing]
        board[facing] = 0
        board[landing] = 0
    else:
        return 0
    captured[mover] += gained
    return gained


@njit(cache=True)
def simulate_relay(board, n, hole, rules, work):
    """Sow the relay of ``hole`` on a copy of ``board`` (``work[:2n]``); ``work[2n]`` receives
    the landing hole or NEVER_ENDS, which is also returned (SQ5, ED3)."""
    size = 2 * n
    copy = work[:size]
    copy[:] = board
    landing = relay_sow(copy, n, hole, rules, work[size + 2 : 2 * size + 2])
    work[size] = landing
    return landing


@njit(cache=True)
def relay_context(board, n, mover, pending, rules, work):
    """SQ4: CTX_OPENING while the mover's first move is pending and his opening hole is legal
    (non-empty and its relay ends); otherwise the restriction lapses: CTX_NORMAL."""
    opening = rules[R_OPENING_HOLE]
    if opening >= 0 and pending:
        hole = mover * n + opening
        if board[hole] > 0 and simulate_relay(board, n, hole, rules, work) != NEVER_ENDS:
            return CTX_OPENING
    return CTX_NORMAL


@njit(cache=True)
def relay_hole_legal(board, n, mover, action, ctx, rules, work):
    """SQ4, SQ5 / ED3: may ``mover`` play his local hole ``action`` in context ``ctx``? The hole
    must be non-empty and its relay must end; ``work`` then holds the simulated move."""
    if ctx == CTX_OPENING and action != rules[R_OPENING_HOLE]:
        return False
    hole = mover * n + action
    if board[hole] == 0:
        return False
    return simulate_relay(board, n, hole, rules, work) != NEVER_ENDS


@njit(cache=True)
def relay_resolve(board, captured, n, mover, rules, work):
    """SQ1–SQ3 / ED1–ED2: commit the relay that :func:`relay_hole_legal` simulated into
    ``work``, then its capture; returns the seeds taken."""
    size = 2 * n
    board[:] = work[:size]
    return relay_capture(board, captured, n, mover, work[size], rules)
