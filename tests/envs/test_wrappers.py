"""SingleAgentEnv: Gymnasium/SB3 checks, seats, the opponent, rewards, endings and errors."""

import warnings

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env
from strategies import random_legal
from variants import ALL, ALL_IDS, SPREAD, SPREAD_IDS

from mancala_envs import IllegalMoveError, get_game
from mancala_envs.core.layout import NO_WINNER
from mancala_envs.envs.single import SingleAgentEnv


def highest_legal(view: dict) -> int:
    """A deterministic opponent: the rightmost legal hole."""
    return int(np.flatnonzero(view["action_mask"])[-1])


@pytest.mark.parametrize("obs_format", ["dict", "flat"])
@pytest.mark.parametrize(("name", "params"), SPREAD, ids=SPREAD_IDS)
def test_gymnasium_and_sb3_check_env(name, params, obs_format):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gym_check_env(SingleAgentEnv(name, obs_format=obs_format, **params), skip_render_check=True)
        sb3_check_env(SingleAgentEnv(name, obs_format=obs_format, **params))
    # check_env steps with unmasked samples; illegal moves end the episode quietly (info flag).
    assert [str(w.message) for w in caught] == []


def test_spaces_match_the_aec_format():
    game = get_game("en_dodoi", holes_per_row=10)
    env = SingleAgentEnv(game)
    space = env.observation_space
    assert space["observation"].shape == (game.observation_size,) and space["observation"].dtype == np.float32
    assert space["action_mask"].shape == (10,) and space["action_mask"].dtype == np.int8
    assert env.action_space.n == 10
    obs, _ = env.reset(seed=0)
    assert obs["action_mask"].dtype == np.int8 and space.contains(obs)
    flat = SingleAgentEnv(game, obs_format="flat")
    assert flat.observation_space == space["observation"]
    flat_obs, _ = flat.reset(seed=0)
    np.testing.assert_array_equal(flat_obs, obs["observation"])
    np.testing.assert_array_equal(flat.action_masks(), obs["action_mask"])


@pytest.mark.parametrize("seat", [0, 1])
def test_fixed_seat_and_opponent_callable(seat):
    """Replay every move with the core: the opponent sees its own view and its moves are applied."""
    game = get_game("sadeqa_ii")
    rng = np.random.default_rng(seat)
    tracked = {"state": game.initial_state(0)}

    def opponent(view):
        state = tracked["state"]
        assert state.to_move == 1 - seat
        np.testing.assert_array_equal(view["observation"], game.observation(state, 1 - seat))
        np.testing.assert_array_equal(view["action_mask"], game.legal_mask(state))
        action = highest_legal(view)
        tracked["state"] = game.apply(state, action)
        return action

    env = SingleAgentEnv("sadeqa_ii", opponent=opponent, seat=seat)
    obs, info = env.reset(seed=3)
    assert info["seat"] == seat and env.state.ply == seat and env.state == tracked["state"]
    done = False
    while not done:
        assert env.state.to_move == seat
        np.testing.assert_array_equal(obs["observation"], game.observation(tracked["state"], seat))
        action = random_legal(rng, obs["action_mask"])
        tracked["state"] = game.apply(tracked["state"], action)
        obs, reward, terminated, truncated, info = env.step(action)
        assert env.state == tracked["state"]
        done = terminated or truncated
    assert info["winner"] == env.state.winner
    assert reward == (1.0 if env.state.winner == seat else -1.0 if env.state.winner == 1 - seat else 0.0)


def test_random_seat_is_drawn_from_the_seed():
    env = SingleAgentEnv("songo_ewondo")
    seats = [env.reset(seed=s)[1]["seat"] for s in range(40)]
    assert set(seats) == {0, 1}
    assert seats == [env.reset(seed=s)[1]["seat"] for s in range(40)]
    for s, seat in enumerate(seats[:6]):
        env.reset(seed=s)
        assert env.seat == seat and env.state.to_move == seat and env.state.ply == seat


@pytest.mark.parametrize(("name", "params"), ALL, ids=ALL_IDS)
def test_random_games_rewards_and_final_observation(name, params):
    env = SingleAgentEnv(name, **params)
    rng = np.random.default_rng(0)
    outcomes = set()
    for episode in range(6):
        obs, info = env.reset(seed=episode)
        terminated = truncated = False
        while not (terminated or truncated):
            mask = obs["action_mask"]
            assert mask.dtype == np.int8 and set(np.unique(mask)) <= {0, 1} and mask.any()
            np.testing.assert_array_equal(mask, env.action_masks())
            obs, reward, terminated, truncated, info = env.step(random_legal(rng, mask))
            if not (terminated or truncated):
                assert reward == 0.0
        seat, winner = info["seat"], env.state.winner
        assert terminated == env.state.done and truncated == env.state.truncated
        assert info["winner"] == winner and info["illegal_action"] is False
        assert reward == (1.0 if winner == seat else -1.0 if winner == 1 - seat else 0.0)
        assert info["captured"] == (int(env.state.captured[seat]), int(env.state.captured[1 - seat]))
        assert not obs["action_mask"].any() and not env.action_masks().any()
        np.testing.assert_array_equal(obs["observation"], env.game.observation(env.state, seat))
        outcomes.add(reward)
    assert outcomes & {1.0, -1.0}
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_truncation_at_max_plies():
    env = SingleAgentEnv("songo_ewondo", seat=0, max_plies=6)
    obs, _ = env.reset(seed=1)
    rng = np.random.default_rng(1)
    for _ in range(2):
        obs, reward, terminated, truncated, info = env.step(random_legal(rng, obs["action_mask"]))
        assert not (terminated or truncated)
    obs, reward, terminated, truncated, info = env.step(random_legal(rng, obs["action_mask"]))
    assert (terminated, truncated, reward) == (False, True, 0.0)
    assert info["winner"] == NO_WINNER and env.state.ply == 6 and not obs["action_mask"].any()


def test_illegal_learner_actions():
    env = SingleAgentEnv("sadeqa_ii", seat=0)  # Sadeqa II's first move must be hole 5 (SQ4)
    env.reset(seed=0)
    before = env.state
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # quietly: the info flag is the record (check_env runs clean)
        obs, reward, terminated, truncated, info = env.step(0)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info["illegal_action"] is True and info["winner"] == 1
    assert env.state == before and not obs["action_mask"].any()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(5)

    strict = SingleAgentEnv("sadeqa_ii", seat=0, illegal_action="raise")
    strict.reset(seed=0)
    before = strict.state
    with pytest.raises(IllegalMoveError, match="legal actions: \\[5\\]"):
        strict.step(0)
    assert strict.state == before
    strict.step(np.int64(5))  # the game goes on
    for mode_env in (env, strict):
        mode_env.reset(seed=0)
        for bad in (6, -1, 1.5, "2", None, True):
            with pytest.raises(IllegalMoveError):
                mode_env.step(bad)


def test_illegal_opponent_action_raises():
    env = SingleAgentEnv("sadeqa_ii", opponent=lambda view: 0, seat=1)
    with pytest.raises(IllegalMoveError, match="opponent"):
        env.reset(seed=0)


def test_calls_before_reset_raise():
    env = SingleAgentEnv("en_dodoi")
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    with pytest.raises(RuntimeError, match="reset"):
        env.action_masks()


@pytest.mark.parametrize(
    "kwargs",
    [
        {"game": "oware"},
        {"game": get_game("sadeqa_ii"), "max_plies": 50},
        {"game": "songo_ewondo", "holes_per_row": 8},
        {"game": "songo_ewondo", "max_plies": 1},
        {"game": "songo_ewondo", "seat": 2},
        {"game": "songo_ewondo", "seat": 1.0},
        {"game": "songo_ewondo", "opponent": "chess"},
        {"game": "songo_ewondo", "opponent": 3},
        {"game": "songo_ewondo", "render_mode": "video"},
        {"game": "songo_ewondo", "obs_format": "box"},
        {"game": "songo_ewondo", "illegal_action": "ignore"},
        {"game": 3},
    ],
)
def test_invalid_arguments(kwargs):
    with pytest.raises(ValueError):
        SingleAgentEnv(**kwargs)


@pytest.mark.parametrize(("name", "params"), ALL, ids=ALL_IDS)
def test_no_game_ends_on_its_first_ply(name, params):
    """The envs rely on it: after the opponent's opening move the learner always has a move."""
    game = get_game(name, **params)
    for first in (0, 1):
        start = game.initial_state(first)
        for action in game.legal_actions(start):
            after = game.apply(start, action)
            assert not after.is_over and game.legal_actions(after)


def test_maskable_ppo_on_dict_observations():
    """SB3 handles the int8 mask inside the Dict observation (MultiInputPolicy)."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import Logger

    env = SingleAgentEnv("en_dodoi", holes_per_row=6)
    model = MaskablePPO(
        "MultiInputPolicy",
        env,
        n_steps=32,
        batch_size=32,
        n_epochs=1,
        seed=0,
        policy_kwargs={"net_arch": [8]},
    )
    model.set_logger(Logger(folder=None, output_formats=[]))  # no SB3-* folder in /tmp
    model.learn(total_timesteps=32)
    obs, _ = env.reset(seed=5)
    action, _ = model.predict(obs, action_masks=env.action_masks())
    assert obs["action_mask"][int(action)] == 1
