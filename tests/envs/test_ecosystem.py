"""Ecosystem fit (issue 15): Gymnasium ids and vector env, PettingZoo parallel API and classes,
SuperSuit on the flat AEC observation, positions in and out of every env, pictures."""

from __future__ import annotations

import importlib
import json
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo import AECEnv
from pettingzoo.test import max_cycles_test, parallel_api_test
from strategies import random_legal, walk
from variants import GAME_NAMES

import mancala_envs
from mancala_envs import get_game
from mancala_envs.envs.gym_vector import MancalaVectorEnv
from mancala_envs.envs.single import SingleAgentEnv
from mancala_envs.envs.vector import MancalaVecEnv
from mancala_envs.registration import ENV_IDS, GYM_IDS
from mancala_envs.render import ansi_board, result_text, svg_board, write_gif

MODULES = [f"{name}_v0" for name in GAME_NAMES]
GYM = sorted(GYM_IDS.items())


def random_moves(game, state, rng, k):
    """``k`` uniformly random legal moves from ``state`` (fewer if the game ends)."""
    return walk(game, rng, state, plies=k)


@pytest.mark.parametrize(("env_id", "name"), GYM)
def test_gymnasium_make_passes_kwargs_and_check_env_is_silent(env_id, name):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        env = gymnasium.make(env_id, opponent="minimax:depth=2", render_mode="rgb_array")
        check_env(env.unwrapped)
    assert [str(w.message) for w in caught] == []
    assert env.spec.id == env_id and env.unwrapped.game.name == name
    assert env.unwrapped.opponent.name == "minimax:depth=2"
    env.reset(seed=0)
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3


def test_gymnasium_make_passes_game_parameters():
    env = gymnasium.make("mancala_envs/EnDodoi-v0", holes_per_row=10)
    assert env.unwrapped.game.holes_per_row == 10 and env.action_space.n == 10
    # a keyword that is neither the env's nor the game's: both lists in the message
    match = r"unexpected keyword argument 'foo'; its arguments are opponent, .*max_plies"
    with pytest.raises(TypeError, match=match):  # also a ValueError, as before
        gymnasium.make("mancala_envs/SongoEwondo-v0", foo=1)


def test_record_video_watches_an_episode(tmp_path):
    pytest.importorskip("moviepy")
    env = gymnasium.make("mancala_envs/SadeqaII-v0", opponent="greedy", render_mode="rgb_array")
    env = gymnasium.wrappers.RecordVideo(
        env, str(tmp_path), episode_trigger=lambda _: True, disable_logger=True
    )
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(3)
    done = False
    while not done:
        action = random_legal(rng, obs["action_mask"])
        obs, _, terminated, truncated, _ = env.step(action)
        done = terminated or truncated
    env.close()
    videos = list(tmp_path.glob("*.mp4"))
    assert len(videos) == 1 and videos[0].stat().st_size > 1000


@pytest.mark.parametrize(("env_id", "name"), GYM)
def test_make_vec_is_the_compiled_vector_env(env_id, name):
    envs = gymnasium.make_vec(env_id, num_envs=6, opponent="random")
    assert isinstance(envs, MancalaVectorEnv) and envs.game.name == name
    obs, infos = envs.reset(seed=1)
    assert obs.shape == (6, envs.game.observation_size) and obs.dtype == np.float32
    assert infos["action_mask"].shape == (6, envs.game.holes_per_row)
    assert envs.observation_space.contains(obs)
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(400):
        actions = np.array([random_legal(rng, m) for m in infos["action_mask"]])
        obs, rewards, terminated, truncated, infos = envs.step(actions)
        assert rewards.shape == (6,) and terminated.dtype == bool
        done = terminated | truncated
        if done.any():
            final = infos["final_info"]
            assert np.array_equal(infos["_final_obs"], done)
            for i in np.flatnonzero(done):
                assert infos["final_obs"][i].shape == obs[i].shape
                # the reward is the seat's outcome of the final winner
                w = final["winner"][i]
                expect = 0.0 if w < 0 else (1.0 if w == final["seat"][i] else -1.0)
                assert rewards[i] == expect and not final["illegal_action"][i]
            finished += int(done.sum())
        assert not rewards[~done].any()
    assert finished > 6
    envs.close()


def test_vector_env_follows_the_sb3_env_it_wraps():
    """Same seed, same actions: the Gymnasium vector env and MancalaVecEnv see the same games."""
    gym_env = MancalaVectorEnv("songo_ewondo", num_envs=4, opponent="greedy", seed=5)
    sb3_env = MancalaVecEnv("songo_ewondo", 4, opponent="greedy", seed=5)
    a_obs, infos = gym_env.reset()
    b_obs = sb3_env.reset()
    rng = np.random.default_rng(1)
    for _ in range(100):
        assert np.array_equal(a_obs, b_obs)
        masks = infos["action_mask"]
        assert np.array_equal(masks, sb3_env.action_masks())
        actions = np.array([random_legal(rng, m) for m in masks])
        a_obs, a_rew, term, trunc, infos = gym_env.step(actions)
        b_obs, b_rew, dones, _ = sb3_env.step(actions)
        assert np.array_equal(a_rew, b_rew) and np.array_equal(term | trunc, dones)


def test_vector_env_checks_its_input():
    envs = MancalaVectorEnv("sadeqa_ii", num_envs=2)
    with pytest.raises(ValueError, match="one seed"):
        envs.reset(seed=[1, 2])
    with pytest.raises(ValueError, match="unknown reset option"):
        envs.reset(options={"board": 1})
    with pytest.raises(ValueError, match="obs_format must be 'flat' or 'dict'"):
        MancalaVectorEnv("sadeqa_ii", num_envs=2, obs_format="pixels")


def test_vector_env_dict_observations_are_the_flat_games():
    """``obs_format="dict"``: the flat env's games, the masks inside the observations (not in the
    infos), the last observation's mask all zero; the spaces those of ``gymnasium.make`` batched."""
    flat = MancalaVectorEnv("en_dodoi", num_envs=3, seed=4)
    as_dict = MancalaVectorEnv("en_dodoi", num_envs=3, seed=4, obs_format="dict")
    assert as_dict.single_observation_space == SingleAgentEnv("en_dodoi").observation_space
    (f_obs, f_infos), (d_obs, d_infos) = flat.reset(seed=1), as_dict.reset(seed=1)
    rng, ended = np.random.default_rng(0), 0
    for _ in range(150):
        assert as_dict.observation_space.contains(d_obs) and "action_mask" not in d_infos
        np.testing.assert_array_equal(f_obs, d_obs["observation"])
        np.testing.assert_array_equal(f_infos["action_mask"], d_obs["action_mask"])
        for key in ("seat", "captured", "ply", "winner", "illegal_action"):
            np.testing.assert_array_equal(f_infos[key], d_infos[key])
        masks = f_infos["action_mask"]
        actions = np.argmax(masks * rng.random(masks.shape), axis=1)
        f_obs, f_rewards, _, _, f_infos = flat.step(actions)
        d_obs, d_rewards, terminated, truncated, d_infos = as_dict.step(actions)
        np.testing.assert_array_equal(f_rewards, d_rewards)
        for i in np.flatnonzero(terminated | truncated):
            last = d_infos["final_obs"][i]
            np.testing.assert_array_equal(last["observation"], f_infos["final_obs"][i])
            assert last["action_mask"].dtype == np.int8 and not last["action_mask"].any()
            ended += 1
    assert ended >= 3


def test_vector_env_starts_from_given_states():
    game = get_game("en_dodoi")
    rng = np.random.default_rng(2)
    states = [random_moves(game, game.initial_state(), rng, k) for k in (3, 6)]
    envs = MancalaVectorEnv(game, num_envs=2, seed=0)
    seats = [s.to_move for s in states]
    obs, infos = envs.reset(options={"states": states, "seats": seats})
    assert list(infos["seat"]) == seats
    for i, s in enumerate(states):
        assert np.array_equal(obs[i], game.observation(s, s.to_move))
        assert np.array_equal(infos["action_mask"][i], game.legal_mask(s))
    # a learner not to move: the opponent replies first, then the learner sees the position
    obs, infos = envs.reset(options={"states": states, "seats": [1 - t for t in seats]})
    assert not np.array_equal(obs[0], game.observation(states[0], 1 - seats[0]))


@pytest.mark.parametrize("module", MODULES)
def test_parallel_env_passes_pettingzoo_api_test(module):
    mod = importlib.import_module(f"mancala_envs.{module}")
    parallel_api_test(mod.parallel_env(), num_cycles=200)


class MaskedSampling:
    """A game module whose envs' action spaces sample legal moves only.

    PettingZoo's ``max_cycles_test`` plays ``action_space(agent).sample()``; in these games an
    unmasked sample is often illegal (SQ4 forces Sadeqa II's first moves), which ends the game at
    once. Its assertions are about ``max_cycles``, so it runs here with masked samples."""

    def __init__(self, mod):
        self.mod = mod

    @staticmethod
    def _masked(env, mask_of):
        rng = np.random.default_rng(0)
        inner = env.aec_env if hasattr(env, "aec_env") else env

        class Space:
            def __init__(self, agent):
                self.agent = agent

            def sample(self):
                return random_legal(rng, mask_of(inner, self.agent))

        env.action_space = Space  # type: ignore[method-assign]
        return env

    def parallel_env(self, **kw):
        def mask(inner, agent):
            return inner.game.legal_mask(inner.game_state) if agent == inner.agent_selection else [1]

        return self._masked(self.mod.parallel_env(**kw), mask)

    def env(self, **kw):
        return self._masked(self.mod.env(**kw), lambda inner, agent: inner.game.legal_mask(inner.game_state))


@pytest.mark.parametrize("module", MODULES)
def test_max_cycles(module):
    max_cycles_test(MaskedSampling(importlib.import_module(f"mancala_envs.{module}")))


@pytest.mark.parametrize("module", MODULES)
def test_modules_export_classes_and_no_helpers(module):
    mod = importlib.import_module(f"mancala_envs.{module}")
    assert isinstance(mod.raw_env, type) and issubclass(mod.raw_env, AECEnv)
    assert mod.raw_env.metadata["name"] == module and "render_modes" in mod.raw_env.metadata
    public = {k for k in vars(mod) if not k.startswith("_")}
    assert public - {"annotations"} <= {"env", "raw_env", "parallel_env", "MancalaEnv", "MancalaParallelEnv"}
    assert mod.__all__ == ["env", "parallel_env", "raw_env"]


@pytest.mark.parametrize("env_id", sorted(ENV_IDS))
def test_pettingzoo_registry(env_id):
    from pettingzoo import make

    assert mancala_envs.register_envs()
    env = make("aec", env_id)
    env.reset(seed=0)
    assert env.agent_selection in env.possible_agents


def test_supersuit_wraps_the_flat_aec_observation():
    ss = pytest.importorskip("supersuit")
    from mancala_envs import songo_ewondo_v0

    env = ss.dtype_v0(songo_ewondo_v0.env(obs_format="flat"), np.float64)
    env = ss.normalize_obs_v0(env, env_min=-1.0, env_max=1.0)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _agent in env.agent_iter(max_iter=60):
        obs, _, term, trunc, info = env.last()
        assert obs.dtype == np.float64 and obs.shape == (16,) and obs.min() >= -1.0
        env.step(None if term or trunc else random_legal(rng, info["action_mask"]))


@pytest.mark.parametrize("name", GAME_NAMES)
def test_state_json_round_trip(name):
    game = get_game(name)
    rng = np.random.default_rng(4)
    for k in (0, 1, 7, 30, 400):
        state = random_moves(game, game.initial_state(), rng, k)
        text = json.dumps(state.to_dict())
        back = game.state_from_dict(json.loads(text))
        assert back == state and back.ply == state.ply and back.winner == state.winner
    other = get_game("en_dodoi", holes_per_row=9)
    with pytest.raises(ValueError, match=r"game|holes"):
        other.state_from_dict(get_game("en_dodoi").initial_state().to_dict())


@pytest.mark.parametrize("module", MODULES)
def test_aec_reset_starts_from_a_state(module):
    env = importlib.import_module(f"mancala_envs.{module}").env()
    game = env.game
    state = random_moves(game, game.initial_state(), np.random.default_rng(9), 5)
    for given in (state, state.to_dict()):
        env.reset(seed=1, options={"state": given})
        agent = env.agent_selection
        assert agent == f"player_{state.to_move}"
        obs = env.observe(agent)
        assert np.array_equal(obs["observation"], game.observation(state, state.to_move))
        assert np.array_equal(obs["action_mask"], game.legal_mask(state))


@pytest.mark.parametrize("name", GAME_NAMES)
def test_single_agent_reset_starts_from_a_state(name):
    game = get_game(name)
    state = random_moves(game, game.initial_state(), np.random.default_rng(11), 4)
    env = SingleAgentEnv(game, seat=state.to_move)
    obs, _ = env.reset(seed=0, options={"state": state.to_dict()})
    assert env.state == state
    assert np.array_equal(obs["observation"], game.observation(state, state.to_move))
    with pytest.warns(UserWarning, match="position"):
        env.reset(options={"position": state})


def test_state_shows_as_a_board_in_notebooks():
    game = get_game("sadeqa_ii")
    svg = game.initial_state()._repr_svg_()
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    # a number per hole and a caption; no stores for Sadeqa II (SQ6 decides by survival)
    assert svg.count("<text") == 2 * game.holes_per_row + 1
    songo = get_game("songo_ewondo")
    assert svg_board(songo, songo.initial_state()).count("<text") == 2 * songo.holes_per_row + 2 + 1


def test_gif_of_a_game(tmp_path):
    from PIL import Image

    game = get_game("songo_ewondo")
    rng = np.random.default_rng(0)
    states = [game.initial_state()]
    for _ in range(5):
        states.append(random_moves(game, states[-1], rng, 1))
    path = tmp_path / "game.gif"
    write_gif(game, states, path)
    with Image.open(path) as im:
        assert im.n_frames == len(states)
    with pytest.raises(ValueError, match="at least one state"):
        write_gif(game, [], tmp_path / "x.gif")


def test_text_board_keeps_its_orientation():
    """The bottom row is the same player's before and after a move (a human's row stays put)."""
    game = get_game("songo_ewondo")
    s0 = game.initial_state()
    s1 = game.apply(s0, 0)
    for bottom in (0, 1):
        last = [ansi_board(game, s, bottom=bottom).splitlines()[-1].split("<-")[0] for s in (s0, s1)]
        assert last[0].strip() == last[1].strip()  # the bottom line names the same player
        assert last[0].startswith(f"player_{bottom}")


def capturing_move(game, seed: int = 0, after: int = 0):
    """``(states, k)``: a seeded random game whose move ``k`` (from ``states[k]`` to
    ``states[k + 1]``, ``k >= after``) captured seeds."""
    rng = np.random.default_rng(seed)
    states = [game.initial_state()]
    while not states[-1].is_over:
        states.append(random_moves(game, states[-1], rng, 1))
        if len(states) - 2 >= after and (states[-1].captured != states[-2].captured).any():
            return states, len(states) - 2
    pytest.fail(f"no capture in a random {game.name} game (seed {seed})")


@pytest.mark.parametrize("name", mancala_envs.GAMES)
def test_text_board_marks_the_last_move(name):
    game = get_game(name)
    s0 = game.initial_state()
    n = game.holes_per_row
    assert "[" not in ansi_board(game, s0) and "[" not in ansi_board(game, s0, bottom=1)
    action = int(np.flatnonzero(game.legal_mask(s0))[0])
    s1 = game.apply(s0, action)
    for bottom in (0, 1):
        lines = ansi_board(game, s1, bottom=bottom).splitlines()
        top_row, bottom_row = lines[5], lines[6]
        assert len(top_row) == len(bottom_row) == len(lines[4])  # the columns stay aligned
        assert top_row.count("[") + bottom_row.count("[") == 1
        cells = [(bottom_row if bottom == 0 else top_row)[6 + 4 * j : 10 + 4 * j] for j in range(n)]
        j = action if bottom == 0 else n - 1 - action  # player_0's row: at the top, read right to left
        assert cells[j] == f"[{s1.board[action]}]".rjust(4)
        assert sum("[" in c for c in cells) == 1
    s2 = game.apply(s1, int(np.flatnonzero(game.legal_mask(s1))[-1]))
    row1 = ansi_board(game, s2).splitlines()[5]  # player_1's move: marked in the top row
    assert "[" in row1


@pytest.mark.parametrize("name", mancala_envs.GAMES)
def test_text_board_shows_the_seeds_a_move_captured(name):
    game = get_game(name)
    states, k = capturing_move(game, seed=1)
    before, after = states[k], states[k + 1]
    gained = (after.captured - before.captured).tolist()
    mover = before.to_move
    assert gained[mover] > 0
    plain = ansi_board(game, after)
    assert "(+" not in plain and " seed" not in plain  # without previous: the counts alone
    for bottom in (0, 1):
        lines = ansi_board(game, after, bottom=bottom, previous=before).splitlines()
        name_line = {int(line[7]): line for line in (lines[3], lines[8])}  # "player_0 ..." -> 0
        if game.name == "sadeqa_ii":  # no stores: the capture follows the capturer's name
            assert f"player_{mover}   captured {gained[mover]} seed" in name_line[mover]
            assert "(+" not in "".join(lines)
        else:
            for player in (0, 1):
                tail = f" (+{gained[player]})" if gained[player] else ""
                assert f"captured {after.captured[player]:>3}{tail}" in name_line[player]
    with pytest.raises(ValueError, match="not the first one after one move"):
        ansi_board(game, after, previous=after)


def test_sadeqa_results_speak_of_survival():
    game = get_game("sadeqa_ii")
    rng = np.random.default_rng(1)
    for _ in range(20):
        state = random_moves(game, game.initial_state(), rng, 10_000)
        if state.done and state.winner is not None and state.winner >= 0:
            text = result_text(game, state)
            assert "no seeds left" in text and "captured" not in text
            return
    pytest.fail("no decided Sadeqa II game in 20 random games")
