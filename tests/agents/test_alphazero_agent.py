"""The az agent: specs, safe model files, the network alone (sims=0) and with its search."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from golden_search import random_position

from mancala_envs import get_game, variants
from mancala_envs.agents.alphazero.agent import AZAgent
from mancala_envs.agents.alphazero.network import (
    build_network,
    load_network,
    lookahead_plies,
    network_config,
    save_network,
    torch_evaluator,
)
from mancala_envs.agents.alphazero.search import GumbelSearch
from mancala_envs.agents.model_files import config_digest, config_game
from mancala_envs.agents.registry import make_agent
from mancala_envs.evaluation.arena import play_match


@pytest.fixture(scope="module")
def game():
    return get_game("en_dodoi", holes_per_row=6)


@pytest.fixture(scope="module")
def model(game, tmp_path_factory):
    """A small random network saved in the agent's format: ``(json path, network)``."""
    torch.manual_seed(3)
    config = network_config(game, [16, 16], one_hot_max=8, scale=10.0)
    config["search"] = {"sims": 8, "max_considered": 4, "c_visit": 50.0, "c_scale": 0.1}
    net = build_network(config)
    with torch.no_grad():
        for p in net.parameters():
            p.mul_(3.0)  # sharper logits: fewer near-ties between moves
    path = tmp_path_factory.mktemp("az") / "tiny.json"
    save_network(net, path, config)
    return path, net.eval()


def states(game, k=6):
    return [random_position(game, plies, 40 + plies) for plies in range(k)]


def test_files_round_trip_and_load_with_weights_only(model, game):
    path, net = model
    loaded, config = load_network(path)
    assert config["game"] == "en_dodoi" and config["num_actions"] == 6
    obs = np.stack([game.counts(s, s.to_move) for s in states(game)]).astype(np.float32)
    a, b = torch_evaluator(net)(obs), torch_evaluator(loaded)(obs)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert np.all(np.abs(a[1]) <= 1)
    torch.load(path.with_suffix(".pt"), weights_only=True)  # plain tensors, no pickled objects


def test_sims_zero_plays_the_masked_argmax_of_the_network(model, game):
    path, net = model
    agent = make_agent(f"az:path={path},sims=0")
    assert agent.name == f"az:path={path},sims=0"
    for s in states(game):
        logits, _ = torch_evaluator(net)(game.counts(s, s.to_move)[None].astype(np.float32))
        masked = np.where(game.legal_mask(s).astype(bool), logits[0], -np.inf)
        assert agent.act(game, s) == int(np.argmax(masked))
    batch = np.stack([s.array for s in states(game)])
    assert agent.act_batch(game, batch).tolist() == [agent.act(game, s) for s in states(game)]


def test_sampling_follows_the_softmax_at_the_temperature(model, game):
    path, net = model
    s = states(game)[3]
    legal = game.legal_mask(s).astype(bool)
    logits, _ = torch_evaluator(net)(game.counts(s, s.to_move)[None].astype(np.float32))
    for t in (0.5, 2.0):
        agent = make_agent(f"az:path={path},sims=0,temperature={t}", seed=5)
        draws = np.bincount([agent.act(game, s) for _ in range(4000)], minlength=6) / 4000
        z = np.where(legal, logits[0] / t, -np.inf)
        expected = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
        np.testing.assert_allclose(draws, expected, atol=0.03)
        assert draws[~legal].sum() == 0
    a, b = (make_agent(f"az:path={path},sims=0,temperature=1", seed=9) for _ in range(2))
    assert [a.act(game, s) for _ in range(30)] == [b.act(game, s) for _ in range(30)]


def test_search_agent_plays_the_search_result(model, game):
    path, net = model
    agent = make_agent(f"az:path={path},sims=12,forward=torch")  # the search below runs torch's pass
    search = GumbelSearch(game, 1, 12, max_considered=4)
    for s in states(game):
        if game.legal_mask(s).sum() > 1:
            assert agent.act(game, s) == int(search.run(s.array[None], torch_evaluator(net)).action[0])
    batch = np.stack([s.array for s in states(game)])
    assert agent.act_batch(game, batch).tolist() == [agent.act(game, s) for s in states(game)]
    noisy = [make_agent(f"az:path={path},sims=12,temperature=1", seed=2) for _ in range(2)]
    s = states(game)[4]
    assert [noisy[0].act(game, s) for _ in range(10)] == [noisy[1].act(game, s) for _ in range(10)]
    assert agent.last_seconds > 0


def test_agent_plays_whole_matches_and_rebuilds_from_its_name(model, game):
    path, _ = model
    agent = make_agent(f"az:path={path},sims=4")
    assert make_agent(agent.name).name == agent.name
    result = play_match(game, agent, "random", 4, seed=1)
    assert result.games == 4 and result.wins + result.draws + result.losses == 4


def test_damaged_or_foreign_files_raise_value_errors(model, game, tmp_path):
    path, _ = model
    bad_json = tmp_path / "a.json"
    bad_json.write_text("{not json")
    (tmp_path / "a.pt").write_bytes(path.with_suffix(".pt").read_bytes())
    with pytest.raises(ValueError, match="not valid JSON"):
        make_agent(f"az:path={bad_json}")
    other = tmp_path / "b.json"
    other.write_text(json.dumps({"format": "something else", "version": 1}))
    (tmp_path / "b.pt").write_bytes(b"")
    with pytest.raises(ValueError, match=r"mancala_envs\.az"):
        make_agent(f"az:path={other}")
    pickled = tmp_path / "c.json"
    pickled.write_text(path.read_text())

    class Evil:
        def __reduce__(self):
            return (print, ("pickle code ran",))

    torch.save({"x": Evil()}, tmp_path / "c.pt")
    with pytest.raises(ValueError, match="not the weights"):
        make_agent(f"az:path={pickled}")


def test_search_setting_of_the_model_is_read_and_checked(model, game, tmp_path):
    """``search.settle_decided`` in the model's config: absent means True; false builds a search
    that sends decided positions to the network; anything but a boolean is refused by name (when
    the file is loaded)."""
    path, _ = model
    s = next(s for s in states(game) if game.legal_mask(s).sum() > 1)
    agent = make_agent(f"az:path={path},sims=4")
    agent.act(game, s)
    assert [x.settle_decided for x in agent._searches.values()] == [True]
    config = json.loads(path.read_text())
    weights = path.with_suffix(".pt").read_bytes()
    for value, expect in ((False, [False]), ("false", None)):
        config["search"]["settle_decided"] = value
        config["digest"] = config_digest(config, weights)  # an edit made on purpose: digest recomputed
        copy = tmp_path / f"m{expect is None}.json"
        copy.write_text(json.dumps(config))
        copy.with_suffix(".pt").write_bytes(weights)
        if expect is None:  # refused when the file is loaded (every field is checked on load)
            with pytest.raises(ValueError, match="settle_decided must be true or false"):
                make_agent(f"az:path={copy},sims=4").act(game, s)
        else:
            agent = make_agent(f"az:path={copy},sims=4")
            agent.act(game, s)
            assert [x.settle_decided for x in agent._searches.values()] == expect


def test_model_of_another_game_is_refused(model):
    path, _ = model
    agent = make_agent(f"az:path={path}")
    with pytest.raises(ValueError, match=r"for En Dodoi \(6 holes\), not En Dodoi \(8 holes\)"):
        agent.act(get_game("en_dodoi", holes_per_row=8), get_game("en_dodoi").initial_state())


def test_no_shipped_model_names_the_way_out(tmp_path, monkeypatch):
    import mancala_envs.agents.model_files

    monkeypatch.setattr(mancala_envs.agents.model_files, "MODELS_DIR", tmp_path)
    game = get_game("sadeqa_ii")
    with pytest.raises(ValueError, match="az:path="):
        make_agent("az").act(game, game.initial_state())


def test_network_and_path_together_is_an_error(model):
    path, net = model
    with pytest.raises(ValueError, match="not both"):
        AZAgent(path=path, network=net)


@pytest.mark.parametrize("variant", variants(), ids=lambda g: g.variant)
def test_shipped_models_load_and_play(variant):
    """models/az_<variant>.json/.pt load through make_agent("az") for every variant (En Dodoi at
    every width) and play, with the search and alone."""
    game = variant
    state = random_position(game, 6, 1)
    for spec in ("az:sims=8", "az:sims=0"):
        agent = make_agent(spec)
        assert game.legal_mask(state)[agent.act(game, state)] == 1
    config = agent.model(game)[1]
    assert config_game(config).variant == game.variant
    assert agent.lookahead(game) == lookahead_plies(config)


def test_time_budget_sets_the_simulations_from_their_measured_cost(model, game, monkeypatch):
    """``az:time=S``: the first move calibrates with CALIBRATION_SIMS and gives what is left of S to
    a larger search (issue 43: it stopped at the calibration's 16 simulations, half the budget
    unused); later ones run as many simulations as the measured cost fits in S (a fake clock makes
    the cost exact), capped by sims."""
    from mancala_envs.agents.alphazero import agent as az_agent

    clock = [0.0]
    run = GumbelSearch.run

    def timed_run(self, *args, **kwargs):  # every simulation costs 1 ms on the fake clock
        clock[0] += 0.001 * self.sims
        return run(self, *args, **kwargs)

    monkeypatch.setattr(GumbelSearch, "run", timed_run)
    monkeypatch.setattr(az_agent._time, "perf_counter", lambda: clock[0])
    path = model[0]
    state = next(s for s in states(game) if game.legal_mask(s).sum() > 1)
    agent = make_agent(f"az:path={path},time=0.05,finish=0")
    assert agent.name == f"az:path={path},time=0.05,finish=0"
    sims, used = [], []
    for _ in range(3):
        before = clock[0]
        agent.act(game, state)
        sims.append(agent.last_sims)
        used.append(clock[0] - before)
    left = 50 - az_agent.CALIBRATION_SIMS  # ms after the calibration: 34 simulations fit, 32 on the grid
    assert sims[0] == 2 ** (np.floor(4 * np.log2(left)) / 4) // 1 == 32
    assert used[0] == pytest.approx(0.001 * (az_agent.CALIBRATION_SIMS + 32)) and used[0] <= 0.05
    assert sims[1:] == [2 ** (np.floor(4 * np.log2(50)) / 4) // 1] * 2 == [45, 45]  # 50 fit, on the grid
    capped = make_agent(f"az:path={path},time=0.05,sims=20,finish=0")
    for _ in range(2):
        capped.act(game, state)
    assert capped.last_sims == 20 and capped.name == f"az:path={path},sims=20,time=0.05,finish=0"
    with pytest.raises(ValueError, match="sims=0"):
        make_agent(f"az:path={path},time=0.05,sims=0")
    with pytest.raises(ValueError, match="time"):
        make_agent("az:time=-1")


def test_no_simulation_starts_after_the_time_budget(model, game, monkeypatch):
    """Issue 43: the time cap was not a cap: a search sized on a cost measured earlier ran 40% over
    when its simulations came slower. On a fake clock where every simulation costs 1 ms, an agent
    that believes they cost 0.1 ms sizes 500 of them for 50 ms, and stops at 50."""
    from mancala_envs.agents.alphazero import agent as az_agent

    clock = [0.0]

    def tick():  # the search reads the clock once per simulation: each costs 1 ms
        clock[0] += 0.001
        assert clock[0] < 10, "the search does not stop"
        return clock[0]

    monkeypatch.setattr(az_agent._time, "perf_counter", tick)
    state = next(s for s in states(game) if game.legal_mask(s).sum() > 1)
    agent = make_agent(f"az:path={model[0]},time=0.05,finish=0")
    agent._seconds_per_sim[(game.name, game.holes_per_row, 1)] = 0.0001  # an optimistic measure
    start = clock[0]
    action = agent.act(game, state)
    assert game.legal_mask(state)[action] == 1
    assert 40 <= agent.last_sims <= 50 and clock[0] - start <= 0.05 + 0.01  # (the other clock reads)
    search = GumbelSearch(game, 1, 64)  # a deadline already passed: one simulation, a legal move
    result = search.run(state.array[None], agent.evaluator(game), deadline=0.0)
    assert search.last_sims == 1 and game.legal_mask(state)[result.action[0]] == 1
    # a budget spent before the calibration ends: the move comes (no larger search is tried)
    slow = make_agent(f"az:path={model[0]},time=0.001,finish=0")
    reads = clock[0]
    assert game.legal_mask(state)[slow.act(game, state)] == 1
    assert slow.last_sims < 16 and clock[0] - reads < 1.0  # (a loop of 1-simulation searches before)


def test_engine_moves_per_evaluation_counts_the_lookahead_rows():
    """A network reading k plies costs n + n**2 + ... + n**k engine moves an evaluation (the rows
    of Game.lookahead_batch), raw counts none."""
    from mancala_envs.agents.alphazero.network import engine_moves_per_evaluation
    from mancala_envs.core.batch import LOOKAHEAD_FLAGS

    game = get_game("en_dodoi", holes_per_row=8)
    for plies, network in ((0, {}), (1, {"lookahead": 8}), (2, {"lookahead": 8, "replies": 4})):
        config = network_config(game, [16], 4, 10.0, **network)
        assert engine_moves_per_evaluation(config) == sum(8**k for k in range(1, plies + 1))
        width = game.lookahead_width(plies) if plies else game.observation_size
        block = LOOKAHEAD_FLAGS + game.observation_size  # one block a move: its flags and view after
        assert (width - game.observation_size) == block * engine_moves_per_evaluation(config)
