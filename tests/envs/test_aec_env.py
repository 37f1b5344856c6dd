"""The PettingZoo AEC environments (issue 3, part 1): PettingZoo's own checks, masks, observations,
rewards, truncation, illegal and malformed actions, arguments, rendering, pickling, the registry.
(One file over 400 lines: the checks of one class, kept beside each other.)"""

from __future__ import annotations

import functools
import importlib
import pickle
import re
import warnings

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test
from strategies import random_legal
from variants import SPREAD, SPREAD_IDS

import mancala_envs
from mancala_envs import IllegalMoveError, get_game
from mancala_envs.core.layout import NO_WINNER
from mancala_envs.envs.aec import MancalaEnv
from mancala_envs.registration import register_envs

# (module, extra kwargs): every game, and En Dodoi at widths 6, 8 and 10.
CONFIGS = [(f"{name}_v0", params) for name, params in SPREAD]
IDS = SPREAD_IDS
AGENTS = ("player_0", "player_1")


def module(name: str):
    return importlib.import_module(f"mancala_envs.{name}")


def make(config, **kwargs) -> MancalaEnv:
    name, extra = config
    return module(name).env(**{**extra, **kwargs})


def random_action(env: MancalaEnv, rng: np.random.Generator) -> int:
    return random_legal(rng, env.observe(env.agent_selection)["action_mask"])


def finish_dead_steps(env: MancalaEnv) -> None:
    """Step ``None`` for every done agent, checking that the agents list empties."""
    while env.agents:
        assert env.terminations[env.agent_selection] or env.truncations[env.agent_selection]
        env.step(None)
    assert env.rewards == {} and env.infos == {}


config_params = pytest.mark.parametrize("config", CONFIGS, ids=IDS)


# ---------------------------------------------------------------------------- PettingZoo's checks


@config_params
@pytest.mark.filterwarnings("ignore::UserWarning")  # api_test's style hints (dict spaces, zero masks)
def test_pettingzoo_api_test(config):
    api_test(make(config, first_player="random"), num_cycles=300)
    api_test(make(config, max_plies=9), num_cycles=20)  # a truncated game too


@config_params
def test_pettingzoo_seed_test(config):
    seed_test(functools.partial(make, config, first_player="random"), num_cycles=100)


@config_params
def test_pettingzoo_render_test(config, capsys):
    render_test(
        lambda render_mode: make(config, render_mode=render_mode),
        custom_tests={
            "ansi": lambda text: "player_0" in text and "hole" in text,
            "rgb_array": lambda img: len(np.unique(img.reshape(-1, 3), axis=0)) > 5,
        },
    )
    assert "hole" in capsys.readouterr().out  # human mode printed the board


# ---------------------------------------------------------------------------- documented layout


@config_params
def test_metadata_spaces_and_documented_layout(config):
    env = make(config)
    game = env.game
    n, obs_size = game.holes_per_row, game.observation_size
    assert env.metadata["name"] == config[0]
    assert env.metadata["render_modes"] == ["human", "ansi", "rgb_array"]
    assert env.metadata["is_parallelizable"] is False and env.metadata["render_fps"] > 0
    assert env.possible_agents == list(AGENTS)
    for agent in AGENTS:
        space = env.observation_space(agent)
        assert space is env.observation_space(agent) and env.action_space(agent) is env.action_space(agent)
        assert env.action_space(agent).n == n
        box, mask = space["observation"], space["action_mask"]
        assert (box.shape, box.dtype, box.low.min(), box.high.max()) == ((obs_size,), np.float32, 0, 1)
        assert (mask.shape, mask.dtype, mask.low.min(), mask.high.max()) == ((n,), np.int8, 0, 1)
    assert env.observation_space("player_0") is not env.observation_space("player_1")
    doc = module(config[0]).__doc__
    if config[0] == "en_dodoi_v0":
        assert obs_size == 2 * n + 2 and "Box(0, 1, (2n + 2,), float32)" in doc
        assert "Discrete(n)" in doc and "Box(0, 1, (n,), int8)" in doc
    else:
        assert f"Box(0, 1, ({obs_size},), float32)" in doc
        assert f"Discrete({n})" in doc and f"Box(0, 1, ({n},), int8)" in doc
    assert "Version history" in doc and re.search(r"\b(SE|SQ|ED)\d", doc)


def test_env_and_raw_env_are_the_same_unwrapped_class():
    for name in ("songo_ewondo_v0", "sadeqa_ii_v0", "en_dodoi_v0"):
        mod = module(name)
        env, raw = mod.env(), mod.raw_env()
        assert type(env) is type(raw) is mod.raw_env and env.unwrapped is env
        assert issubclass(mod.raw_env, MancalaEnv) and mod.raw_env.metadata["name"] == name
        assert set(mod.__all__) == {"env", "raw_env", "parallel_env"}


# ---------------------------------------------------------------------------- random games


@config_params
def test_random_games_follow_the_core(config):
    """Masks, observations, infos, rewards and state() along random games, checked against the
    core driven in parallel with the same actions."""
    env = make(config, first_player="random")
    game = env.game
    rng = np.random.default_rng(7)
    for episode in range(3):
        env.reset(seed=episode)
        core = game.initial_state(AGENTS.index(env.agent_selection))
        while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            np.testing.assert_array_equal(env.state(), core.array)
            mover = env.agent_selection
            assert AGENTS.index(mover) == core.to_move
            for i, agent in enumerate(AGENTS):
                obs = env.observe(agent)
                assert obs["observation"].dtype == np.float32 and obs["action_mask"].dtype == np.int8
                np.testing.assert_array_equal(obs["observation"], game.observation(core, i))
                assert env.observation_space(agent).contains(obs)
                if agent == mover:
                    np.testing.assert_array_equal(obs["action_mask"], game.legal_mask(core))
                    assert obs["action_mask"].sum() > 0
                else:
                    assert not obs["action_mask"].any()
                own, opp = (int(c) for c in (core.captured[i], core.captured[1 - i]))
                assert env.infos[agent] == {
                    "seat": i,
                    "captured": (own, opp),
                    "ply": core.ply,
                    "winner": NO_WINNER,
                    "illegal_action": False,
                }
            assert env.rewards == {"player_0": 0.0, "player_1": 0.0}
            action = random_action(env, rng)
            env.step(action)
            core = game.apply(core, action)
        # The end of a natural game (max_plies is 1000).
        assert core.done and env.state().tolist() == core.array.tolist()
        assert all(env.terminations.values()) and not any(env.truncations.values())
        expected = {a: 0.0 for a in AGENTS}
        if core.winner in (0, 1):
            expected = {a: 1.0 if i == core.winner else -1.0 for i, a in enumerate(AGENTS)}
        assert env.rewards == expected and sum(env.rewards.values()) == 0
        winner = core.winner  # a seat or DRAW: a number in the infos, not an agent name
        for i, agent in enumerate(AGENTS):
            assert not env.observe(agent)["action_mask"].any()
            assert env.infos[agent]["winner"] == winner
            np.testing.assert_array_equal(env.observe(agent)["observation"], game.observation(core, i))
        for _ in AGENTS:  # last() hands each agent its final reward before its dead step
            _, reward, terminated, truncated, _ = env.last()
            assert terminated and not truncated and reward == expected[env.agent_selection]
            env.step(None)
        assert env.agents == []


def test_observations_are_fresh_arrays():
    env = make(CONFIGS[0])
    env.reset()
    first = env.observe("player_0")
    first["observation"][:] = 0
    first["action_mask"][:] = 0
    second = env.observe("player_0")
    assert second["observation"].any() and second["action_mask"].all()
    env.step(3)
    assert not np.shares_memory(second["observation"], env.observe("player_0")["observation"])


def test_sadeqa_survivor_wins():
    """SQ6: the survivor wins; captured counts do not decide it."""
    env = module("sadeqa_ii_v0").env()
    rng = np.random.default_rng(3)
    decided = 0
    for seed in range(12):
        env.reset(seed=seed)
        while not env.terminations[env.agent_selection]:
            env.step(random_action(env, rng))
        state = env.game_state
        if state.winner in (0, 1):
            decided += 1
            winner = AGENTS[state.winner]
            assert env.game_state.board[state.winner * 6 : state.winner * 6 + 6].sum() > 0
            assert env.rewards[winner] == 1.0 and env.rewards[AGENTS[1 - state.winner]] == -1.0
    assert decided > 0


# ---------------------------------------------------------------------------- truncation


@config_params
def test_truncation_at_max_plies(config):
    env = make(config, max_plies=5)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for ply in range(5):
        assert not any(env.truncations.values()), ply
        env.step(random_action(env, rng))
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0}
    assert env.game_state.truncated and env.game_state.ply == 5
    assert all(info["winner"] == NO_WINNER for info in env.infos.values())
    for agent in AGENTS:
        assert not env.observe(agent)["action_mask"].any()
    with pytest.raises(ValueError, match="None"):
        env.step(0)  # a done agent may only step None
    finish_dead_steps(env)
    with pytest.warns(UserWarning, match="call reset"):
        env.step(None)
    env.reset()
    assert env.agents == list(AGENTS) and not any(env.truncations.values())


# ---------------------------------------------------------------------------- illegal and malformed actions


def position_with_illegal_hole(env: MancalaEnv, seed: int) -> int:
    """Play random moves until the mover has an illegal in-range hole; return that hole."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    while True:
        mask = env.observe(env.agent_selection)["action_mask"]
        if not mask.all():
            return int(np.flatnonzero(mask == 0)[0])
        env.step(random_action(env, rng))


@config_params
def test_illegal_action_terminates_by_default(config):
    env = make(config)
    bad = position_with_illegal_hole(env, seed=1)
    offender = env.agent_selection
    other = AGENTS[1 - AGENTS.index(offender)]
    before = env.state()
    with pytest.warns(UserWarning, match=f"action {bad} is illegal for {offender}"):
        env.step(bad)
    assert env.rewards == {offender: -1.0, other: 0.0}
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.infos[offender]["illegal_action"] is True and env.infos[other]["illegal_action"] is False
    assert env.infos[offender]["winner"] == env.infos[other]["winner"] == NO_WINNER  # a forfeit
    position = slice(0, 2 * env.game.holes_per_row + 2)  # board and captured are untouched
    np.testing.assert_array_equal(env.state()[position], before[position])
    assert env.game_state.done and env.game_state.winner is None
    for agent in AGENTS:
        assert not env.observe(agent)["action_mask"].any()
    assert env.agent_selection == other
    rewards = {}
    while env.agents:
        _, reward, terminated, _, _ = env.last()
        assert terminated
        rewards[env.agent_selection] = reward
        env.step(None)
    assert rewards == {offender: -1.0, other: 0.0}


@config_params
def test_illegal_action_raises_in_raise_mode(config):
    env = make(config, illegal_action="raise")
    bad = position_with_illegal_hole(env, seed=2)
    before = env.state()
    with pytest.raises(IllegalMoveError, match=f"action {bad} is illegal"):
        env.step(bad)
    np.testing.assert_array_equal(env.state(), before)
    assert not any(env.terminations.values())
    mover = env.agent_selection
    env.step(random_action(env, np.random.default_rng(0)))  # the game goes on
    assert env.agent_selection != mover or env.terminations[mover]


@pytest.mark.parametrize("mode", ["terminate", "raise"])
@pytest.mark.parametrize("action", [7, -1, 100])
def test_out_of_range_actions_raise_in_both_modes(mode, action):
    env = make(CONFIGS[0], illegal_action=mode)
    env.reset()
    before = env.state()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(IllegalMoveError, match="out of range"):
            env.step(action)
    np.testing.assert_array_equal(env.state(), before)
    assert not any(env.terminations.values())


@pytest.mark.parametrize("action", [1.0, np.float32(2), "3", None, True, np.array([1]), [2], np.array(1.0)])
def test_non_integer_actions_raise_value_error(action):
    env = make(CONFIGS[1])
    env.reset()
    with pytest.raises(ValueError, match="integer hole index") as info:
        env.step(action)
    assert not isinstance(info.value, IllegalMoveError)


@pytest.mark.parametrize("action", [np.int32(5), np.int64(5), np.uint8(5), np.array(5)])
def test_numpy_integer_actions_are_accepted(action):
    env = make(CONFIGS[1])  # Sadeqa II: the opening move is hole 5 (SQ4)
    env.reset()
    env.step(action)
    assert env.agent_selection == "player_1" and env.game_state.last_action == 5


# ---------------------------------------------------------------------------- order and arguments


def test_calls_before_reset_raise_clear_errors():
    env = make(CONFIGS[0], render_mode="ansi")
    for call in (lambda: env.step(0), lambda: env.observe("player_0"), env.state, env.render, env.last):
        with pytest.raises((RuntimeError, AttributeError), match="reset"):
            call()
    for attribute in ("agents", "rewards", "terminations", "truncations", "infos", "agent_selection"):
        with pytest.raises(AttributeError, match="before reset"):
            getattr(env, attribute)
    assert not hasattr(env, "no_such_attribute")
    env.reset()
    with pytest.raises(ValueError, match="unknown agent"):
        env.observe("player_2")


@pytest.mark.parametrize(
    ("name", "kwargs", "message"),
    [
        ("songo_ewondo_v0", {"holes_per_row": 8}, "holes_per_row"),
        ("sadeqa_ii_v0", {"seed": 1}, "unexpected keyword argument 'seed'"),
        ("songo_ewondo_v0", {"max_plies": 0}, "max_plies"),
        ("songo_ewondo_v0", {"max_plies": 2.5}, "max_plies"),
        ("en_dodoi_v0", {"holes_per_row": 11}, "holes_per_row"),
        ("en_dodoi_v0", {"holes_per_row": 5}, "holes_per_row"),
        ("en_dodoi_v0", {"first_player": "player_2"}, "first_player"),
        ("en_dodoi_v0", {"first_player": 0}, "first_player"),
        ("sadeqa_ii_v0", {"render_mode": "video"}, "render_mode"),
        ("sadeqa_ii_v0", {"illegal_action": "ignore"}, "illegal_action"),
    ],
)
def test_bad_arguments_raise_value_error(name, kwargs, message):
    with pytest.raises(ValueError, match=message):
        module(name).env(**kwargs)


def test_direct_class_arguments():
    game = get_game("en_dodoi", holes_per_row=7, max_plies=30)
    env = MancalaEnv(game)
    assert env.metadata["name"] == "en_dodoi_v0" and env.action_space("player_0").n == 7
    with pytest.raises(ValueError, match="apply to a game name, not to a Game"):
        MancalaEnv(game, max_plies=10)
    with pytest.raises(ValueError, match=r"game name or a mancala_envs\.Game"):
        MancalaEnv(3)


@config_params
def test_first_player_options(config):
    for first, index in (("player_0", 0), ("player_1", 1)):
        env = make(config, first_player=first)
        env.reset()
        assert env.agent_selection == first and env.game_state.to_move == index
        assert env.observe(first)["action_mask"].any()
        assert not env.observe(AGENTS[1 - index])["action_mask"].any()
    env = make(config, first_player="random")
    firsts = []
    for seed in range(16):
        env.reset(seed=seed)
        firsts.append(env.agent_selection)
        twin = make(config, first_player="random")
        twin.reset(seed=seed)
        assert twin.agent_selection == env.agent_selection
    assert set(firsts) == set(AGENTS)


def test_unseeded_resets_continue_the_seeded_stream():
    a, b = (make(CONFIGS[2], first_player="random") for _ in range(2))
    a.reset(seed=5)
    b.reset(seed=5)
    for _ in range(10):
        a.reset()
        b.reset()
        assert a.agent_selection == b.agent_selection


# ---------------------------------------------------------------------------- pickling


@config_params
def test_pickle_round_trip_mid_game(config):
    env = make(config, first_player="random")
    env.reset(seed=11)
    rng = np.random.default_rng(11)
    for _ in range(6):
        env.step(random_action(env, rng))
    clone = pickle.loads(pickle.dumps(env))
    np.testing.assert_array_equal(clone.state(), env.state())
    assert clone.agent_selection == env.agent_selection and clone.infos == env.infos
    while env.agents:
        obs_a, rew_a, term_a, trunc_a, info_a = env.last()
        obs_b, rew_b, term_b, trunc_b, info_b = clone.last()
        for key in obs_a:
            np.testing.assert_array_equal(obs_a[key], obs_b[key])
        assert (rew_a, term_a, trunc_a, info_a) == (rew_b, term_b, trunc_b, info_b)
        action = None if term_a or trunc_a else random_action(env, rng)
        env.step(action)
        clone.step(action)
        assert clone.agent_selection == env.agent_selection
        np.testing.assert_array_equal(clone.state(), env.state())
    assert clone.agents == []
    # The random first player continues from the pickled generator.
    env.reset()
    clone.reset()
    assert clone.agent_selection == env.agent_selection


def test_pickle_before_reset():
    clone = pickle.loads(pickle.dumps(make(CONFIGS[0])))
    clone.reset(seed=0)
    assert clone.agent_selection == "player_0"


# ---------------------------------------------------------------------------- rendering


def board_rows(text: str) -> list[list[int]]:
    """The two rows of numbers between the hole-label lines of an ansi board (the last move's
    hole is in brackets)."""
    lines = text.splitlines()
    labels = [i for i, line in enumerate(lines) if line.lstrip().startswith("hole")]
    return [[int(v.strip("[]")) for v in lines[i].split()] for i in range(labels[0] + 1, labels[1])]


@config_params
def test_ansi_board(config):
    env = make(config, render_mode="ansi")
    env.reset()
    n = env.game.holes_per_row
    text = env.render()
    assert config[0] in text and "player_0 to move" in text and "last move: none" in text
    assert "hole" + "".join(f"{i:>4}" for i in range(n)) in text
    assert "hole" + "".join(f"{i:>4}" for i in reversed(range(n))) in text
    env.step(int(np.flatnonzero(env.observe("player_0")["action_mask"])[-1]))
    played = env.game_state.last_action
    text = env.render()
    assert "player_1 to move" in text and f"last move: player_0 played hole {played}" in text
    assert f"[{env.game_state.board[played]}]" in text  # player_0's hole, marked
    state = env.game_state
    top, bottom = board_rows(text)
    # fixed orientation: player_0 at the bottom whoever is to move
    assert bottom == state.board[:n].tolist()  # player_0's own row, left to right from his seat
    assert top == state.board[n:][::-1].tolist()  # player_1's row, each hole above the one it faces
    if env.game.name == "sadeqa_ii":  # won by survival: no stores, no captured counts on the board
        assert "captured" not in text and re.search(r"player_1\s+<- to move", text)
    else:
        assert re.search(rf"player_0\s+captured\s+{state.captured[0]}", text)
        assert re.search(rf"player_1\s+captured\s+{state.captured[1]}\s+<- to move", text)


def test_ansi_board_reports_the_end():
    env = make(CONFIGS[0], render_mode="ansi", max_plies=2)
    env.reset()
    env.step(3)
    env.step(3)
    assert "truncated at ply 2" in env.render()
    env = make(CONFIGS[1], render_mode="ansi")
    env.reset()
    with pytest.warns(UserWarning):
        env.step(0)  # SQ4: only hole 5 opens
    assert "player_0 forfeited by illegal action 0" in env.render()


@config_params
def test_rgb_array(config):
    env = make(config, render_mode="rgb_array")
    env.reset()
    first = env.render()
    assert first.ndim == 3 and first.shape[2] == 3 and first.dtype == np.uint8
    assert first.shape[1] > first.shape[0] > 100
    assert len(np.unique(first.reshape(-1, 3), axis=0)) > 5
    env.step(int(np.flatnonzero(env.observe("player_0")["action_mask"])[0]))
    second = env.render()
    assert second.shape == first.shape and not np.array_equal(first, second)


def test_render_without_mode_warns():
    env = make(CONFIGS[0])
    env.reset()
    with pytest.warns(UserWarning, match="render_mode"):
        assert env.render() is None


def test_human_mode_prints_after_reset_and_steps(capsys):
    env = make(CONFIGS[2], render_mode="human")
    env.reset()
    assert "player_0 to move" in capsys.readouterr().out
    env.step(0)
    assert "last move: player_0 played hole 0" in capsys.readouterr().out


# ---------------------------------------------------------------------------- registry


@pytest.mark.parametrize(
    ("env_id", "kwargs", "name", "holes"),
    [
        ("mancala/songo_ewondo-v0", {}, "songo_ewondo_v0", 7),
        ("mancala/sadeqa_ii-v0", {}, "sadeqa_ii_v0", 6),
        ("mancala/en_dodoi-v0", {}, "en_dodoi_v0", 8),
        ("mancala/en_dodoi_v0", {"holes_per_row": 10}, "en_dodoi_v0", 10),
    ],
)
def test_registry_make(env_id, kwargs, name, holes):
    assert mancala_envs  # importing the package registered the envs
    env = pettingzoo.make("aec", env_id, **kwargs)
    assert isinstance(env, MancalaEnv) and env.metadata["name"] == name
    assert env.action_space("player_0").n == holes
    env.reset(seed=0)
    assert env.agent_selection == "player_0"


def test_register_envs_is_idempotent():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert register_envs() is True
        assert register_envs() is True
    assert {"mancala/songo_ewondo-v0", "mancala/sadeqa_ii-v0", "mancala/en_dodoi-v0"} <= set(
        pettingzoo.aec_registry
    )
