"""The lookahead input (``Game.lookahead_batch``) against a plain composition of ``Game.apply`` and
``Game.counts`` written here; the Gumbel search and the az agent fed with it."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from golden_search import CONFIGS, gumbel_noise, positions, stub_evaluator
from strategies import random_position

from mancala_envs import get_game
from mancala_envs.agents.alphazero.agent import AZAgent
from mancala_envs.agents.alphazero.network import (
    AZNet,
    build_network,
    load_first_ply,
    load_network,
    lookahead_plies,
    network_config,
    save_network,
    uses_lookahead,
)
from mancala_envs.agents.alphazero.search import GumbelSearch, network_inputs


def plain_block(game, after, p) -> list[int]:
    """What reaching ``after`` means to ``p``: legal, p to move, over, p's outcome, p's view."""
    over = after.is_over
    winner = after.winner  # 0, 1, -1 for a draw, None while running or truncated
    outcome = 1 if over and winner == p else -1 if over and winner == 1 - p else 0
    again = int(not over and after.to_move == p)
    return [1, again, int(over), outcome, *game.counts(after, p).tolist()]


def plain_lookahead(game, state) -> list[int]:
    """The mover's view, then per hole: legal, moves again, over, outcome, his view after it."""
    p = state.to_move
    row = game.counts(state, p).tolist()
    for a in range(game.num_actions):
        if a not in game.legal_actions(state):
            row += [0] * (4 + game.observation_size)
            continue
        row += plain_block(game, game.apply(state, a), p)
    return row


def plain_replies(game, state) -> list[int]:
    """Per hole ``a`` and hole ``b``: the block of ``a`` then ``b`` from the mover's side, zeros
    when ``a`` is illegal, ends the game, or ``b`` is illegal after it."""
    p, n, row = state.to_move, game.num_actions, []
    for a in range(n):
        after = game.apply(state, a) if a in game.legal_actions(state) else None
        for b in range(n):
            if after is None or after.is_over or b not in game.legal_actions(after):
                row += [0] * (4 + game.observation_size)
            else:
                row += plain_block(game, game.apply(after, b), p)
    return row


def plain_third_moves(game, state) -> list[int]:
    """Per holes ``a``, ``b``, ``c``: the block of ``a``, ``b`` then ``c`` from the mover's side,
    zeros when any of them is illegal or comes after the game ended."""
    p, n, row, zeros = state.to_move, game.num_actions, [], [0] * (4 + game.observation_size)
    for a in range(n):
        after = game.apply(state, a) if a in game.legal_actions(state) else None
        for b in range(n):
            ok = after is not None and not after.is_over and b in game.legal_actions(after)
            second = game.apply(after, b) if ok else None
            for c in range(n):
                if second is None or second.is_over or c not in game.legal_actions(second):
                    row += zeros
                else:
                    row += plain_block(game, game.apply(second, c), p)
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


@pytest.mark.parametrize(("name", "params"), CONFIGS, ids=[c[0] for c in CONFIGS])
def test_two_ply_lookahead_matches_apply_and_counts(name, params):
    """``plies=2``: the one-ply row, then a block for every move and every reply to it."""
    game = get_game(name, **params)
    states = running_positions(game, 30)
    n, block = game.num_actions, 4 + game.observation_size
    assert game.lookahead_width(2) == game.lookahead_size + n * n * block
    rows = game.lookahead_batch(np.stack([s.array for s in states]), plies=2)
    assert rows.shape == (len(states), game.lookahead_width(2)) and rows.dtype == np.int32
    for s, row in zip(states, rows, strict=True):
        assert row[: game.lookahead_size].tolist() == plain_lookahead(game, s)
        assert row[game.lookahead_size :].tolist() == plain_replies(game, s)
    replies = rows[:, game.lookahead_size :].reshape(len(states), n * n, block)
    assert replies[:, :, 0].sum() > 0 and replies[:, :, 1].sum() > 0  # legal replies, mover again
    with pytest.raises(ValueError, match="1, 2 or 3 plies"):
        game.lookahead_batch(rows[:0], plies=4)


@pytest.mark.parametrize(("name", "params"), CONFIGS, ids=[c[0] for c in CONFIGS])
def test_three_ply_lookahead_matches_apply_and_counts(name, params):
    """``plies=3``: the two-ply row, then a block for every move after every move and reply."""
    game = get_game(name, **params)
    states = running_positions(game, 12)
    n, block = game.num_actions, 4 + game.observation_size
    two = game.lookahead_width(2)
    assert game.lookahead_width(3) == two + n**3 * block
    rows = game.lookahead_batch(np.stack([s.array for s in states]), plies=3)
    assert rows.shape == (len(states), game.lookahead_width(3)) and rows.dtype == np.int32
    for s, row in zip(states, rows, strict=True):
        assert row[:two].tolist() == game.lookahead_batch(s.array[None], plies=2)[0].tolist()
        assert row[two:].tolist() == plain_third_moves(game, s)
    assert rows[:, two:].reshape(len(states), n**3, block)[:, :, 0].sum() > 0


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


@pytest.mark.parametrize("plies", [1, 2])
@pytest.mark.parametrize(("name", "params"), CONFIGS, ids=[c[0] for c in CONFIGS])
def test_search_feeds_lookahead_rows_of_its_leaves(name, params, plies):
    """A lookahead search whose network reads only the view builds the same tree as the raw-count
    search, and every row it evaluated is the lookahead (of ``plies``) of one of the tree's
    positions."""
    game = get_game(name, **params)
    root = positions(game)[1]
    noise = gumbel_noise(game, 1)
    plain = GumbelSearch(game, 1, 24, max_considered=4)
    wide = GumbelSearch(game, 1, 24, max_considered=4, lookahead=plies)
    seen: list[np.ndarray] = []
    a = plain.run(root.array[None], stub_evaluator(game), noise)
    b = wide.run(root.array[None], view_only(game, stub_evaluator(game), seen), noise)
    assert a.visits.tolist() == b.visits.tolist() and a.action.tolist() == b.action.tolist()
    np.testing.assert_allclose(a.q, b.q, atol=1e-12)
    rows = np.concatenate(seen)
    assert rows.shape[1] == game.lookahead_width(plies)
    nodes = wide.tree.states[0, : wide.tree.n_nodes[0]]
    running = nodes[(nodes[:, game.layout.mask] != 0).any(axis=1)]
    expected = {tuple(r) for r in game.lookahead_batch(np.ascontiguousarray(running), plies).tolist()}
    assert {tuple(int(x) for x in r) for r in rows} <= expected
    assert tuple(int(x) for x in rows[0]) == tuple(game.lookahead_batch(root.array[None], plies)[0])
    # the roots' inputs the search returns (self-play stores them) are network_inputs' rows
    for result, wide_input in ((a, 0), (b, plies)):
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


def test_the_reply_encoder_starts_as_the_one_ply_network_and_reads_each_reply():
    """A two-ply network loaded with a one-ply network's weights (:func:`load_first_ply`) gives
    its logits and values exactly; once its output layer is trained, changing one reply's block
    changes that move's logit only, and never the value."""
    game = get_game("en_dodoi", holes_per_row=6)
    torch.manual_seed(0)
    one = build_network(network_config(game, [16, 16], 8, 10.0, lookahead=8)).eval()
    two = build_network(network_config(game, [16, 16], 8, 10.0, lookahead=8, replies=4)).eval()
    load_first_ply(two, one.state_dict())
    states = running_positions(game, 20)
    rows = torch.from_numpy(game.lookahead_batch(np.stack([s.array for s in states]), 2).astype(np.float32))
    with torch.no_grad():
        l1, v1 = one(rows[:, : game.lookahead_size])
        l2, v2 = two(rows)
        assert torch.equal(l1, l2) and torch.equal(v1, v2)
        torch.nn.init.normal_(two.reply_to_move.weight)
        n, block = game.num_actions, 4 + game.observation_size
        s = states[0]
        a = int(game.legal_actions(s)[0])
        b = int(game.legal_actions(game.apply(s, a))[0])
        y = rows[:1].clone()
        y[0, game.lookahead_size + (a * n + b) * block + 4] += 5.0  # a seed more in that reply
        lx, vx = two(rows[:1])
        ly, vy = two(y)
    assert (lx != ly)[0].nonzero().flatten().tolist() == [a] and torch.equal(vx, vy)
    with torch.no_grad():  # the value head alone, on the view only, is forward's value
        assert torch.equal(two.value(rows[:, : game.observation_size]), two(rows)[1])
    with pytest.raises(ValueError, match="reply encoder"):
        load_first_ply(two, build_network(network_config(game, [8, 8], 8, 10.0, lookahead=8)).state_dict())
    with pytest.raises(ValueError, match="per-move head"):
        network_config(game, [16, 16], 8, 10.0, lookahead=0, replies=4)
    with pytest.raises(ValueError, match="per-move head"):
        AZNet(6, game.observation_size, game.total_seeds, (16, 16), lookahead=0, replies=4)
    with pytest.raises(ValueError, match="replies, third >= 0"):
        AZNet(6, game.observation_size, game.total_seeds, (16, 16), lookahead=8, replies=-1)
    with pytest.raises(ValueError, match="replies, third >= 0"):
        AZNet(6, game.observation_size, game.total_seeds, (16, 16), lookahead=8, replies=4, third=-1)
    with pytest.raises(ValueError, match="1, 2 or 3 plies"):
        GumbelSearch(game, 1, 4, lookahead=4)


def test_the_third_move_encoder_starts_as_the_two_ply_network_and_reads_each_third_move():
    """A three-ply network loaded with a two-ply network's weights gives its logits and values
    exactly; once its output layer is trained, changing one third move's block changes that
    move's logit only, and never the value."""
    game = get_game("en_dodoi", holes_per_row=6)
    torch.manual_seed(0)
    two = build_network(network_config(game, [16, 16], 8, 10.0, lookahead=8, replies=4)).eval()
    torch.nn.init.normal_(two.reply_to_move.weight)
    three = build_network(network_config(game, [16, 16], 8, 10.0, lookahead=8, replies=4, third=4)).eval()
    load_first_ply(three, two.state_dict())
    assert lookahead_plies(network_config(game, [16], 8, 10.0, lookahead=8, replies=4, third=4)) == 3
    states = running_positions(game, 20)
    rows = torch.from_numpy(game.lookahead_batch(np.stack([s.array for s in states]), 3).astype(np.float32))
    with torch.no_grad():
        l2, v2 = two(rows[:, : game.lookahead_width(2)])
        l3, v3 = three(rows)
        assert torch.equal(l2, l3) and torch.equal(v2, v3)
        torch.nn.init.normal_(three.third_to_reply.weight)
        n, block = game.num_actions, 4 + game.observation_size
        s = states[0]
        a = int(game.legal_actions(s)[0])
        after = game.apply(s, a)
        b = int(game.legal_actions(after)[0])
        c = int(game.legal_actions(game.apply(after, b))[0])
        y = rows[:1].clone()
        y[0, game.lookahead_width(2) + ((a * n + b) * n + c) * block + 4] += 5.0  # a seed more there
        lx, vx = three(rows[:1])
        ly, vy = three(y)
    assert (lx != ly)[0].nonzero().flatten().tolist() == [a] and torch.equal(vx, vy)
    with pytest.raises(ValueError, match="needs the reply encoder"):
        network_config(game, [16, 16], 8, 10.0, lookahead=8, replies=0, third=4)
    two_config = network_config(game, [16, 16], 8, 10.0, lookahead=8, replies=4)
    with pytest.raises(ValueError, match="reads 2 plies, the network 3"):
        AZAgent(network=three, config=two_config, sims=0).act(game, states[0])


@pytest.mark.parametrize("third", [0, 4], ids=["two-ply", "three-ply"])
def test_a_two_or_three_ply_model_file_and_the_agent(tmp_path, third):
    game = get_game("en_dodoi", holes_per_row=6)
    torch.manual_seed(3)
    plies = 3 if third else 2
    config = network_config(game, [16, 16], 8, 10.0, lookahead=8, replies=4, third=third)
    config["search"] = {"sims": 8, "max_considered": 4, "c_visit": 50.0, "c_scale": 0.1}
    net = build_network(config)
    torch.nn.init.normal_(net.reply_to_move.weight)
    if third:
        torch.nn.init.normal_(net.third_to_reply.weight)
    save_network(net, tmp_path / "r.json", config)
    loaded, saved = load_network(tmp_path / "r.json")
    assert lookahead_plies(saved) == plies and loaded.replies == 4 and loaded.third == third
    states = running_positions(game, 20)
    batch = np.stack([s.array for s in states])
    with torch.no_grad():
        logits, _ = loaded(torch.from_numpy(game.lookahead_batch(batch, plies).astype(np.float32)))
    masks = game.legal_masks(batch).astype(bool)
    agent = AZAgent(path=tmp_path / "r.json", sims=0)
    assert agent.lookahead(game) == plies
    expected = np.argmax(np.where(masks, logits.numpy(), -np.inf), axis=1)
    assert agent.act_batch(game, batch).tolist() == expected.tolist()
    searched = AZAgent(path=tmp_path / "r.json", sims=8)
    assert all(searched.act(game, s) in game.legal_actions(s) for s in states[:4])
