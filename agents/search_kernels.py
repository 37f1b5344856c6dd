"""Compiled search for the minimax and MCTS agents, over the core's packed states.

Both searches copy packed rows and advance them with :func:`mancala_envs.kernels.apply_move`; no rule
is re-implemented here. Every value is credited by player id: the player to move is read from each
state (``off_to_move``), never assumed to alternate.

Alpha-beta (:func:`alphabeta_root`): negamax over the value for the player to move, a transposition
table keyed by a 64-bit hash of the position, move ordering by the table's best move and then by the
static value of each child. MCTS (:func:`mcts_run`): UCT over a tree held in preallocated arrays,
one expansion and one uniformly random rollout per simulation, rewards 1 / 0.5 / 0 (win, draw, loss)
for the player who made the move into a node.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mancala_envs.kernels import (
    DONE,
    RUNNING,
    apply_move,
    off_captured,
    off_mask,
    off_pending,
    off_status,
    off_to_move,
    off_winner,
    random_legal_action,
    row_sum,
)
from mancala_envs.rulesets import R_HOLES, R_RESULT, R_SEEDS_PER_HOLE, RESULT_BY_CAPTURES

WIN = 1_000_000  # value of a won game (plus the remaining depth, so that quicker wins rank higher)
INF = 1 << 40
MAX_EXTENSION = 16  # plies searched beyond the nominal depth by extensions, at most, along one line
EXACT, LOWER, UPPER = 0, 1, 2
# ctx slots of alphabeta_root
CTX_NODES, CTX_MAX_NODES, CTX_ABORTED, CTX_GENERATION = 0, 1, 2, 3
# weights slots: value = W_CAPTURED * captured difference + W_ROW * row difference
#                        + W_HOLES * difference in non-empty holes;
# W_EXTEND: a node where either row holds this many seeds or fewer is searched one ply deeper
W_CAPTURED, W_ROW, W_HOLES, W_EXTEND = 0, 1, 2, 3


# --------------------------------------------------------------------------- alpha-beta


@njit(cache=True)
def evaluate(state, n, player, weights):
    """Static value of a running position for ``player``: weighted differences (player minus
    opponent) of captured seeds, seeds on the rows and non-empty holes."""
    cap = off_captured(n)
    board = state[: 2 * n]
    captured = state[cap + player] - state[cap + 1 - player]
    rows = row_sum(board, n, player) - row_sum(board, n, 1 - player)
    holes = 0
    if weights[W_HOLES] != 0:
        for i in range(n):
            holes += (board[player * n + i] > 0) - (board[(1 - player) * n + i] > 0)
    return weights[W_CAPTURED] * captured + weights[W_ROW] * rows + weights[W_HOLES] * holes


@njit(cache=True)
def node_value(state, n, depth, weights):
    """Value for the player to move of a finished position (won/lost/drawn, truncated = 0) or,
    for a running one, its static value."""
    player = state[off_to_move(n)]
    status = state[off_status(n)]
    if status == RUNNING:
        return evaluate(state, n, player, weights)
    if status != DONE:
        return 0
    winner = state[off_winner(n)]
    if winner == player:
        return WIN + depth
    if winner < 0:
        return 0
    return -WIN - depth


@njit(cache=True)
def position_hash(state, n):
    """64-bit FNV-1a hash of board, captured, player to move and the opening flags (wrapping int64)."""
    h = np.int64(-3750763034362895579)
    prime = np.int64(1099511628211)
    for i in range(off_to_move(n) + 1):  # board, captured, to move (not ply, status, winner)
        h = (h ^ np.int64(state[i] + 1)) * prime
    for i in range(off_pending(n), off_pending(n) + 2):
        h = (h ^ np.int64(state[i] + 1)) * prime
    return h


@njit(cache=True)
def tt_probe(key, depth, tt_key, tt_info, generation):
    """(best move, usable flag) of the table entry for ``key``: the move is -1 without an entry of
    this search; the flag is -1 unless the entry was searched at least ``depth`` plies deep."""
    slot = key & (tt_key.shape[0] - 1)
    info = tt_info[slot]
    if tt_key[slot] != key or (info >> 16) != generation:
        return -1, -1
    if ((info >> 8) & 255) >= depth:
        return info & 15, (info >> 4) & 15
    return info & 15, -1


@njit(cache=True)
def expand(state, depth, tt_move, rules, weights, kids, scores, order, ctx):
    """Apply every legal move of ``state`` into ``kids`` (row = action), score each child by its
    value for the mover at ``depth - 1`` plies left, and write the actions into ``order``: the
    table move first, then by descending score. Returns the number of moves."""
    n = rules[R_HOLES]
    me = state[off_to_move(n)]
    count = 0
    for a in range(n):
        if state[off_mask(n) + a]:
            kids[a, :] = state
            apply_move(kids[a], a, rules)
            ctx[CTX_NODES] += 1
            v = node_value(kids[a], n, depth - 1, weights)
            if kids[a, off_to_move(n)] != me:
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
    """Alpha-beta value of ``root`` for its player to move, searched ``depth`` plies deep.

    Iterative (numba cannot cache recursive functions): frame ``p`` holds one node, its window and
    its ordered children. A child whose player to move is the node's own keeps the window and its
    value; otherwise the window is negated and swapped and the value negated. A node with a single
    legal move, or where a row holds ``weights[W_EXTEND]`` seeds or fewer, passes its depth on
    undiminished (up to ``MAX_EXTENSION`` extra plies a line). Nodes one ply above the horizon take
    the best of their children's static values without descending. The table
    packs (generation << 16) | (depth << 8) | (flag << 4) | best move. Past ``ctx`` max nodes the
    search stops with ctx aborted set.
    """
    n = rules[R_HOLES]
    length = root.shape[0]
    frames = depth + 1 + MAX_EXTENSION
    stack = np.empty((frames, length), dtype=root.dtype)
    kids = np.empty((frames, n, length), dtype=root.dtype)
    scores = np.empty((frames, n), dtype=np.int64)
    order = np.empty((frames, n), dtype=np.int64)
    count = np.zeros(frames, dtype=np.int64)
    nxt = np.zeros(frames, dtype=np.int64)
    lo = np.empty(frames, dtype=np.int64)
    hi = np.empty(frames, dtype=np.int64)
    lo0 = np.empty(frames, dtype=np.int64)
    best = np.empty(frames, dtype=np.int64)
    best_move = np.empty(frames, dtype=np.int64)
    keys = np.empty(frames, dtype=np.int64)
    plies_left = np.empty(frames, dtype=np.int64)
    plies_left[0] = depth
    gen = ctx[CTX_GENERATION]
    stack[0, :] = root
    lo[0] = alpha
    hi[0] = beta
    p = 0
    entering = True
    ret = 0
    while True:
        if entering:  # a new node at frame p with p plies below the root
            s = stack[p]
            left = plies_left[p]
            entering = False
            if left == 0 or s[off_status(n)] != RUNNING:
                ret = node_value(s, n, left, weights)
            elif ctx[CTX_NODES] >= ctx[CTX_MAX_NODES]:
                ctx[CTX_ABORTED] = 1
                ret = 0
            else:
                key = position_hash(s, n)
                keys[p] = key
                lo0[p] = lo[p]
                tt_move, flag = tt_probe(key, left, tt_key, tt_info, gen)
                cut = False
                if flag >= 0:
                    ret = tt_val[key & (tt_key.shape[0] - 1)]
                    if flag == LOWER and ret > lo[p]:
                        lo[p] = ret
                    elif flag == UPPER and ret < hi[p]:
                        hi[p] = ret
                    cut = flag == EXACT or lo[p] >= hi[p]
                if not cut:
                    count[p] = expand(s, left, tt_move, rules, weights, kids[p], scores[p], order[p], ctx)
                    best[p] = -INF
                    best_move[p] = order[p, 0]
                    nxt[p] = 0
                    # extensions: forced moves and low-material nodes keep their depth, within bounds
                    low = min(row_sum(s, n, 0), row_sum(s, n, 1)) <= weights[W_EXTEND]
                    child_left = left if (count[p] == 1 or low) and p + 1 + left < frames else left - 1
                    if child_left == 0:  # children are leaves: their static values are final
                        for k in range(count[p]):
                            a = order[p, k]
                            if scores[p, a] > best[p]:
                                best[p] = scores[p, a]
                                best_move[p] = a
                        nxt[p] = count[p]
                    if nxt[p] < count[p]:
                        a = order[p, 0]
                        stack[p + 1, :] = kids[p, a]
                        plies_left[p + 1] = child_left
                        if kids[p, a, off_to_move(n)] == s[off_to_move(n)]:
                            lo[p + 1], hi[p + 1] = lo[p], hi[p]
                        else:
                            lo[p + 1], hi[p + 1] = -hi[p], -lo[p]
                        p += 1
                        entering = True
                        continue
                    ret = finish_node(p, left, keys, lo0, hi, best, best_move, tt_key, tt_val, tt_info, gen)
        # ret is the value of the node at frame p: hand it to the parent
        if p == 0 or ctx[CTX_ABORTED]:
            return ret if not ctx[CTX_ABORTED] else 0
        p -= 1
        s = stack[p]
        a = order[p, nxt[p]]
        v = ret if kids[p, a, off_to_move(n)] == s[off_to_move(n)] else -ret
        nxt[p] += 1
        if v > best[p]:
            best[p] = v
            best_move[p] = a
        if v > lo[p]:
            lo[p] = v
        if lo[p] < hi[p] and nxt[p] < count[p]:
            a = order[p, nxt[p]]
            stack[p + 1, :] = kids[p, a]
            plies_left[p + 1] = plies_left[p] - 1
            if kids[p, a, off_to_move(n)] == s[off_to_move(n)]:
                lo[p + 1], hi[p + 1] = lo[p], hi[p]
            else:
                lo[p + 1], hi[p + 1] = -hi[p], -lo[p]
            p += 1
            entering = True
            continue
        ret = finish_node(p, plies_left[p], keys, lo0, hi, best, best_move, tt_key, tt_val, tt_info, gen)


@njit(cache=True)
def finish_node(p, left, keys, lo0, hi, best, best_move, tt_key, tt_val, tt_info, gen):
    """Store frame ``p``'s result in the table (exact, lower or upper bound); returns its value."""
    flag = EXACT
    if best[p] <= lo0[p]:
        flag = UPPER
    elif best[p] >= hi[p]:
        flag = LOWER
    slot = keys[p] & (tt_key.shape[0] - 1)
    tt_key[slot] = keys[p]
    tt_val[slot] = best[p]
    tt_info[slot] = (gen << 16) | (left << 8) | (flag << 4) | best_move[p]
    return best[p]


@njit(cache=True)
def alphabeta_root(root, depth, root_order, rules, weights, tt_key, tt_val, tt_info, ctx):
    """Search every legal move of ``root`` (in ``root_order``) to ``depth`` plies; returns
    (best move, its value for the player to move, values of every move with -INF for illegal).

    Ties keep the first move in ``root_order``; the caller reads ctx[CTX_ABORTED]."""
    n = rules[R_HOLES]
    length = root.shape[0]
    values = np.full(n, -INF, dtype=np.int64)
    me = root[off_to_move(n)]
    child = np.empty(length, dtype=root.dtype)
    best = -INF
    best_move = -1
    alpha = -INF
    for k in range(root_order.shape[0]):
        a = root_order[k]
        child[:] = root
        apply_move(child, a, rules)
        ctx[CTX_NODES] += 1
        if child[off_to_move(n)] == me:
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


# --------------------------------------------------------------------------- MCTS


@njit(cache=True)
def decided_winner(state, rules):
    """In a game won on captures, the player who holds more than half the seeds has won whatever
    follows (captured counts never decrease); -2 when no one does or the game is won otherwise."""
    n = rules[R_HOLES]
    if rules[R_RESULT] != RESULT_BY_CAPTURES:
        return -2
    half = rules[R_SEEDS_PER_HOLE] * n  # total seeds / 2
    cap = off_captured(n)
    for p in range(2):
        if state[cap + p] > half:
            return p
    return -2


@njit(cache=True)
def rollout(state, rules, rng):
    """Play uniformly random moves on ``state`` (in place) until the result is known; returns the
    winner, -1 for a draw or a truncated game. A game won on captures stops as soon as one player
    holds more than half the seeds (:func:`decided_winner`)."""
    n = rules[R_HOLES]
    while state[off_status(n)] == RUNNING:
        decided = decided_winner(state, rules)
        if decided >= 0:
            return decided
        apply_move(state, random_legal_action(state, n, rng), rules)
    return state[off_winner(n)] if state[off_status(n)] == DONE else -1


@njit(cache=True)
def mcts_run(sims, c, rules, rng, states, children, visits, value, mover, n_nodes, path, scratch):
    """Run ``sims`` UCT simulations on the tree whose root is ``states[0]``; returns the node count.

    Node ``i`` holds its position ``states[i]``, its children by action ``children[i]`` (-1 not yet
    expanded), its visit count and the total reward of ``mover[i]``, the player who made the move
    into it. Each simulation descends by UCT (``value/visits + c*sqrt(ln N/visits)``), expands one
    untried legal move chosen at random, plays a uniformly random rollout to the end (truncated
    counts as a draw) and credits 1 / 0.5 / 0 to each node's mover by player id.
    """
    n = rules[R_HOLES]
    capacity = states.shape[0]
    for _ in range(sims):
        node = 0
        path[0] = 0
        depth = 1
        while states[node, off_status(n)] == RUNNING:
            untried = 0
            for a in range(n):
                if states[node, off_mask(n) + a] and children[node, a] < 0:
                    untried += 1
            if untried > 0 and n_nodes < capacity:
                r = rng.integers(0, untried)
                pick = -1
                for a in range(n):
                    if states[node, off_mask(n) + a] and children[node, a] < 0:
                        if r == 0:
                            pick = a
                            break
                        r -= 1
                new = n_nodes
                n_nodes += 1
                states[new, :] = states[node]
                apply_move(states[new], pick, rules)
                children[node, pick] = new
                mover[new] = states[node, off_to_move(n)]
                visits[new] = 0.0
                value[new] = 0.0
                path[depth] = new
                depth += 1
                node = new
                break
            if untried > 0:  # tree full: roll out from here
                break
            log_n = np.log(visits[node])
            best = -1.0
            best_child = -1
            for a in range(n):
                if states[node, off_mask(n) + a]:
                    ch = children[node, a]
                    u = value[ch] / visits[ch] + c * np.sqrt(log_n / visits[ch])
                    if u > best:
                        best = u
                        best_child = ch
            node = best_child
            path[depth] = node
            depth += 1
        scratch[:] = states[node]
        winner = rollout(scratch, rules, rng)
        for i in range(depth):
            nd = path[i]
            visits[nd] += 1.0
            if winner == mover[nd]:
                value[nd] += 1.0
            elif winner < 0:
                value[nd] += 0.5
    return n_nodes
