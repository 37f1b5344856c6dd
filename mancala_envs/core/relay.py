"""The relay games' captures and move restrictions: SQ3, SQ4, SQ5 (Sadeqa II), ED2, ED3 (En Dodoi).

As in :mod:`mancala_envs.core.songo`, legality is a context read once per position
(:func:`relay_context`: SQ4's forced opening or not) and a predicate per hole
(:func:`relay_hole_legal`), which simulates the hole's relay into the hole's slot of ``work``
(:func:`relay_slot`); :func:`relay_resolve` then commits that simulation, so a legal move is sown
exactly once. A legal mask built hole by hole therefore leaves every legal move simulated, and a
caller that keeps ``work`` with the position (the vector env) can resolve the chosen move at once.
``b`` is an array whose first ``2n`` entries are the board, captured counts at ``b[cap]``,
``b[cap + 1]``.
"""

from __future__ import annotations

from mancala_envs.core.fast import inline_kernel
from mancala_envs.core.layout import off_cycle_board, opposite, slot_length
from mancala_envs.core.sowing import NEVER_ENDS, relay_sow
from mancala_envs.rulesets import (
    CAPTURE_OPPOSITE_EITHER_SIDE,
    CAPTURE_OPPOSITE_OWN_SIDE,
    R_CAPTURE,
    R_OPENING_HOLE,
)

CTX_NORMAL = -1  # every own non-empty hole whose relay ends (SQ5, ED3)
CTX_OPENING = -2  # SQ4: the opening hole is legal and the only move


@inline_kernel
def relay_capture(b, cap, n, mover, landing, rules):
    """SQ3 / ED2: capture after a relay that ended in ``landing``; returns the seeds taken.

    SQ3 (either side): the opposite hole's seeds, wherever the landing hole is; the landing seed
    stays. ED2 (own side): only when landing in the mover's row; the opposite seeds and the
    landing seed."""
    facing = opposite(landing, n)
    if b[facing] == 0:
        return 0
    style = rules[R_CAPTURE]
    if style == CAPTURE_OPPOSITE_EITHER_SIDE:
        gained = b[facing]
        b[facing] = 0
    elif style == CAPTURE_OPPOSITE_OWN_SIDE and landing // n == mover:
        gained = b[facing] + b[landing]
        b[facing] = 0
        b[landing] = 0
    else:
        return 0
    b[cap + mover] += gained
    return gained


@inline_kernel
def relay_slot(work, n, local):
    """The slot of ``work`` that holds the simulated relay of local hole ``local`` (a view)."""
    width = slot_length(n)
    return work[local * width : (local + 1) * width]


@inline_kernel
def simulate_relay(b, n, hole, rules, work):
    """Sow the relay of ``hole`` on a copy of the board, in the hole's slot ``s`` of ``work``
    (``s[:2n]``); ``s[2n]`` receives the landing hole or NEVER_ENDS, which is also returned
    (SQ5, ED3). The cycle check keeps its board after the slots (``layout.off_cycle_board``)."""
    size = 2 * n
    slot = relay_slot(work, n, hole % n)
    for i in range(size):
        slot[i] = b[i]
    cycle_board = work[off_cycle_board(n) : off_cycle_board(n) + size]
    landing = relay_sow(slot, n, hole, rules, cycle_board)
    slot[size] = landing
    return landing


@inline_kernel
def relay_context(b, n, mover, pending, rules, work):
    """SQ4: CTX_OPENING while the mover's first move is pending and his opening hole is legal
    (non-empty and its relay ends); otherwise the restriction lapses: CTX_NORMAL."""
    opening = rules[R_OPENING_HOLE]
    if opening >= 0 and pending:
        hole = mover * n + opening
        if b[hole] > 0 and simulate_relay(b, n, hole, rules, work) != NEVER_ENDS:
            return CTX_OPENING
    return CTX_NORMAL


@inline_kernel
def relay_hole_legal(b, n, mover, action, ctx, rules, work):
    """SQ4, SQ5 / ED3: may ``mover`` play his local hole ``action`` in context ``ctx``? The hole
    must be non-empty and its relay must end; ``work`` then holds the simulated move."""
    if ctx == CTX_OPENING and action != rules[R_OPENING_HOLE]:
        return False
    hole = mover * n + action
    if b[hole] == 0:
        return False
    return simulate_relay(b, n, hole, rules, work) != NEVER_ENDS


@inline_kernel
def relay_resolve(b, cap, n, mover, action, rules, work):
    """SQ1–SQ3 / ED1–ED2: commit the relay of local hole ``action`` that
    :func:`relay_hole_legal` simulated into its slot of ``work``, then its capture; returns the
    seeds taken."""
    slot = relay_slot(work, n, action)
    for i in range(2 * n):
        b[i] = slot[i]
    return relay_capture(b, cap, n, mover, slot[2 * n], rules)
