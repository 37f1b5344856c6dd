"""The public core API of RULES.md §5: construction, validation, immutability, observation encoding."""

import pickle
from pathlib import Path

import numpy as np
import pytest
from strategies import walk

import mancala_envs
from mancala_envs import IllegalMoveError, get_game

SHARED = Path(__file__).resolve().parents[3] / "shared"


@pytest.mark.skipif(not SHARED.is_dir(), reason="no ../shared beside this checkout")
@pytest.mark.parametrize("name", ["rule_cases.json", "RULES.md", "TABLEBASE.md"])
def test_project_copies_match_shared_spec(name):
    local = (
        Path(__file__).parents[1] / "data" / name
        if name.endswith(".json")
        else Path(__file__).parents[2] / "docs" / name
    )
    assert local.read_bytes() == (SHARED / name).read_bytes(), f"{local} is out of sync with ../shared/{name}"


@pytest.mark.parametrize(
    ("name", "n", "seeds", "total"),
    [("songo_ewondo", 7, 5, 70), ("sadeqa_ii", 6, 3, 36), ("en_dodoi", 8, 4, 64)],
)
def test_games_and_initial_states(name, n, seeds, total):
    game = get_game(name)
    assert (game.holes_per_row, game.num_actions, game.total_seeds, game.max_plies) == (n, n, total, 1000)
    for first in (0, 1):
        s = game.initial_state(first)
        assert s.board.tolist() == [seeds] * (2 * n)
        assert s.captured.tolist() == [0, 0] and s.to_move == first and s.ply == 0
        assert not s.done and not s.truncated and s.winner is None and s.last_action is None
    assert game.initial_state().to_move == 0
    if name == "sadeqa_ii":
        assert game.initial_state().first_move_pending == (True, True)
        assert game.legal_actions(game.initial_state()) == [5]  # SQ4
    else:
        assert game.initial_state().first_move_pending is None


@pytest.mark.parametrize("width", range(6, 11))
def test_en_dodoi_widths(width):
    game = get_game("en_dodoi", holes_per_row=width)
    assert game.num_actions == width and game.total_seeds == 8 * width
    assert game.initial_state().board.shape == (2 * width,)


@pytest.mark.parametrize(
    ("args", "kwargs", "match"),
    [
        (("oware",), {}, "unknown game 'oware'"),
        (("en_dodoi",), {"holes_per_row": 5}, "holes_per_row must be in 6..10"),
        (("en_dodoi",), {"holes_per_row": 11}, "holes_per_row must be in 6..10"),
        (("en_dodoi",), {"holes_per_row": 7.5}, "holes_per_row must be an integer"),
        (("songo_ewondo",), {"holes_per_row": 8}, "unknown parameter"),
        (("sadeqa_ii",), {"max_plies": 0}, "max_plies must be at least 1"),
        (("sadeqa_ii",), {"seeds": 4}, "unknown parameter"),
    ],
)
def test_get_game_rejects_bad_input(args, kwargs, match):
    with pytest.raises(ValueError, match=match):
        get_game(*args, **kwargs)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"board": [5] * 13}, "board must have 14 entries"),
        ({"board": [5] * 14, "captured": [1, 0]}, "71 seeds"),
        ({"board": [5] * 14, "to_move": 2}, "to_move must be 0 or 1"),
        ({"board": [5] * 14, "first_move_pending": [True, True]}, "sadeqa_ii only"),
        ({"board": ["a"] * 14}, "integers"),
        ({"board": [5] * 14, "captured": [0]}, "captured must have 2 entries"),
    ],
)
def test_state_from_rejects_malformed_positions(kwargs, match):
    game = get_game("songo_ewondo")
    with pytest.raises(ValueError, match=match):
        game.state_from(**kwargs)


def test_state_from_negative_counts():
    game = get_game("songo_ewondo")
    with pytest.raises(ValueError, match="negative"):
        game.state_from(board=[-1] + [5] * 13, captured=[6, 0])


def test_state_from_defaults_and_ended_positions():
    sadeqa = get_game("sadeqa_ii")
    s = sadeqa.state_from(board=[3] * 12, captured=[0, 0], to_move=1)
    assert s.first_move_pending == (False, False) and s.ply == 0 and s.to_move == 1
    # SQ6: player to move has an empty row -> already over, the other player survives
    over = sadeqa.state_from(board=[0] * 6 + [6] * 6, captured=[0, 0], to_move=0)
    assert over.done and over.winner == 1 and sadeqa.legal_mask(over).sum() == 0
    # SE9: empty row for the mover: the board goes to the last mover (player 1)
    songo = get_game("songo_ewondo")
    over = songo.state_from(board=[0] * 7 + [10] * 7, captured=[0, 0], to_move=0)
    assert over.done and over.captured.tolist() == [0, 70] and over.winner == 1
    assert over.board.sum() == 0


def test_states_are_immutable_and_hashable():
    game = get_game("en_dodoi")
    s = game.initial_state()
    with pytest.raises(AttributeError):
        s.board = np.zeros(16)
    with pytest.raises(ValueError):
        s.board[0] = 9
    with pytest.raises(ValueError):
        game.legal_mask(s)[0] = 0
    t = game.apply(s, 3)
    assert s.board.tolist() == [4] * 16 and t != s
    assert hash(game.apply(s, 3)) == hash(t) and game.apply(s, 3) == t
    assert t.last_action == 3
    assert pickle.loads(pickle.dumps(t)) == t
    assert pickle.loads(pickle.dumps(game)) == game


def test_apply_action_validation():
    game = get_game("songo_ewondo")
    s = game.initial_state()
    assert game.apply(s, np.int64(2)) == game.apply(s, 2)
    for bad in (1.0, "1", None, True, [1]):
        with pytest.raises(IllegalMoveError, match="integer hole index"):
            game.apply(s, bad)
    for bad in (-1, 7, 100):
        with pytest.raises(IllegalMoveError, match="out of range"):
            game.apply(s, bad)
    assert issubclass(IllegalMoveError, ValueError)
    other = get_game("sadeqa_ii")
    with pytest.raises(ValueError, match="belongs to"):
        other.apply(s, 0)
    with pytest.raises(ValueError, match="expected a State"):
        game.legal_mask("not a state")


@pytest.mark.parametrize("name", mancala_envs.GAMES)
def test_observation_encoding(name):
    """[own row, opponent row, own captured, opponent captured] (+ Sadeqa II pending flags),
    each row from its owner's seat (board rolled by -player*n), counts / total_seeds."""
    game = get_game(name)
    n = game.holes_per_row
    rng = np.random.default_rng(0)
    state = walk(game, rng, plies=30)
    for player in (0, 1):
        obs = game.observation(state, player)
        assert obs.dtype == np.float32 and obs.shape == (game.observation_size,)
        board = np.roll(state.board, -player * n)
        expect = [*board, state.captured[player], state.captured[1 - player]]
        np.testing.assert_allclose(obs[: 2 * n + 2], np.array(expect) / game.total_seeds, rtol=1e-6)
        if name == "sadeqa_ii":
            assert game.observation_size == 2 * n + 4
            pending = state.first_move_pending
            assert obs[2 * n + 2 :].tolist() == [pending[player], pending[1 - player]]
        else:
            assert game.observation_size == 2 * n + 2
        assert ((obs >= 0) & (obs <= 1)).all()
    batch = game.observations(np.stack([state.array, state.array]), np.array([0, 1]))
    assert np.array_equal(batch[0], game.observation(state, 0))
    assert np.array_equal(batch[1], game.observation(state, 1))
    with pytest.raises(ValueError, match="player must be 0 or 1"):
        game.observation(state, 2)


def test_batch_api_validation():
    game = get_game("sadeqa_ii")
    states = game.initial_states(4)
    assert states.shape == (4, game.state_size) and states.dtype == np.int32
    with pytest.raises(IllegalMoveError, match="row 0"):
        game.apply_batch(states, np.array([0, 5, 5, 5]))
    with pytest.raises(IllegalMoveError, match="4 integers"):
        game.apply_batch(states, np.array([5, 5]))
    with pytest.raises(ValueError, match="int32"):
        game.apply_batch(states.astype(np.int64), np.array([5] * 4))
    with pytest.raises(ValueError, match="columns"):
        get_game("songo_ewondo").apply_batch(states, np.array([5] * 4))
    out = game.apply_batch(states, np.full(4, 5))
    assert (states[:, :12] == 3).all() and not np.array_equal(out, states)
    game.apply_batch(states, np.full(4, 5), out=states)
    assert np.array_equal(out, states)


def test_random_games_validation():
    with pytest.raises(ValueError, match="Game"):
        mancala_envs.random_games("songo_ewondo", 3)
    with pytest.raises(ValueError, match="non-negative"):
        mancala_envs.random_games(get_game("songo_ewondo"), -1)
    for seed in (-1, "a", 1.5, True):
        with pytest.raises(ValueError, match="seed must be a non-negative integer"):
            mancala_envs.random_games(get_game("songo_ewondo"), 2, seed=seed)


def test_outcome_and_state_dicts_check_their_arguments():
    assert [mancala_envs.outcome(w, 0) for w in (0, 1, -1, -2, None)] == [1, -1, 0, 0, 0]
    for winner, seat in ((0.5, 0), (2, 0), ("0", 1), (0, 3), (0, -1)):
        with pytest.raises(ValueError, match=r"winner|seat"):
            mancala_envs.outcome(winner, seat)
    game = get_game("songo_ewondo")
    d = game.initial_state().to_dict() | {"params": [1, 2]}
    with pytest.raises(ValueError, match="params must be a mapping"):
        game.state_from_dict(d)
