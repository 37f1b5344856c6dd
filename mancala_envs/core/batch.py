"""Batches of packed states (one row per game) and the player's view of a position.

The view (:func:`view_into`) is the board rolled to the player's seat (RULES.md §1: his own row
first), then his and his opponent's captured seeds, then (games with SQ4) both opening flags.
``Game.observation`` scales the seed counts by ``1 / total_seeds``; ``Game.counts`` keeps them raw.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mancala_envs.core.engine import new_work, play
from mancala_envs.core.fast import kernel, random_below
from mancala_envs.core.layout import off_captured, off_mask, off_pending
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
