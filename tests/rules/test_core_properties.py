"""Invariants of the rules core under random reachable and random constructed positions of every
game and every En Dodoi width (hypothesis)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import SEEDS, constructed_states, playout, random_move, reachable_states
from variants import ALL, ALL_IDS

from mancala_envs import IllegalMoveError, get_game, random_games

GAMES = [get_game(name, **params) for name, params in ALL]


def check_position(game, state):
    """Every invariant that must hold in any position, and for every move from it."""
    total = int(state.board.sum() + state.captured.sum())
    assert total == game.total_seeds
    mask = game.legal_mask(state)
    assert mask.dtype == np.int8 and mask.shape == (game.num_actions,)
    assert set(np.unique(mask)) <= {0, 1}
    assert (mask.sum() > 0) == (not state.is_over)
    if state.done:
        assert state.winner in (0, 1, -1)
    else:
        assert state.winner is None
    # only non-empty own holes can be legal
    own = state.board[state.to_move * game.holes_per_row :][: game.holes_per_row]
    assert not (mask.astype(bool) & (own == 0)).any()
    before = state.array.copy()
    for action in range(game.num_actions):
        if mask[action]:
            after = game.apply(state, action)
            assert int(after.board.sum() + after.captured.sum()) == game.total_seeds
            assert after.ply == state.ply + 1
            assert (after.captured >= state.captured).all()
            batch = game.apply_batch(state.array[None, :].copy(), np.array([action]))
            assert np.array_equal(batch[0], after.array)
        else:
            with pytest.raises(IllegalMoveError):
                game.apply(state, action)
    assert np.array_equal(state.array, before), "apply mutated its input"


@pytest.mark.parametrize("game", GAMES, ids=ALL_IDS)
@given(seed=SEEDS, plies=st.integers(0, 400), first=st.integers(0, 1))
def test_random_reachable_positions(game, seed, plies, first):
    states = playout(game, seed, plies, first)
    check_position(game, states[-1])
    assert states[-1].ply == len(states) - 1
    # same seed, same game
    again = playout(game, seed, plies, first)
    assert all(a == b for a, b in zip(states, again, strict=True))


@pytest.mark.parametrize("game", GAMES, ids=ALL_IDS)
@given(data=st.data())
def test_random_constructed_positions(game, data):
    check_position(game, data.draw(constructed_states(game)))


@pytest.mark.parametrize("game", GAMES, ids=ALL_IDS)
@settings(max_examples=30)
@given(data=st.data())
def test_reachable_positions_round_trip_through_array_and_dict(game, data):
    """A reachable position comes back equal from its packed array and from its dict."""
    state = data.draw(reachable_states(game, max_plies=200))
    assert game.state_from_array(state.array.copy()) == state
    assert game.state_from_dict(state.to_dict()) == state


@pytest.mark.parametrize("game", GAMES, ids=ALL_IDS)
@given(seed=SEEDS)
def test_batched_step_equals_apply_along_games(game, seed):
    """Many games stepped side by side in one batch stay equal to ``apply`` move for move."""
    rng = np.random.default_rng(seed)
    batch = game.initial_states(8, first_player=rng.integers(0, 2, size=8))
    states = [game.state_from_array(row) for row in batch]
    for _ in range(60):
        live = [i for i, s in enumerate(states) if not s.is_over]
        if not live:
            break
        actions = np.zeros(len(live), dtype=np.int64)
        for k, i in enumerate(live):
            actions[k] = random_move(game, states[i], rng)
            states[i] = game.apply(states[i], int(actions[k]))
        sub = batch[live]
        game.apply_batch(sub, actions, out=sub)
        batch[live] = sub
        for i in range(len(states)):
            assert np.array_equal(batch[i], states[i].array)
    assert np.array_equal(game.legal_masks(batch), np.stack([game.legal_mask(s) for s in states]))


@pytest.mark.parametrize("game", GAMES, ids=ALL_IDS)
def test_random_games_consistent_and_seeded(game):
    res = random_games(game, 300, seed=7)
    again = random_games(game, 300, seed=7)
    for a, b in zip(res, again, strict=True):
        assert np.array_equal(a, b)
    other = random_games(game, 300, seed=8)
    assert not np.array_equal(res.plies, other.plies)
    assert (res.plies <= game.max_plies).all() and (res.plies > 0).all()
    assert (res.captured.sum(axis=1) <= game.total_seeds).all()
    finished = ~res.truncated
    assert (res.winner[res.truncated] == -2).all()
    if game.ruleset.result == 0:  # decided by captures: winner matches the captured counts
        cap = res.captured[finished]
        expect = np.where(cap[:, 0] > cap[:, 1], 0, np.where(cap[:, 0] < cap[:, 1], 1, -1))
        assert np.array_equal(res.winner[finished], expect)
        if game.ruleset.end_board_to_last_mover:
            assert (cap.sum(axis=1) == game.total_seeds).all()
    else:  # Sadeqa II: the survivor wins; draws only when every move never ends
        assert set(np.unique(res.winner[finished])) <= {0, 1, -1}
    assert res.legal_moves is None
    counted = random_games(game, 50, seed=7, count_legal_moves=True)
    assert (counted.legal_moves >= counted.plies).all()
    assert (counted.legal_moves <= counted.plies * game.num_actions).all()


@pytest.mark.parametrize("game", GAMES, ids=ALL_IDS)
def test_random_games_truncate_at_max_plies(game):
    res = random_games(game, 50, seed=3)
    assert res.winner.dtype == np.int8 and res.captured.shape == (50, 2)
    short = get_game(game.name, **{**game.params, "max_plies": 5})
    cut = random_games(short, 50, seed=3)
    assert cut.truncated.all() and (cut.plies == 5).all()


def test_truncation_rule_tr1_tr2():
    game = get_game("songo_ewondo", max_plies=3)
    state = game.initial_state()
    for _ in range(3):
        state = game.apply(state, game.legal_actions(state)[0])
    assert state.truncated and not state.done and state.winner is None
    assert game.legal_mask(state).sum() == 0
    with pytest.raises(IllegalMoveError, match="over"):
        game.apply(state, 0)


@pytest.mark.parametrize("game", GAMES, ids=ALL_IDS)
@given(seed=SEEDS, first=st.integers(0, 1))
def test_compiled_random_game_replays_through_apply(game, seed, first):
    """The mask-free compiled random player (random_games) plays legal moves only, and its final
    state is the one ``apply`` reaches with the same moves."""
    from mancala_envs.core.engine import new_work
    from mancala_envs.core.rollout import play_out

    state = game.initial_state(first).array.copy()
    moves = np.empty(game.max_plies, dtype=np.int64)
    work, candidates = new_work(game.holes_per_row), np.empty(game.holes_per_row, dtype=np.int64)
    plies = play_out(state, game.rules, np.random.default_rng(seed), work, candidates, moves)
    replayed = game.initial_state(first)
    for action in moves[:plies]:
        replayed = game.apply(replayed, int(action))
    assert replayed.is_over and plies == replayed.ply
    assert np.array_equal(replayed.array, state)
