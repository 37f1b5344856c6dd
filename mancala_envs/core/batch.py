"""Batches of packed states (one row per game) and the player's view of a position.

The view (:func:`view_into`) is the board rolled to the player's seat (RULES.md §1: his own row
first), then his and his opponent's captured seeds, then (games with SQ4) both opening flags.
``Game.observation`` scales the seed counts by ``1 / total_seeds``; ``Game.counts`` keeps them raw.

The lookahead (:func:`lookahead_into`, ``Game.lookahead_batch``) is the mover's raw-count view
followed by one block per action: what that move leads to, as the engine plays it, and with two
plies one block per action and reply (layout in :func:`lookahead_into`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mancala_envs.core.engine import new_work, outcome, play
from mancala_envs.core.fast import kernel, random_below
from mancala_envs.core.layout import (
    RUNNING,
    copy_row,
    off_captured,
    off_mask,
    off_pending,
    off_status,
    off_to_move,
    off_winner,
)
from mancala_envs.rulesets import R_HOLES, R_OPENING_HOLE


@njit(cache=True)
def step_batch(states, actions, rules):
    """:func:`~mancala_envs.core.engine.play` ``actions[i]`` on ``states[i]`` for every row, in
    place; returns the first row whose action is illegal (rows before it are applied, it and
    later rows are not), or -1."""
    n = rules[R_HOLES]
    work = new_work(n)
    for i in range(states.shape[0]):
        if not play(states[i], actions[i], rules, work, True):
            return i
    return -1


@kernel
def random_legal_action(state, n, rng):
    """A uniformly random action of the state's legal mask (-1 when it is empty)."""
    mask = state[off_mask(n) : off_mask(n) + n]
    k = mask.sum()
    if k == 0:
        return -1
    r = random_below(rng, k)
    for a in range(n):
        if mask[a]:
            if r == 0:
                return a
            r -= 1
    return -1


@njit(cache=True)
def random_actions(states, rules, rng):
    """One uniformly random legal action per row (-1 for finished rows)."""
    n = rules[R_HOLES]
    out = np.empty(states.shape[0], dtype=np.int64)
    for i in range(states.shape[0]):
        out[i] = random_legal_action(states[i], n, rng)
    return out


@kernel
def view_size(rules):
    """Entries of a view: both rows, both captured counts (+ both opening flags with SQ4)."""
    return 2 * rules[R_HOLES] + 2 + (2 if rules[R_OPENING_HOLE] >= 0 else 0)


@kernel
def view_into(state, player, rules, scale, out):
    """``player``'s view of ``state`` into ``out``: seed counts times ``scale`` (module docstring)."""
    n = rules[R_HOLES]
    size = 2 * n
    start = player * n
    for i in range(size):
        j = i + start
        out[i] = state[j - size if j >= size else j] * scale
    out[size] = state[off_captured(n) + player] * scale
    out[size + 1] = state[off_captured(n) + 1 - player] * scale
    if rules[R_OPENING_HOLE] >= 0:
        out[size + 2] = state[off_pending(n) + player]
        out[size + 3] = state[off_pending(n) + 1 - player]


@kernel
def view_batch(states, players, rules, scale, out):
    """:func:`view_into` for every row: ``out[i]`` is ``players[i]``'s view of ``states[i]``."""
    for i in range(states.shape[0]):
        view_into(states[i], players[i], rules, scale, out[i])


LOOKAHEAD_FLAGS = 4  # legal, the mover moves again, the game is over, the mover's outcome


@kernel
def lookahead_width(rules, plies):
    """Entries of a lookahead row of ``plies`` (1, 2 or 3): the view, ``n`` blocks for the moves,
    with 2 plies ``n * n`` blocks for the replies, with 3 ``n ** 3`` more for the third moves
    (:func:`lookahead_into`)."""
    n = rules[R_HOLES]
    size = view_size(rules)
    blocks = n + (n * n if plies >= 2 else 0) + (n * n * n if plies >= 3 else 0)
    return size + blocks * (LOOKAHEAD_FLAGS + size)


@kernel
def move_block_into(before, action, p, rules, work, after, out):
    """Play the legal ``action`` from ``before`` into ``after`` (the engine's
    :func:`~mancala_envs.core.engine.play`) and write its lookahead block into ``out``: what it
    means to ``p``, ``[1, p is to move again, game over, p's outcome (+1/0/-1)]``, then ``p``'s
    view of ``after`` (raw counts)."""
    copy_row(after, before)
    play(after, action, rules, work, True)
    n = rules[R_HOLES]
    over = after[off_status(n)] != RUNNING
    out[0] = 1
    out[1] = 1 if not over and after[off_to_move(n)] == p else 0
    out[2] = 1 if over else 0
    out[3] = outcome(after[off_winner(n)], p) if over else 0
    view_into(after, p, rules, 1, out[LOOKAHEAD_FLAGS:])


@kernel
def lookahead_into(state, rules, plies, work, scratch, out):
    """The lookahead of the player to move ``p`` into ``out`` (raw counts, ``lookahead_width``
    entries): ``p``'s view of ``state``, then for each action ``a`` the block
    (:func:`move_block_into`) of the position after ``a``, and with ``plies`` = 2, for each
    ``a`` and each action ``b`` of whoever moves after ``a`` (block ``n + a * n + b``), the block
    of the position after ``a`` then ``b``, and with ``plies`` = 3, for each action ``c`` of
    whoever moves after ``b`` (block ``n + n * n + (a * n + b) * n + c``), the block of the position
    after ``a``, ``b`` then ``c`` — every block from ``p``'s side. Blocks of illegal moves, and
    moves after a move that ends the game, are all zero. The positions after ``a``, ``b`` and
    ``c`` are played on ``scratch[0]``, ``scratch[1]`` and ``scratch[2]``."""
    n = rules[R_HOLES]
    size = view_size(rules)
    p = state[off_to_move(n)]
    view_into(state, p, rules, 1, out)
    block = LOOKAHEAD_FLAGS + size
    for i in range(size, lookahead_width(rules, plies)):
        out[i] = 0
    first, second, third = scratch[0], scratch[1], scratch[2]
    for a in range(n):
        if state[off_mask(n) + a] == 0:
            continue
        at = size + a * block
        move_block_into(state, a, p, rules, work, first, out[at : at + block])
        if plies < 2 or first[off_status(n)] != RUNNING:
            continue
        for b in range(n):
            if first[off_mask(n) + b] == 0:
                continue
            at = size + (n + a * n + b) * block
            move_block_into(first, b, p, rules, work, second, out[at : at + block])
            if plies < 3 or second[off_status(n)] != RUNNING:
                continue
            for c in range(n):
                if second[off_mask(n) + c] != 0:
                    at = size + (n + n * n + (a * n + b) * n + c) * block
                    move_block_into(second, c, p, rules, work, third, out[at : at + block])


@njit(cache=True)
def lookahead_batch(states, rules, plies, out):
    """:func:`lookahead_into` for every (running) row."""
    work = new_work(rules[R_HOLES])
    scratch = np.empty((3, states.shape[1]), dtype=states.dtype)
    for i in range(states.shape[0]):
        lookahead_into(states[i], rules, plies, work, scratch, out[i])
