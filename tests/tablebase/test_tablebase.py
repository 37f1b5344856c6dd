"""Tablebase values against an independent brute-force solver (tests/tablebase_reference.py).

For every game and En Dodoi width, a small table is built and compared, position by position
(both players to move), with the solver's ``(A, B)`` over every position of at most ``K`` seeds;
hypothesis then draws positions with any captured lead and checks the outcome and the set of
outcome-preserving moves.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from strategies import table_positions
from tablebase_reference import Reference, all_keys
from variants import ALL, ALL_IDS

from mancala_envs import get_game, tablebase

# K per game (En Dodoi: per width) whose brute force (plain Python, every position) takes seconds.
SMALL_K = {"songo_ewondo": 5, "sadeqa_ii": 5, 6: 5, 7: 4, 8: 4, 9: 3, 10: 3}


def small_k(name: str, params: dict) -> int:
    return SMALL_K[params["holes_per_row"]] if name == "en_dodoi" else SMALL_K[name]


@pytest.fixture(scope="module", params=ALL, ids=ALL_IDS)
def solved(request, tmp_path_factory):
    """``(table, reference)`` of one game over every position with at most K seeds."""
    name, params = request.param
    game = get_game(name, **params)
    k = small_k(name, params)
    tb = tablebase.build(game, max_seeds=k, path=tmp_path_factory.mktemp(f"tb_{name}"))
    return tb, Reference(game, all_keys(game, k))


def test_every_value_equals_the_brute_force(solved):
    tb, ref = solved
    assert len(ref.a) == tb.covered_positions  # the reference enumerated every covered position
    wrong = []
    for key in ref.a:
        state = ref.state(key)
        if state.done:  # the mover has no legal move: the game is over, nothing to cover
            assert not tb.covers(state)
            continue
        assert tb.covers(state)
        if tb.bounds(state) != (ref.a[key], ref.b[key]):
            wrong.append((key, tb.bounds(state), (ref.a[key], ref.b[key])))
    assert not wrong, f"{len(wrong)} values differ, e.g. {wrong[:3]}"


def test_values_are_consistent(solved):
    """``A <= B``, margins within the seeds on the board, a finished value at least once."""
    tb, ref = solved
    values = tb.values.astype(np.int64)
    finite = np.abs(values) < 127
    assert np.all(values[:, 0] <= values[:, 1])
    assert np.all(np.abs(values[finite]) <= tb.max_seeds)
    assert any(math.isfinite(v) for v in ref.a.values())


def test_outcomes_on_every_position_and_lead(solved):
    tb, ref = solved
    rest = tb.game.total_seeds
    for key in list(ref.moves)[::7]:
        spare = rest - sum(key[0])
        for d in sorted({spare % 2, -(spare % 2), 2 - spare % 2, spare % 2 - 2, -spare, spare}):
            if abs(d) > spare:
                continue
            state = ref.state(key, d)
            assert tb.outcome(state) == ref.outcome(key, d), (key, d)


def test_batch_outcomes_match_single_probes(solved):
    tb, ref = solved
    keys = list(ref.a)[::5]
    states = [ref.state(key) for key in keys]
    got = tb.outcomes(np.stack([s.array for s in states]))
    want = [tb.outcome(s) if tb.covers(s) else -2 for s in states]
    np.testing.assert_array_equal(got, want)


def test_outcome_preserving_moves_equal_the_brute_force(solved):
    tb, ref = solved
    game = tb.game

    @given(table_positions(game, tb.max_seeds))
    def check(pos):
        key, d = pos
        state = ref.state(key, d)
        if state.done:
            assert not tb.covers(state)
            with pytest.raises(ValueError, match="does not cover"):
                tb.outcome(state)
            return
        assert tb.outcome(state) == ref.outcome(key, d)
        assert tb.bounds(state) == (ref.a[key], ref.b[key])
        np.testing.assert_array_equal(tb.best_actions(state), ref.best_mask(key, d))
        outcomes = tb.move_outcomes(state)
        for a, o in ref.move_outcomes(key, d).items():
            assert outcomes[a] == o
        legal = game.legal_mask(state)
        assert np.all(outcomes[legal == 0] == tablebase.NO_MOVE)
        assert outcomes[legal == 1].max() == tb.outcome(state)  # §3: the best move keeps the value

    check()


@pytest.mark.parametrize(("name", "params"), ALL, ids=ALL_IDS)
def test_seat_symmetry_through_the_engine(name, params):
    """The table stores a position once, from its mover's seat: the engine must agree that the
    mirrored position (rows swapped, the other player to move) has the same moves and gains."""
    game = get_game(name, **params)
    n = game.holes_per_row
    rng = np.random.default_rng(7)
    for _ in range(200):
        k = int(rng.integers(1, 9))
        board = np.bincount(rng.integers(0, 2 * n, size=k), minlength=2 * n)
        s0 = game.state_from(board=board.tolist(), captured=[game.total_seeds - k, 0], to_move=0)
        s1 = game.state_from(board=np.roll(board, n).tolist(), captured=[0, game.total_seeds - k], to_move=1)
        np.testing.assert_array_equal(game.legal_mask(s0), game.legal_mask(s1))
        for a in np.flatnonzero(game.legal_mask(s0)):
            t0, t1 = game.apply(s0, int(a)), game.apply(s1, int(a))
            np.testing.assert_array_equal(np.roll(t0.board, n), t1.board)
            assert (t0.done, t0.to_move, t0.captured[0] - t0.captured[1]) == (
                t1.done,
                1 - t1.to_move,
                t1.captured[1] - t1.captured[0],
            )
