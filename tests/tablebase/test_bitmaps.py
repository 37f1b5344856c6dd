"""The layer bitmaps (:mod:`mancala_envs.tablebase.bitmaps`) against Python's own sets and counts."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from mancala_envs.tablebase.bitmaps import (
    has_bit,
    lowest_bit,
    open_rank,
    open_ranks,
    popcount,
    set_bit,
    words_for,
)


@njit
def fill(bits, size, flagged):
    for i in flagged:
        set_bit(bits, i)
    seen = np.zeros(size, dtype=np.bool_)
    for i in range(size):
        seen[i] = has_bit(bits, i)
    return seen


@njit
def bits_in_order(bits):
    out = []
    for w in range(bits.shape[0]):
        word = bits[w]
        while word:
            out.append(w * 64 + lowest_bit(word))
            word &= word - np.uint64(1)
    return out


@settings(max_examples=60, deadline=None)
@given(size=st.integers(1, 700), data=st.data())
def test_a_bitmap_holds_exactly_the_positions_set_and_yields_them_in_order(size, data):
    flagged = data.draw(st.sets(st.integers(0, size - 1)))
    bits = np.zeros(words_for(size), dtype=np.uint64)
    seen = fill(bits, size, np.array(sorted(flagged), dtype=np.int64))
    assert bits.shape == ((size + 63) // 64,)
    assert set(np.flatnonzero(seen).tolist()) == flagged
    assert list(bits_in_order(bits)) == sorted(flagged)
    assert [int(popcount(w)) for w in bits] == [bin(int(w)).count("1") for w in bits]


@settings(max_examples=60, deadline=None)
@given(size=st.integers(1, 700), seed=st.integers(0, 2**32 - 1))
def test_an_open_positions_rank_counts_the_open_positions_before_it(size, seed):
    rng = np.random.default_rng(seed)
    cur = rng.integers(-2, 3, size=(size, 2)).astype(np.int8)
    is_open = cur[:, 0] != cur[:, 1]
    bits, before = open_ranks(cur)
    ranks = [int(open_rank(bits, before, q)) for q in range(size)]
    assert ranks == np.concatenate([[0], np.cumsum(is_open)[:-1]]).tolist()
