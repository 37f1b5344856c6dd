"""Sowing: SE1/SE2 (one lap, big holes into the opponent's row) and SQ1/SQ2/SQ5, ED1/ED3 (relays).

Directions: ``d = +1`` is counter-clockwise, ``d = -1`` clockwise (RULES.md §1). Every function
works on an array ``b`` whose first ``2n`` entries are the board (a packed state, or the scratch
``work`` of the engine), by index — the kernels slice nothing in the hot path.
"""

from __future__ import annotations

from mancala_envs.core.fast import inline_kernel, kernel
from mancala_envs.rulesets import R_BIG_HOLE, R_DIRECTION, R_MAX_LAPS

NEVER_ENDS = -1  # landing hole reported for a relay that never ends (SQ5, ED3)
BRENT_START = 16  # relays that end mostly do so within a few laps: look for cycles after this


@inline_kernel
def sow_run(b, size, hole, count, d):
    """Drop one seed into each of the ``count`` (< ``size``) holes after ``hole`` in direction
    ``d``; returns the last hole sown (``hole`` itself when ``count`` is 0). (One step at a time
    with a wrap test: laps are short, and this beats splitting the run at the wrap.)"""
    pos = hole
    if d > 0:
        for _ in range(count):
            pos += 1
            if pos == size:
                pos = 0
            b[pos] += 1
    else:
        for _ in range(count):
            pos -= 1
            if pos < 0:
                pos = size - 1
            b[pos] += 1
    return pos


@inline_kernel
def sow(b, size, hole, seeds, d):
    """Drop ``seeds`` one by one from the hole after ``hole`` in direction ``d``, skipping no hole
    (``size`` seeds or more also feed ``hole`` itself); returns the last hole sown."""
    if seeds >= size:
        rounds, seeds = divmod(seeds, size)
        for i in range(size):
            b[i] += rounds
    return sow_run(b, size, hole, seeds, d)


@kernel
def sow_single_lap(b, n, mover, hole, rules):
    """SE1/SE2: lift ``hole`` and sow one lap; returns the last hole sown (``hole`` if empty).

    SE1: fewer than ``big_hole`` seeds go one by one in the game's direction from the next hole.
    SE2: ``big_hole`` seeds or more skip the origin and all the mover's holes: every seed goes
    into the opponent's row from his first hole in the sowing direction, wrapping round his row.
    """
    seeds = b[hole]
    b[hole] = 0
    d = rules[R_DIRECTION]
    if seeds < rules[R_BIG_HOLE]:
        return sow(b, 2 * n, hole, seeds, d)
    base = (1 - mover) * n
    laps, rest = divmod(seeds, n)
    for i in range(base, base + n):
        b[i] += laps
    first = n - 1 if d < 0 else 0  # the opponent's first hole in the sowing direction
    for k in range(rest):
        b[base + (first + d * k) % n] += 1
    return base + (first + d * (seeds - 1)) % n


@inline_kernel
def sow_lap(b, n, hole, d):
    """SQ2/ED1: lift ``hole`` and sow its seeds from the next hole in direction ``d``, never
    skipping a hole (a lap of 2n or more seeds also feeds its origin). Returns the last hole."""
    seeds = b[hole]
    b[hole] = 0
    return sow(b, 2 * n, hole, seeds, d)


@kernel
def relay_sow(w, n, hole, rules, saved):
    """SQ1, SQ5 / ED1, ED3: relay sowing from ``hole`` on the board ``w[:2n]``; returns the
    landing hole, or NEVER_ENDS.

    Each lap lifts the hole where the previous lap's last seed fell while that hole was occupied;
    the move ends when the last seed falls into an empty hole. A relay still running after
    ``max_relay_laps`` laps never ends (the board is then left mid-relay). A repeated lap-end
    position proves the same verdict early: the first BRENT_START laps run plain (most relays
    end there), then Brent's cycle detection saves the position at powers of two (in
    ``saved[:2n]``) and compares each later lap end with it.
    """
    d = rules[R_DIRECTION]
    size = 2 * n
    laps = rules[R_MAX_LAPS]
    pos = hole
    for _ in range(min(BRENT_START, laps)):
        pos = sow_lap(w, n, pos, d)
        if w[pos] == 1:
            return pos
    saved_hole = -1
    power = BRENT_START
    since_save = power
    for _ in range(laps - BRENT_START):
        if since_save == power:  # Brent: save the position at powers of two
            for i in range(size):
                saved[i] = w[i]
            saved_hole = pos
            power *= 2
            since_save = 0
        pos = sow_lap(w, n, pos, d)
        if w[pos] == 1:
            return pos
        since_save += 1
        if pos == saved_hole:
            same = True
            for i in range(size):
                if w[i] != saved[i]:
                    same = False
                    break
            if same:
                return NEVER_ENDS
    return NEVER_ENDS
