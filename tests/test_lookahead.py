"""The lookahead input (``Game.lookahead_batch``) against a plain composition of ``Game.apply`` and
``Game.counts`` written here; the Gumbel search and the az agent fed with it."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.az import AZAgent
from agents.az_net import build_network, load_network, network_config, save_network, uses_lookahead
from agents.az_search import GumbelSearch, network_inputs
from mancala_envs import get_game
from tests.golden_search import CONFIGS, gumbel_noise, positions, random_position, stub_evaluator


def plain_lookahead(game, state) -> list[int]:
    """The mover's view, then per hole: legal, moves again, over, outcome, his view after it."""
    p = state.to_move
    row = game.counts(state, p).tolist()
    for a in range(game.num_actions):
        if a not in game.legal_actions(state):
            row += [0] * (4 + game.observation_size)
            continue
        after = game.apply(state, a)
        over = after.is_over
        winner = after.winner  # 0, 1, -1 for a draw, None while running or truncated
        outcome = 1 if over and winner == p else -1 if over and winner == 1 - p else 0
        again = int(not over and after.to_move == p)
        row += [1, again, int(over), outcome, *game.counts(after, p).tolist()]
    return row


def running_positions(game, k: int = 60) -> list:
    out = []
    for seed in range(k):
        s = random_position(game, seed % 40, 100 + seed)
        if not s.is_over:
            out.append(s)
    return out


@pytest.mark.parametrize(("name", "params"), CONFIGS, ids=[c[0] for c in CONFIGS])
def test_lookahead_matches_apply_and_counts(name, params):
    game = get_game(name, **params)
    states = running_positions(game)
    rows = game.lookahead_batch(np.stack([s.array for s in states]))
    assert rows.shape == (len(states), game.lookahead_size) and rows.dtype == np.int32
    for s, row in zip(states, rows, strict=True):
        assert row.tolist() == plain_lookahead(game, s)


def test_lookahead_sees_game_ends():
    """Over these positions some moves end the game: the flag is not always zero. (None of the
    three games gives a mover two turns in a row; the "moves again" flag is kept for rulesets that
    would, since nothing assumes that turns alternate.)"""
    seen = {"over": 0, "again": 0}
    for name, params in CONFIGS:
        game = get_game(name, **params)
        block = 4 + game.observation_size
        for seed in range(300):
            s = random_position(game, 20 + seed % 200, seed)
            if s.is_over:
                continue
            row = game.lookahead_batch(s.array[None])[0, game.observation_size :].reshape(-1, block)
            seen["over"] += int(row[:, 2].sum())
            seen["again"] += int(row[:, 1].sum())
    assert seen["over"] > 0 and seen["again"] == 0, seen


def test_lookahead_refuses_finished_or_bad_batches():
    game = get_game("sadeqa_ii")
    s = game.initial_state()
    while not s.is_over:
        s = game.apply(s, game.legal_actions(s)[0])
    with pytest.raises(ValueError, match="running"):
        game.lookahead_batch(s.array[None])
    with pytest.raises(ValueError, match="int32"):
        game.lookahead_batch(np.zeros((1, game.state_size)))


def view_only(game, evaluate, seen):
    """``evaluate`` on the view part of lookahead rows; records every row it is given."""

    def wrapped(obs):
        seen.append(np.array(obs))
        return evaluate(obs[:, : game.observation_size])

    return wrapped


@pytest.mark.parametrize(("name", "params"), CONFIGS, ids=[c[0] for c in CONFIGS])
def test_search_feeds_lookahead_rows_of_its_leaves(name, params):
    """A lookahead search whose network reads only the view builds the same tree as the raw-count
    search, and every row it evaluated is the lookahead of one of the tree's positions."""
    game = get_game(name, **params)
    root = positions(game)[1]
    noise = gumbel_noise(game, 1)
    plain = GumbelSearch(game, 1, 24, max_considered=4)
    wide = GumbelSearch(game, 1, 24, max_considered=4, lookahead=True)
    seen: list[np.ndarray] = []
    a = plain.run(root.array[None], stub_evaluator(game), noise)
    b = wide.run(root.array[None], view_only(game, stub_evaluator(game), seen), noise)
    assert a.visits.tolist() == b.visits.tolist() and a.action.tolist() == b.action.tolist()
    np.testing.assert_allclose(a.q, b.q, atol=1e-12)
    rows = np.concatenate(seen)
    assert rows.shape[1] == game.lookahead_size
    nodes = wide.tree.states[0, : wide.tree.n_nodes[0]]
    running = nodes[(nodes[:, game.layout.mask] != 0).any(axis=1)]
    expected = {tuple(r) for r in game.lookahead_batch(np.ascontiguousarray(running)).tolist()}
    assert {tuple(int(x) for x in r) for r in rows} <= expected
    assert tuple(int(x) for x in rows[0]) == tuple(game.lookahead_batch(root.array[None])[0])
    # the roots' inputs the search returns (self-play stores them) are network_inputs' rows
    for result, wide_input in ((a, False), (b, True)):
        want = network_inputs(game, root.array[None], wide_input)
        assert result.inputs.dtype == np.float32
        np.testing.assert_array_equal(result.inputs, want)


@pytest.fixture(scope="module")
def lookahead_model(tmp_path_factory):
    game = get_game("en_dodoi", holes_per_row=6)
    torch.manual_seed(5)
    config = network_config(game, [16, 16], one_hot_max=8, scale=10.0, lookahead=8)
    config["search"] = {"sims": 8, "max_considered": 4, "c_visit": 50.0, "c_scale": 0.1}
    net = build_network(config)
    path = tmp_path_factory.mktemp("az_la") / "la.json"
    save_network(net, path, config)
    return game, path, net.eval()


def test_lookahead_network_files_and_the_agent(lookahead_model):
    game, path, net = lookahead_model
    loaded, config = load_network(path)
    assert uses_lookahead(config) and config["observation"] == "lookahead" and loaded.lookahead == 8
    states = running_positions(game, 20)
    batch = np.stack([s.array for s in states])
    x = torch.from_numpy(game.lookahead_batch(batch).astype(np.float32))
    with torch.no_grad():
        logits, values = net(x)
        logits2, _ = loaded(x)
    assert logits.shape == (len(states), 6) and values.shape == (len(states),)
    torch.testing.assert_close(logits, logits2, rtol=0, atol=0)
    masks = game.legal_masks(batch).astype(bool)
    expected = np.argmax(np.where(masks, logits.numpy(), -np.inf), axis=1)
    agent = AZAgent(path=path, sims=0)
    assert agent.act_batch(game, batch).tolist() == expected.tolist()
    assert [agent.act(game, s) for s in states] == expected.tolist()
    searched = AZAgent(path=path, sims=8)
    for s in states[:5]:
        assert searched.act(game, s) in game.legal_actions(s)


def test_the_per_move_head_sees_each_moves_result():
    """Two positions with the same view but different results of a move get different logits for
    that move (the head reads the move's block), the same logits elsewhere."""
    game = get_game("en_dodoi", holes_per_row=6)
    torch.manual_seed(0)
    net = build_network(network_config(game, [16, 16], 8, 10.0, lookahead=8)).eval()
    s = running_positions(game, 5)[0]
    x = torch.from_numpy(game.lookahead_batch(s.array[None]).astype(np.float32))
    a = int(game.legal_actions(s)[0])
    y = x.clone()
    start = game.observation_size + a * (4 + game.observation_size) + 4
    y[0, start] += 3.0
    with torch.no_grad():
        lx, vx = net(x)
        ly, vy = net(y)
    changed = (lx != ly)[0].nonzero().flatten().tolist()
    assert changed == [a] and torch.equal(vx, vy)
