"""Songo Ewondo's captures and move restrictions: SE3–SE8 (sowing SE1/SE2 is in ``sowing``).

Legality is decided in two steps, shared by the mask builder and the mask-free random player
(see :mod:`mancala_envs.core.engine`): :func:`songo_context` reads the position once (SE8 lone
seed, SE7 feeding threshold, or no special case) and :func:`songo_hole_legal` judges one hole.
"""

from __future__ import annotations

from numba import njit

from mancala_envs.core.layout import row_sum
from mancala_envs.core.sowing import sow_single_lap
from mancala_envs.rulesets import (
    R_CAPTURE_MAX,
    R_CAPTURE_MIN,
    R_DIRECTION,
    R_FEEDING_TARGET,
    R_GRAND_SLAM_FORFEIT,
    R_LEFTMOST_RESTRICTION,
    R_LONE_SEED,
    R_SINGLE_CAPTURE_MULTIPLE,
)

CTX_NORMAL = -1  # SE6 applies to the leftmost hole, every other non-empty hole is legal
CTX_LONE_SEED = -2  # SE8: the lone leftmost seed is the only move
# a context >= 0 is SE7's feeding threshold: a move must leave the opponent that many seeds


@njit(cache=True)
def chain_capture_length(board, n, mover, last, seeds_sown, rules):
    """SE3/SE4: how many holes a sowing that ended in ``last`` captures: ``last`` itself and the
    holes sown before it, ``last - d*k`` for ``k < length`` (``d`` the sowing direction).

    SE3: the last hole is taken if it is an opponent hole holding capture_min..capture_max, then
    each hole sown before it (against the sowing direction) while it qualifies, never leaving
    the opponent's row. SE4: a sowing of k * single_capture_multiple seeds (k >= 2) takes only
    the last hole.
    """
    opp = 1 - mover
    lo = rules[R_CAPTURE_MIN]
    hi = rules[R_CAPTURE_MAX]
    if last // n != opp or board[last] < lo or board[last] > hi:
        return 0
    multiple = rules[R_SINGLE_CAPTURE_MULTIPLE]
    if multiple > 0 and seeds_sown >= 2 * multiple and seeds_sown % multiple == 0:
        return 1
    step = -rules[R_DIRECTION]
    length = 1
    pos = last + step
    while opp * n <= pos < opp * n + n and lo <= board[pos] <= hi:
        length += 1
        pos += step
    return length


@njit(cache=True)
def grand_slam(board, n, mover, taken):
    """SE5: True when capturing ``taken`` seeds would leave the opponent's row empty."""
    return taken > 0 and taken == row_sum(board, n, 1 - mover)


@njit(cache=True)
def is_lone_seed(board, n, mover):
    """SE8: the mover's row holds exactly one seed, in his leftmost hole."""
    return board[mover * n] == 1 and row_sum(board, n, mover) == 1


@njit(cache=True)
def play_songo(board, captured, n, mover, action, rules):
    """SE1–SE5, SE8: resolve one Songo move on ``board``/``captured`` in place.

    Returns the seeds captured (0 when SE5 forfeits the capture)."""
    hole = mover * n + action
    if rules[R_LONE_SEED] and action == 0 and is_lone_seed(board, n, mover):
        board[hole] = 0
        captured[mover] += 1
        return 1
    seeds = board[hole]
    last = sow_single_lap(board, n, mover, hole, rules)
    length = chain_capture_length(board, n, mover, last, seeds, rules)
    step = -rules[R_DIRECTION]
    taken = 0
    for k in range(length):
        taken += board[last + step * k]
    if rules[R_GRAND_SLAM_FORFEIT] and grand_slam(board, n, mover, taken):
        return 0
    for k in range(length):
        board[last + step * k] = 0
    captured[mover] += taken
    return taken


@njit(cache=True)
def songo_outcome(board, n, mover, action, rules, work):
    """Resolve Songo move ``action`` on a copy (in ``work``: board then captured): returns
    (seeds captured, seeds left in the opponent's row)."""
    size = 2 * n
    copy = work[:size]
    copy[:] = board
    captured = work[size : size + 2]
    captured[:] = 0
    gained = play_songo(copy, captured, n, mover, action, rules)
    return gained, row_sum(copy, n, 1 - mover)


@njit(cache=True)
def feeding_threshold(board, n, mover, rules, work):
    """SE7 (the opponent's row is empty): the seeds a legal move must leave him — the feeding
    target if some move reaches it, else the most any move leaves him (0: every non-empty hole)."""
    best = 0
    for a in range(n):
        if board[mover * n + a] > 0:
            best = max(best, songo_outcome(board, n, mover, a, rules, work)[1])
    return min(best, rules[R_FEEDING_TARGET])


@njit(cache=True)
def leftmost_allowed(board, n, mover, rules, work):
    """SE6: the leftmost hole with 1 or 2 seeds may be played only if it is the mover's only
    non-empty hole or if playing it captures at least one seed (after SE5)."""
    seeds = board[mover * n]
    if seeds == 0:
        return False
    if seeds >= 3 or row_sum(board, n, mover) == seeds:
        return True
    return songo_outcome(board, n, mover, 0, rules, work)[0] > 0


@njit(cache=True)
def songo_context(board, n, mover, rules, work):
    """Which of SE6–SE8 governs the mover's choice: CTX_LONE_SEED (SE8, first), SE7's feeding
    threshold (>= 0) when the opponent's row is empty, else CTX_NORMAL (SE6)."""
    if rules[R_LONE_SEED] and is_lone_seed(board, n, mover):
        return CTX_LONE_SEED
    if rules[R_FEEDING_TARGET] > 0 and row_sum(board, n, 1 - mover) == 0:
        return feeding_threshold(board, n, mover, rules, work)
    return CTX_NORMAL


@njit(cache=True)
def songo_hole_legal(board, n, mover, action, ctx, rules, work):
    """SE6–SE8: may ``mover`` play his local hole ``action`` in a position of context ``ctx``?"""
    if board[mover * n + action] == 0:
        return False
    if ctx == CTX_LONE_SEED:
        return action == 0
    if ctx >= 0:  # SE7; SE6 does not apply
        return songo_outcome(board, n, mover, action, rules, work)[1] >= ctx
    if action == 0 and rules[R_LEFTMOST_RESTRICTION]:
        return leftmost_allowed(board, n, mover, rules, work)
    return True
