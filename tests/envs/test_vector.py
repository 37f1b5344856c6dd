"""MancalaVecEnv: same games as SingleAgentEnv, the core's rules under the random opponent,
auto-reset, masks, determinism, the batched opponent, errors and a short MaskablePPO run."""

import warnings

import numpy as np
import pytest
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
from strategies import random_legal_batch
from variants import SPREAD, ids

from mancala_envs import IllegalMoveError, get_game
from mancala_envs.envs.common import INFO_KEYS, NO_WINNER
from mancala_envs.envs.single import SingleAgentEnv
from mancala_envs.envs.vector import MancalaVecEnv

# the spread of variants, and Songo Ewondo cut at 40 plies: games that end in truncations
CONFIGS = [("songo_ewondo", {"max_plies": 40}), *SPREAD]
IDS = ids(CONFIGS)


def pick(obs: np.ndarray, mask: np.ndarray) -> int:
    """A deterministic policy of the observation: some legal hole, varying with the position."""
    legal = np.flatnonzero(mask)
    return int(legal[round(float(obs.sum()) * 997 + float(obs[0]) * 31) % legal.size])


def batched_pick(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    return np.array([pick(o, m) for o, m in zip(observations, masks, strict=True)], dtype=np.int64)


@pytest.mark.parametrize(("name", "params"), CONFIGS, ids=IDS)
def test_same_games_as_single_agent_env(name, params):
    """Driven by the same (deterministic) policies for both seats, every game of the vector env
    yields exactly SingleAgentEnv's observations, masks, rewards and endings."""
    num_envs, steps = 4, 120
    vec = MancalaVecEnv(name, num_envs, opponent=batched_pick, seed=7, **params)
    obs = vec.reset()
    trace = [[] for _ in range(num_envs)]  # per game: (seat, obs, mask, reward, done, info)
    seats = vec.seats
    for _ in range(steps):
        masks = vec.action_masks()
        actions = batched_pick(obs, masks)
        new_obs, rewards, dones, infos = vec.step(actions)
        for i in range(num_envs):
            trace[i].append((seats[i], obs[i], masks[i], actions[i], rewards[i], dones[i], infos[i]))
        obs, seats = new_obs, vec.seats
    episodes = 0
    for i in range(num_envs):
        single = None
        for seat, o, mask, action, reward, done, info in trace[i]:
            if single is None:
                single = SingleAgentEnv(
                    name,
                    opponent=lambda v: pick(v["observation"], v["action_mask"]),
                    seat=int(seat),
                    **params,
                )
                expected, _ = single.reset(seed=0)
            np.testing.assert_array_equal(o, expected["observation"])
            np.testing.assert_array_equal(mask, expected["action_mask"])
            expected, s_reward, terminated, truncated, s_info = single.step(int(action))
            assert reward == s_reward and done == (terminated or truncated)
            for key in INFO_KEYS:  # the same infos while the game runs and at its end
                assert info[key] == s_info[key], key
            if done:
                episodes += 1
                np.testing.assert_array_equal(info["terminal_observation"], expected["observation"])
                assert info["TimeLimit.truncated"] == truncated
                single = None
    assert episodes >= 2


def check_step_against_core(game, before, seats, masks, actions, vec, obs, rewards, dones, infos) -> int:
    """One step of the random-opponent env, checked with Game.apply: the learner's move and one
    legal opponent move (read from the state's last action), endings as the core decides them,
    restarts, observations. Returns the number of finished episodes."""
    after, ends = vec.states, 0
    for i in range(vec.num_envs):
        state = game.state_from_array(before[i])
        assert state.to_move == seats[i] and not state.is_over
        np.testing.assert_array_equal(masks[i], game.legal_mask(state))
        mid = game.apply(state, int(actions[i]))
        now = game.state_from_array(after[i])
        assert now.to_move == vec.seats[i]
        np.testing.assert_array_equal(obs[i], game.observation(now, vec.seats[i]))
        if not dones[i]:
            assert now == game.apply(mid, now.last_action)
            continue
        ends += 1
        terminal = infos[i]["terminal_observation"]
        if mid.is_over:
            final = mid
        else:  # the opponent's reply ended the game: one of its legal moves did exactly this
            finals = [game.apply(mid, b) for b in game.legal_actions(mid)]
            final = next(
                f for f in finals if f.is_over and np.array_equal(game.observation(f, seats[i]), terminal)
            )
        np.testing.assert_array_equal(terminal, game.observation(final, seats[i]))
        winner = NO_WINNER if final.winner is None else final.winner
        assert rewards[i] == (1.0 if winner == seats[i] else -1.0 if winner == 1 - seats[i] else 0.0)
        assert infos[i]["TimeLimit.truncated"] == final.truncated and infos[i]["winner"] == winner
        start = game.initial_state(0)
        assert now == (start if vec.seats[i] == 0 else game.apply(start, now.last_action))
    return ends


def run_against_core(game, vec, steps: int) -> int:
    obs, rng, ends = vec.reset(), np.random.default_rng(0), 0
    for _ in range(steps):
        before, seats, masks = vec.states, vec.seats, vec.action_masks()
        actions = random_legal_batch(rng, masks)
        obs, rewards, dones, infos = vec.step(actions)
        ends += check_step_against_core(game, before, seats, masks, actions, vec, obs, rewards, dones, infos)
    return ends


@pytest.mark.parametrize(("name", "params"), CONFIGS, ids=IDS)
def test_random_opponent_follows_the_core(name, params):
    """The built-in random opponent (mask-free for the relay games) plays the core's rules."""
    game = get_game(name, **params)
    assert run_against_core(game, MancalaVecEnv(game, 6, seed=3), 150) >= 3


def test_threads_follow_the_core_and_are_deterministic():
    game = get_game("en_dodoi")
    vec = MancalaVecEnv(game, 300, seed=5, num_threads=2)
    assert len(vec._blocks) == 2
    assert run_against_core(game, vec, 12) > 0

    def trajectory(num_threads):
        vec = MancalaVecEnv(game, 300, seed=5, num_threads=num_threads)
        out = [vec.reset()]
        for k in range(30):
            out += list(
                vec.step(np.argmax(vec.action_masks() * (1 + np.arange(8) % (k % 3 + 2)), axis=1))[:3]
            )
        vec.close()
        return out

    first = trajectory(2)
    for a, b in zip(first, trajectory(2), strict=True):
        np.testing.assert_array_equal(a, b)
    assert any(not np.array_equal(a, b) for a, b in zip(first, trajectory(1), strict=True))
    vec.close()
    with pytest.raises(RuntimeError, match="closed"):
        vec.step(np.argmax(vec.action_masks(), axis=1))


def test_masks_and_sb3_attribute_api():
    vec = MancalaVecEnv("sadeqa_ii", 5, seed=1)
    vec.reset()
    masks = vec.action_masks()
    assert masks.dtype == np.int8 and masks.shape == (5, 6)
    assert set(np.unique(masks)) <= {0, 1} and masks.any(axis=1).all()
    assert is_masking_supported(vec) and vec.has_attr("action_masks")
    np.testing.assert_array_equal(get_action_masks(vec), masks)
    np.testing.assert_array_equal(np.stack(vec.env_method("action_masks", indices=[3, 1])), masks[[3, 1]])
    assert vec.get_attr("seat") == vec.seats.tolist() and vec.get_attr("seat", 2) == [vec.seats[2]]
    assert vec.get_attr("illegal_action") == ["terminate"] * 5
    assert not vec.has_attr("no_such_attribute")
    assert vec.env_is_wrapped(object) == [False] * 5
    vec.set_attr("illegal_action", "raise")
    assert vec.illegal_action == "raise"
    with pytest.raises(ValueError, match="all games"):
        vec.set_attr("illegal_action", "terminate", indices=[0])
    with pytest.raises(ValueError, match="unknown agent 'frobnicate'"):
        vec.set_attr("opponent", "frobnicate")
    with pytest.raises(AttributeError):
        vec.set_attr("obs_format", "dict")
    with pytest.raises(AttributeError):
        vec.env_method("render")
    # Sadeqa II's opening rule (SQ4): the learner's first move is hole 5 wherever it is pending.
    pending = vec.states[:, vec.game.layout.pending][np.arange(5), vec.seats].astype(bool)
    assert (masks[pending] == [0, 0, 0, 0, 0, 1]).all()
    vec.close()


def test_dict_observations():
    flat = MancalaVecEnv("en_dodoi", 3, seed=4)
    as_dict = MancalaVecEnv("en_dodoi", 3, seed=4, obs_format="dict")
    assert as_dict.observation_space == SingleAgentEnv("en_dodoi").observation_space
    f_obs, d_obs = flat.reset(), as_dict.reset()
    rng = np.random.default_rng(0)
    for _ in range(60):
        assert as_dict.observation_space.contains({k: v[0] for k, v in d_obs.items()})
        np.testing.assert_array_equal(f_obs, d_obs["observation"])
        np.testing.assert_array_equal(flat.action_masks(), d_obs["action_mask"])
        actions = random_legal_batch(rng, flat.action_masks())
        f_obs, _, dones, f_infos = flat.step(actions)
        d_obs, _, _, d_infos = as_dict.step(actions)
        for i in np.flatnonzero(dones):
            terminal = d_infos[i]["terminal_observation"]
            np.testing.assert_array_equal(terminal["observation"], f_infos[i]["terminal_observation"])
            assert terminal["action_mask"].dtype == np.int8 and not terminal["action_mask"].any()


def test_same_seed_same_trajectories():
    def run(seed, reseed=None):
        vec = MancalaVecEnv("songo_ewondo", 8, seed=seed)
        if reseed is not None:
            vec.seed(reseed)
        out = [vec.reset()]
        for k in range(80):
            masks = vec.action_masks()
            obs, rewards, dones, _ = vec.step(np.argmax(masks * ((np.arange(7) * (k + 3)) % 5 + 1), axis=1))
            out += [obs, rewards, dones, vec.seats]
        return out

    first = run(11)
    for a, b in zip(first, run(11), strict=True):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(first, run(0, reseed=11), strict=True):
        np.testing.assert_array_equal(a, b)
    assert any(not np.array_equal(a, b) for a, b in zip(first, run(12), strict=True))


def test_batched_opponent_is_called_per_round():
    """One call per round of opponent moves: the replies (and first moves of games that restarted
    after the learner's move with the opponent to move), then, only if needed, the first moves
    of games that the replies ended and that restarted with the opponent to move."""
    game = get_game("en_dodoi", holes_per_row=6)
    calls = []

    def opponent(observations, masks):
        assert observations.dtype == np.float32 and masks.dtype == np.int8
        assert observations.shape == (masks.shape[0], game.observation_size) and masks.any(axis=1).all()
        calls.append(masks.shape[0])
        return np.argmax(masks, axis=1)

    vec = MancalaVecEnv(game, 16, opponent=opponent, seed=2)
    vec.reset()
    assert calls == [int(vec.seats.sum())]
    second_rounds = 0
    for _ in range(60):
        calls.clear()
        before, actions = vec.states, np.argmax(vec.action_masks(), axis=1)
        _, _, dones, _ = vec.step(actions)
        ended_by_learner = np.array(
            [
                game.apply(game.state_from_array(s), int(a)).is_over
                for s, a in zip(before, actions, strict=True)
            ]
        )
        opponent_first = vec.seats == 1
        first = int((~ended_by_learner).sum() + (ended_by_learner & opponent_first).sum())
        second = int((dones & ~ended_by_learner & opponent_first).sum())
        assert calls == ([first, second] if second else [first])
        second_rounds += second > 0
    assert second_rounds > 0


def test_batched_opponent_errors():
    vec = MancalaVecEnv(
        "sadeqa_ii", 4, opponent=lambda obs, masks: np.zeros(len(obs), dtype=np.int64), seed=0
    )
    with pytest.raises(IllegalMoveError, match="opponent"):
        for _ in range(3):
            vec.reset()
    vec = MancalaVecEnv("sadeqa_ii", 4, opponent=lambda obs, masks: [5.0] * len(obs), seed=0)
    with pytest.raises(IllegalMoveError, match="integer"):
        for _ in range(3):
            vec.reset()
    with pytest.raises(RuntimeError, match="reset"):
        vec.step(np.full(4, 5))


def test_illegal_learner_actions():
    vec = MancalaVecEnv("sadeqa_ii", 4, seed=0)
    vec.reset()
    seats = vec.seats
    actions = np.full(4, 5)
    actions[2] = 0  # illegal: the opening hole (SQ4) is the only legal first move
    with pytest.warns(UserWarning, match="illegal"):
        _, rewards, dones, infos = vec.step(actions)
    assert rewards[2] == -1.0 and dones[2] and infos[2]["illegal_action"] is True
    assert infos[2]["winner"] == 1 - seats[2] and not infos[2]["TimeLimit.truncated"]
    assert not dones[[0, 1, 3]].any()

    strict = MancalaVecEnv("sadeqa_ii", 4, seed=0, illegal_action="raise")
    strict.reset()
    before = strict.states
    with pytest.raises(IllegalMoveError, match="game 2"):
        strict.step(actions)
    np.testing.assert_array_equal(strict.states, before)
    for bad in (np.array([5, 5, 6, 5]), np.array([5, -1, 5, 5]), np.full(4, 5.0), np.full(3, 5)):
        for env in (vec, strict):
            with pytest.raises(IllegalMoveError):
                env.step(bad)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        strict.step(np.full(4, 5))


@pytest.mark.parametrize(
    "kwargs",
    [
        {"num_envs": 0},
        {"num_envs": 2.0},
        {"opponent": "chess"},
        {"opponent": 3},
        {"obs_format": "image"},
        {"illegal_action": "skip"},
        {"max_plies": 1},
        {"holes_per_row": 8},
        {"seed": -1},
        {"seed": 1.5},
        {"seat": 0},  # a SingleAgentEnv argument: the error lists this env's own
        {"opponent": type("ActOnly", (), {"act": lambda self, game, state: 0})()},  # no act_batch
    ],
)
def test_invalid_arguments(kwargs):
    args = {"game": "songo_ewondo", "num_envs": 2} | kwargs
    with pytest.raises(ValueError, match=r"num_envs|opponent|obs_format|illegal|max_plies|holes|seed|seat"):
        MancalaVecEnv(**args)


def test_maskable_ppo_trains_on_the_vector_env():
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import Logger
    from stable_baselines3.common.vec_env import VecMonitor

    torch.set_num_threads(1)
    vec = VecMonitor(MancalaVecEnv("sadeqa_ii", 8, seed=0))
    model = MaskablePPO(
        "MlpPolicy", vec, n_steps=32, batch_size=64, n_epochs=1, seed=0, policy_kwargs={"net_arch": [16]}
    )
    model.set_logger(Logger(folder=None, output_formats=[]))  # no SB3-* folder in /tmp
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # no illegal move is ever sent
        model.learn(total_timesteps=512)
    assert model.num_timesteps >= 512 and len(model.ep_info_buffer) > 0  # VecMonitor saw episodes end
    obs = vec.reset()
    for _ in range(30):
        masks = get_action_masks(vec)
        actions, _ = model.predict(obs, action_masks=masks)
        assert masks[np.arange(8), actions].all()
        obs, _, _, infos = vec.step(actions)
        assert not any(info.get("illegal_action") for info in infos)


def test_infos_ends_plays_the_same_games_with_empty_running_infos():
    full = MancalaVecEnv("en_dodoi", 16, seed=3, holes_per_row=6)
    lean = MancalaVecEnv("en_dodoi", 16, seed=3, holes_per_row=6, infos="ends")
    assert lean.info_mode == "ends" and full.info_mode == "all"
    np.testing.assert_array_equal(full.reset(), lean.reset())
    assert lean.reset_infos == full.reset_infos  # reset infos are always complete
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(150):
        actions = np.argmax(full.action_masks() * rng.random((16, 6)), axis=1)
        obs_f, rew_f, done_f, infos_f = full.step(actions)
        obs_l, rew_l, done_l, infos_l = lean.step(actions)
        np.testing.assert_array_equal(obs_f, obs_l)
        np.testing.assert_array_equal(rew_f, rew_l)
        np.testing.assert_array_equal(done_f, done_l)
        for i in range(16):
            if done_f[i]:
                ended += 1
                assert infos_l[i].keys() == infos_f[i].keys() and set(INFO_KEYS) <= infos_l[i].keys()
                assert {k: v for k, v in infos_l[i].items() if k != "terminal_observation"} == {
                    k: v for k, v in infos_f[i].items() if k != "terminal_observation"
                }
            else:
                assert infos_l[i] == {} and set(infos_f[i]) == set(INFO_KEYS)
    assert ended > 0
    with pytest.raises(ValueError, match="infos must be one of all, ends"):
        MancalaVecEnv("sadeqa_ii", 2, infos="some")


def test_step_infos_are_built_when_read_with_every_key():
    """Issue 43: a dict per game per step cost MancalaVecEnv 2–3× of its speed. Now a step builds
    only the finished games' dicts; another game's is built when read, with every key of
    INFO_KEYS (the running episode's seat, captured seeds and ply), and stays the same dict."""
    from mancala_envs.envs.vector import StepInfos

    vec = MancalaVecEnv("sadeqa_ii", 64, seed=5)
    vec.reset()
    assert isinstance(vec.reset_infos, StepInfos) and all(set(i) == set(INFO_KEYS) for i in vec.reset_infos)
    rng = np.random.default_rng(1)
    for _ in range(40):
        _, _, dones, infos = vec.step(np.argmax(vec.action_masks() * rng.random((64, 6)), axis=1))
        assert isinstance(infos, StepInfos) and len(infos) == 64
        assert sum(d is not None for d in infos._dicts) == dones.sum()  # no other dict built yet
        game, states, seats = vec.game, vec.states, vec.seats
        for i in np.flatnonzero(~dones):
            state = game.state_from_array(states[i])
            assert infos[i] == {
                "seat": int(seats[i]),
                "captured": (int(state.captured[seats[i]]), int(state.captured[1 - seats[i]])),
                "ply": state.ply,
                "winner": NO_WINNER,
                "illegal_action": False,
            }
    infos[3]["episode"] = {"r": 1.0}  # a wrapper's key stays (VecMonitor adds one)
    assert infos[3]["episode"] == {"r": 1.0} and infos[-61] is infos[3] and infos[2:4][1] is infos[3]
    assert infos == list(infos) and len(infos[:]) == 64
