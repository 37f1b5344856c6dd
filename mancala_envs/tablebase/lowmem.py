"""A layer's values without its edges in memory: the low-memory build (``low_memory=True``).

The default build (:mod:`~.builder`) stores every in-layer move of a layer and its reverse, about
``8n + 12`` bytes a position. This one stores none: each value-iteration round replays the moves of
every position not yet final (unrank → :func:`~mancala_envs.core.engine.play` → rank, the
kernel of :func:`~mancala_envs.tablebase.kernels.expand_one`) and reads its children's values of
the previous round from the table itself. A position is final once ``A == B`` (the iterates only
rise from ``-inf`` and fall from ``+inf``, TABLEBASE.md §2). While the open positions are more than
a memory budget holds, rounds are such sweeps; in the sweep after which they fit, their in-layer
moves are kept, moves to final positions are folded into their constants, and the remaining rounds
run on that small graph in memory (:func:`~.sweeps.iterate`).

Every round computes the same Jacobi iterate as :func:`~.sweeps.solve_layer` (a position whose
children did not change keeps its value when recomputed), so the files are byte-identical to the
default build's (``tests/tablebase/test_tablebase_lowmem.py``). Memory: the layer's values (2 bytes a
position, in the table's file), the next round's values (2), its rounds (4), a bitmap of its open
positions when the graph is made (1/4), the lower layers' values (2 each), and the small graph
within the budget. The cost: one sweep of moves per round
until the open positions fit, so games whose positions converge slowly (Songo Ewondo's in-layer
cycles keep most of a layer open for 100+ rounds) are slow this way.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import njit, prange

from mancala_envs.core.engine import compute_legal_mask, finish_game, new_work
from mancala_envs.core.fast import kernel
from mancala_envs.core.layout import copy_row, off_mask, state_length
from mancala_envs.rulesets import R_HOLES
from mancala_envs.tablebase.index import board_next, board_unrank
from mancala_envs.tablebase.kernels import (
    CHUNK,
    NEG_INF,
    NO_EDGE,
    POS_INF,
    edge_terms,
    expand_one,
    move_gain,
    reset_scratch,
)
from mancala_envs.tablebase.sweeps import commit_one, iterate

BLOCK = 1 << 20  # positions per compiled call (progress and Ctrl-C points)
GRAPH_ROW_BYTES = 28  # bytes of the small graph per open position, besides 8 per hole
MIN_GRAPH_ROWS = 1 << 16  # the small graph may always take this many rows


@njit(cache=True, parallel=True)
def start_layer(seeds, start, count, rules, comp, cur):
    """Round 0 at positions ``start .. start + count - 1`` of layer ``seeds`` (rows of ``cur``): a
    finished position holds its value, every other one ``(-inf, +inf)``. Returns how many are
    finished."""
    n = rules[R_HOLES]
    holes = 2 * n
    length = state_length(n)
    chunks = (count + CHUNK - 1) // CHUNK
    finished = np.zeros(chunks, dtype=np.int64)
    for c in prange(chunks):
        lo = c * CHUNK
        hi = min(count, lo + CHUNK)
        state = np.empty(length, dtype=np.int32)
        child = np.empty(length, dtype=np.int32)
        work = new_work(n)
        reset_scratch(state, n)
        board_unrank(start + lo, holes, seeds, comp, state)
        done_here = 0
        for i in range(lo, hi):
            copy_row(child, state)
            compute_legal_mask(child, rules, work)
            legal = 0
            for a in range(n):
                legal += child[off_mask(n) + a]
            j = start + i
            if legal == 0:
                copy_row(child, state)
                finish_game(child, rules, 1)
                g = move_gain(child, n, rules)
                cur[j, 0] = g
                cur[j, 1] = g
                done_here += 1
            else:
                cur[j, 0] = NEG_INF
                cur[j, 1] = POS_INF
            board_next(state, holes)
        finished[c] = done_here
    return finished.sum()


@kernel
def sweep_one(state, child, seeds, rules, comp, offsets, values, lo, work, fresh, edges, const):
    """One round at the canonical position in ``state``: its moves as
    :func:`~.kernels.expand_one` plays them (in-layer ``edges``, the rest folded into ``const``),
    then its next values into ``fresh`` from the in-layer children's values in ``values`` (at
    ``lo + rank``)."""
    expand_one(state, child, seeds, rules, comp, offsets, values, work, edges, const)
    a = np.int32(const[0])
    b = np.int32(const[1])
    for j in range(edges.shape[0]):
        if edges[j] >= 0:
            ta, tb = edge_terms(edges[j], values, lo)
            a = max(a, ta)
            b = max(b, tb)
    fresh[0] = a
    fresh[1] = b


@njit(cache=True, parallel=True)
def sweep_layer(seeds, start, count, rules, comp, offsets, values, lo, fresh, edges, const, open_next):
    """:func:`sweep_one` at every open position (``A < B`` in ``values``) among ``start .. start +
    count - 1`` of the layer starting at ``lo`` (``fresh`` rows by layer index; ``edges``,
    ``const``, ``open_next`` rows ``0 .. count - 1``). ``open_next[i]`` is 1 where the position stays
    open after this round."""
    n = rules[R_HOLES]
    holes = 2 * n
    length = state_length(n)
    chunks = (count + CHUNK - 1) // CHUNK
    for c in prange(chunks):
        b0 = c * CHUNK
        b1 = min(count, b0 + CHUNK)
        state = np.empty(length, dtype=np.int32)
        child = np.empty(length, dtype=np.int32)
        work = new_work(n)
        reset_scratch(state, n)
        board_unrank(start + b0, holes, seeds, comp, state)
        for i in range(b0, b1):
            j = start + i
            open_next[i] = 0
            if values[lo + j, 0] != values[lo + j, 1]:
                sweep_one(
                    state, child, seeds, rules, comp, offsets, values, lo, work, fresh[j], edges[i], const[i]
                )
                open_next[i] = 1 if fresh[j, 0] != fresh[j, 1] else 0
            board_next(state, holes)


@njit(cache=True, parallel=True)
def commit_layer(round_no, cur, fresh, rounds):
    """Round ``round_no``'s values at the open positions of ``cur`` (recording the round where one
    changed). Returns how many changed and how many stay open."""
    size = cur.shape[0]
    chunks = (size + CHUNK - 1) // CHUNK
    changed = np.zeros(chunks, dtype=np.int64)
    still_open = np.zeros(chunks, dtype=np.int64)
    for c in prange(chunks):
        for i in range(c * CHUNK, min(size, (c + 1) * CHUNK)):
            if cur[i, 0] == cur[i, 1]:
                continue
            if commit_one(i, i, round_no, fresh, cur, rounds):
                changed[c] += 1
            if cur[i, 0] != cur[i, 1]:
                still_open[c] += 1
    return changed.sum(), still_open.sum()


@njit(cache=True)
def popcount(x):
    """Set bits of a uint64."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return (x * np.uint64(0x0101010101010101)) >> np.uint64(56)


@njit(cache=True, parallel=True)
def open_ranks(cur):
    """The open positions of ``cur`` (``A < B``) as a bitmap of uint64 words and, per word, the open
    positions before it: the row of open position ``q`` in the graph is :func:`open_rank`."""
    size = cur.shape[0]
    words = (size + 63) // 64
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
    w = q >> 6
    below = (np.uint64(1) << np.uint64(q & 63)) - np.uint64(1)
    return before[w] + popcount(bits[w] & below)


@njit(cache=True, parallel=True)
def fold_graph(edges, const, cur, bits, before):
    """The open positions (rows in layer order) as a graph of their own: an edge to a final position
    (``A == B`` in ``cur``) is folded into ``const``, every other one renumbered to its row."""
    for i in prange(edges.shape[0]):
        for j in range(edges.shape[1]):
            e = edges[i, j]
            if e < 0:
                continue
            q = e >> 1
            if cur[q, 0] == cur[q, 1]:
                ta, tb = edge_terms(e, cur, 0)
                const[i, 0] = max(np.int32(const[i, 0]), ta)
                const[i, 1] = max(np.int32(const[i, 1]), tb)
                edges[i, j] = NO_EDGE
            else:
                edges[i, j] = (open_rank(bits, before, q) << 1) | (e & 1)


class _Graph:
    """The open positions collected during a sweep, up to ``capacity`` rows."""

    def __init__(self, capacity: int, n: int):
        self.ids = np.empty(capacity, dtype=np.int64)
        self.edges = np.empty((capacity, n), dtype=np.int32)
        self.const = np.empty((capacity, 2), dtype=np.int8)
        self.size = 0
        self.full = False

    def add(self, start: int, open_next: np.ndarray, edges: np.ndarray, const: np.ndarray) -> None:
        if self.full:
            return
        rows = np.flatnonzero(open_next)
        end = self.size + rows.size
        if end > self.ids.shape[0]:
            self.full = True
            return
        self.ids[self.size : end] = start + rows
        self.edges[self.size : end] = edges[rows]
        self.const[self.size : end] = const[rows]
        self.size = end


def solve_layer_low_memory(
    seeds: int,
    rules: np.ndarray,
    comp: np.ndarray,
    offsets: np.ndarray,
    values: np.ndarray,
    graph_bytes: int,
    on_chunk: Callable[[int], None],
    on_round: Callable[[int, int], None] | None = None,
) -> tuple[np.ndarray, int, int]:
    """Solve layer ``seeds`` of ``values`` in place (the lower layers final); returns its rounds
    (uint16 ``(S, 2)``), the number of rounds that changed something and the finished positions.
    ``graph_bytes``: the memory the small graph may take. ``on_chunk(count)`` after each block of
    each sweep, ``on_round(round, changed)`` after each round (progress, Ctrl-C points)."""
    n = int(rules[R_HOLES])
    lo, hi = int(offsets[seeds]), int(offsets[seeds + 1])
    size = hi - lo
    cur = values[lo:hi]
    rounds = np.zeros((size, 2), dtype=np.uint16)
    finished = 0
    for s in range(0, size, BLOCK):
        finished += start_layer(seeds, s, min(BLOCK, size - s), rules, comp, cur)
    fresh = np.empty((size, 2), dtype=np.int8)
    block = min(BLOCK, max(size, 1))
    edges = np.empty((block, n), dtype=np.int32)
    const = np.empty((block, 2), dtype=np.int8)
    open_next = np.empty(block, dtype=np.uint8)
    capacity = max(MIN_GRAPH_ROWS, graph_bytes // (GRAPH_ROW_BYTES + 8 * n))
    still_open = size - finished
    round_no = 0
    while True:
        round_no += 1
        graph = _Graph(min(capacity, still_open), n)
        for s in range(0, size, BLOCK):
            count = min(BLOCK, size - s)
            sweep_layer(seeds, s, count, rules, comp, offsets, values, lo, fresh, edges, const, open_next)
            graph.add(s, open_next[:count], edges[:count], const[:count])
            on_chunk(count if round_no == 1 else 0)  # progress counts a layer once
        changed, still_open = commit_layer(round_no, cur, fresh, rounds)
        if on_round is not None:
            on_round(round_no, changed)
        if changed == 0:
            return rounds, round_no - 1, finished
        if not graph.full:
            break
        del graph
    del fresh
    m = graph.size
    ids, g_edges, g_const = graph.ids[:m], graph.edges[:m], graph.const[:m].copy()
    del graph
    bits, before = open_ranks(cur)
    fold_graph(g_edges, g_const, cur, bits, before)
    del bits, before
    g_cur = cur[ids]
    g_rounds = rounds[ids]
    n_rounds = iterate(g_edges, g_const, g_cur, g_rounds, np.ones(m, dtype=np.uint8), round_no, on_round)
    cur[ids] = g_cur
    rounds[ids] = g_rounds
    return rounds, max(n_rounds, round_no), finished
