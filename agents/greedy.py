"""The one-ply greedy agent: it tries every legal move with ``game.apply`` and keeps the best."""

from __future__ import annotations

import numpy as np

from mancala_envs import Game, State
from mancala_envs.rulesets import RESULT_BY_SURVIVAL


def immediate_gain(game: Game, before: State, after: State, player: int) -> int:
    """What ``player``'s move from ``before`` to ``after`` gained in the game's own terms.

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
        legal = game.legal_actions(state)
        if not legal:
            raise ValueError("no legal move: the game is over")
        me = state.to_move
        keys = []
        for a in legal:
            after = game.apply(state, a)
            won = after.done and after.winner == me
            keys.append((won, immediate_gain(game, state, after, me)))
        best = max(keys)
        ties = [a for a, k in zip(legal, keys, strict=True) if k == best]
        return int(ties[self.rng.integers(len(ties))])
