"""The one-ply greedy agent: an immediate win if there is one, else the largest immediate gain in
the game's own terms, ties at random (compiled: :func:`mancala_envs.analysis.greedy_action`)."""

from __future__ import annotations

import numpy as np

from mancala_envs import Game, State
from mancala_envs.analysis import greedy_action, greedy_actions
from mancala_envs.rulesets import RESULT_BY_SURVIVAL


def immediate_gain(game: Game, before: State, after: State, player: int) -> int:
    """What ``player``'s move from ``before`` to ``after`` gained in the game's own terms, through
    the public API (the definition the compiled policy implements; tests check one against the other).

    Games won on captures (Songo Ewondo, En Dodoi): the seeds captured by the move (end-of-game
    board seeds going to the last mover included). Sadeqa II, won by survival, where captures do not
    score: seeds on ``player``'s row minus seeds on the opponent's row after the move.
    """
    if game.ruleset.result == RESULT_BY_SURVIVAL:
        n = game.holes_per_row
        own = int(after.board[player * n : player * n + n].sum())
        return 2 * own - int(after.board.sum())
    return int(after.captured[player]) - int(before.captured[player])


class GreedyAgent:
    """One ply: a move that wins the game at once if there is one, else the largest
    :func:`immediate_gain`; ties broken at random with the agent's own generator."""

    def __init__(self, seed: int = 0):
        self.name = "greedy"
        self.rng = np.random.default_rng(seed)

    def act(self, game: Game, state: State) -> int:
        if state.is_over:
            raise ValueError("no legal move: the game is over")
        scratch = np.empty(game.state_size, dtype=np.int32)
        ties = np.empty(game.num_actions, dtype=np.int64)
        return int(greedy_action(state.array, game.rules, self.rng, scratch, ties))

    def act_batch(self, game: Game, states: np.ndarray) -> np.ndarray:
        """The greedy move of every row of a batch of running packed states."""
        return greedy_actions(np.ascontiguousarray(states), game.rules, self.rng)
