"""The mask-free random player of the core (``engine.play_random``, behind ``random_games``, the
vector env's random opponent and the MCTS rollouts) is uniform over the legal moves: chi-square
on fixed positions where legality is not simply "non-empty" (SE6, SE7, SE8, SQ4, SQ5, ED3)."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit
from scipy.stats import chisquare
from strategies import find_positions
from variants import SPREAD, SPREAD_IDS

from mancala_envs import get_game
from mancala_envs.core.engine import new_work, play_random

DRAWS = 6000


@njit(cache=True)
def _draw_many(state, rules, rng, draws, n):
    counts = np.zeros(n, dtype=np.int64)
    work = new_work(n)
    candidates = np.empty(n, dtype=np.int64)
    copy = state.copy()
    for _ in range(draws):
        copy[:] = state
        a = play_random(copy, rules, rng.random(), work, candidates, False)
        if a >= 0:
            counts[a] += 1
    return counts


def draw_many(state, rules, seed, draws, n):
    """How often ``play_random`` picks each hole from copies of ``state``."""
    return _draw_many(state, rules, np.random.default_rng(seed), draws, n)


def non_empty(game, s):
    n = game.holes_per_row
    return s.board[s.to_move * n : s.to_move * n + n] > 0


def restricted(game):
    """Positions where some non-empty hole is illegal, or where legality depends on a rule."""
    n = game.holes_per_row

    def want(s):
        legal = game.legal_mask(s).astype(bool)
        opp = s.board[(1 - s.to_move) * n : (2 - s.to_move) * n]
        return legal.sum() >= 2 and ((non_empty(game, s) & ~legal).any() or opp.sum() == 0)

    return want


@pytest.mark.parametrize(("name", "params"), SPREAD, ids=SPREAD_IDS)
def test_mask_free_random_player_is_uniform_over_legal_moves(name, params):
    game = get_game(name, **params)
    positions = find_positions(game, restricted(game), 4, seed=11)
    positions += find_positions(game, lambda s: game.legal_mask(s).sum() >= 3, 2, seed=12)
    for k, s in enumerate(positions):
        counts = draw_many(s.array.copy(), game.rules, k, DRAWS, game.num_actions)
        legal = game.legal_mask(s).astype(bool)
        assert counts.sum() == DRAWS
        assert (counts[~legal] == 0).all(), f"an illegal move was played in {s!r}"
        observed = counts[legal]
        assert chisquare(observed).pvalue > 1e-4, (s, counts)


def test_forced_moves_are_played_at_once():
    """SQ4 (the opening hole) and SE8 (the lone seed) leave one move: it is always the one."""
    sadeqa = get_game("sadeqa_ii")
    counts = draw_many(sadeqa.initial_state().array.copy(), sadeqa.rules, 0, 200, 6)
    assert counts.tolist() == [0, 0, 0, 0, 0, 200]
    songo = get_game("songo_ewondo")
    s = songo.state_from([1, 0, 0, 0, 0, 0, 0] + [5] * 7, captured=[34, 0], to_move=0)
    assert songo.legal_actions(s) == [0]
    assert draw_many(s.array.copy(), songo.rules, 0, 50, 7)[0] == 50
