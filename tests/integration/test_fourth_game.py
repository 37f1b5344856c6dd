"""A fourth game defined only as data, here (docs/adding-a-game.md): a relay game of 5 holes a row
and 2 seeds a hole, with Sadeqa II's capture on either side (SQ3) and En Dodoi's end and result
(ED4, ED5). Registered through the public API, it gets the AEC and Gymnasium envs, every search
agent, opening suites and a tablebase, with no code of its own. Besides the holes a row it declares
a parameter of its own, the seeds a hole, which reaches every env family and the web API."""

from __future__ import annotations

import warnings
from dataclasses import replace

import gymnasium
import numpy as np
import pettingzoo
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo import ParallelEnv
from pettingzoo.test import api_test, parallel_api_test
from tablebase_reference import Reference, all_keys

from mancala_envs import (
    GAMES,
    GameInfo,
    Ruleset,
    UnknownArgumentError,
    get_game,
    register_game,
    tablebase,
    unregister_game,
)
from mancala_envs.agents.minimax.agent import HEURISTIC_WEIGHTS, MinimaxAgent
from mancala_envs.envs.aec import MancalaEnv
from mancala_envs.evaluation.arena import play_game, play_match
from mancala_envs.evaluation.arena.records import replay
from mancala_envs.evaluation.openings import DEFAULT_PLIES, position_key, random_openings
from mancala_envs.registration import ENV_IDS, GYM_IDS
from mancala_envs.rulesets import (
    CAPTURE_CHAIN,
    CAPTURE_OPPOSITE_EITHER_SIDE,
    RESULT_BY_CAPTURES,
    RULESETS,
    SOW_RELAY,
    WEIGHTS_BY_CAPTURES,
)

RELAY_TOY = Ruleset(
    name="relay_toy",
    holes_per_row=5,
    seeds_per_hole=2,
    sowing=SOW_RELAY,  # SQ1/SQ2, ED1
    direction=+1,
    capture=CAPTURE_OPPOSITE_EITHER_SIDE,  # SQ3
    result=RESULT_BY_CAPTURES,  # ED5
    end_board_to_last_mover=True,  # ED4
)
RELAY_TOY_INFO = GameInfo(
    RELAY_TOY,
    "Relay Toy",  # Gymnasium id: mancala_envs/RelayToy-v0
    parameters={"holes_per_row": range(4, 7), "seeds_per_hole": range(1, 4)},  # the seeds: its own
    opening_plies=(2, 4),
    # heuristic_weights left out: the default of its result rule (captures decide)
)
ENV_ID, GYM_ID = "mancala/relay_toy-v0", "mancala_envs/RelayToy-v0"


@pytest.fixture(scope="module")
def toy():
    """The registered toy game; unregistered afterwards, so no other test module sees it."""
    register_game(RELAY_TOY_INFO)
    yield get_game("relay_toy")
    unregister_game("relay_toy")


def test_every_table_reads_the_registration(toy):
    assert "relay_toy" in GAMES and GAMES[-1] == "relay_toy" and RULESETS["relay_toy"] == RELAY_TOY
    assert ENV_IDS[ENV_ID] == "mancala_envs.envs.aec:MancalaEnv" and GYM_IDS[GYM_ID] == "relay_toy"
    assert DEFAULT_PLIES["relay_toy"] == (2, 4)
    assert HEURISTIC_WEIGHTS["relay_toy"] == WEIGHTS_BY_CAPTURES
    assert MinimaxAgent.weights(toy).tolist() == list(WEIGHTS_BY_CAPTURES)
    assert (toy.holes_per_row, toy.total_seeds, toy.params) == (
        5,
        20,
        {"max_plies": 1000, "holes_per_row": 5, "seeds_per_hole": 2},
    )
    assert (toy.variant, toy.variant_params, toy.title) == (
        "relay_toy_5_2",
        {"holes_per_row": 5, "seeds_per_hole": 2},
        "Relay Toy (5 holes, seeds_per_hole 2)",
    )
    narrow = get_game("relay_toy", holes_per_row=4, max_plies=300)
    assert (narrow.num_actions, narrow.total_seeds, narrow.max_plies) == (4, 16, 300)
    with pytest.raises(ValueError, match=r"holes_per_row must be in 4\.\.6 for relay_toy, got 7"):
        get_game("relay_toy", holes_per_row=7)
    with pytest.raises(ValueError, match=r"seeds_per_hole must be in 1\.\.3 for relay_toy, got 4"):
        get_game("relay_toy", seeds_per_hole=4)
    with pytest.raises(ValueError, match="unknown parameter"):
        get_game("relay_toy", big_hole=3)
    assert register_game(RELAY_TOY_INFO) == RELAY_TOY_INFO  # registering it again changes nothing
    with pytest.raises(ValueError, match="another game named 'relay_toy'"):
        register_game(GameInfo(RELAY_TOY, "Other Toy"))


def test_unregistering_removes_the_game_and_its_ids():
    info = GameInfo(replace(RELAY_TOY, name="relay_toy_b"), "Relay Toy B")
    register_game(info)
    assert "relay_toy_b" in GAMES and "mancala/relay_toy_b-v0" in pettingzoo.aec_registry
    assert get_game("relay_toy_b").ruleset == info.ruleset
    unregister_game("relay_toy_b")
    assert "relay_toy_b" not in GAMES and "relay_toy_b" not in RULESETS
    assert "mancala/relay_toy_b-v0" not in pettingzoo.aec_registry
    assert "mancala_envs/RelayToyB-v0" not in gymnasium.registry
    with pytest.raises(ValueError, match="unknown game 'relay_toy_b'"):
        get_game("relay_toy_b")
    with pytest.raises(ValueError, match="built-in game"):
        unregister_game("en_dodoi")


def test_a_ruleset_the_engine_does_not_support_is_refused():
    with pytest.raises(ValueError, match="relay sowing"):
        GameInfo(replace(RELAY_TOY, capture=CAPTURE_CHAIN), "Chain Relay")
    with pytest.raises(ValueError, match="not in its range"):
        GameInfo(RELAY_TOY, "Relay Toy", parameters={"holes_per_row": range(6, 11)})


@pytest.mark.filterwarnings("ignore::UserWarning")  # api_test's style hints (dict spaces, zero masks)
def test_pettingzoo_aec_env_passes_api_test(toy):
    env = pettingzoo.make("aec", ENV_ID, first_player="random")
    assert env.game == toy and env.metadata["name"] == "relay_toy_v0"
    api_test(env, num_cycles=200)
    api_test(MancalaEnv("relay_toy", holes_per_row=4, max_plies=9), num_cycles=20)


def test_gymnasium_env_passes_check_env(toy):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        env = gymnasium.make(GYM_ID, opponent="greedy")
        check_env(env.unwrapped)
    assert [str(w.message) for w in caught] == []
    assert env.unwrapped.game == toy and env.action_space.n == 5
    obs, _ = env.reset(seed=0)
    done, rng = False, np.random.default_rng(0)
    while not done:
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        obs, _, terminated, truncated, _ = env.step(action)
        done = terminated or truncated


@pytest.mark.parametrize("spec", ["random", "greedy", "minimax:depth=2", "mcts:sims=50"])
def test_agents_play_full_games(toy, spec):
    record = play_game(toy, spec, "random", seed=3)
    assert (
        record.game == "relay_toy" and record.plies > 0 and (record.truncated or record.winner in (0, 1, -1))
    )
    assert replay(record)[-1].is_over  # the record rebuilds the game from its name and params
    result = play_match(toy, spec, "greedy", n_games=4, seed=1)  # the default opening suite
    assert result.games == 4 and all(r.start is not None for r in result.records)


def test_opening_suite_is_distinct_and_reproducible(toy):
    suite = random_openings(toy, 30, seed=5)
    assert len({position_key(s) for s in suite}) == 30
    assert all(2 <= s.ply <= 4 and not s.is_over for s in suite)
    assert [position_key(s) for s in random_openings(toy, 30, seed=5)] == [position_key(s) for s in suite]


def test_tablebase_matches_the_brute_force(toy, tmp_path):
    k = 5
    tb = tablebase.build(toy, max_seeds=k, path=tmp_path / "relay_toy")
    ref = Reference(toy, all_keys(toy, k))
    assert len(ref.a) == tb.covered_positions
    wrong = []
    for key in ref.a:
        state = ref.state(key)
        if state.done:
            assert not tb.covers(state)
            continue
        if tb.bounds(state) != (ref.a[key], ref.b[key]):
            wrong.append((key, tb.bounds(state), (ref.a[key], ref.b[key])))
    assert not wrong, f"{len(wrong)} values differ, e.g. {wrong[:3]}"
    for key in list(ref.moves)[::7]:  # outcomes and outcome-preserving moves at a few captured leads
        spare = toy.total_seeds - sum(key[0])
        for d in {spare % 2, -spare, spare}:
            state = ref.state(key, d)
            if not state.done:
                assert tb.outcome(state) == ref.outcome(key, d), (key, d)
                np.testing.assert_array_equal(tb.best_actions(state), ref.best_mask(key, d))


# ---------------------------------------------------------------------------- its own parameter

SEEDS = 3  # the toy's seeds a hole, not its default (2): 30 seeds on 2 x 5 holes


def _play_out(env: ParallelEnv, seed: int) -> int:
    """Random legal moves in a Parallel env until the game ends; the plies played."""
    observations, _ = env.reset(seed=seed)
    rng, plies = np.random.default_rng(seed), 0
    while env.agents:
        mover = env.agent_selection
        legal = np.flatnonzero(observations[mover]["action_mask"])
        actions = {a: (int(rng.choice(legal)) if a == mover else None) for a in env.agents}
        observations, _, _, _, _ = env.step(actions)
        plies += 1
    return plies


@pytest.mark.filterwarnings("ignore::UserWarning")  # api_test's style hints (dict spaces, zero masks)
def test_its_own_parameter_reaches_the_aec_and_parallel_envs(toy):
    aec = pettingzoo.make("aec", ENV_ID, seeds_per_hole=SEEDS)
    assert aec.game == get_game("relay_toy", seeds_per_hole=SEEDS) and aec.game.total_seeds == 30
    aec.reset(seed=0)
    assert aec.game_state.board.tolist() == [SEEDS] * 10
    observation = aec.observe("player_0")["observation"]
    np.testing.assert_allclose(observation[:10], SEEDS / 30)  # the counts over the game's seeds
    api_test(MancalaEnv("relay_toy", seeds_per_hole=1, holes_per_row=4, max_cycles=6), num_cycles=20)
    parallel = pettingzoo.make("parallel", ENV_ID, seeds_per_hole=SEEDS)
    assert parallel.game.total_seeds == 30 and _play_out(parallel, seed=1) > 0
    parallel_api_test(pettingzoo.make("parallel", ENV_ID, seeds_per_hole=1), num_cycles=50)
    with pytest.raises(UnknownArgumentError, match="seeds_per_hole"):  # not a parameter of En Dodoi
        MancalaEnv("en_dodoi", seeds_per_hole=SEEDS)
    with pytest.raises(ValueError, match=r"seeds_per_hole must be in 1\.\.3"):
        MancalaEnv("relay_toy", seeds_per_hole=4)


def test_its_own_parameter_reaches_the_gymnasium_and_vector_envs(toy):
    game = get_game("relay_toy", seeds_per_hole=SEEDS)
    single = gymnasium.make(GYM_ID, seeds_per_hole=SEEDS, opponent="greedy", seat=0)
    observation, _ = single.reset(seed=0)
    assert single.unwrapped.game == game
    np.testing.assert_allclose(observation["observation"][:10], SEEDS / 30)  # the start, over 30 seeds
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # SB3's own, on some versions
        from mancala_envs.envs.vector import MancalaVecEnv
    sb3 = MancalaVecEnv("relay_toy", 4, opponent="greedy", counts=True, seeds_per_hole=SEEDS)
    assert sb3.game == game
    np.testing.assert_array_equal(sb3.reset()[:, :12].sum(axis=1), 30)  # every seed, in counts
    stepped, *_ = sb3.step(np.array([int(np.flatnonzero(m)[0]) for m in sb3.action_masks()]))
    np.testing.assert_array_equal(stepped[:, :12].sum(axis=1), 30)
    gym_vector = gymnasium.make_vec(GYM_ID, num_envs=3, counts=True, seeds_per_hole=SEEDS)
    observations, _ = gym_vector.reset(seed=0)
    assert gym_vector.unwrapped.game == game
    np.testing.assert_array_equal(observations[:, :12].sum(axis=1), 30)
    for env in (sb3, gym_vector):
        env.close()


def test_its_own_parameter_reaches_the_web_api(toy, tmp_path):
    pytest.importorskip("starlette", reason="the web app needs the web extra")
    from starlette.testclient import TestClient

    from mancala_envs.web.app import create_app

    game = get_game("relay_toy", seeds_per_hole=SEEDS)
    app = create_app(tables=tmp_path, max_seconds=2.0, workers=1, warm=False)  # a spawned worker
    with TestClient(app, raise_server_exceptions=False) as client:
        variants = client.get("/api/info").json()["variants"]
        listed = {v["variant"]: v for v in variants if v["game"] == "relay_toy"}
        assert listed["relay_toy_5_3"]["params"] == {"holes_per_row": 5, "seeds_per_hole": SEEDS}
        assert len(listed) == 9  # every width with every seeds a hole
        request = {"game": "relay_toy", "params": {"seeds_per_hole": SEEDS}, "start": None, "moves": [0]}
        view = client.post("/api/position", json=request).json()
        assert view["state"] == game.apply(game.initial_state(), 0).to_dict()
        answer = client.post("/api/move", json={**request, "agent": "greedy"})
        assert answer.status_code == 200, answer.text
        assert answer.json()["moves"][0] == 0 and sum(answer.json()["state"]["board"]) <= 30
        refused = client.post("/api/position", json={**request, "params": {"seeds_per_hole": 4}})
        assert refused.status_code == 400 and "seeds_per_hole must be in 1..3" in refused.json()["error"]


# The command line (`mancala play relay_toy --seeds-per-hole 3`, flags derived by
# mancala_envs.variant.add_game_arguments) is tested here by the CLI's change: append it below.


def test_its_own_parameter_reaches_the_command_line(toy, tmp_path, capsys):
    """``--seeds-per-hole`` is derived from the registration (mancala_envs.variant): the toy plays,
    replays and is evaluated through ``mancala`` with it, and a bad value is one line, exit 2."""
    import json

    from mancala_envs.cli.main import main as mancala
    from mancala_envs.evaluation.arena import load_records

    record = tmp_path / "game.jsonl"
    seeds = ["--seeds-per-hole", str(SEEDS)]
    play = ["play", "relay_toy", *seeds, "--p0", "random", "--p1", "greedy", "--quiet"]
    assert mancala([*play, "--out", str(record)]) == 0
    [rec] = load_records(record)
    assert (rec.game, rec.params) == ("relay_toy", get_game("relay_toy", seeds_per_hole=SEEDS).params)
    assert mancala(["replay", str(record)]) == 0
    assert capsys.readouterr().out.count("game over after") == 2  # the game, then its replay
    out = tmp_path / "evaluation"
    argv = ["evaluate", "greedy", "--game", "relay_toy", *seeds, "--opponents", "random", "--games", "2"]
    assert mancala([*argv, "--no-progress", "--out", str(out)]) == 0
    report = json.loads((out / "report.json").read_text())
    assert report["params"]["seeds_per_hole"] == SEEDS and report["results"][0]["games"] == 2
    capsys.readouterr()
    assert mancala(["play", "relay_toy", "--seeds-per-hole", "4", "--p0", "random", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mancala: error: ") and "seeds_per_hole must be in 1..3" in err
    assert mancala(["play", "sadeqa_ii", *seeds, "--p0", "random", "--quiet"]) == 2  # not its parameter
    assert "seeds_per_hole" in capsys.readouterr().err


def test_its_own_parameter_reaches_the_training_scripts(toy, tmp_path):
    """``--seeds-per-hole`` reaches the training scripts through the flags derived from the
    registration (training/args.py, train_rllib's parser): a short AlphaZero run records it in its
    config and its model, whose agent then plays that variant and no other."""
    import json

    from mancala_envs.agents.registry import make_agent
    from mancala_envs.training.train_alphazero import main as train_az
    from mancala_envs.training.train_rllib import _options, build_parser, game_params

    seeds = ["--seeds-per-hole", str(SEEDS), "--holes-per-row", "4"]
    run = tmp_path / "az"
    tiny = ["--games", "8", "--sims", "2", "--hidden", "8", "--batch-size", "32", "--min-replay", "32"]
    evaluation = ["--eval-games", "2", "--final-eval-games", "2", "--eval-sims", "2"]
    opponents = ["--eval-opponents", "random", "--eval-net-opponents", "random", "--train-openings", "8"]
    argv = ["--game", "relay_toy", *seeds, *tiny, *evaluation, *opponents, "--total-positions", "200"]
    assert train_az([*argv, "--out", str(run)]) == 0
    config = json.loads((run / "config.json").read_text())
    assert config["game_params"] == {"seeds_per_hole": SEEDS, "holes_per_row": 4}
    game = get_game("relay_toy", seeds_per_hole=SEEDS, holes_per_row=4)
    agent = make_agent(f"az:path={run / 'az.json'},sims=2")
    assert play_game(game, agent, "random", seed=1).plies > 0
    with pytest.raises(ValueError, match=r"for Relay Toy \(4 holes, seeds_per_hole 3\), not Relay Toy \(5"):
        play_game(toy, agent, "random", seed=1)  # the toy's own 2 seeds a hole: not the model's
    args = build_parser().parse_args(["--game", "relay_toy", *seeds, "--iterations", "1", "--out", "x"])
    assert get_game("relay_toy", **game_params(_options(args))) == game
    rest = ["--iterations", "1", "--out", "x"]
    bad = build_parser().parse_args(["--game", "relay_toy", "--seeds-per-hole", "9", *rest])
    with pytest.raises(ValueError, match=r"seeds_per_hole must be in 1\.\.3"):
        _options(bad)
