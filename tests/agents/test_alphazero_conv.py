"""The width-independent az network (agents/alphazero/conv_net.py): one set of weights for every
En Dodoi width, its roll equivariance, its compiled forward pass (numba_conv.py) equal to torch's,
its model files (``widths``: the widths it plays, any other refused) and ``az`` playing it."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from golden_search import random_position

from mancala_envs import get_game
from mancala_envs.agents.alphazero.agent import AZAgent
from mancala_envs.agents.alphazero.conv_net import ConvNet, conv_network
from mancala_envs.agents.alphazero.network import (
    build_network,
    load_network,
    network_config,
    save_network,
    torch_evaluator,
    validate_az_config,
)
from mancala_envs.agents.alphazero.numba_conv import ConvEvaluator, conv_evaluator
from mancala_envs.agents.alphazero.numba_forward import NumbaEvaluator
from mancala_envs.agents.alphazero.search import network_inputs
from mancala_envs.agents.registry import make_agent

LOGIT_TOL, VALUE_TOL = 1e-4, 1e-5  # float32, the additions in another order
WIDTHS = (6, 7, 8, 9, 10)


def en_dodoi(holes: int):
    return get_game("en_dodoi", holes_per_row=holes)


def conv_config(game, widths=None, channels=12, blocks=2, kernel=5, one_hot_max=8, value_hidden=16):
    entry = conv_network(channels, blocks, kernel, one_hot_max, value_hidden)
    return network_config(game, [1], 1, 1.0, conv=entry, widths=widths)


def random_net(game, seed=0, **sizes) -> ConvNet:
    """A conv network of ``game`` with random weights large enough that every layer matters."""
    torch.manual_seed(seed)
    net = build_network(conv_config(game, **sizes))
    with torch.no_grad():
        for p in net.parameters():
            p.normal_(0.0, 0.15)
    return net.eval()


def positions(game, k=10, seed=0):
    """``k`` running positions a few random plies into the game (packed rows)."""
    out = [random_position(game, plies, seed + plies) for plies in range(0, 3 * k, 3)]
    return np.stack([s.array for s in out if game.legal_mask(s).any()])


def test_one_network_plays_every_width():
    net = random_net(en_dodoi(6))
    outputs = []
    for n in WIDTHS:
        game = en_dodoi(n)
        states = positions(game)
        logits, values = torch_evaluator(net)(network_inputs(game, states, 0))
        assert logits.shape == (len(states), n) and values.shape == (len(states),)
        assert np.isfinite(logits).all() and (np.abs(values) < 1).all()
        outputs.append(values)
    assert len({round(float(v[0]), 6) for v in outputs}) > 1  # the width changes what it sees


@pytest.mark.parametrize("shift", [1, 3, 11])
def test_the_trunk_rolls_with_the_holes(shift):
    """Circular convolutions: rolling every hole's input channels rolls the features the same
    way and leaves the value head's pooled input unchanged (a zero-padded convolution fails)."""
    game = en_dodoi(8)
    net = random_net(game)
    x = torch.from_numpy(network_inputs(game, positions(game), 0))
    features = net.features(x)
    with torch.no_grad():
        h = net.trunk(features)
        rolled = net.trunk(torch.roll(features, shift, dims=2))
    torch.testing.assert_close(rolled, torch.roll(h, shift, dims=2), rtol=0, atol=1e-5)
    torch.testing.assert_close(rolled.mean(2), h.mean(2), rtol=0, atol=1e-5)


def test_the_policy_reads_the_movers_holes_from_his_seat():
    """A position and the same one seen from the other seat (board rolled by n, captures and
    mover swapped) give the same outputs: the network reads the mover's view only."""
    game = en_dodoi(7)
    net = random_net(game)
    for plies in range(0, 30, 3):
        s = random_position(game, plies, plies)
        if not game.legal_mask(s).any():
            continue
        board, captured = np.asarray(s.board), list(s.captured)
        other = game.state_from(
            board=np.roll(board, 7).tolist(), captured=captured[::-1], to_move=1 - s.to_move
        )
        a = torch_evaluator(net)(network_inputs(game, s.array[None], 0))
        b = torch_evaluator(net)(network_inputs(game, other.array[None], 0))
        np.testing.assert_allclose(a[0], b[0], atol=1e-6)
        np.testing.assert_allclose(a[1], b[1], atol=1e-6)


@pytest.mark.parametrize("blocks, kernel", [(0, 3), (2, 5), (3, 7)])
@pytest.mark.parametrize("game", [*map(en_dodoi, WIDTHS), get_game("sadeqa_ii"), get_game("songo_ewondo")])
def test_compiled_forward_gives_the_torch_outputs(game, blocks, kernel):
    net = random_net(en_dodoi(6) if game.name == "en_dodoi" else game, blocks=blocks, kernel=kernel)
    x = network_inputs(game, positions(game), 0)
    logits, values = torch_evaluator(net)(x)
    evaluator = conv_evaluator(net)
    assert isinstance(evaluator, ConvEvaluator)
    fast_logits, fast_values = evaluator(x)
    assert np.abs(values).max() < 0.99  # not saturated: the comparison means something
    scale = max(1.0, float(np.abs(logits).max()))
    np.testing.assert_allclose(fast_logits, logits, rtol=0, atol=LOGIT_TOL * scale)
    np.testing.assert_allclose(fast_values, values, rtol=0, atol=VALUE_TOL)


def test_a_model_plays_the_widths_it_records_and_refuses_others(tmp_path):
    config = conv_config(en_dodoi(6), widths=[7, 6])
    assert config["widths"] == [6, 7]
    save_network(random_net(en_dodoi(6)), tmp_path / "m", config)
    net, loaded = load_network(tmp_path / "m.json")
    assert isinstance(net, ConvNet) and loaded["widths"] == [6, 7]
    for n in (6, 7):
        for forward in ("torch", "numba"):
            agent = make_agent(f"az:path={tmp_path / 'm.json'},sims=4,forward={forward}")
            game = en_dodoi(n)
            assert game.legal_mask(game.initial_state())[agent.act(game, game.initial_state())]
    agent = make_agent(f"az:path={tmp_path / 'm.json'},sims=4")
    with pytest.raises(ValueError, match=r"En Dodoi \(6, 7 holes\), not En Dodoi \(8 holes\)"):
        agent.act(en_dodoi(8), en_dodoi(8).initial_state())
    with pytest.raises(ValueError, match="not Sadeqa II"):
        validate_az_config(loaded, get_game("sadeqa_ii"))


def test_a_one_width_model_plays_its_width_only():
    config = conv_config(en_dodoi(9))
    assert "widths" not in config
    validate_az_config(config, en_dodoi(9))
    with pytest.raises(ValueError, match=r"En Dodoi \(9 holes\), not En Dodoi \(6 holes\)"):
        validate_az_config(config, en_dodoi(6))


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda c: c.update(widths=[7, 8]), "hold params.holes_per_row"),
        (lambda c: c.update(widths=[6, 6]), "distinct"),
        (lambda c: c.update(widths=[6, 12]), "holes_per_row"),
        (lambda c: c.update(widths="6"), "widths"),
        (lambda c: c["network"].update(kernel=4), "odd"),
        (lambda c: c["network"].update(channels=0), "network.channels"),
        (lambda c: c["network"].update(hidden=[8]), "hidden"),
        (lambda c: c.update(network={"hidden": [8], "one_hot_max": 4, "scale": 1.0}), "width-independent"),
    ],
)
def test_bad_configs_are_refused(change, message):
    config = conv_config(en_dodoi(6), widths=[6, 7])
    change(config)
    with pytest.raises(ValueError, match=message):
        validate_az_config(config)


def test_widths_need_a_game_with_holes_per_row():
    config = conv_config(get_game("sadeqa_ii"))
    config["widths"] = [6]
    with pytest.raises(ValueError, match="no holes_per_row"):
        validate_az_config(config)


def test_a_conv_network_has_no_lookahead():
    with pytest.raises(ValueError, match="lookahead must be 0"):
        network_config(en_dodoi(6), [1], 1, 1.0, lookahead=8, conv=conv_network(8, 1, 3, 4, 8))


def test_the_agent_searches_with_the_conv_network():
    game = en_dodoi(10)
    net = random_net(en_dodoi(6))
    config = conv_config(en_dodoi(6), widths=list(WIDTHS))
    torch_agent = AZAgent(network=net, config=config, sims=16, forward="torch")
    numba_agent = AZAgent(network=net, config=config, sims=16)  # the compiled pass, the default
    states = positions(game, k=4)
    assert (torch_agent.act_batch(game, states) == numba_agent.act_batch(game, states)).all()
    assert isinstance(numba_agent.evaluator(game), NumbaEvaluator)  # inside the compiled search
