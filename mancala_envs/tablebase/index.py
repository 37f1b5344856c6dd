"""Positions as numbers: the stars-and-bars index of a board, and the seat symmetry.

A board of ``h = 2n`` holes holding ``k`` seeds is a composition of ``k`` into ``h`` parts; there
are ``N(k, h) = C(k + h - 1, h - 1)`` of them. Layer ``k`` numbers its boards ``0 .. N(k, h) - 1``
in lexicographic order of ``(b[0], b[1], ..., b[h - 2])`` (the last hole holds the rest): the
boards whose first hole holds fewer than ``v`` of ``r`` seeds are ``N(r, m) - N(r - v, m)``
(``m`` holes left), so the rank is a sum of ``h - 1`` table entries. The global index of a board
puts the layers one after the other: ``offset[k] = C(k - 1 + h, h)`` boards hold fewer than ``k``.

**Seat symmetry.** The rules treat both seats alike (RULES.md §1: the board as player ``p`` sees
it is ``roll(board, -p * n)``, the same geometry for both), so a table stores each position once,
from its mover's seat: the *canonical* board of a position with ``p`` to move is
``c[i] = board[(i + p * n) % 2n]`` with player 0 to move. ``tests/tablebase/test_tablebase.py`` checks the
symmetry through the engine, and every value against a solver that plays both seats.
"""

from __future__ import annotations

from math import comb

import numpy as np
from numba import njit

from mancala_envs.core.fast import inline_kernel, kernel


def compositions_table(max_seeds: int, holes: int) -> np.ndarray:
    """``table[m, r] = N(r, m)``, the number of ways to put ``r`` seeds into ``m`` holes, for
    ``m`` in ``0..holes`` and ``r`` in ``0..max_seeds`` (int64)."""
    table = np.zeros((holes + 1, max_seeds + 1), dtype=np.int64)
    table[0, 0] = 1
    for m in range(1, holes + 1):
        for r in range(max_seeds + 1):
            table[m, r] = comb(r + m - 1, m - 1)
    return table


def layer_offsets(max_seeds: int, holes: int) -> np.ndarray:
    """``offsets[k]``: boards with fewer than ``k`` seeds, for ``k`` in ``0..max_seeds + 1``."""
    return np.array(
        [comb(k - 1 + holes, holes) if k > 0 else 0 for k in range(max_seeds + 2)], dtype=np.int64
    )


def layer_size(seeds: int, holes: int) -> int:
    """Boards of ``holes`` holes holding exactly ``seeds`` seeds."""
    return comb(seeds + holes - 1, holes - 1)


@inline_kernel
def board_rank(b, shift, holes, seeds, comp):
    """Rank in layer ``seeds`` of the board ``c[i] = b[(i + shift) % holes]`` (module docstring)."""
    r = seeds
    idx = 0
    for i in range(holes - 1):
        j = i + shift
        if j >= holes:
            j -= holes
        v = b[j]
        m = holes - i
        idx += comp[m, r] - comp[m, r - v]
        r -= v
    return idx


@kernel
def board_unrank(idx, holes, seeds, comp, out):
    """Write into ``out[:holes]`` the board of rank ``idx`` in layer ``seeds``."""
    r = seeds
    for i in range(holes - 1):
        m = holes - i
        v = 0
        # boards with first part < v + 1 number comp[m, r] - comp[m, r - v - 1]
        while v < r and comp[m, r] - comp[m, r - v - 1] <= idx:
            v += 1
        idx -= comp[m, r] - comp[m, r - v]
        out[i] = v
        r -= v
    out[holes - 1] = r


@inline_kernel
def board_next(b, holes):
    """Step ``b[:holes]`` to the next board of its layer (lexicographic order); False after the last."""
    rest = b[holes - 1]
    for i in range(holes - 2, -1, -1):
        if rest > 0:
            b[i] += 1
            b[holes - 1] = rest - 1
            return True
        rest += b[i]
        b[i] = 0
    b[holes - 1] = rest
    return False


@njit(cache=True)
def ranks_of(boards, shifts, comp):
    """Ranks of a batch of boards (rows), each read from seat offset ``shifts[i]``, in their layers."""
    holes = boards.shape[1]
    out = np.empty(boards.shape[0], dtype=np.int64)
    for i in range(boards.shape[0]):
        seeds = 0
        for j in range(holes):
            seeds += boards[i, j]
        out[i] = board_rank(boards[i], shifts[i], holes, seeds, comp)
    return out
