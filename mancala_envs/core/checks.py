"""Validation of packed states at the public boundary (``Game.state_from_array``, the batch
methods, the vector env): the kernels themselves trust their input.

:func:`check_packed` returns 0 for a state that the rules could have produced, or the code of
the first problem (:data:`PROBLEMS` says it in words). ``full=False`` checks only what keeps the
kernels safe and the seed count right — shapes aside, ranges, totals and a mask that offers only
non-empty holes — in O(n); ``full=True`` also recomputes the legal mask and the end of the game
(the settling the engine would have done), at the cost of one mask.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mancala_envs import rulesets
from mancala_envs.core import layout
from mancala_envs.core.engine import compute_legal_mask, new_work
from mancala_envs.core.fast import kernel

PROBLEMS = {
    1: "a board count is negative or larger than the game's total seeds",
    2: "a captured count is negative or larger than the game's total seeds",
    3: "board and captured do not add up to the game's total seeds",
    4: "to_move is not 0 or 1",
    5: "ply is negative or beyond max_plies",
    6: "status is not 0 (running), 1 (done) or 2 (truncated)",
    7: "winner does not fit the status (running/truncated: -2; done: 0, 1 or -1)",
    8: "first_move_pending flags must be 0/1 (and 0 in a game without an opening rule)",
    9: "last action is not -1 or a hole index",
    10: "the legal mask holds values other than 0/1 or offers an empty hole",
    11: "the legal mask is not the rules' legal mask of this position (stale or edited)",
    12: "a running position must have ply < max_plies and a legal move (it should have ended)",
    13: "a finished position does not follow the end of game rules (SE9/SQ6/ED4, SE10/ED5)",
    14: "a truncated position must be at max_plies with a legal move left (TR1)",
}


@kernel
def check_ranges(state, rules):
    """The O(n) checks (module docstring); 0 or a problem code."""
    n = rules[rulesets.R_HOLES]
    total = 2 * n * rules[rulesets.R_SEEDS_PER_HOLE]
    seeds = 0
    for i in range(2 * n):
        if state[i] < 0 or state[i] > total:
            return 1
        seeds += state[i]
    cap = layout.off_captured(n)
    for p in range(2):
        if state[cap + p] < 0 or state[cap + p] > total:
            return 2
        seeds += state[cap + p]
    if seeds != total:
        return 3
    mover = state[layout.off_to_move(n)]
    if mover != 0 and mover != 1:
        return 4
    if state[layout.off_ply(n)] < 0 or state[layout.off_ply(n)] > rules[rulesets.R_MAX_PLIES]:
        return 5
    status = state[layout.off_status(n)]
    if status != layout.RUNNING and status != layout.DONE and status != layout.TRUNCATED:
        return 6
    winner = state[layout.off_winner(n)]
    if status == layout.DONE:
        if winner != 0 and winner != 1 and winner != layout.DRAW:
            return 7
    elif winner != layout.NO_WINNER:
        return 7
    for p in range(2):
        flag = state[layout.off_pending(n) + p]
        if (flag != 0 and flag != 1) or (flag == 1 and rules[rulesets.R_OPENING_HOLE] < 0):
            return 8
    last = state[layout.off_last_action(n)]
    if last < -1 or last >= n:
        return 9
    for a in range(n):
        m = state[layout.off_mask(n) + a]
        if (m != 0 and m != 1) or (m == 1 and state[mover * n + a] == 0):
            return 10
    return 0


@njit(cache=True)
def check_settled(state, rules, work):
    """The full checks beyond :func:`check_ranges`: the mask and the end of the game."""
    n = rules[rulesets.R_HOLES]
    status = state[layout.off_status(n)]
    mask = state[layout.off_mask(n) : layout.off_mask(n) + n]
    probe = state.copy()
    probe[layout.off_status(n)] = layout.RUNNING
    compute_legal_mask(probe, rules, work)
    legal = probe[layout.off_mask(n) : layout.off_mask(n) + n]
    moves = legal.sum()
    if status == layout.RUNNING:
        if state[layout.off_ply(n)] >= rules[rulesets.R_MAX_PLIES] or moves == 0:
            return 12
        for a in range(n):
            if mask[a] != legal[a]:
                return 11
        return 0
    if mask.sum() != 0:
        return 11
    if status == layout.TRUNCATED:
        return 0 if state[layout.off_ply(n)] == rules[rulesets.R_MAX_PLIES] and moves > 0 else 14
    # done: the player to move had no legal move and finish_game decided the result
    board = state[: 2 * n]
    cap = layout.off_captured(n)
    winner = state[layout.off_winner(n)]
    mover = state[layout.off_to_move(n)]
    if rules[rulesets.R_END_TO_LAST_MOVER] and layout.row_sum(board, n, 0) + layout.row_sum(board, n, 1) != 0:
        return 13
    if moves != 0:
        return 13
    if rules[rulesets.R_RESULT] == rulesets.RESULT_BY_CAPTURES:
        diff = state[cap] - state[cap + 1]
        expected = 0 if diff > 0 else (1 if diff < 0 else layout.DRAW)
    else:
        expected = 1 - mover if layout.row_sum(board, n, mover) == 0 else layout.DRAW
    return 0 if winner == expected else 13


@njit(cache=True)
def check_packed(state, rules, full):
    """0 if ``state`` is a valid packed position of this game, else a :data:`PROBLEMS` code."""
    code = check_ranges(state, rules)
    if code != 0 or not full:
        return code
    return check_settled(state, rules, new_work(rules[rulesets.R_HOLES]))


@njit(cache=True)
def check_packed_batch(states, rules, full):
    """(first bad row, its code), or (-1, 0) when every row passes :func:`check_packed`."""
    work = new_work(rules[rulesets.R_HOLES])
    for i in range(states.shape[0]):
        code = check_ranges(states[i], rules)
        if code == 0 and full:
            code = check_settled(states[i], rules, work)
        if code != 0:
            return i, code
    return -1, 0


def describe(code: int) -> str:
    """The words for a problem code of :func:`check_packed`."""
    return PROBLEMS.get(int(code), f"unknown problem {code}")


__all__ = ["PROBLEMS", "check_packed", "check_packed_batch", "describe", "np"]
