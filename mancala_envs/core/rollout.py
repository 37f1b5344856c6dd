"""Whole games of uniformly random play in compiled code (``mancala_envs.random_games``, rollouts).

Moves come from :func:`~mancala_envs.core.engine.play_random` without legal masks
(``with_mask=False``): the fast path the module docstring of the engine describes.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mancala_envs.core.batch import random_legal_action
from mancala_envs.core.engine import initial_state, new_work, play, play_random
from mancala_envs.core.fast import kernel
from mancala_envs.core.layout import (
    RUNNING,
    TRUNCATED,
    off_captured,
    off_mask,
    off_ply,
    off_status,
    off_winner,
)
from mancala_envs.rulesets import R_HOLES


@kernel
def play_out(state, rules, rng, work, candidates, moves):
    """Play the game in ``state`` to its end with uniformly random legal moves, in place; records
    the moves into ``moves`` (as many as fit) and returns the number of plies played. The final
    state is the one :func:`~mancala_envs.core.engine.play` with masks would reach."""
    n = rules[R_HOLES]
    count = 0
    while state[off_status(n)] == RUNNING:
        action = play_random(state, rules, rng.random(), work, candidates, False)
        if action >= 0:
            if count < moves.shape[0]:
                moves[count] = action
            count += 1
    return count


@njit(cache=True)
def play_random_games(rules, n_games, first_player, rng, count_legal_moves):
    """Play ``n_games`` uniformly random games from the start; returns winner, plies, captured,
    truncated and, with ``count_legal_moves`` (slower: full masks every ply), the number of legal
    moves summed over each game's plies."""
    n = rules[R_HOLES]
    winner = np.empty(n_games, dtype=np.int8)
    plies = np.empty(n_games, dtype=np.int32)
    captured = np.empty((n_games, 2), dtype=np.int32)
    truncated = np.zeros(n_games, dtype=np.bool_)
    legal_moves = np.zeros(n_games, dtype=np.int64)
    work = new_work(n)
    candidates = np.empty(n, dtype=np.int64)
    no_moves = np.empty(0, dtype=np.int64)
    start = initial_state(rules, first_player)
    state = start.copy()
    for g in range(n_games):
        state[:] = start
        if count_legal_moves:
            while state[off_status(n)] == RUNNING:
                legal_moves[g] += state[off_mask(n) : off_mask(n) + n].sum()
                play(state, random_legal_action(state, n, rng), rules, work, True)
        else:
            play_out(state, rules, rng, work, candidates, no_moves)
        winner[g] = state[off_winner(n)]
        plies[g] = state[off_ply(n)]
        captured[g, 0] = state[off_captured(n)]
        captured[g, 1] = state[off_captured(n) + 1]
        truncated[g] = state[off_status(n)] == TRUNCATED
    return winner, plies, captured, truncated, legal_moves
