"""A layer's values without its edges in memory: the low-memory build (``low_memory=True``).

The default build (:mod:`~.builder`) keeps every in-layer move of a layer and its reverse in memory,
about ``8n + 12`` bytes a position. This one keeps none there. Its first round plays every move of
the layer (unrank → :func:`~mancala_envs.core.engine.play` → rank, the kernel of
:func:`~mancala_envs.tablebase.kernels.expand_one`), reading the children's values from the table
itself, and writes the positions left open with their in-layer moves to a file
(:mod:`~.open_rows`; the moves that leave the layer are folded into constants, final from then on).
Each later round reads that file once and computes the open positions' next values from their
children's values of the previous round — only at positions with a child that changed in that round
(a bitmap of the layer, 1 bit a position), since no other position can change — and commits only
the positions whose values changed (flagged in a second bitmap, the next round's). Once at most half
the file's rows are still open, the round writes those to the other file, with their moves to
positions that became final folded in too, so the file shrinks as the layer settles; until then the
closed rows are read and skipped. A position is final once ``A == B`` (the iterates only rise from
``-inf`` and fall from ``+inf``, TABLEBASE.md §2). Once the open positions fit a memory budget,
they are read into a small graph and the remaining rounds run on it in memory
(:func:`~.sweeps.iterate`).

Every round computes the same Jacobi iterate as :func:`~.sweeps.solve_layer` (a position whose
children did not change keeps its value when recomputed; folding a final child's term changes no
maximum), so the files are byte-identical to the default build's
(``tests/tablebase/test_tablebase_lowmem.py``). Memory (:func:`layer_bytes`): the layer's values (2
bytes a position, in the table's file), the next round's values (2), its rounds (2, widened to 4
should a layer need more than 255), the bitmaps of the last round's changes and this round's (1/8
each), a bitmap of its open positions when the graph is made (1/4), the lower layers' values (2
each), a block of rows, and the small graph within the budget. Disk: the open rows, about ``7 + 4e``
bytes each (``e`` in-layer moves to open positions), in the table's folder — on a machine whose
page cache holds them, a round reads them from memory.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
from numba import njit, prange

from mancala_envs.core.engine import finish_game, has_legal_move, new_work
from mancala_envs.core.fast import inline_kernel, kernel
from mancala_envs.core.layout import copy_row, state_length
from mancala_envs.rulesets import R_HOLES
from mancala_envs.tablebase.bitmaps import has_bit, lowest_bit, open_rank, open_ranks, set_bit, words_for
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
from mancala_envs.tablebase.open_rows import RowFiles, fold_if_final, pack_open, repack_open
from mancala_envs.tablebase.sweeps import commit_one, iterate

BLOCK = 1 << 20  # positions per compiled call (progress and Ctrl-C points)
GRAPH_ROW_BYTES = 28  # bytes of the small graph per open position, besides 8 per hole
MIN_GRAPH_ROWS = 1 << 16  # the small graph may always take this many rows
BYTE_ROUNDS = 255  # rounds are kept in a byte up to this one, then widened to uint16
REWRITE_SHARE = 0.5  # a round rewrites the open rows' file once at most this share of its rows is open


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
            j = start + i
            if has_legal_move(state, rules, work):
                cur[j, 0] = NEG_INF
                cur[j, 1] = POS_INF
            else:
                copy_row(child, state)
                finish_game(child, rules, 1)
                g = move_gain(child, n, rules)
                cur[j, 0] = g
                cur[j, 1] = g
                done_here += 1
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


@inline_kernel
def any_changed(flat, start, end, changed_bits):
    """Whether a child of edges ``flat[start:end]`` is flagged in ``changed_bits`` (changed in the
    last round)."""
    for k in range(start, end):  # noqa: SIM110 (a loop: numba compiles no generator)
        if has_bit(changed_bits, flat[k] >> 1):
            return True
    return False


@njit(cache=True, parallel=True)
def stream_rows(rows, row_const, degree, flat, values, lo, changed_bits, fresh, open_next, pending_bits):
    """One round at the open positions of a record of :mod:`~.open_rows`: the next values of each
    row with a child that changed in the last round (``changed_bits``) from its constants and its
    children's values in ``values`` (at ``lo + rank``); where they differ, into ``fresh`` (by layer
    index), flagged in ``pending_bits``. Any other row keeps its values. ``open_next[r]`` is 1 where
    row ``r`` stays open; a row already final (a file not rewritten since it closed) is skipped."""
    m = rows.shape[0]
    starts = np.zeros(m + 1, dtype=np.int64)
    for r in range(m):
        starts[r + 1] = starts[r] + degree[r]
    for r in prange(m):
        j = rows[r]
        a0 = np.int32(values[lo + j, 0])
        b0 = np.int32(values[lo + j, 1])
        if a0 == b0:
            open_next[r] = 0
            continue
        if not any_changed(flat, starts[r], starts[r + 1], changed_bits):
            open_next[r] = 1
            continue
        a = np.int32(row_const[r, 0])
        b = np.int32(row_const[r, 1])
        for k in range(starts[r], starts[r + 1]):
            ta, tb = edge_terms(flat[k], values, lo)
            a = max(a, ta)
            b = max(b, tb)
        code = 1 if a != b else 0
        if a != a0 or b != b0:
            fresh[j, 0] = a
            fresh[j, 1] = b
            code |= 2  # changed: flagged below (rows of one word may be on two threads)
        open_next[r] = code
    for r in range(m):
        if open_next[r] & 2:
            set_bit(pending_bits, rows[r])
            open_next[r] &= 1


@njit(cache=True, parallel=True)
def commit_pending(round_no, cur, fresh, rounds, pending_bits, clear_bits):
    """Round ``round_no``'s values at the positions flagged in ``pending_bits`` (recording the
    round), clearing ``clear_bits`` (the bitmap to be filled next round). Returns how many changed
    and how many of them closed."""
    words = pending_bits.shape[0]
    parts = (words + 63) // 64
    changed = np.zeros(parts, dtype=np.int64)
    closed = np.zeros(parts, dtype=np.int64)
    for p in prange(parts):
        for w in range(p * 64, min(words, p * 64 + 64)):
            clear_bits[w] = 0
            word = pending_bits[w]
            while word:
                i = w * 64 + lowest_bit(word)
                word &= word - np.uint64(1)
                commit_one(i, i, round_no, fresh, cur, rounds)
                changed[p] += 1
                if cur[i, 0] == cur[i, 1]:
                    closed[p] += 1
    return changed.sum(), closed.sum()


@njit(cache=True, parallel=True)
def commit_layer(round_no, cur, fresh, rounds, changed_bits):
    """Round ``round_no``'s values at the open positions of ``cur`` (recording the round where one
    changed, and flagging it in the bitmap ``changed_bits``, cleared elsewhere). Returns how many
    changed and how many stay open."""
    size = cur.shape[0]
    chunks = (size + CHUNK - 1) // CHUNK
    changed = np.zeros(chunks, dtype=np.int64)
    still_open = np.zeros(chunks, dtype=np.int64)
    for c in prange(chunks):  # CHUNK is a multiple of 64: a chunk owns its words of the bitmap
        lo = c * CHUNK
        hi = min(size, lo + CHUNK)
        for w in range(lo >> 6, (hi + 63) >> 6):
            changed_bits[w] = 0
        for i in range(lo, hi):
            if cur[i, 0] == cur[i, 1]:
                continue
            if commit_one(i, i, round_no, fresh, cur, rounds):
                changed[c] += 1
                set_bit(changed_bits, i)
            if cur[i, 0] != cur[i, 1]:
                still_open[c] += 1
    return changed.sum(), still_open.sum()


@njit(cache=True, parallel=True)
def fold_graph(edges, const, cur, bits, before):
    """The open positions (rows in layer order) as a graph of their own: an edge to a final position
    (``A == B`` in ``cur``) is folded into ``const``, every other one renumbered to its row."""
    for i in prange(edges.shape[0]):
        for j in range(edges.shape[1]):
            e = edges[i, j]
            if e < 0:
                continue
            a, b, folded = fold_if_final(e, cur, 0, np.int32(const[i, 0]), np.int32(const[i, 1]))
            if folded:
                const[i, 0] = a
                const[i, 1] = b
                edges[i, j] = NO_EDGE
            else:
                edges[i, j] = (open_rank(bits, before, e >> 1) << 1) | (e & 1)


def layer_bytes(size: int, n: int) -> int:
    """The memory a layer of ``size`` positions of ``n`` holes a row takes besides the small graph:
    its own arrays (module docstring) and two blocks of rows (one read, one written)."""
    block = min(BLOCK, size)
    return 6 * size + size // 4 + size // 4 + 2 * block * (8 * n + 10)


def _read_graph(files: RowFiles, m: int, n: int, cur: np.ndarray):
    """The ``m`` rows of the file being read that are open in ``cur`` as a graph: ids, edges (one
    slot a hole), constants."""
    ids = np.empty(m, dtype=np.int64)
    edges = np.full((m, n), NO_EDGE, dtype=np.int32)
    const = np.empty((m, 2), dtype=np.int8)
    at = 0
    for rows, row_const, degree, flat in files.records():
        keep = cur[rows, 0] != cur[rows, 1]
        kept = np.repeat(keep, degree)
        rows, row_const, degree, flat = rows[keep], row_const[keep], degree[keep], flat[kept]
        end = at + rows.shape[0]
        ids[at:end] = rows
        const[at:end] = row_const
        slot = np.arange(flat.shape[0]) - np.repeat(np.cumsum(degree, dtype=np.int64) - degree, degree)
        edges[np.repeat(np.arange(at, end), degree), slot] = flat
        at = end
    return ids, edges, const


def solve_layer_low_memory(
    seeds: int,
    rules: np.ndarray,
    comp: np.ndarray,
    offsets: np.ndarray,
    values: np.ndarray,
    graph_bytes: int,
    scratch: Path,
    on_chunk: Callable[[int], None],
    on_round: Callable[[int, int], None] | None = None,
) -> tuple[np.ndarray, int, int]:
    """Solve layer ``seeds`` of ``values`` in place (the lower layers final); returns its rounds
    (``(S, 2)``, uint8, or uint16 for a layer needing more than 255), the number of rounds that
    changed something and the finished positions. ``graph_bytes``: the memory the small graph may
    take; ``scratch``: the folder of the open rows' files. ``on_chunk(count)`` after each block of
    each round, ``on_round(round, changed)`` after each round (progress, Ctrl-C points)."""
    n = int(rules[R_HOLES])
    lo, hi = int(offsets[seeds]), int(offsets[seeds + 1])
    size = hi - lo
    cur = values[lo:hi]
    rounds = np.zeros((size, 2), dtype=np.uint8)
    finished = 0
    for s in range(0, size, BLOCK):
        finished += start_layer(seeds, s, min(BLOCK, size - s), rules, comp, cur)
    capacity = max(MIN_GRAPH_ROWS, graph_bytes // (GRAPH_ROW_BYTES + 8 * n))
    fresh = np.empty((size, 2), dtype=np.int8)
    changed_bits = np.empty(words_for(size), dtype=np.uint64)
    pending_bits = np.zeros_like(changed_bits)
    with RowFiles(scratch) as files:
        round_no = 1
        in_file = written = _first_round(seeds, rules, comp, offsets, values, fresh, files, on_chunk)
        changed, still_open = commit_layer(round_no, cur, fresh, rounds, changed_bits)
        while True:
            if on_round is not None:
                on_round(round_no, changed)
            if changed == 0:
                return rounds, round_no - 1, finished
            if written is not None:
                files.next_round()
                in_file = written
            if still_open <= capacity:
                break
            round_no += 1
            if round_no > BYTE_ROUNDS and rounds.dtype == np.uint8:
                rounds = rounds.astype(np.uint16)
            rewrite = still_open <= REWRITE_SHARE * in_file
            written = _next_round(values, lo, changed_bits, pending_bits, fresh, files, rewrite, on_chunk)
            changed, closed = commit_pending(round_no, cur, fresh, rounds, pending_bits, changed_bits)
            changed_bits, pending_bits = pending_bits, changed_bits
            still_open -= closed
        del fresh, changed_bits, pending_bits
        ids, g_edges, g_const = _read_graph(files, still_open, n, cur)
    bits, before = open_ranks(cur)
    fold_graph(g_edges, g_const, cur, bits, before)
    del bits, before
    g_cur = cur[ids]
    g_rounds = rounds[ids].astype(np.uint16)
    dirty = np.ones(still_open, dtype=np.uint8)
    n_rounds = iterate(g_edges, g_const, g_cur, g_rounds, dirty, round_no, on_round)
    if n_rounds > BYTE_ROUNDS:
        rounds = rounds.astype(np.uint16)
    cur[ids] = g_cur
    rounds[ids] = g_rounds
    return rounds, max(n_rounds, round_no), finished


def _first_round(seeds, rules, comp, offsets, values, fresh, files: RowFiles, on_chunk) -> int:
    """Round 1: every move of every open position played; the rows left open written. Returns
    how many."""
    n = int(rules[R_HOLES])
    lo = int(offsets[seeds])
    size = fresh.shape[0]
    block = min(BLOCK, max(size, 1))
    edges = np.empty((block, n), dtype=np.int32)
    const = np.empty((block, 2), dtype=np.int8)
    open_next = np.empty(block, dtype=np.uint8)
    rows = np.empty(block, dtype=np.uint32)
    row_const = np.empty((block, 2), dtype=np.int8)
    degree = np.empty(block, dtype=np.uint8)
    flat = np.empty(block * n, dtype=np.int32)
    written = 0
    for s in range(0, size, BLOCK):
        count = min(BLOCK, size - s)
        sweep_layer(seeds, s, count, rules, comp, offsets, values, lo, fresh, edges, const, open_next)
        m, e = pack_open(s, open_next[:count], edges, const, values, lo, rows, row_const, degree, flat)
        files.write(rows[:m], row_const[:m], degree[:m], flat[:e])
        written += m
        on_chunk(count)
    return written


def _next_round(
    values, lo, changed_bits, pending_bits, fresh, files: RowFiles, rewrite: bool, on_chunk
) -> int | None:
    """A later round: the open rows read and their next values computed (:func:`stream_rows`); with
    ``rewrite``, those still open written to the other file (returns how many), else the file is
    read again next round, its rows that closed skipped (returns None)."""
    written = 0
    for rows, row_const, degree, flat in files.records():
        open_next = np.empty(rows.shape[0], dtype=np.uint8)
        stream_rows(rows, row_const, degree, flat, values, lo, changed_bits, fresh, open_next, pending_bits)
        if rewrite:
            m, e = repack_open(rows, row_const, degree, flat, open_next, values, lo)
            files.write(rows[:m], row_const[:m], degree[:m], flat[:e])
            written += m
        on_chunk(0)
    return written if rewrite else None
