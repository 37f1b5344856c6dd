"""Shared by the proof-search tests (test_solve, test_pn): each game's reduced tables and the
positions above them that the searches solve."""

from __future__ import annotations

from strategies import running, walked_positions
from variants import NARROWEST

from mancala_envs import get_game, tablebase

# per game: K of the search's table, K of the reference table, seeds of the positions solved
SIZES = {
    "sadeqa_ii": (8, 12, (11, 12)),
    "en_dodoi": (6, 10, (9, 10)),
    "songo_ewondo": (4, 6, (6, 6)),  # Songo endgames are long: few seeds keep the test short
}
# (game, params, *SIZES[game]): each game on its cheapest board
CASES = [(name, params, *SIZES[name]) for name, params in NARROWEST]


def build_tables(folder) -> dict:
    """``{game name: (game, small table, reference table)}`` built under ``folder``."""
    out = {}
    for name, params, small, big, _ in CASES:
        game = get_game(name, **params)
        out[name] = (
            game,
            tablebase.build(game, small, folder / f"{game.variant}-{small}"),
            tablebase.build(game, big, folder / f"{game.variant}-{big}"),
        )
    return out


def positions(game, tb_small, seeds, count, seed):
    """Running positions of seeded random games, with ``seeds`` (lo, hi) seeds on the board,
    outside the small table."""
    lo, hi = seeds
    return walked_positions(
        game, count, seed, until=lambda s: s.seeds_on_board <= hi,
        keep=lambda s: running(s) and lo <= s.seeds_on_board and not tb_small.covers(s),
    )  # fmt: skip
