"""Sowing: SE1/SE2 (one lap, big holes into the opponent's row) and SQ1/SQ2/SQ5, ED1/ED3 (relays).

Directions: ``d = +1`` is counter-clockwise, ``d = -1`` clockwise (RULES.md §1).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mancala_envs.rulesets import R_BIG_HOLE, R_DIRECTION, R_MAX_LAPS

NEVER_ENDS = -1  # landing hole reported for a relay that never ends (SQ5, ED3)
BRENT_START = 16  # relays that end mostly do so within a few laps: look for cycles after this


@njit(cache=True, inline="always")
def sow_run(board, size, hole, count, d):
    """Drop one seed into each of the ``count`` (< ``size``) holes after ``hole`` in direction
    ``d``; returns the last hole sown (``hole`` itself when ``count`` is 0)."""
    if d > 0:
        last = hole + count
        if last < size:
            for i in range(hole + 1, last + 1):
                board[i] += 1
            return last
        for i in range(hole + 1, size):
            board[i] += 1
        last -= size
        for i in range(last + 1):
            board[i] += 1
        return last
    last = hole - count
    if last >= 0:
        for i in range(last, hole):
            board[i] += 1
        return last
    for i in range(hole):
        board[i] += 1
    last += size
    for i in range(last, size):
        board[i] += 1
    return last


@njit(cache=True, inline="always")
def sow(board, size, hole, seeds, d):
    """Drop ``seeds`` one by one from the hole after ``hole`` in direction ``d``, skipping no hole
    (``size`` seeds or more also feed ``hole`` itself); returns the last hole sown."""
    if seeds >= size:
        rounds, seeds = divmod(seeds, size)
        for i in range(size):
            board[i] += rounds
    return sow_run(board, size, hole, seeds, d)


@njit(cache=True)
def sow_single_lap(board, n, mover, hole, rules):
    """SE1/SE2: lift ``hole`` and sow one lap; returns the last hole sown (``hole`` if empty).

    SE1: fewer than ``big_hole`` seeds go one by one in the game's direction from the next hole.
    SE2: ``big_hole`` seeds or more skip the origin and all the mover's holes: every seed goes
    into the opponent's row from his first hole in the sowing direction, wrapping round his row.
    """
    seeds = board[hole]
    board[hole] = 0
    d = rules[R_DIRECTION]
    if seeds < rules[R_BIG_HOLE]:
        return sow(board, 2 * n, hole, seeds, d)
    base = (1 - mover) * n
    laps, rest = divmod(seeds, n)
    for i in range(base, base + n):
        board[i] += laps
    first = n - 1 if d < 0 else 0  # the opponent's first hole in the sowing direction
    for k in range(rest):
        board[base + (first + d * k) % n] += 1
    return base + (first + d * (seeds - 1)) % n


@njit(cache=True, inline="always")
def sow_lap(board, n, hole, d):
    """SQ2/ED1: lift ``hole`` and sow its seeds from the next hole in direction ``d``, never
    skipping a hole (a lap of 2n or more seeds also feeds its origin). Returns the last hole."""
    seeds = board[hole]
    board[hole] = 0
    return sow(board, 2 * n, hole, seeds, d)


@njit(cache=True)
def relay_sow(board, n, hole, rules, saved):
    """SQ1, SQ5 / ED1, ED3: relay sowing from ``hole``; returns the landing hole, or NEVER_ENDS.

    Each lap lifts the hole where the previous lap's last seed fell while that hole was occupied;
    the move ends when the last seed falls into an empty hole. A relay still running after
    ``max_relay_laps`` laps never ends (``board`` is then left mid-relay). A repeated lap-end
    position proves the same verdict early (Brent's cycle detection, from lap BRENT_START on;
    ``saved`` is scratch of 2n).
    """
    d = rules[R_DIRECTION]
    saved_hole = -1
    power = BRENT_START
    since_save = 0
    pos = hole
    for _ in range(rules[R_MAX_LAPS]):
        pos = sow_lap(board, n, pos, d)
        if board[pos] == 1:
            return pos
        if since_save == power:  # Brent: save the position at powers of two
            saved[:] = board
            saved_hole = pos
            power *= 2
            since_save = 0
        elif pos == saved_hole and np.array_equal(board, saved):
            return NEVER_ENDS
        since_save += 1
    return NEVER_ENDS
