"""Bitmaps of a layer's positions, one bit a position in uint64 words (bit ``i & 63`` of word
``i >> 6``): the low-memory build's flags of changed positions (:mod:`~.lowmem`) and the ranks of
its open positions in the small graph."""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from mancala_envs.core.fast import inline_kernel


@inline_kernel
def words_for(size):
    """uint64 words of a bitmap of ``size`` positions."""
    return (size + 63) // 64


@inline_kernel
def set_bit(bits, i):
    bits[i >> 6] |= np.uint64(1) << np.uint64(i & 63)


@inline_kernel
def has_bit(bits, i):
    return ((bits[i >> 6] >> np.uint64(i & 63)) & np.uint64(1)) != 0


@njit(cache=True)
def popcount(x):
    """Set bits of a uint64."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return (x * np.uint64(0x0101010101010101)) >> np.uint64(56)


@inline_kernel
def lowest_bit(word):
    """The index of the lowest set bit of a nonzero uint64."""
    return np.int64(popcount((word & (~word + np.uint64(1))) - np.uint64(1)))


@njit(cache=True, parallel=True)
def open_ranks(cur):
    """The open positions of ``cur`` (``A < B``) as a bitmap and, per word, the open positions
    before it: the row of open position ``q`` in the graph is :func:`open_rank`."""
    size = cur.shape[0]
    words = words_for(size)
    bits = np.zeros(words, dtype=np.uint64)
    for w in prange(words):
        word = np.uint64(0)
        for i in range(w * 64, min(size, w * 64 + 64)):
            if cur[i, 0] != cur[i, 1]:
                word |= np.uint64(1) << np.uint64(i - w * 64)
        bits[w] = word
    before = np.zeros(words, dtype=np.int64)
    for w in range(1, words):
        before[w] = before[w - 1] + popcount(bits[w - 1])
    return bits, before


@njit(cache=True, inline="always")
def open_rank(bits, before, q):
    """The open positions of :func:`open_ranks` before position ``q``."""
    w = q >> 6
    below = (np.uint64(1) << np.uint64(q & 63)) - np.uint64(1)
    return before[w] + popcount(bits[w] & below)
