"""Whole games between uniformly random players inside compiled code: :func:`random_games`."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from mancala_envs.core.rollout import play_random_games
from mancala_envs.game import Game, as_int, check_seed, require_game


class RandomGames(NamedTuple):
    """Results of :func:`random_games`, one entry per game."""

    winner: np.ndarray  # int8: 0, 1, -1 draw, -2 truncated (no winner)
    plies: np.ndarray  # int32
    captured: np.ndarray  # int32, shape (n_games, 2)
    truncated: np.ndarray  # bool
    legal_moves: np.ndarray | None  # int64: legal moves summed over each game's plies (branching
    # factor = legal_moves / plies); only with random_games(..., count_legal_moves=True)


def random_games(
    game: Game, n_games: int, seed: int = 0, first_player: int = 0, count_legal_moves: bool = False
) -> RandomGames:
    """Play ``n_games`` games between uniformly random players inside compiled code.

    Every choice is drawn from ``numpy.random.default_rng(seed)``: the same seed gives the same
    arrays. ``winner`` is 0, 1, -1 (draw) or -2 (truncated at ``max_plies``, no winner).
    ``count_legal_moves=True`` also sums the legal moves of every ply (the branching factor); it
    computes every legal mask, so relay games run several times slower."""
    require_game(game)
    n_games = as_int(n_games, "n_games")
    if n_games < 0:
        raise ValueError(f"n_games must be non-negative, got {n_games}")
    check_seed(seed)
    player = game._player(first_player, "first_player")
    rng = np.random.default_rng(seed)
    winner, plies, captured, truncated, legal = play_random_games(
        game.rules, n_games, player, rng, bool(count_legal_moves)
    )
    return RandomGames(winner, plies, captured, truncated, legal if count_legal_moves else None)
