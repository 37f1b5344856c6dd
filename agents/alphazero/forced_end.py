"""The shortest forced end of a decided game: how ``az`` finishes a game it has already won.

In a game won on captures (SE10, ED5) a player holding more than half the seeds wins *if the game
ends* (:func:`mancala_envs.core.engine.decided_winner`), but a game that never ends is a draw (TR1,
TABLEBASE.md), so the leader still has to end it. Once the game is decided, every move of the
leader has the same value (a win), and neither the network nor a few hundred simulations see how
to end it (README, "What limits the missed cells"). This module answers the question exactly, for
a bounded number of plies: **can the leader force the game to end within ``d`` plies, whatever
the other player does?** That is an AND-OR search — at the leader's turns one move must work, at
the other player's turns every move must — over the engine's moves, by iterative deepening
(``d = 1, 2, ...``), so the first ``d`` that works is the shortest forced end. A finished game is
a success when the leader won it (he always does: captured counts never decrease) and a failure
when it was truncated (TR1). Turns are read from each position (never assumed to alternate).

Playing the first move of a shortest forced end converts the win: after any reply, a forced end
within ``d - 2`` plies (or fewer) remains, so the leader reaches the end in at most ``d`` plies
(as long as each later search finds it within its move budget).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mancala_envs.core.engine import decided_winner, new_work, outcome, play
from mancala_envs.core.fast import kernel
from mancala_envs.core.layout import RUNNING, copy_row, off_mask, off_status, off_to_move, off_winner
from mancala_envs.rulesets import R_HOLES

MAX_PLIES = 64  # the deepest forced end looked for


@kernel
def ends_for(state, n, leader):
    """``(over, leader won)`` of a position, by the one result helper
    (:func:`~mancala_envs.core.engine.outcome`: a truncated game has no winner)."""
    if state[off_status(n)] == RUNNING:
        return False, False
    return True, outcome(state[off_winner(n)], leader) == 1


@kernel
def forces_end_within(stack, plies, leader, rules, work, tried, budget):
    """Can ``leader`` force the game at ``stack[0]`` to end within ``plies`` plies? Depth-first
    AND-OR search; ``stack`` holds ``plies + 1`` positions, ``tried`` the action being tried at
    each level, ``budget[0]`` the moves it may still make (decremented; at 0 the answer is False).
    Returns ``(proved, first action of the proof)``."""
    n = rules[R_HOLES]
    level = 0
    tried[0] = -1
    while True:
        state = stack[level]
        leader_moves = state[off_to_move(n)] == leader
        a = tried[level] + 1
        while a < n and state[off_mask(n) + a] == 0:
            a += 1
        if a == n:
            value = not leader_moves  # no move worked (leader) / every move worked (other player)
        elif budget[0] <= 0:
            return False, -1
        else:
            tried[level] = a
            child = stack[level + 1]
            copy_row(child, state)
            play(child, a, rules, work, True)
            budget[0] -= 1
            over, won = ends_for(child, n, leader)
            if not over and level + 1 < plies:
                level += 1
                tried[level] = -1
                continue
            if won == leader_moves:  # the leader's winning move, or the other player's escape
                value = won
            else:
                continue  # try the next action at this level
        while True:  # the position at `level` has `value`: hand it up
            if level == 0:
                return value, tried[0] if value else -1
            level -= 1
            if (stack[level][off_to_move(n)] == leader) == value:
                continue  # it decides the parent too
            break


@njit(cache=True)
def shortest_forced_end(state, rules, max_plies, budget):
    """``(action, plies)``: the first move of the shortest forced end of the decided game
    ``state`` (its leader to move) within ``max_plies`` plies, by iterative deepening; ``(-1, 0)``
    when the game is not decided for the player to move, or no forced end is found within
    ``max_plies`` plies and ``budget`` moves."""
    n = rules[R_HOLES]
    leader = state[off_to_move(n)]
    if state[off_status(n)] != RUNNING or decided_winner(state, rules) != leader:
        return -1, 0
    stack = np.empty((max_plies + 1, state.shape[0]), dtype=np.int32)
    copy_row(stack[0], state)
    tried = np.empty(max_plies + 1, dtype=np.int64)
    work = new_work(n)
    left = np.array([budget], dtype=np.int64)
    for plies in range(1, max_plies + 1):
        proved, action = forces_end_within(stack, plies, leader, rules, work, tried, left)
        if proved:
            return action, plies
        if left[0] <= 0:
            break
    return -1, 0


def check_finish(max_plies: int) -> int:
    """``max_plies`` of the forced-end search as an int in 0..MAX_PLIES (0: no search);
    ``ValueError`` naming the problem otherwise."""
    if (
        isinstance(max_plies, bool)
        or not isinstance(max_plies, int | np.integer)
        or not 0 <= max_plies <= MAX_PLIES
    ):
        raise ValueError(f"the forced-end plies must be an integer in 0..{MAX_PLIES}, got {max_plies!r}")
    return int(max_plies)
