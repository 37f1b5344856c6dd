"""A layer by retrograde counting, one threshold at a time: the build with ``retrograde=True``.

Value iteration (:mod:`~.sweeps`, :mod:`~.lowmem`) recomputes a layer round after round until
nothing changes; a game whose in-layer cycles keep most of a layer open (Songo Ewondo: 100+
rounds) pays a sweep of moves per round. This build settles each position once per side instead.
By TABLEBASE.md §2, ``A(p) >= t`` holds exactly on the least set ``W_t`` with: ``p`` in ``W_t`` if
a move leaving the layer gives at least ``t`` (its constant ``const_A >= t``) or an in-layer move
leads to ``q`` in ``V_t``; and ``B(q) <= -t`` exactly on the least ``V_t`` with: ``q`` in ``V_t``
if ``const_B <= -t`` and every in-layer move leads into ``W_t`` (the same sets, swapped, where the
same player moves again). Both sets only grow as ``t`` falls, so one pass over the thresholds from
the largest margin down computes them all: a position enters ``W`` at ``t = A(p)`` and ``V`` at
``t = -B(q)``, and never again. Entering, it tells its *predecessors* — the positions with an
in-layer move to it, generated from the rules by unsowing (:func:`predecessors`) and each checked
by playing its move forwards with the engine — which either enter in turn or count down the
moves they still need (the classic retrograde counters, one byte a position). A position that
never enters keeps ``-inf`` / ``+inf``. The values are therefore the same numbers as value
iteration's, byte for byte (``tests/tablebase/test_tablebase_retrograde.py``).

**Rounds.** This build does not run value iteration, so it cannot store the round at which a value
became final. It stores in its place a *rank* with the property the ``perfect`` agent needs to
convert a won position (TABLEBASE.md §3): a position that enters ``W`` through a move to ``q`` has
rank ``1 + rank(q)`` (``1`` through a constant, ``0`` for a position with no move), one that
enters ``V`` has rank ``1 +`` the largest rank of its in-layer children. Keeping his value, the
winner can always move to a lower rank and the loser never reaches a higher one, so the game
leaves the layer; a rank is at least the round value iteration records (the plies of the fastest
such line), often more.

**Unmoves** exist for one-lap sowing (SE1/SE2, ``rules[R_SOWING] == SOW_SINGLE_LAP``): sowing
``s`` seeds from a hole adds a fixed pattern to the rest of the board, so a predecessor is the
position less the pattern with ``s`` seeds back in the origin. Relay sowing (SQ1, ED1) has no
such inverse: those games keep value iteration (a ``ValueError`` says so).

Memory for a layer of ``S`` positions: its constants, counters and flags (4 bytes), the largest
rank seen by each counter and the two ranks (6 bytes), and the queue of positions that entered
(4 bytes an entry, grown as needed, at most ``2S``); the values are written in place in the table.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import njit, prange

from mancala_envs.core.engine import TURN_PASSES, new_work, play
from mancala_envs.core.fast import kernel
from mancala_envs.core.layout import DONE, copy_row, off_status, off_to_move, state_length
from mancala_envs.core.sowing import sow_single_lap
from mancala_envs.rulesets import R_HOLES, R_SOWING, SOW_SINGLE_LAP
from mancala_envs.tablebase.index import board_rank, board_unrank
from mancala_envs.tablebase.kernels import NEG_INF, POS_INF, expand_layer, reset_scratch
from mancala_envs.tablebase.sweeps import start_values

BLOCK = 1 << 16  # queue entries whose predecessors are generated in one call
PARALLEL_BLOCK = 1 << 13  # the least of them worth a parallel call
SEED_BLOCK = 1 << 22  # positions whose seeds join the queue at once (its room: two entries each)
QUEUE_START = 1 << 24  # entries of the queue at first (grown as needed)
SCAN = 1 << 20  # positions per compiled call of the expansion (progress and Ctrl-C points)
IN_W, IN_V, TERMINAL = 1, 2, 4  # flags: entered W, entered V, no legal move
MAX_RANK = np.iinfo(np.uint16).max


def check_unmoves(rules: np.ndarray, name: str) -> None:
    """``ValueError`` unless the game's sowing can be undone (one lap: SE1/SE2)."""
    if int(rules[R_SOWING]) != SOW_SINGLE_LAP:
        raise ValueError(
            f"the retrograde build needs moves it can undo: {name} sows in relays (SQ1/ED1), whose "
            "predecessors the rules do not give; build it with value iteration (the default or "
            "low_memory=True)"
        )


@njit(cache=True)
def sowing_patterns(rules, max_seeds):
    """``pat[h, s]``: the board after sowing ``s`` seeds from hole ``h`` of player 0 on an empty
    board (the origin emptied first), for ``s`` in ``0..max_seeds``; and ``jump[h, s]``: the next
    ``s' > s`` whose pattern is not at least ``pat[h, s]`` outside the origin (a board too small
    for the pattern of ``s`` is too small for every count before ``jump[h, s]``); ``origin[h, s]``:
    the next ``s' > s`` that leaves another count in the origin."""
    n = rules[R_HOLES]
    holes = 2 * n
    pat = np.zeros((n, max_seeds + 1, holes), dtype=np.int32)
    jump = np.empty((n, max_seeds + 1), dtype=np.int32)
    origin = np.empty((n, max_seeds + 1), dtype=np.int32)
    b = np.zeros(holes, dtype=np.int32)
    for h in range(n):
        for s in range(1, max_seeds + 1):
            b[:] = 0
            b[h] = s
            sow_single_lap(b, n, 0, h, rules)
            pat[h, s] = b
        for s in range(max_seeds + 1):
            nxt = s + 1
            while nxt <= max_seeds:
                covers = True
                for j in range(holes):
                    if j != h and pat[h, nxt, j] < pat[h, s, j]:
                        covers = False
                        break
                if not covers:
                    break
                nxt += 1
            jump[h, s] = nxt
            nxt = s + 1
            while nxt <= max_seeds and pat[h, nxt, h] == pat[h, s, h]:
                nxt += 1
            origin[h, s] = nxt
    return pat, jump, origin


@kernel
def predecessors(board, seeds, rules, comp, pat, jump, origin, pred, child, work, out):
    """The in-layer moves into the canonical position ``board`` (player 0 to move) of layer
    ``seeds``: writes ``(rank << 1) | same_mover`` of each (position, move) pair with such a move
    into ``out`` and returns how many. A candidate undoes the sowing of ``s`` seeds from hole ``h``
    of the player who moved — the opponent (``same_mover`` 0) or player 0 himself (1) — and is kept
    only if the engine, playing ``h`` there, makes exactly this position without a capture. (While
    the engine passes the turn after every move, :data:`TURN_PASSES`, the mover's own moves are not
    tried.)"""
    n = rules[R_HOLES]
    holes = 2 * n
    count = 0
    for same in range(1 if TURN_PASSES else 2):
        shift = 0 if same == 1 else n  # the position as the mover saw it: a roll of the board
        for h in range(n):
            s = 1
            while s <= seeds:
                if board[(h + shift) % holes] != pat[h, s, h]:  # the origin ends with what it got back
                    s = origin[h, s]
                    continue
                ok = True
                for j in range(holes):
                    v = board[(j + shift) % holes] - pat[h, s, j]
                    if v < 0:
                        ok = False
                        break
                    pred[j] = v
                if not ok:
                    s = jump[h, s]
                    continue
                pred[h] = s
                s += 1
                copy_row(child, pred)
                if not play(child, h, rules, work, False) or child[off_status(n)] == DONE:
                    continue
                if child[off_to_move(n)] != 1 - same:
                    continue
                for j in range(holes):  # the position, seen from the mover's seat
                    if child[(j + shift) % holes] != board[j]:
                        ok = False
                        break
                if not ok:
                    continue
                out[count] = (board_rank(pred, 0, holes, seeds, comp) << 1) | same
                count += 1
    return count


@njit(cache=True)
def seed_threshold(t, start, stop, const, counter, flags, maxrank, ranks, values, lo, queue, tail):
    """The positions ``start .. stop - 1`` that enter at threshold ``t`` by their constants alone (in
    index order): ``W`` where ``const_A == t``, ``V`` where every in-layer move is already answered
    and ``const_B == -t``. Appends them to ``queue`` from ``tail`` (the caller leaves room for two
    a position); returns the new tail."""
    for i in range(start, stop):
        terminal = flags[i] & TERMINAL != 0
        if flags[i] & IN_W == 0 and const[i, 0] == t:
            enter(i, 0, t, 0 if terminal else 1, flags, values, lo, ranks, queue, tail)
            tail += 1
        if flags[i] & IN_V == 0 and counter[i] == 0 and const[i, 1] == -t:
            enter(i, 1, t, 0 if terminal else np.int64(maxrank[i]) + 1, flags, values, lo, ranks, queue, tail)
            tail += 1
    return tail


@njit(cache=True)
def some_predecessors(entries, lo, hi, seeds, rules, comp, pat, jump, origin, out, counts):
    """:func:`predecessors` of the positions of the queue entries ``entries[lo:hi]`` (row ``e`` of
    ``out`` and ``counts[e]`` for entry ``e``)."""
    n = rules[R_HOLES]
    holes = 2 * n
    board = np.empty(holes, dtype=np.int32)
    pred = np.empty(state_length(n), dtype=np.int32)
    child = np.empty(state_length(n), dtype=np.int32)
    work = new_work(n)
    reset_scratch(pred, n)
    for e in range(lo, hi):
        board_unrank(entries[e] >> 1, holes, seeds, comp, board)
        counts[e] = predecessors(board, seeds, rules, comp, pat, jump, origin, pred, child, work, out[e])


@njit(cache=True, parallel=True)
def block_predecessors(entries, seeds, rules, comp, pat, jump, origin, out, counts):
    """:func:`some_predecessors` of every entry, in parallel (a parallel call costs milliseconds:
    small blocks call :func:`some_predecessors` directly)."""
    m = entries.shape[0]
    chunks = (m + 255) // 256
    for c in prange(chunks):
        hi = min(m, c * 256 + 256)
        some_predecessors(entries, c * 256, hi, seeds, rules, comp, pat, jump, origin, out, counts)


@njit(cache=True)
def enter(p, side, t, rank, flags, values, lo, ranks, queue, tail):
    """Position ``p`` enters ``W`` (side 0: ``A = t``) or ``V`` (side 1: ``B = -t``) with ``rank``;
    appended to ``queue`` at ``tail``."""
    if rank > MAX_RANK:
        raise ValueError("a rank of the retrograde build overflows uint16")
    flags[p] |= IN_W if side == 0 else IN_V
    values[lo + p, side] = t if side == 0 else -t
    ranks[p, side] = rank
    queue[tail] = (p << 1) | side


@njit(cache=True)
def apply_block(t, entries, out, counts, const, counter, flags, maxrank, ranks, values, lo, queue, tail):
    """Tell the predecessors of ``entries`` that they entered, in queue order: a move into ``V``
    of the opponent's (into ``W`` of his own, where he moves again) makes the predecessor enter
    ``W``; a move into ``W`` of the opponent's (``V`` of his own) answers one of its moves, and
    once all are answered (and ``const_B <= -t``) it enters ``V``. Entrants join ``queue`` from
    ``tail`` (the caller leaves room); returns the new tail."""
    for e in range(entries.shape[0]):
        x = entries[e] >> 1
        side = entries[e] & 1
        r = np.int64(ranks[x, side])
        for k in range(counts[e]):
            p = out[e, k] >> 1
            if side != out[e, k] & 1:  # p can move to x and keep A >= t
                if flags[p] & IN_W == 0:
                    enter(p, 0, t, r + 1, flags, values, lo, ranks, queue, tail)
                    tail += 1
                continue
            counter[p] -= 1  # this move of p is answered
            if r > maxrank[p]:
                maxrank[p] = r
            if counter[p] == 0 and flags[p] & IN_V == 0 and const[p, 1] <= -t:
                enter(p, 1, t, np.int64(maxrank[p]) + 1, flags, values, lo, ranks, queue, tail)
                tail += 1
    return tail


def room(queue: np.ndarray, head: int, tail: int, more: int) -> np.ndarray:
    """``queue``, or a larger copy of it, with room for ``more`` entries after ``tail`` (a larger one
    keeps ``queue[head:tail]``, the entries not processed yet, at their places)."""
    if tail + more <= queue.shape[0]:
        return queue
    grown = np.empty(max(queue.shape[0] * 3 // 2, tail + more), dtype=queue.dtype)
    grown[head:tail] = queue[head:tail]
    return grown


@njit(cache=True)
def threshold_range(const):
    """The largest finite constant in absolute value (the thresholds run from it to its negative)."""
    top = 0
    for i in range(const.shape[0]):
        for side in range(2):
            v = const[i, side]
            if v != NEG_INF and v != POS_INF:
                top = max(top, abs(np.int32(v)))
    return top


def solve_layer_retrograde(
    seeds: int,
    rules: np.ndarray,
    comp: np.ndarray,
    offsets: np.ndarray,
    values: np.ndarray,
    on_chunk: Callable[[int], None],
    on_round: Callable[[int, int], None] | None = None,
) -> tuple[np.ndarray, int, int]:
    """Solve layer ``seeds`` of ``values`` in place (the lower layers final); returns its ranks
    (uint16 ``(S, 2)``, in the place of rounds), the largest rank and the positions with no
    move. ``on_chunk(count)`` after each block of the expansion, ``on_round(t, entered)`` after
    each threshold (progress, Ctrl-C points)."""
    n = int(rules[R_HOLES])
    lo, hi = int(offsets[seeds]), int(offsets[seeds + 1])
    size = hi - lo
    const = np.empty((size, 2), dtype=np.int8)
    counter = np.empty(size, dtype=np.uint8)
    flags = np.empty(size, dtype=np.uint8)
    edges = np.empty((min(SCAN, size), n), dtype=np.int32)  # a block's in-layer moves, only counted
    moves = np.empty(min(SCAN, size), dtype=np.int8)
    for s in range(0, size, SCAN):  # the constants, the moves each position needs answered, round 0
        c = min(SCAN, size - s)
        expand_layer(seeds, s, c, rules, comp, offsets, values, edges[:c], const[s : s + c], moves[:c])
        start_values(const[s : s + c], moves[:c], values[lo + s : lo + s + c])
        counter[s : s + c] = np.count_nonzero(edges[:c] >= 0, axis=1)
        flags[s : s + c] = np.where(moves[:c] == 0, TERMINAL, 0)
        on_chunk(c)
    del edges, moves
    terminal = int(np.count_nonzero(flags & TERMINAL))
    maxrank = np.zeros(size, dtype=np.uint16)
    ranks = np.zeros((size, 2), dtype=np.uint16)
    pat, jump, origin = sowing_patterns(rules, seeds)
    width = 2 * n * max(seeds, 1)
    out = np.empty((BLOCK, width), dtype=np.int32)
    counts = np.empty(BLOCK, dtype=np.int32)
    queue = np.empty(min(2 * size, QUEUE_START), dtype=np.int32 if size < 1 << 30 else np.int64)
    top = threshold_range(const)
    for t in range(top, -top - 1, -1):
        entered = 0
        for start in range(0, size, SEED_BLOCK):  # the seeds a block at a time, each block's closure
            stop = min(size, start + SEED_BLOCK)
            queue = room(queue, 0, 0, 2 * (stop - start))
            tail = seed_threshold(t, start, stop, const, counter, flags, maxrank, ranks, values, lo, queue, 0)
            head = 0
            entered += tail
            while head < tail:
                m = min(BLOCK, tail - head)
                if tail + m * width > queue.shape[0]:  # room for every entrant the block can make
                    queue[: tail - head] = queue[head:tail]  # the processed entries' room first
                    head, tail = 0, tail - head
                    queue = room(queue, head, tail, m * width)
                entries = queue[head : head + m]
                if m >= PARALLEL_BLOCK:
                    block_predecessors(entries, seeds, rules, comp, pat, jump, origin, out, counts)
                else:
                    some_predecessors(entries, 0, m, seeds, rules, comp, pat, jump, origin, out, counts)
                new_tail = apply_block(
                    t, entries, out, counts, const, counter, flags, maxrank, ranks, values, lo, queue, tail
                )
                entered += new_tail - tail
                tail = new_tail
                head += m
        if on_round is not None:
            on_round(t, entered)
    return ranks, int(ranks.max(initial=0)), terminal
