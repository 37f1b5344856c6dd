"""Songo Ewondo's captures and move restrictions: SE3–SE8 (sowing SE1/SE2 is in ``sowing``).

Legality is decided in two steps, shared by the mask builder and the mask-free random player
(see :mod:`mancala_envs.core.engine`): :func:`songo_context` reads the position once (SE8 lone
seed, SE7 feeding threshold, or no special case) and :func:`songo_hole_legal` judges one hole.
As in :mod:`~mancala_envs.core.sowing`, ``b`` is an array whose first ``2n`` entries are the
board; captured counts live at ``b[cap]``, ``b[cap + 1]``.
"""

from __future__ import annotations

from mancala_envs.core.fast import inline_kernel, kernel
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


@kernel
def chain_capture_length(b, n, mover, last, seeds_sown, rules):
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
    if last // n != opp or b[last] < lo or b[last] > hi:
        return 0
    multiple = rules[R_SINGLE_CAPTURE_MULTIPLE]
    if multiple > 0 and seeds_sown >= 2 * multiple and seeds_sown % multiple == 0:
        return 1
    step = -rules[R_DIRECTION]
    length = 1
    pos = last + step
    while opp * n <= pos < opp * n + n and lo <= b[pos] <= hi:
        length += 1
        pos += step
    return length


@inline_kernel
def grand_slam(b, n, mover, taken):
    """SE5: True when capturing ``taken`` seeds would leave the opponent's row empty."""
    return taken > 0 and taken == row_sum(b, n, 1 - mover)


@inline_kernel
def is_lone_seed(b, n, mover):
    """SE8: the mover's row holds exactly one seed, in his leftmost hole."""
    return b[mover * n] == 1 and row_sum(b, n, mover) == 1


@kernel
def play_songo(b, cap, n, mover, action, rules):
    """SE1–SE5, SE8: resolve one Songo move on ``b`` in place (captured counts at ``b[cap]``).

    Returns the seeds captured (0 when SE5 forfeits the capture)."""
    hole = mover * n + action
    if rules[R_LONE_SEED] and action == 0 and is_lone_seed(b, n, mover):
        b[hole] = 0
        b[cap + mover] += 1
        return 1
    seeds = b[hole]
    last = sow_single_lap(b, n, mover, hole, rules)
    length = chain_capture_length(b, n, mover, last, seeds, rules)
    step = -rules[R_DIRECTION]
    taken = 0
    for k in range(length):
        taken += b[last + step * k]
    if rules[R_GRAND_SLAM_FORFEIT] and grand_slam(b, n, mover, taken):
        return 0
    for k in range(length):
        b[last + step * k] = 0
    b[cap + mover] += taken
    return taken


@kernel
def songo_outcome(b, n, mover, action, rules, work):
    """Resolve Songo move ``action`` on a copy (``work``: board, then captured at ``2n``):
    returns (seeds captured, seeds left in the opponent's row)."""
    size = 2 * n
    for i in range(size):
        work[i] = b[i]
    work[size] = 0
    work[size + 1] = 0
    gained = play_songo(work, size, n, mover, action, rules)
    return gained, row_sum(work, n, 1 - mover)


@kernel
def feeding_threshold(b, n, mover, rules, work):
    """SE7 (the opponent's row is empty): the seeds a legal move must leave him — the feeding
    target if some move reaches it, else the most any move leaves him (0: every non-empty hole)."""
    best = 0
    for a in range(n):
        if b[mover * n + a] > 0:
            best = max(best, songo_outcome(b, n, mover, a, rules, work)[1])
    return min(best, rules[R_FEEDING_TARGET])


@kernel
def leftmost_allowed(b, n, mover, rules, work):
    """SE6: the leftmost hole with 1 or 2 seeds may be played only if it is the mover's only
    non-empty hole or if playing it captures at least one seed (after SE5)."""
    seeds = b[mover * n]
    if seeds == 0:
        return False
    if seeds >= 3 or row_sum(b, n, mover) == seeds:
        return True
    return songo_outcome(b, n, mover, 0, rules, work)[0] > 0


@inline_kernel
def songo_context(b, n, mover, rules, work):
    """Which of SE6–SE8 governs the mover's choice: CTX_LONE_SEED (SE8, first), SE7's feeding
    threshold (>= 0) when the opponent's row is empty, else CTX_NORMAL (SE6)."""
    if rules[R_LONE_SEED] and is_lone_seed(b, n, mover):
        return CTX_LONE_SEED
    if rules[R_FEEDING_TARGET] > 0 and row_sum(b, n, 1 - mover) == 0:
        return feeding_threshold(b, n, mover, rules, work)
    return CTX_NORMAL


@inline_kernel
def songo_hole_legal(b, n, mover, action, ctx, rules, work):
    """SE6–SE8: may ``mover`` play his local hole ``action`` in a position of context ``ctx``?"""
    if b[mover * n + action] == 0:
        return False
    if ctx == CTX_LONE_SEED:
        return action == 0
    if ctx >= 0:  # SE7; SE6 does not apply
        return songo_outcome(b, n, mover, action, rules, work)[1] >= ctx
    if action == 0 and rules[R_LEFTMOST_RESTRICTION]:
        return leftmost_allowed(b, n, mover, rules, work)
    return True
