"""Compiled alpha-beta for :class:`mancala_envs.agents.minimax.agent.MinimaxAgent`, over the core's packed
states.

Children are made with the engine's :func:`~mancala_envs.core.engine.play`; no rule is
re-implemented here. Values are credited by player id: the player to move is read from each
state, never assumed to alternate (a child's value is negated only when its mover differs).

What a search computes (and what ``tests/agents/test_agents.py`` checks against a plain negamax):

- ``value(node, left, forced, low)``: a finished node is worth ±(``WIN`` + ``left``) (a quicker
  win, found with more plies left, ranks higher) or 0 for a draw or truncation; a running node
  with ``left == 0`` its static value (:func:`evaluate`); otherwise the best over its legal moves
  of the child's value (negated when the child's mover differs), every child searched with the
  same arguments: ``(left, forced + 1, low)`` when the node has a single legal move and
  ``forced < MAX_EXTENSION`` (a forced move costs no depth); else ``(left, forced, True)`` when
  ``low`` is False and a row holds ``weights[W_EXTEND]`` seeds or fewer (the line is searched
  one ply deeper, once, when the material runs low: endgames are tactical); else
  ``(left - 1, forced, low)``.
- The root's moves are searched at ``(depth - 1, 0, False)``. The kernels carry ``forced`` and
  ``low`` in one number, ``ext = 2 * forced + low``.

Alpha-beta, move ordering (the table's move, then the children's static values) and the
transposition table change the work, never the value: an entry is reused only for the same
position, the same ``left`` and ``ext``, and only where no line below the node can reach
``max_plies`` (values near truncation depend on the ply count, which the key leaves out).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mancala_envs.core import layout
from mancala_envs.core.engine import new_work, play
from mancala_envs.core.fast import kernel
from mancala_envs.rulesets import R_HOLES, R_MAX_PLIES

WIN = 1_000_000  # value of a won game (plus the plies left, so that quicker wins rank higher)
INF = 1 << 40
MAX_EXTENSION = 16  # forced-move extensions along one line, at most
EXACT, LOWER, UPPER = 0, 1, 2
# ctx slots of alphabeta_root
CTX_NODES, CTX_MAX_NODES, CTX_ABORTED, CTX_GENERATION = 0, 1, 2, 3
# weights slots: value = W_CAPTURED * captured difference + W_ROW * row difference
#                        + W_HOLES * difference in non-empty holes;
# W_EXTEND: a node where either row holds this many seeds or fewer is extended (-1: never)
W_CAPTURED, W_ROW, W_HOLES, W_EXTEND = 0, 1, 2, 3


@kernel
def evaluate(state, n, player, weights):
    """Static value of a running position for ``player``: weighted differences (player minus
    opponent) of captured seeds, seeds on the rows and non-empty holes."""
    cap = layout.off_captured(n)
    board = state[: 2 * n]
    captured = state[cap + player] - state[cap + 1 - player]
    rows = layout.row_sum(board, n, player) - layout.row_sum(board, n, 1 - player)
    holes = 0
    if weights[W_HOLES] != 0:
        for i in range(n):
            holes += (board[player * n + i] > 0) - (board[(1 - player) * n + i] > 0)
    return weights[W_CAPTURED] * captured + weights[W_ROW] * rows + weights[W_HOLES] * holes


@kernel
def node_value(state, n, left, weights):
    """Value for the player to move of a finished position (won/lost/drawn, truncated = 0) or,
    for a running one, its static value."""
    player = state[layout.off_to_move(n)]
    status = state[layout.off_status(n)]
    if status == layout.RUNNING:
        return evaluate(state, n, player, weights)
    if status != layout.DONE:
        return 0
    winner = state[layout.off_winner(n)]
    if winner == player:
        return WIN + left
    if winner < 0:
        return 0
    return -WIN - left


@kernel
def child_extension(state, n, moves, ext, weights):
    """The ``ext`` (``2 * forced + low``) the children of this node are searched with, and whether
    the node is extended (their ``left`` is the node's own); see the module docstring."""
    if moves == 1 and (ext >> 1) < MAX_EXTENSION:
        return ext + 2, True
    if (ext & 1) == 0 and min(layout.row_sum(state, n, 0), layout.row_sum(state, n, 1)) <= weights[W_EXTEND]:
        return ext | 1, True
    return ext, False


@njit(cache=True, inline="always")
def plies_below(left, ext):
    """The longest line below a node: its ``left`` plus the extensions it may still take."""
    return left + (MAX_EXTENSION - (ext >> 1)) + (1 - (ext & 1))


@kernel
def position_hash(state, n):
    """64-bit FNV-1a hash of board, captured, player to move and the opening flags (wrapping int64)."""
    h = np.int64(-3750763034362895579)
    prime = np.int64(1099511628211)
    for i in range(layout.off_to_move(n) + 1):  # board, captured, to move (not ply, status, winner)
        h = (h ^ np.int64(state[i] + 1)) * prime
    for i in range(layout.off_pending(n), layout.off_pending(n) + 2):
        h = (h ^ np.int64(state[i] + 1)) * prime
    return h


@kernel
def tt_probe(key, left, ext, tt_key, tt_info, generation):
    """(best move, usable flag) of the table entry for ``key``: the move is -1 without an entry of
    this search; the flag is -1 unless the entry was searched with the same ``left`` and ``ext``.
    Entries pack (generation << 24) | (ext << 16) | (left << 8) | (flag << 4) | best move."""
    slot = key & (tt_key.shape[0] - 1)
    info = tt_info[slot]
    if tt_key[slot] != key or (info >> 24) != generation:
        return -1, -1
    if ((info >> 8) & 255) == left and ((info >> 16) & 255) == ext:
        return info & 15, (info >> 4) & 15
    return info & 15, -1


@kernel
def tt_store(key, left, ext, value, flag, move, tt_key, tt_val, tt_info, generation):
    slot = key & (tt_key.shape[0] - 1)
    tt_key[slot] = key
    tt_val[slot] = value
    tt_info[slot] = (generation << 24) | (ext << 16) | (left << 8) | (flag << 4) | move


@kernel
def expand(state, left, tt_move, rules, weights, kids, scores, order, work, ctx):
    """Apply every legal move of ``state`` into ``kids`` (row = action), score each child by its
    static value for the mover at ``left - 1`` plies left, and write the actions into ``order``:
    the table move first, then by descending score. Returns the number of moves."""
    n = rules[R_HOLES]
    me = state[layout.off_to_move(n)]
    count = 0
    for a in range(n):
        if state[layout.off_mask(n) + a]:
            layout.copy_row(kids[a], state)
            play(kids[a], a, rules, work, True)
            ctx[CTX_NODES] += 1
            v = node_value(kids[a], n, left - 1, weights)
            if kids[a, layout.off_to_move(n)] != me:
                v = -v
            scores[a] = v
            key = INF if a == tt_move else v
            j = count
            while j > 0 and (INF if order[j - 1] == tt_move else scores[order[j - 1]]) < key:
                order[j] = order[j - 1]
                j -= 1
            order[j] = a
            count += 1
    return count


@njit(cache=True)
def negamax(root, depth, alpha, beta, rules, weights, tt_key, tt_val, tt_info, ctx):
    """Alpha-beta value of ``root`` for its player to move at ``(depth, ext=0)`` (module docstring).

    Iterative (numba cannot cache recursive functions): frame ``p`` holds one node, its window,
    its ordered children and the ``(left, ext)`` its children are searched with. A child whose
    player to move is the node's own keeps the window and its value; otherwise the window is
    negated and swapped and the value negated. Past ``ctx`` max nodes the search stops with ctx
    aborted set.
    """
    n = rules[R_HOLES]
    length = root.shape[0]
    frames = depth + 2 + MAX_EXTENSION
    work = new_work(n)
    stack = np.empty((frames, length), dtype=root.dtype)
    kids = np.empty((frames, n, length), dtype=root.dtype)
    scores = np.empty((frames, n), dtype=np.int64)
    order = np.empty((frames, n), dtype=np.int64)
    # the numbers each frame keeps: one int64 row apiece
    per_frame = np.zeros((12, frames), dtype=np.int64)
    count, nxt, lo, hi, lo0, best, best_move, keys, left_at, ext_at, child_left, child_ext = per_frame
    safe = np.zeros(frames, dtype=np.bool_)
    gen = ctx[CTX_GENERATION]
    max_plies = rules[R_MAX_PLIES]
    stack[0, :] = root
    left_at[0] = depth
    ext_at[0] = 0
    lo[0] = alpha
    hi[0] = beta
    p = 0
    entering = True
    ret = 0
    while True:
        if entering:  # a new node at frame p
            s = stack[p]
            left = left_at[p]
            ext = ext_at[p]
            entering = False
            if left == 0 or s[layout.off_status(n)] != layout.RUNNING:
                ret = node_value(s, n, left, weights)
            elif ctx[CTX_NODES] >= ctx[CTX_MAX_NODES]:
                ctx[CTX_ABORTED] = 1
                ret = 0
            else:
                key = position_hash(s, n)
                keys[p] = key
                lo0[p] = lo[p]
                # no line below can reach max_plies: the value does not depend on the ply count
                safe[p] = s[layout.off_ply(n)] + plies_below(left, ext) < max_plies
                tt_move, cut, ret = table_bound(
                    key, left, ext, safe[p], p, lo, hi, tt_key, tt_val, tt_info, gen
                )
                if not cut:
                    open_children(
                        p, s, left, ext, tt_move, rules, weights, kids, scores, order, per_frame, work, ctx
                    )
                    if nxt[p] < count[p]:
                        p = descend(
                            p, order[p, 0], stack, kids, left_at, ext_at, child_left, child_ext, lo, hi, n
                        )
                        entering = True
                        continue
                    ret = finish_node(
                        p, keys, lo0, hi, best, best_move, safe, left_at, ext_at, tt_key, tt_val, tt_info, gen
                    )
        # ret is the value of the node at frame p: hand it to the parent
        if p == 0 or ctx[CTX_ABORTED]:
            return ret if not ctx[CTX_ABORTED] else 0
        p -= 1
        back_up(p, ret, stack, kids, order, nxt, best, best_move, lo, n)
        if lo[p] < hi[p] and nxt[p] < count[p]:
            p = descend(p, order[p, nxt[p]], stack, kids, left_at, ext_at, child_left, child_ext, lo, hi, n)
            entering = True
            continue
        ret = finish_node(
            p, keys, lo0, hi, best, best_move, safe, left_at, ext_at, tt_key, tt_val, tt_info, gen
        )


@kernel
def table_bound(key, left, ext, safe, p, lo, hi, tt_key, tt_val, tt_info, gen):
    """What the table says of frame ``p``'s node: ``(its move, whether it settles the node, the
    value then)``; an entry of the same search narrows the frame's window ``(lo, hi)``."""
    tt_move, flag = tt_probe(key, left, ext, tt_key, tt_info, gen)
    ret = 0
    cut = False
    if flag >= 0 and safe:
        ret = tt_val[key & (tt_key.shape[0] - 1)]
        if flag == LOWER and ret > lo[p]:
            lo[p] = ret
        elif flag == UPPER and ret < hi[p]:
            hi[p] = ret
        cut = flag == EXACT or lo[p] >= hi[p]
    return tt_move, cut, ret


@kernel
def open_children(p, s, left, ext, tt_move, rules, weights, kids, scores, order, per_frame, work, ctx):
    """Expand frame ``p``'s node ``s``: its children in search order and the ``(left, ext)`` they
    are searched with; children that are leaves are settled at once by their static values (then
    ``nxt = count``: none left to search)."""
    n = rules[R_HOLES]
    count, nxt, _, _, _, best, best_move, _, _, _, child_left, child_ext = per_frame
    count[p] = expand(s, left, tt_move, rules, weights, kids[p], scores[p], order[p], work, ctx)
    best[p] = -INF
    best_move[p] = order[p, 0]
    nxt[p] = 0
    child_ext[p], extend = child_extension(s, n, count[p], ext, weights)
    child_left[p] = left if extend else left - 1
    if child_left[p] == 0:  # children are leaves: their static values are final
        for k in range(count[p]):
            a = order[p, k]
            if scores[p, a] > best[p]:
                best[p] = scores[p, a]
                best_move[p] = a
        nxt[p] = count[p]


@kernel
def back_up(p, ret, stack, kids, order, nxt, best, best_move, lo, n):
    """Credit frame ``p``'s child under search with its value ``ret`` (for the child's mover:
    negated when that is not the node's) and move on to the next child."""
    a = order[p, nxt[p]]
    v = ret if kids[p, a, layout.off_to_move(n)] == stack[p, layout.off_to_move(n)] else -ret
    nxt[p] += 1
    if v > best[p]:
        best[p] = v
        best_move[p] = a
    if v > lo[p]:
        lo[p] = v


@kernel
def descend(p, a, stack, kids, left_at, ext_at, child_left, child_ext, lo, hi, n):
    """Open frame ``p + 1`` on child ``a`` of frame ``p``; returns ``p + 1``."""
    layout.copy_row(stack[p + 1], kids[p, a])
    left_at[p + 1] = child_left[p]
    ext_at[p + 1] = child_ext[p]
    if kids[p, a, layout.off_to_move(n)] == stack[p, layout.off_to_move(n)]:
        lo[p + 1], hi[p + 1] = lo[p], hi[p]
    else:
        lo[p + 1], hi[p + 1] = -hi[p], -lo[p]
    return p + 1


@kernel
def finish_node(p, keys, lo0, hi, best, best_move, safe, left_at, ext_at, tt_key, tt_val, tt_info, gen):
    """Store frame ``p``'s result in the table (exact, lower or upper bound) when it is safe to
    reuse; returns its value."""
    if safe[p]:
        flag = EXACT
        if best[p] <= lo0[p]:
            flag = UPPER
        elif best[p] >= hi[p]:
            flag = LOWER
        tt_store(keys[p], left_at[p], ext_at[p], best[p], flag, best_move[p], tt_key, tt_val, tt_info, gen)
    return best[p]


@njit(cache=True)
def alphabeta_root(root, depth, root_order, rules, weights, tt_key, tt_val, tt_info, ctx):
    """Search every legal move of ``root`` (in ``root_order``) to ``depth`` plies; returns
    (best move, its value for the player to move, values of every move with -INF for illegal).

    Ties keep the first move in ``root_order``; the caller reads ctx[CTX_ABORTED]."""
    n = rules[R_HOLES]
    values = np.full(n, -INF, dtype=np.int64)
    me = root[layout.off_to_move(n)]
    child = np.empty(root.shape[0], dtype=root.dtype)
    work = new_work(n)
    best = -INF
    best_move = -1
    alpha = -INF
    for k in range(root_order.shape[0]):
        a = root_order[k]
        child[:] = root
        play(child, a, rules, work, True)
        ctx[CTX_NODES] += 1
        if child[layout.off_to_move(n)] == me:
            v = negamax(child, depth - 1, alpha, INF, rules, weights, tt_key, tt_val, tt_info, ctx)
        else:
            v = -negamax(child, depth - 1, -INF, -alpha, rules, weights, tt_key, tt_val, tt_info, ctx)
        if ctx[CTX_ABORTED]:
            break
        values[a] = v
        if v > best:
            best = v
            best_move = a
            alpha = v
    return best_move, best, values
