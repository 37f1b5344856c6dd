"""Full-width minimax over a value function, batched through the core: what
``training/distill_az.py`` labels positions with, and ``benchmarks/az_value_depth.py`` plays.

Every legal move is expanded to ``depth`` plies with ``Game.apply_batch``. A finished position is
worth its result (:func:`mancala_envs.agents.alphazero.search.known_results`: a win, a draw or a loss, never a
decided
shortcut); an unfinished leaf is worth ``value(states, movers)``, a value for its player to move
(an ``az`` network's value head: :func:`network_value`). Values are credited by player id: at each
node the player to move (read from the state, never assumed to alternate) takes the child best
for himself.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from mancala_envs.agents.alphazero.search import known_results
from mancala_envs.game import Game

ValueFn = Callable[[np.ndarray, np.ndarray], np.ndarray]


def network_value(game: Game, net, batch: int = 65536) -> ValueFn:
    """The value head of an ``az`` network (:meth:`mancala_envs.agents.alphazero.network.AZNet.value`) as a
    :data:`ValueFn`: ``(running states, their movers) -> value for each mover``."""
    import torch

    def value(states: np.ndarray, movers: np.ndarray) -> np.ndarray:
        out = np.empty(len(states))
        for i in range(0, len(states), batch):
            views = game.counts_batch(states[i : i + batch], movers[i : i + batch])
            with torch.inference_mode():
                out[i : i + batch] = net.value(torch.from_numpy(views)).numpy()
        return out

    return value


def minimax_values(game: Game, states: np.ndarray, depth: int, value: ValueFn) -> np.ndarray:
    """Each row's value for player 0 after ``depth`` more plies of minimax (module docstring)."""
    finished, result = known_results(states, game.rules, False)
    running = np.flatnonzero(~finished)
    if running.size == 0:
        return result
    movers = states[running, game.layout.to_move]
    side = 1.0 - 2.0 * movers  # +1 where player 0 moves: a player-0 value times side is the mover's
    if depth == 0:
        result[running] = side * value(states[running], movers)
        return result
    parents, actions = np.nonzero(game.legal_masks(states[running]))
    children = minimax_values(game, game.apply_batch(states[running][parents], actions), depth - 1, value)
    best = np.full(running.size, -np.inf)
    np.maximum.at(best, parents, side[parents] * children)  # each mover's best child, for him
    result[running] = side * best
    return result


def move_values(game: Game, states: np.ndarray, depth: int, value: ValueFn) -> np.ndarray:
    """``(B, n)``: for each running row and each move, the value of the position after it for
    the row's player to move, by minimax to ``depth`` plies in all (the move is the first);
    ``nan`` for illegal moves."""
    if depth < 1:
        raise ValueError(f"depth must be at least 1, got {depth}")
    masks = game.legal_masks(states)
    if not masks.any(axis=1).all():
        raise ValueError("move_values needs running states: some rows have no legal move")
    out = np.full(masks.shape, np.nan)
    rows, actions = np.nonzero(masks)
    children = minimax_values(game, game.apply_batch(states[rows], actions), depth - 1, value)
    out[rows, actions] = np.where(states[rows, game.layout.to_move] == 0, children, -children)
    return out
