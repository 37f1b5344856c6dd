"""The baseline agents: registry, legality, determinism, search correctness, policy, human, strength.
(Over 400 lines: one contract, the agent protocol, checked for every agent in one place.)"""

from __future__ import annotations

import io
import json
import time
from pathlib import Path

import numpy as np
import pytest
from strategies import random_move, random_walk, running_positions

import mancala_envs.agents.model_files as model_files
from mancala_envs import GAMES, Game, State, get_game, variants
from mancala_envs.agents import (
    GreedyAgent,
    HumanAgent,
    MCTSAgent,
    MinimaxAgent,
    PolicyAgent,
    RandomAgent,
    make_agent,
)
from mancala_envs.agents.greedy import immediate_gain
from mancala_envs.agents.human import QuitGame
from mancala_envs.render import ansi_board

SPECS = ["random", "greedy", "minimax:depth=3", "mcts:sims=200"]


def play(game: Game, agent0, agent1) -> tuple[int | None, list[int]]:
    """One game from the start (player 0 first); returns the winner and the moves."""
    s = game.initial_state()
    seats = (agent0, agent1)
    moves = []
    while not s.is_over:
        a = seats[s.to_move].act(game, s)
        moves.append(a)
        s = game.apply(s, a)  # raises IllegalMoveError on an illegal move
    return s.winner, moves


def match_score(game: Game, spec_a: str, spec_b: str, n_games: int, seed: int) -> float:
    """(wins + draws / 2) / games for ``spec_a``, which plays each seat in half of the games."""
    points = 0.0
    for i in range(n_games):
        a = make_agent(spec_a, seed=seed + 2 * i)
        b = make_agent(spec_b, seed=seed + 2 * i + 1)
        seat = i % 2
        winner, _ = play(game, a, b) if seat == 0 else play(game, b, a)
        points += 1.0 if winner == seat else 0.5 if winner in (-1, None) else 0.0
    return points / n_games


# --------------------------------------------------------------------------- registry


@pytest.mark.parametrize(
    ("spec", "cls", "attrs", "name"),
    [
        ("random", RandomAgent, {}, "random"),
        ("greedy", GreedyAgent, {}, "greedy"),
        ("minimax:depth=4", MinimaxAgent, {"depth": 4, "time": None}, "minimax:depth=4"),
        ("minimax:depth=6,time=0.5", MinimaxAgent, {"depth": 6, "time": 0.5}, "minimax:depth=6,time=0.5"),
        (
            "minimax:time=0.123456789,depth=3",
            MinimaxAgent,
            {"time": 0.123456789},
            "minimax:depth=3,time=0.123456789",
        ),
        ("mcts:sims=1000", MCTSAgent, {"sims": 1000, "c": 1.4, "time": None}, "mcts:sims=1000"),
        (
            "mcts:sims=1000,c=1.4,time=0.2",
            MCTSAgent,
            {"sims": 1000, "c": 1.4, "time": 0.2},
            "mcts:sims=1000,time=0.2",
        ),
        ("mcts: sims = 50 , c=2", MCTSAgent, {"sims": 50, "c": 2.0}, "mcts:sims=50,c=2"),
        ("policy:sample=true", PolicyAgent, {"sample": True, "model": None}, "policy:sample=true"),
        ("human", HumanAgent, {}, "human"),
    ],
)
def test_make_agent_builds_each_spec(spec, cls, attrs, name):
    agent = make_agent(spec, seed=3)
    assert isinstance(agent, cls)
    assert agent.name == name  # the canonical spec ...
    again = make_agent(agent.name, seed=3)  # ... rebuilds the same agent
    assert type(again) is cls and again.name == agent.name
    assert isinstance(agent.rng, np.random.Generator)
    for key, value in attrs.items():
        assert getattr(agent, key) == value == getattr(again, key)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("alphazero", "known agents: random; greedy; minimax"),
        ("minimax:deep=3", "accepted: depth, time"),
        ("mcts:simulations=3", "accepted: sims, c, time"),
        ("random:x=1", "accepted: none"),
        ("minimax:depth=four", "'four' is not an integer"),
        ("minimax:depth=٣", "'٣' is not an integer"),  # issue 43: int() reads other scripts' digits
        ("perfect:depth=²", "'²' is not an integer"),
        ("minimax:depth=1_0", "'1_0' is not an integer"),
        ("minimax:time=½", "'½' is not a number"),
        ("mcts:c=1_0", "'1_0' is not a number"),
        ("minimax:depth=0", "depth must be an integer in 1..60"),
        ("mcts:sims=-5", "sims must be an integer in 1..10000000"),
        ("mcts:sims=100000000000000000000", "sims must be an integer in 1.."),
        ("mcts:c=-1", "c must be a finite non-negative number"),
        ("mcts:time=0", "time must be a positive, finite number"),
        ("minimax:time=inf", "not a finite number"),
        ("mcts:c=nan", "not a finite number"),
        ("minimax:depth", "malformed parameter 'depth'"),
        ("minimax:depth=3,depth=4", "given twice"),
        ("policy:sample=maybe", "not a boolean"),
        ("policy:path=/nonexistent/model.json", "does not exist"),
        ("policy:path=/nonexistent/model.zip", "a pickle that can run code"),
        ("policy:path=/nonexistent/model.zip,trusted=true", "does not exist"),
        ("az:sims=-1", "sims"),
        ("az:sims=abc", "integer"),
        ("az:sims=1.5", "integer"),
        ("az:temperature=-1", "temperature"),
        ("az:temperature=nan", "number"),
        ("az:depth=3", "no parameter 'depth'"),
        ("az:path=/no/such/model.json", "does not exist"),
        ("", "non-empty string"),
    ],
)
def test_make_agent_rejects_bad_specs(spec, message):
    with pytest.raises(ValueError, match=message):
        make_agent(spec)


def test_make_agent_rejects_bad_seed():
    with pytest.raises(ValueError, match="seed"):
        make_agent("random", seed=-1)


# --------------------------------------------------------------------------- legality, determinism


@pytest.mark.parametrize("name", GAMES)
def test_agents_play_legal_and_deterministic_games(name):
    game = get_game(name)
    for spec in SPECS:
        first = play(game, make_agent(spec, seed=11), make_agent("random", seed=12))
        again = play(game, make_agent(spec, seed=11), make_agent("random", seed=12))
        assert first == again, spec
    a = play(game, make_agent("random", seed=1), make_agent("random", seed=2))[1]
    b = play(game, make_agent("random", seed=5), make_agent("random", seed=2))[1]
    assert a != b


@pytest.mark.parametrize("spec", [*SPECS, "policy"])
def test_agents_refuse_finished_games(spec):
    game = get_game("sadeqa_ii")
    over = game.state_from([0] * 6 + [3] * 6, captured=[18, 0], to_move=0)
    assert over.is_over
    with pytest.raises(ValueError, match="game is over"):
        make_agent(spec).act(game, over)


def test_random_batch_matches_legal_masks():
    game = get_game("en_dodoi", holes_per_row=6)
    states = np.stack([s.array for s in running_positions(game, 40, seed=4)])
    states = np.vstack([states, game.state_from([0] * 6 + [8] * 6, [0, 0], to_move=0).array])
    actions = RandomAgent(seed=0).act_batch(game, states)
    masks = game.legal_masks(states)
    assert actions[-1] == -1
    assert all(masks[i, a] for i, a in enumerate(actions[:-1]))
    assert np.array_equal(actions, RandomAgent(seed=0).act_batch(game, states))


# --------------------------------------------------------------------------- greedy


@pytest.mark.parametrize("name", GAMES)
def test_greedy_takes_a_win_else_the_best_gain(name):
    game = get_game(name)
    agent = GreedyAgent(seed=0)
    for s in running_positions(game, 40, seed=7, max_plies=150):
        me = s.to_move
        children = {a: game.apply(s, a) for a in game.legal_actions(s)}
        gains = {a: immediate_gain(game, s, c, me) for a, c in children.items()}
        wins = [a for a, c in children.items() if c.done and c.winner == me]
        choice = agent.act(game, s)
        if wins:
            assert choice in wins
        else:
            assert gains[choice] == max(gains.values())


def test_greedy_gain_in_each_games_terms():
    songo = get_game("songo_ewondo")
    # player 0's hole 1 (2 seeds, sown clockwise) ends in player 1's 1-seed hole: a capture
    s = songo.state_from([1, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 1], captured=[17, 16], to_move=0)
    after = songo.apply(s, 1)
    assert immediate_gain(songo, s, after, 0) == after.captured[0] - 17 > 0
    sadeqa = get_game("sadeqa_ii")
    t = sadeqa.initial_state()
    after = sadeqa.apply(t, 5)
    own, opp = after.board[:6].sum(), after.board[6:].sum()
    assert immediate_gain(sadeqa, t, after, 0) == own - opp


def test_greedy_breaks_ties_at_random():
    game = get_game("sadeqa_ii")
    s = game.state_from([1, 0, 1, 0, 1, 0, 0, 2, 0, 2, 0, 2], captured=[15, 12], to_move=0)
    keys = {a: immediate_gain(game, s, game.apply(s, a), 0) for a in game.legal_actions(s)}
    best = [a for a, k in keys.items() if k == max(keys.values())]
    assert len(best) > 1  # a position with tied best moves
    chosen = {GreedyAgent(seed=k).act(game, s) for k in range(30)}
    assert chosen == set(best)


# --------------------------------------------------------------------------- minimax


def positions_with_a_winning_move(game: Game, count: int, seed: int) -> list[tuple[State, list[int]]]:
    """Positions of seeded random games where some legal moves win at once and others do not."""
    rng = np.random.default_rng(seed)
    out: list[tuple[State, list[int]]] = []
    for _ in range(200):
        s = game.initial_state()
        while not s.is_over and len(out) < count:
            legal = game.legal_actions(s)
            wins = [a for a in legal if (c := game.apply(s, a)).done and c.winner == s.to_move]
            if wins and len(wins) < len(legal):
                out.append((s, wins))
            s = game.apply(s, random_move(game, s, rng))
    assert len(out) == count
    return out


# Not Songo: there a move that ends the game (SE9) leaves every other move ending it too.
WIN_GAMES = ["sadeqa_ii", "en_dodoi"]


@pytest.mark.parametrize("name", WIN_GAMES)
def test_minimax_takes_an_immediate_win(name):
    game = get_game(name)
    for k, (s, wins) in enumerate(positions_with_a_winning_move(game, 5, seed=9)):
        assert MinimaxAgent(depth=4, seed=k).act(game, s) in wins


# --------------------------------------------------------------------------- MCTS


@pytest.mark.parametrize("name", GAMES)
def test_mcts_visits_and_choice(name):
    game = get_game(name)
    s = running_positions(game, 1, seed=3)[0]
    agent = MCTSAgent(sims=300, seed=1)
    visits = agent.search(game, s)
    mask = game.legal_mask(s)
    assert visits.sum() == 300 and agent.last_sims == 300
    assert np.all(visits[mask == 0] == 0) and np.all(visits[mask == 1] >= 1)
    assert MCTSAgent(sims=300, seed=1).act(game, s) == int(np.argmax(visits))


@pytest.mark.parametrize("name", WIN_GAMES)
def test_mcts_takes_an_immediate_win(name):
    """Rewards credited to the wrong player would steer the search away from these moves."""
    game = get_game(name)
    for k, (s, wins) in enumerate(positions_with_a_winning_move(game, 3, seed=13)):
        assert MCTSAgent(sims=1000, seed=k).act(game, s) in wins


# --------------------------------------------------------------------------- time budgets


@pytest.mark.parametrize(
    ("spec", "done", "limit"),
    [
        ("minimax:depth=40,time=0.05", "last_depth", 40),  # the time stops the iterative deepening
        ("minimax:time=0.05", "last_depth", 60),  # time alone: deepening until the budget is spent
        ("mcts:sims=200000,time=0.05", "last_sims", 200000),  # ... and the simulations
    ],
)
def test_search_stops_at_its_time_budget(spec, done, limit):
    game = get_game("songo_ewondo")
    s = running_positions(game, 1, seed=2, max_plies=10)[0]
    make_agent(spec.split(":")[0] + ":time=0.001").act(game, s)  # compile first (a cold numba cache)
    agent = make_agent(spec)
    start = time.perf_counter()
    move = agent.act(game, s)
    assert time.perf_counter() - start < 1.0
    assert move in game.legal_actions(s)
    assert 1 <= getattr(agent, done) < limit  # some of the work done, not all of it


def test_mcts_time_alone_searches_until_the_budget_and_grows_its_tree(monkeypatch):
    """``mcts:time=S`` without ``sims`` is not capped at the default 1000 simulations: its tree
    starts small and doubles (child links kept), and the search it grows is the search a tree
    allocated whole would run (same seed, same simulations, same root visits)."""
    from mancala_envs.agents.mcts import agent as mcts_agent

    monkeypatch.setattr(mcts_agent, "FIRST_NODES", 64)
    game = get_game("songo_ewondo")
    s = running_positions(game, 1, seed=2, max_plies=10)[0]
    timed = make_agent("mcts:time=0.2", seed=5)
    assert timed.name == "mcts:time=0.2"
    visits = timed.search(game, s)
    assert timed.last_sims > 1000 and timed._shape[0] >= timed.last_sims + 1 > 64
    assert visits.sum() == timed.last_sims
    whole = MCTSAgent(sims=timed.last_sims, seed=5)  # the same simulations in a tree allocated whole
    assert np.array_equal(whole.search(game, s), visits)
    grown = timed._shape[0]
    timed.search(game, s)
    assert timed._shape[0] >= grown  # the next move keeps the grown tree
    capped = make_agent("mcts:sims=100,time=5", seed=5)
    capped.search(game, s)
    assert capped.last_sims == 100 and capped._shape[0] == 101  # grown to sims + 1 nodes, no more


def test_a_huge_time_budget_is_no_budget():
    game = get_game("songo_ewondo")
    s = running_positions(game, 1, seed=2, max_plies=10)[0]
    agent = make_agent("minimax:depth=3,time=1e308")  # its node budget once overflowed an int
    assert agent.act(game, s) == make_agent("minimax:depth=3").act(game, s) and agent.last_depth == 3


# --------------------------------------------------------------------------- policy


@pytest.fixture(scope="module")
def tiny_models(tmp_path_factory):
    """Tiny MaskablePPO checkpoints on Sadeqa II (flat and dict observations, sb3 .zip pickles)
    and the flat one exported to the safe pair (policy.json + policy.pt)."""
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import Logger

    from mancala_envs.agents.model_files import export_zip
    from mancala_envs.envs.single import SingleAgentEnv

    out = {}
    folder = tmp_path_factory.mktemp("policies")
    for fmt, policy in (("flat", "MlpPolicy"), ("dict", "MultiInputPolicy")):
        env = SingleAgentEnv("sadeqa_ii", obs_format=fmt)
        kwargs = {"net_arch": [8]}
        if fmt == "flat":
            from mancala_envs.agents.policies.features import SeedFeatures

            kwargs |= {
                "features_extractor_class": SeedFeatures,
                "features_extractor_kwargs": {"holes": 6, "total_seeds": 36, "scale": 10.0, "one_hot_max": 5},
            }
        model = MaskablePPO(
            policy, env, n_steps=32, batch_size=16, n_epochs=1, seed=0, device="cpu", policy_kwargs=kwargs
        )
        model.set_logger(Logger(folder=None, output_formats=[]))  # no SB3-* folder in /tmp
        model.learn(64)
        model.save(folder / f"{fmt}.zip")
        out[fmt] = folder / f"{fmt}.zip"
    export_zip(out["flat"], folder / "safe", get_game("sadeqa_ii"))
    out["safe"] = folder / "safe.json"
    return out


@pytest.mark.parametrize("fmt", ["flat", "dict", "safe"])
def test_policy_agent_plays_masked_argmax(tiny_models, fmt):
    from sb3_contrib import MaskablePPO

    game = get_game("sadeqa_ii")
    zip_path = tiny_models["flat" if fmt == "safe" else fmt]
    model = MaskablePPO.load(zip_path, device="cpu")
    spec = f"policy:path={tiny_models[fmt]}" + ("" if fmt == "safe" else ",trusted=true")
    agent = make_agent(spec)
    positions = running_positions(game, 20, seed=21, max_plies=20)
    for s in positions:
        obs = game.observation(s, s.to_move)
        mask = game.legal_mask(s)
        net_obs = {"observation": obs, "action_mask": mask} if fmt == "dict" else obs
        expected, _ = model.predict(net_obs, action_masks=mask.astype(bool), deterministic=True)
        assert agent.act(game, s) == int(expected)
    batch = np.stack([s.array for s in positions])
    assert agent.act_batch(game, batch).tolist() == [agent.act(game, s) for s in positions]


def test_pickled_zip_needs_the_trusted_opt_in(tiny_models):
    with pytest.raises(ValueError, match=r"pickle that can run code.*trusted=true"):
        make_agent(f"policy:path={tiny_models['flat']}")


def test_legacy_checkpoint_loads_through_the_old_class_path(tmp_path):
    """0.1's shipped models pickled ``mancala_envs.training.train_ppo.SeedFeatures``; with the opt-in they
    load,
    and their export to the safe format plays the same moves."""
    from mancala_envs.agents.model_files import export_zip

    legacy = Path(__file__).parents[1] / "data" / "legacy_sadeqa_ii.zip"
    game = get_game("sadeqa_ii")
    old = make_agent(f"policy:path={legacy},trusted=true")
    json_path, _ = export_zip(legacy, tmp_path / "legacy", game)
    exported = make_agent(f"policy:path={json_path}")
    positions = running_positions(game, 30, seed=2, max_plies=30)
    moves = [old.act(game, s) for s in positions]
    assert moves == [exported.act(game, s) for s in positions]
    assert len(set(moves)) > 1  # the positions ask for different moves


def test_legacy_module_paths_are_put_back():
    """The shim that maps the old pickled module paths leaves ``sys.modules`` as it found it."""
    import sys

    names = list(model_files.LEGACY_MODULES)
    before = {name: sys.modules.get(name) for name in names}
    with model_files.legacy_module_paths():
        from mancala_envs.agents.policies import features

        assert sys.modules["training.train_ppo"].SeedFeatures is features.SeedFeatures
        assert sys.modules["training.features"].CountFeatures is features.CountFeatures
    assert {name: sys.modules.get(name) for name in names} == before
    for name, cls in features.EXTRACTORS.items():  # what zip_config maps a checkpoint's class to
        assert model_files.EXTRACTOR_CLASSES[name] == f"{cls.__module__}.{cls.__qualname__}"


@pytest.mark.parametrize("game", variants(), ids=lambda g: g.variant)
def test_torch_only_policy_matches_the_sb3_policy(game):
    """A shipped safe pair loads into a torch-only PolicyNet whose logits, raw and masked, are the
    sb3-contrib MaskableActorCriticPolicy's on the same weights."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("sb3_contrib")
    from mancala_envs.agents.model_files import shipped_path
    from mancala_envs.agents.policies.network import PolicyNet, build_sb3_policy, load_policy

    net, config = load_policy(shipped_path(game, "policy"))
    assert isinstance(net, PolicyNet) and not net.training
    assert not any("stable_baselines3" in type(m).__module__ for m in net.modules())
    sb3 = build_sb3_policy(config)
    sb3.load_state_dict(torch.load(shipped_path(game, "policy").with_suffix(".pt"), weights_only=True))
    sb3.set_training_mode(False)
    positions = running_positions(game, 64, seed=13, max_plies=80)
    states = np.stack([s.array for s in positions])
    obs = torch.as_tensor(game.counts_batch(states, states[:, game.layout.to_move]).astype(np.float32))
    masks = torch.as_tensor(game.legal_masks(states).astype(bool))
    with torch.no_grad():
        raw = net(obs)
        expected_raw = sb3.action_net(sb3.mlp_extractor.forward_actor(sb3.extract_features(obs)))
        masked = net(obs, masks)
        expected = sb3.get_distribution(obs, action_masks=masks.numpy()).distribution.logits
        values = net.value(obs)
        expected_values = sb3.predict_values(obs).squeeze(1)
    assert raw.shape == (len(positions), game.num_actions)
    assert torch.allclose(raw, expected_raw, rtol=0, atol=1e-6)
    assert torch.allclose(masked, expected, rtol=0, atol=1e-6)
    assert torch.allclose(values, expected_values, rtol=0, atol=1e-6)
    assert len(set(raw.argmax(1).tolist())) > 1  # the positions ask for different moves
    agent = make_agent("policy")
    assert agent.act_batch(game, states).tolist() == torch.where(masks, masked, -torch.inf).argmax(1).tolist()


def test_damaged_policy_files_are_one_line_errors(tiny_models, tmp_path):
    import shutil

    good_json = tiny_models["safe"]
    for case, content in (("garbage.pt", b"not a tensor file"), ("text.pt", b"hello\n")):
        shutil.copy(good_json, tmp_path / case.replace(".pt", ".json"))
        (tmp_path / case).write_bytes(content)
        with pytest.raises(ValueError, match="not the weights of this policy"):
            make_agent(f"policy:path={tmp_path / case}")
    (tmp_path / "bad.json").write_text("{nope")
    shutil.copy(good_json.with_suffix(".pt"), tmp_path / "bad.pt")
    with pytest.raises(ValueError, match=r"bad\.json is damaged: not valid JSON"):
        make_agent(f"policy:path={tmp_path / 'bad.json'}")
    config = json.loads(good_json.read_text())
    shutil.copy(good_json.with_suffix(".pt"), tmp_path / "other.pt")
    for change, message in (
        ({"format": "something-else"}, r"other\.json is not a .+ policy config"),
        ({"version": 99}, r"other\.json has format version 99; this code reads"),
    ):
        (tmp_path / "other.json").write_text(json.dumps({**config, **change}))
        with pytest.raises(ValueError, match=message):
            make_agent(f"policy:path={tmp_path / 'other.json'}")
    (tmp_path / "broken.zip").write_bytes(b"PK\x03\x04 broken")
    with pytest.raises(ValueError, match="not a loadable MaskablePPO checkpoint"):
        make_agent(f"policy:path={tmp_path / 'broken.zip'},trusted=true")


def test_policy_agent_sampling_is_seeded_and_legal(tiny_models):
    game = get_game("sadeqa_ii")
    spec = f"policy:path={tiny_models['safe']},sample=true"
    first = play(game, make_agent(spec, seed=4), make_agent("random", seed=5))
    assert first == play(game, make_agent(spec, seed=4), make_agent("random", seed=5))


def test_policy_agent_rejects_other_games(tiny_models):
    agent = make_agent(f"policy:path={tiny_models['safe']}")
    songo = get_game("songo_ewondo")
    with pytest.raises(ValueError, match="expects observations of shape"):
        agent.act(songo, songo.initial_state())


def test_policy_agent_wraps_a_torch_callable_and_shipped_models(tiny_models, tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    game = get_game("en_dodoi", holes_per_row=6)

    def prefers_last_hole(obs, mask):
        assert obs.dtype == torch.float32 and mask.dtype == torch.bool
        return torch.arange(mask.shape[1], dtype=torch.float32).repeat(obs.shape[0], 1)

    agent = PolicyAgent(model=prefers_last_hole)
    for s in running_positions(game, 10, seed=8):
        assert agent.act(game, s) == max(game.legal_actions(s))
    monkeypatch.setattr(model_files, "MODELS_DIR", tmp_path)
    sadeqa = get_game("sadeqa_ii")
    with pytest.raises(ValueError, match="no shipped policy for sadeqa_ii"):
        make_agent("policy").act(sadeqa, sadeqa.initial_state())
    for suffix in (".json", ".pt"):
        (tmp_path / f"sadeqa_ii{suffix}").write_bytes(tiny_models["safe"].with_suffix(suffix).read_bytes())
    assert make_agent("policy").act(sadeqa, sadeqa.initial_state()) == 5  # SQ4: the only legal move


# --------------------------------------------------------------------------- human


def test_human_agent_explains_and_asks_again():
    game = get_game("songo_ewondo")
    s = game.state_from([0, 0, 3, 4, 5, 6, 7] + [5] * 7, captured=[10, 0], to_move=0)
    out = io.StringIO()
    agent = HumanAgent(input_stream=io.StringIO("two\n9\n1\n?\n3\n"), output_stream=out)
    assert agent.act(game, s) == 3
    text = out.getvalue()
    assert "'two' is not a hole number" in text
    assert "there is no hole 9" in text
    assert "hole 1 cannot be played: it is empty" in text
    assert "legal holes: 2, 3, 4, 5, 6" in text
    assert "captured" in text  # the board was shown
    with pytest.raises(EOFError):
        HumanAgent(input_stream=io.StringIO("x\n"), output_stream=io.StringIO()).act(game, s)


def test_human_agent_names_rule_forbidden_moves():
    sadeqa = get_game("sadeqa_ii")  # SQ4: the first move must be the rightmost hole
    out = io.StringIO()
    agent = HumanAgent(input_stream=io.StringIO("0\n5\n"), output_stream=out)
    assert agent.act(sadeqa, sadeqa.initial_state()) == 5
    assert "hole 0 cannot be played: the rules forbid it here" in out.getvalue()


def test_human_agent_shows_what_the_opponents_move_captured():
    """The board the human sees marks the opponent's last move and the seeds it captured: the agent
    knows the state before that move, the one its own move made."""
    for name in GAMES:
        game = get_game(name)
        rng = np.random.default_rng(2)
        states = [game.initial_state()]
        for state in random_walk(game, rng, states[0]):  # a random game to a capture at ply 2 or later
            states.append(state)
            if len(states) > 2 and (states[-1].captured != states[-2].captured).any():
                break
        else:
            pytest.fail(f"no capture in a random {name} game")
        mine, before, after = states[-3:]
        out = io.StringIO()
        agent = HumanAgent(input_stream=io.StringIO(f"{before.last_action}\nq\n"), output_stream=out)
        assert agent.act(game, mine) == before.last_action  # the human's move, then the opponent's
        with pytest.raises(QuitGame):
            agent.act(game, after)
        board = out.getvalue().split("your move")[-2].rsplit("\n", 1)[0]  # the second board shown
        gained = int(after.captured[before.to_move] - before.captured[before.to_move])
        assert board.endswith(ansi_board(game, after, bottom=after.to_move, previous=before))
        assert f"(+{gained})" in board or f"captured {gained} seed" in board
        fresh = HumanAgent(input_stream=io.StringIO("q\n"), output_stream=io.StringIO())
        with pytest.raises(QuitGame):  # an agent that did not see the move before: no capture shown
            fresh.act(game, after)
        assert "(+" not in fresh.output.getvalue() and " seed" not in fresh.output.getvalue()


# --------------------------------------------------------------------------- strength


@pytest.mark.parametrize("name", GAMES)
def test_strength_margins(name):
    """Small seeded samples of the README's figures (seats balanced)."""
    game = get_game(name)
    assert match_score(game, "minimax:depth=4", "random", 20, seed=100) >= 0.9
    assert match_score(game, "minimax:depth=4", "greedy", 20, seed=200) >= 0.65
    assert match_score(game, "mcts:sims=1000", "random", 10, seed=300) >= 0.9
