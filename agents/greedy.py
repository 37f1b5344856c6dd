"""The one-ply greedy agent: an immediate win if there is one, else the largest immediate gain in
the game's own terms, ties at random — compiled (:func:`greedy_action`), batched for the vector
env and the training pool (:func:`greedy_actions`), and played by the statistics of
:mod:`mancala_envs.evaluation.statistics`."""

from __future__ import annotations

import numpy as np
from numba import njit

from mancala_envs.agents.base import Agent, require_running
from mancala_envs.core import layout
from mancala_envs.core.engine import new_work, play
from mancala_envs.core.fast import kernel, random_below
from mancala_envs.game import Game
from mancala_envs.rulesets import R_HOLES, R_RESULT, RESULT_BY_SURVIVAL
from mancala_envs.state import State


@kernel
def move_gain(before, after, n, player, rules):
    """What ``player``'s move from ``before`` to ``after`` gained in the game's own terms: captured
    seeds (SE10/ED5 games, the end-of-game board included), or, in a survival game (SQ6) where
    captures do not score, seeds on his row minus seeds on the opponent's row after the move."""
    if rules[R_RESULT] == RESULT_BY_SURVIVAL:
        return layout.row_sum(after, n, player) - layout.row_sum(after, n, 1 - player)
    cap = layout.off_captured(n) + player
    return after[cap] - before[cap]


@kernel
def greedy_action(state, rules, rng, child, work, ties):
    """One ply: a move that wins at once if there is one, else the largest :func:`move_gain`;
    ties at random. ``child``: a state-sized buffer; ``work``: engine scratch; ``ties``: int64 (n)."""
    n = rules[R_HOLES]
    me = state[layout.off_to_move(n)]
    best_won = -1
    best_gain = -(1 << 30)
    count = 0
    for a in range(n):
        if state[layout.off_mask(n) + a] == 0:
            continue
        layout.copy_row(child, state)
        play(child, a, rules, work, True)
        won = 1 if child[layout.off_status(n)] == layout.DONE and child[layout.off_winner(n)] == me else 0
        gain = move_gain(state, child, n, me, rules)
        if won > best_won or (won == best_won and gain > best_gain):
            best_won, best_gain, count = won, gain, 0
        if won == best_won and gain == best_gain:
            ties[count] = a
            count += 1
    if count == 0:
        return -1
    return ties[random_below(rng, count)]


@njit(cache=True)
def greedy_actions(states, rules, rng):
    """:func:`greedy_action` for every row of a batch of packed states (-1 for finished rows)."""
    n = rules[R_HOLES]
    out = np.empty(states.shape[0], dtype=np.int64)
    child = np.empty(states.shape[1], dtype=states.dtype)
    work = new_work(n)
    ties = np.empty(n, dtype=np.int64)
    for i in range(states.shape[0]):
        out[i] = greedy_action(states[i], rules, rng, child, work, ties)
    return out


def immediate_gain(game: Game, before: State, after: State, player: int) -> int:
    """:func:`move_gain` of two public states (the quantity the greedy agent maximises)."""
    return int(move_gain(before.array, after.array, game.holes_per_row, int(player), game.rules))


class GreedyAgent(Agent):
    """One ply: a move that wins the game at once if there is one, else the largest
    :func:`move_gain`; ties broken at random with the agent's own generator."""

    name = "greedy"

    def act(self, game: Game, state: State) -> int:
        require_running(game, state)
        return int(greedy_actions(state.array[None].copy(), game.rules, self.rng)[0])

    def act_batch(self, game: Game, states: np.ndarray) -> np.ndarray:
        """The greedy move of every row of a batch of packed states."""
        return greedy_actions(game.check_states(states, full=False), game.rules, self.rng)
