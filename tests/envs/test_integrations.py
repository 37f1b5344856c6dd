"""The RL libraries of docs/works-with.md, each for at least two full games, and what they rely on.

``test_works_with_snippet`` runs the page's ```python blocks as written, one test per section
(the blocks of a section in order, in one namespace), so the page and the tests cannot drift
apart; a section whose imports are missing is skipped with the extra that brings them. The other
tests check the env behaviour those libraries need: numeric info values with the same keys and
types in every env from ``reset`` on, ``TypeError`` for unknown keyword arguments, the parallel
env's ``waiting_noop`` under TorchRL's masked random sampling, the Parallel registry and the
first-compilation note.
"""

from __future__ import annotations

import ast
import importlib
import logging
import re
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import pettingzoo
import pytest
from gymnasium.vector import AutoresetMode
from strategies import random_legal, random_legal_batch

import mancala_envs
from mancala_envs import songo_ewondo_v0
from mancala_envs.core.layout import DRAW, NO_WINNER
from mancala_envs.envs.aec import MancalaEnv
from mancala_envs.envs.common import INFO_KEYS, UnknownArgumentError
from mancala_envs.envs.parallel import NOOP_ACTION, MancalaParallelEnv
from mancala_envs.envs.single import SingleAgentEnv
from mancala_envs.registration import ENV_IDS, GYM_IDS, PARALLEL_IDS, parallel_entry_point
from mancala_envs.rulesets import registered_games

PAGE = Path(__file__).parents[2] / "docs" / "works-with.md"
SECTIONS = (
    "Stable-Baselines3 + sb3-contrib",
    "SuperSuit",
    "TorchRL",
    "Tianshou",
    "CleanRL-style loop",
    "RLlib",
    "pgx + mctx",
)
# the extra that installs each optional import of the page
EXTRA = {
    "torch": "agents",
    "stable_baselines3": "sb3",
    "sb3_contrib": "sb3",
    "supersuit": "dev",
    "torchrl": "integrations",
    "tensordict": "integrations",
    "tianshou": "integrations",
    "ray": "rllib",
    "jax": "jax",
    "pgx": "jax",
    "mctx": "jax",
}
pytestmark = [
    pytest.mark.filterwarnings("ignore:PettingZoo in TorchRL is tested"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
]


def page_sections() -> dict[str, str]:
    """Each ``## `` section of the page with python blocks (a library's): their code, joined in
    order. Sections without code (the known limits) are prose."""
    sections: dict[str, str] = {}
    for chunk in re.split(r"^## ", PAGE.read_text(), flags=re.M)[1:]:
        title, _, body = chunk.partition("\n")
        code = "\n".join(re.findall(r"```python\n(.*?)```", body, flags=re.S))
        if code.strip():
            sections[title.strip()] = code
    return sections


def test_the_page_has_a_section_with_code_for_every_library():
    assert list(page_sections()) == list(SECTIONS)
    assert "\n## Known limits\n" in PAGE.read_text()


def require_imports(code: str) -> None:
    """Skip unless every optional library ``code`` imports is installed."""
    for node in ast.walk(ast.parse(code)):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        for name in names:
            root = name.partition(".")[0]
            if root in EXTRA:
                pytest.importorskip(name, reason=f"needs {name}: pip install -e '.[{EXTRA[root]}]'")


@pytest.mark.parametrize("section", SECTIONS)
def test_works_with_snippet(section):
    code = page_sections()[section]
    require_imports(code)
    namespace: dict[str, Any] = {"__name__": "works_with"}
    exec(compile(code, f"{PAGE.name}#{section}", "exec"), namespace)


# ---------------------------------------------------------------------------- infos


def check_info(info: dict[str, Any], seat: int | None = None, flat: bool = False) -> None:
    """One info dict: the keys of INFO_KEYS (and the mask when flat), plain numbers of fixed types."""
    assert set(info) == set(INFO_KEYS) | ({"action_mask"} if flat else set()), sorted(info)
    assert type(info["seat"]) is int and info["seat"] in (0, 1)
    if seat is not None:
        assert info["seat"] == seat
    own, opp = info["captured"]
    assert type(info["captured"]) is tuple and type(own) is int and type(opp) is int
    assert type(info["ply"]) is int and info["ply"] >= 0
    assert type(info["winner"]) is int and info["winner"] in (0, 1, DRAW, NO_WINNER)
    assert type(info["illegal_action"]) is bool
    if flat:
        assert info["action_mask"].dtype == np.int8


@pytest.mark.parametrize("obs_format", ["dict", "flat"])
@pytest.mark.parametrize("max_plies", [1000, 7])  # natural ends and truncations
def test_aec_infos_are_numbers_with_the_same_keys_from_reset(obs_format, max_plies):
    env = songo_ewondo_v0.env(obs_format=obs_format, max_plies=max_plies)
    flat = obs_format == "flat"
    rng = np.random.default_rng(0)
    for game in range(2):
        env.reset(seed=game)
        for i, agent in enumerate(env.agents):
            check_info(env.infos[agent], seat=i, flat=flat)
            assert env.infos[agent]["winner"] == NO_WINNER
        while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            agent = env.agent_selection
            mask = env.infos[agent]["action_mask"] if flat else env.observe(agent)["action_mask"]
            env.step(random_legal(rng, mask))
            for i, a in enumerate(env.agents):
                check_info(env.infos[a], seat=i, flat=flat)
        winners = {info["winner"] for info in env.infos.values()}
        assert len(winners) == 1
        if max_plies == 7:
            assert winners == {NO_WINNER} and all(env.truncations.values())
        else:
            (winner,) = winners
            assert winner != NO_WINNER
            for i, agent in enumerate(env.agents):
                assert env.rewards[agent] == (0.0 if winner == DRAW else 1.0 if i == winner else -1.0)


def test_aec_illegal_forfeit_info():
    env = songo_ewondo_v0.env()
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    mask = env.observe(env.agent_selection)["action_mask"]
    while mask.all():  # play on until the mover has an illegal hole
        env.step(random_legal(rng, mask))
        mask = env.observe(env.agent_selection)["action_mask"]
    offender = env.agent_selection
    with pytest.warns(UserWarning, match="illegal"):
        env.step(int(np.flatnonzero(mask == 0)[0]))
    for agent, info in env.infos.items():
        check_info(info)
        assert info["illegal_action"] is (agent == offender) and info["winner"] == NO_WINNER


@pytest.mark.parametrize("waiting_noop", [False, True])
def test_parallel_infos_match_the_aec_env(waiting_noop):
    env = songo_ewondo_v0.parallel_env(waiting_noop=waiting_noop, obs_format="flat")
    rng = np.random.default_rng(1)
    _, infos = env.reset(seed=0)
    steps = 0
    while env.agents:
        for i, agent in enumerate(env.agents):
            check_info(infos[agent], seat=i, flat=True)
        mover = env.agent_selection
        actions = {mover: random_legal(rng, infos[mover]["action_mask"])}
        _, _, _, _, infos = env.step(actions)
        steps += 1
    for i, info in enumerate(infos.values()):
        check_info(info, seat=i, flat=True)
    assert steps > 2 and info["winner"] in (0, 1, DRAW)


@pytest.mark.parametrize("obs_format", ["dict", "flat"])
def test_single_agent_infos_are_numbers_with_the_same_keys_from_reset(obs_format):
    env = SingleAgentEnv("en_dodoi", opponent="random", obs_format=obs_format, max_plies=40)
    flat = obs_format == "flat"
    rng = np.random.default_rng(2)
    ends = set()
    for game in range(4):
        _, info = env.reset(seed=game)
        check_info(info, seat=env.seat, flat=flat)
        assert info["winner"] == NO_WINNER and info["illegal_action"] is False
        done = False
        while not done:
            _, _, terminated, truncated, info = env.step(random_legal(rng, env.action_masks()))
            check_info(info, seat=env.seat, flat=flat)
            done = terminated or truncated
        ends.add((truncated, info["winner"]))
        assert (info["winner"] == NO_WINNER) == truncated
    assert {t for t, _ in ends} == {False, True}  # both kinds of end were seen


def test_single_agent_forfeit_info_is_the_opponents_win():
    env = SingleAgentEnv("sadeqa_ii", seat=0)  # the first move must be hole 5 (SQ4)
    env.reset(seed=0)
    _, reward, terminated, _, info = env.step(0)
    check_info(info, seat=0)
    assert (reward, terminated, info["illegal_action"], info["winner"]) == (-1.0, True, True, 1)


def test_sb3_vector_env_infos_have_the_same_keys():
    from mancala_envs.envs import MancalaVecEnv

    venv = MancalaVecEnv("songo_ewondo", num_envs=3, opponent="random", max_plies=9)
    venv.reset()
    for i, info in enumerate(venv.reset_infos):
        check_info(info, seat=int(venv.seats[i]))
        assert info["winner"] == NO_WINNER and info["illegal_action"] is False
    ends = 0
    for _ in range(12):
        seats = venv.seats
        _, _, dones, infos = venv.step(np.array([np.flatnonzero(m)[0] for m in venv.action_masks()]))
        for i, info in enumerate(infos):
            extra = {"terminal_observation", "TimeLimit.truncated"} if dones[i] else set()
            assert extra <= set(info)
            check_info({k: v for k, v in info.items() if k not in extra}, seat=int(seats[i]))
            assert (info["winner"] == NO_WINNER) == (not dones[i] or info["TimeLimit.truncated"])
        ends += int(dones.sum())
    assert ends >= 3  # every game was truncated at least once


def check_vector_infos(infos: dict[str, Any], num_envs: int, compiled: bool = True) -> None:
    """Gymnasium vector infos: every key of INFO_KEYS, with its all-True ``_key`` mask; ``int64``
    numbers and bool ``illegal_action``; ``captured`` ``(num_envs, 2)`` in the compiled env, an
    object array of ``(own, opp)`` tuples in Gymnasium's sync/async envs."""
    assert set(INFO_KEYS) <= set(infos), sorted(infos)
    for key in INFO_KEYS:
        assert infos[f"_{key}"].dtype == bool and infos[f"_{key}"].all(), key
        assert len(infos[key]) == num_envs, key
    for key in ("seat", "ply", "winner"):
        assert infos[key].dtype == np.int64 and infos[key].shape == (num_envs,), key
    assert infos["illegal_action"].dtype == bool
    assert set(infos["seat"].tolist()) <= {0, 1}
    assert set(infos["winner"].tolist()) <= {0, 1, DRAW, NO_WINNER}
    if compiled:
        assert infos["captured"].dtype == np.int64 and infos["captured"].shape == (num_envs, 2)
    else:
        assert all(type(c) is tuple and len(c) == 2 for c in infos["captured"])


def test_gymnasium_vector_env_infos_have_the_same_keys():
    envs = gymnasium.make_vec("mancala_envs/SongoEwondo-v0", num_envs=3, opponent="random", max_plies=9)
    _, infos = envs.reset(seed=0)
    check_vector_infos(infos, 3)
    assert infos["winner"].tolist() == [NO_WINNER] * 3 and not infos["illegal_action"].any()
    assert infos["ply"].tolist() == envs.unwrapped.driver.states[:, envs.unwrapped.game.layout.ply].tolist()
    ends = 0
    for _ in range(12):
        actions = np.array([np.flatnonzero(m)[0] for m in infos["action_mask"]])
        _, _, terminated, truncated, infos = envs.step(actions)
        check_vector_infos(infos, 3)
        assert infos["winner"].tolist() == [NO_WINNER] * 3  # running games (restarted ones too)
        done = terminated | truncated
        if done.any():
            final = infos["final_info"]
            assert (final["winner"][truncated] == NO_WINNER).all()
            assert final["captured"].shape == (3, 2) and final["seat"].dtype == np.int64
            assert (final["ply"][done] == 9).all() and (infos["ply"][done] <= 1).all()  # a new game
        ends += int(done.sum())
    assert ends >= 3
    envs.close()


# ---------------------------------------------------------------------------- unknown arguments

ENV_ID, GYM_ID = "mancala/songo_ewondo-v0", "mancala_envs/SongoEwondo-v0"
CONSTRUCTORS = {
    "MancalaEnv": lambda: MancalaEnv("songo_ewondo", bogus=1),
    "raw_env": lambda: songo_ewondo_v0.raw_env(bogus=1),
    "env": lambda: songo_ewondo_v0.env(bogus=1),
    "parallel_env": lambda: songo_ewondo_v0.parallel_env(bogus=1),
    "MancalaParallelEnv.make": lambda: MancalaParallelEnv.make(MancalaEnv, game="sadeqa_ii", bogus=1),
    "pettingzoo.make aec": lambda: pettingzoo.make("aec", ENV_ID, bogus=1),
    "pettingzoo.make parallel": lambda: pettingzoo.make("parallel", ENV_ID, bogus=1),
    "SingleAgentEnv": lambda: SingleAgentEnv("songo_ewondo", bogus=1),
    "SingleAgentEnv(Game)": lambda: SingleAgentEnv(mancala_envs.get_game("sadeqa_ii"), bogus=1),
    "gymnasium.make": lambda: gymnasium.make(GYM_ID, bogus=1),
    "MancalaVecEnv": lambda: importlib.import_module("mancala_envs.envs.vector").MancalaVecEnv(
        "songo_ewondo", num_envs=2, bogus=1
    ),
    "MancalaVectorEnv": lambda: importlib.import_module("mancala_envs.envs.gym_vector").MancalaVectorEnv(
        "songo_ewondo", num_envs=2, bogus=1
    ),
    "gymnasium.make_vec": lambda: gymnasium.make_vec(GYM_ID, num_envs=2, bogus=1),
}


@pytest.mark.parametrize("make", CONSTRUCTORS.values(), ids=CONSTRUCTORS)
def test_unknown_keyword_argument_is_a_type_error_in_pythons_words(make):
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'bogus'") as info:
        make()
    assert isinstance(info.value, UnknownArgumentError) and isinstance(info.value, ValueError)


def test_unknown_argument_messages_list_what_is_accepted():
    with pytest.raises(UnknownArgumentError, match=r"\(and 'zeta'\); accepted: .*max_plies.*render_mode"):
        songo_ewondo_v0.env(alpha=1, zeta=2)
    with pytest.raises(UnknownArgumentError, match="'holes_per_row'"):  # En Dodoi's parameter only
        songo_ewondo_v0.env(holes_per_row=8)
    with pytest.raises(UnknownArgumentError, match=r"accepted: .*waiting_noop"):
        songo_ewondo_v0.parallel_env(bogus=1)
    with pytest.raises(ValueError, match=r"its arguments are opponent, .*game parameters of en_dodoi"):
        SingleAgentEnv("en_dodoi", bogus=1)  # an old caller's except ValueError still catches it


# ---------------------------------------------------------------------------- parallel env and registry


@pytest.mark.parametrize("obs_format", ["dict", "flat"])
def test_waiting_noop_gives_the_waiting_player_one_ignored_action(obs_format):
    plain = songo_ewondo_v0.parallel_env(obs_format=obs_format)
    noop = songo_ewondo_v0.parallel_env(obs_format=obs_format, waiting_noop=True)

    def masks(observations, infos):
        return {a: (infos[a] if obs_format == "flat" else observations[a])["action_mask"] for a in infos}

    m_plain, m_noop = masks(*plain.reset(seed=0)), masks(*noop.reset(seed=0))
    rng = np.random.default_rng(3)
    while noop.agents:
        mover = noop.agent_selection
        assert mover == plain.agent_selection
        for agent in noop.agents:
            if agent == mover:
                np.testing.assert_array_equal(m_noop[agent], m_plain[agent])
            else:
                assert not m_plain[agent].any()
                assert m_noop[agent].tolist() == [int(i == NOOP_ACTION) for i in range(len(m_noop[agent]))]
        action = random_legal(rng, m_noop[mover])
        other = next(a for a in noop.agents if a != mover)
        out_noop = noop.step({mover: action, other: NOOP_ACTION})  # the no-op is ignored
        out_plain = plain.step({mover: action})
        m_noop, m_plain = masks(out_noop[0], out_noop[4]), masks(out_plain[0], out_plain[4])
        assert out_noop[1] == out_plain[1] and out_noop[2] == out_plain[2]
        np.testing.assert_array_equal(noop.state(), plain.state())
    assert all(m.tolist() == [1] + [0] * (len(m) - 1) for m in m_noop.values())  # the last observation too


def test_torchrl_masked_random_policy_on_the_parallel_env():
    """TorchRL's masked random sampling (``env.rollout()`` without a policy, and a
    ``MaskedCategorical`` policy) plays full games of the parallel env with ``waiting_noop=True``;
    without it the waiting player's all-zero mask cannot be sampled."""
    torch = pytest.importorskip("torch", reason="needs torch: pip install -e '.[agents]'")
    pytest.importorskip("torchrl", reason="needs torchrl: pip install -e '.[integrations]'")
    from tensordict.nn import TensorDictModule
    from torchrl.envs import PettingZooWrapper
    from torchrl.modules import MaskedCategorical

    def sample(mask):
        return MaskedCategorical(logits=torch.zeros(mask.shape), mask=mask).sample()

    policy = TensorDictModule(sample, in_keys=[("player", "action_mask")], out_keys=[("player", "action")])
    torch.manual_seed(0)
    env = PettingZooWrapper(
        pettingzoo.make("parallel", "mancala/sadeqa_ii-v0", waiting_noop=True), use_mask=True
    )
    for chosen in (None, policy, None, policy):  # two games each
        game = env.rollout(max_steps=2000, policy=chosen, break_when_any_done=True)
        mask, action = game["player", "action_mask"], game["player", "action"]
        assert mask.gather(-1, action.unsqueeze(-1)).all()  # every sampled action was allowed
        assert (mask.sum(-1) >= 1).all()  # no all-zero mask: the waiting player has the no-op
        info = game["next", "player", "info"][-1]
        assert game["next", "done"][-1].all() and not info["illegal_action"].any()
        assert set(info["winner"].tolist()) <= {0.0, 1.0, float(DRAW)}
    plain = PettingZooWrapper(pettingzoo.make("parallel", "mancala/sadeqa_ii-v0"), use_mask=True)
    with pytest.raises(RuntimeError):  # the default: an all-zero mask for the waiting player
        plain.rollout(max_steps=2000, policy=policy, break_when_any_done=True)


@pytest.mark.parametrize("env_id", sorted(ENV_IDS))
def test_parallel_ids_are_registered(env_id):
    assert env_id in pettingzoo.parallel_registry and PARALLEL_IDS[env_id].endswith(":parallel_env")
    env = pettingzoo.make("parallel", env_id, max_cycles=9)
    assert isinstance(env, MancalaParallelEnv) and env.game.max_plies == 9
    env.reset(seed=0)
    assert env.agents == ["player_0", "player_1"]


def test_the_generic_parallel_entry_point_builds_a_game_by_name():
    import dataclasses

    info = dataclasses.replace(next(i for i in registered_games() if i.name == "en_dodoi"), env_module=None)
    entry = parallel_entry_point(info)
    assert entry == "mancala_envs.envs.parallel:parallel_env"
    module, _, name = entry.partition(":")
    make = getattr(importlib.import_module(module), name)
    env = make(**info.env_kwargs, holes_per_row=6, waiting_noop=True)
    assert env.game.holes_per_row == 6 and env.waiting_noop
    assert set(GYM_IDS) and set(PARALLEL_IDS) == set(ENV_IDS)


# ---------------------------------------------------------------------------- the env table


def sb3_vec_env(**kwargs: Any) -> Any:
    pytest.importorskip("stable_baselines3", reason="needs stable_baselines3: pip install -e '.[sb3]'")
    return importlib.import_module("mancala_envs.envs.vector").MancalaVecEnv("songo_ewondo", 2, **kwargs)


# the first cell of each row of the page's table -> the env it names (keyword arguments added)
TABLE_ENVS = {
    "gymnasium.make(id)": lambda **kw: gymnasium.make(GYM_ID, **kw),
    "gymnasium.make_vec(id)": lambda **kw: gymnasium.make_vec(GYM_ID, num_envs=2, **kw),
    'gymnasium.make_vec(id, vectorization_mode="sync")': lambda **kw: gymnasium.make_vec(
        GYM_ID, num_envs=2, vectorization_mode="sync", **kw
    ),
    'gymnasium.make_vec(id, vectorization_mode="async")': lambda **kw: gymnasium.make_vec(
        GYM_ID, num_envs=2, vectorization_mode="async", **kw
    ),
    "MancalaVecEnv(game, num_envs)": sb3_vec_env,
    'pettingzoo.make("aec", id)': lambda **kw: pettingzoo.make("aec", ENV_ID, **kw),
    'pettingzoo.make("parallel", id)': lambda **kw: pettingzoo.make("parallel", ENV_ID, **kw),
}


def env_table() -> dict[str, list[str]]:
    """The page's table of envs: the code of each row's first cell -> its other cells."""
    rows = {}
    for line in PAGE.read_text().splitlines():
        first = re.match(r"\| `([^`]+)`", line)
        if first:
            rows[first.group(1)] = [c.strip() for c in line.strip().strip("|").split("|")[1:]]
    return rows


def observation_space(env: Any) -> Any:
    """The observation space of one game (one agent, one env of a vector)."""
    if hasattr(env, "possible_agents"):
        return env.observation_space(env.possible_agents[0])
    return getattr(env, "single_observation_space", env.observation_space)


def check_format(env: Any, obs_format: str) -> None:
    space = observation_space(env)
    if obs_format == "dict":
        assert isinstance(space, gymnasium.spaces.Dict) and set(space) == {"observation", "action_mask"}
        assert space["action_mask"].dtype == np.int8
    else:
        assert isinstance(space, gymnasium.spaces.Box) and space.dtype == np.float32


def play_gymnasium_vector(envs: Any, obs_format: str, mode: str) -> None:
    """Masked random moves until a game ended and the next step: the infos of reset and every step
    (check_vector_infos), and the autoreset ``mode`` at work."""
    compiled, rng = mode == "SAME_STEP", np.random.default_rng(0)
    obs, infos = envs.reset(seed=0)
    check_vector_infos(infos, 2, compiled)
    assert ("action_mask" in infos) == (obs_format == "flat")
    ended = None
    for _ in range(400):
        masks = obs["action_mask"] if obs_format == "dict" else infos["action_mask"]
        assert masks.dtype == np.int8
        actions = np.array([random_legal(rng, m) if m.any() else 0 for m in masks])
        obs, _, terminated, truncated, infos = envs.step(actions)
        check_vector_infos(infos, 2, compiled)
        if ended is not None:  # NEXT_STEP: this step reset the envs that had ended
            assert mode != "SAME_STEP"
            assert (infos["ply"][ended] <= 1).all() and (infos["winner"][ended] == NO_WINNER).all()
            break
        done = terminated | truncated
        if not done.any():
            assert (infos["winner"] == NO_WINNER).all()
            continue
        if mode == "SAME_STEP":  # the new games' infos, the ended ones' in final_info
            assert (infos["winner"] == NO_WINNER).all() and (infos["ply"][done] <= 1).all()
            winners = infos["final_info"]["winner"][done]
            break
        assert "final_info" not in infos  # NEXT_STEP: this step's infos are the end's
        winners = infos["winner"][done]
        assert not masks_of(obs, infos, obs_format)[done].any()  # no move in a last observation
        ended = done
    assert ((winners == NO_WINNER) == truncated[done]).all()
    envs.close()


def masks_of(obs: Any, infos: dict[str, Any], obs_format: str) -> np.ndarray:
    return obs["action_mask"] if obs_format == "dict" else infos["action_mask"]


def play_and_check_infos(row: str, env: Any, obs_format: str, mode: str) -> None:
    """Masked random moves through a finished game of the env of ``row``, every info checked."""
    flat, rng = obs_format == "flat", np.random.default_rng(1)
    if row.startswith("gymnasium.make_vec"):
        return play_gymnasium_vector(env, obs_format, mode)
    if row.startswith("MancalaVecEnv"):
        env.reset()
        for info in env.reset_infos:
            check_info(info)
        for _ in range(400):
            _, _, dones, infos = env.step(random_legal_batch(rng, env.action_masks()))
            for i, info in enumerate(infos):
                extra = {"terminal_observation", "TimeLimit.truncated"} if dones[i] else set()
                check_info({k: v for k, v in info.items() if k not in extra})
            if dones.any():
                return None
        raise AssertionError("no game ended")
    if row.startswith("gymnasium.make"):
        obs, info = env.reset(seed=0)
        check_info(info, flat=flat)
        done = False
        while not done:
            obs, _, terminated, truncated, info = env.step(random_legal(rng, env.unwrapped.action_masks()))
            check_info(info, flat=flat)
            done = terminated or truncated
        return None
    if "aec" in row:
        env.reset(seed=0)
        for _agent in env.agent_iter():
            obs, _, terminated, truncated, info = env.last()
            check_info(info, flat=flat)
            mask = info["action_mask"] if flat else obs["action_mask"]
            env.step(None if terminated or truncated else random_legal(rng, mask))
        return None
    observations, infos = env.reset(seed=0)
    while env.agents:
        for info in infos.values():
            check_info(info, flat=flat)
        mover = env.agent_selection
        mask = infos[mover]["action_mask"] if flat else observations[mover]["action_mask"]
        observations, _, _, _, infos = env.step({mover: random_legal(rng, mask)})
    for info in infos.values():
        check_info(info, flat=flat)
    return None


def test_the_env_table_has_a_row_for_every_env():
    assert list(env_table()) == list(TABLE_ENVS)


@pytest.mark.parametrize("row", TABLE_ENVS)
def test_env_table(row):
    """Each row of the table: the default format, the formats accepted (each one played through a
    finished game, its infos checked from reset on), the autoreset mode."""
    default, accepted, _, autoreset, _ = env_table()[row]
    build = TABLE_ENVS[row]
    formats = re.findall(r"`(\w+)`", accepted)
    assert sorted(formats) == ["dict", "flat"] and default.strip("`") in formats
    env = build()
    check_format(env, default.strip("`"))
    mode = autoreset.strip("`")
    if mode == "—":
        assert not hasattr(env, "num_envs")  # one game, no autoreset
    else:
        assert env.metadata["autoreset_mode"] == AutoresetMode[mode]
    env.close()
    for obs_format in formats:
        env = build(obs_format=obs_format)
        check_format(env, obs_format)
        play_and_check_infos(row, env, obs_format, mode)
    with pytest.raises(ValueError, match="obs_format"):
        build(obs_format="pixels")


# ---------------------------------------------------------------------------- the compile note


def test_first_compilation_is_announced_once_from_the_python_api(monkeypatch, caplog):
    from mancala_envs.infra import compile_note

    marked = []
    monkeypatch.setattr(compile_note, "_said", set())
    monkeypatch.setattr(compile_note, "_marking", False)
    monkeypatch.setattr(compile_note, "_someone_watches", lambda: False)
    monkeypatch.setattr(compile_note.atexit, "register", marked.append)
    monkeypatch.setattr(compile_note, "cache_is_warm", lambda kernel_set: True)
    with caplog.at_level(logging.INFO, logger="mancala_envs"):
        songo_ewondo_v0.env()
        assert not caplog.records  # a warm cache: nothing said
        monkeypatch.setattr(compile_note, "cache_is_warm", lambda kernel_set: False)
        songo_ewondo_v0.env()
        SingleAgentEnv("sadeqa_ii")
        songo_ewondo_v0.parallel_env()
    notes = [r for r in caplog.records if r.name == "mancala_envs"]
    assert len(notes) == 1 and compile_note.message(["rules"]) in notes[0].getMessage()  # once per process
    assert notes[0].levelno == logging.INFO and len(marked) == 1


def test_the_compile_note_goes_to_stderr_when_someone_watches(monkeypatch, capsys, caplog):
    from mancala_envs.infra import compile_note

    monkeypatch.setattr(compile_note, "_said", set())
    monkeypatch.setattr(compile_note, "_marking", True)
    monkeypatch.setattr(compile_note, "_someone_watches", lambda: True)
    monkeypatch.setattr(compile_note, "cache_is_warm", lambda kernel_set: False)
    SingleAgentEnv("songo_ewondo")
    SingleAgentEnv("songo_ewondo")
    assert capsys.readouterr().err == compile_note.message(["rules"]) + "\n" and not caplog.records
