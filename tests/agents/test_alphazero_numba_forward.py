"""The az network's forward pass without torch (agents/alphazero/numba_forward.py): the same
logits and values as the torch network for every shipped model and every architecture option, the
compiled search loop, and ``az:forward=numba`` playing the moves of ``az``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from golden_search import random_position

from mancala_envs import get_game, variants
from mancala_envs.agents.alphazero.agent import AZAgent
from mancala_envs.agents.alphazero.network import (
    build_network,
    lookahead_plies,
    network_config,
    torch_evaluator,
)
from mancala_envs.agents.alphazero.numba_forward import NumbaEvaluator, export_weights, numba_evaluator
from mancala_envs.agents.alphazero.search import GumbelSearch, network_inputs
from mancala_envs.agents.registry import make_agent

LOGIT_TOL, VALUE_TOL = 1e-4, 1e-5  # float32, the additions in another order
SIMS = 100  # az's default


def positions(game, k=12, seed=0):
    """``k`` running positions a few random plies into the game (packed rows)."""
    out = [random_position(game, plies, seed + plies) for plies in range(k)]
    return np.stack([s.array for s in out if game.legal_mask(s).any()])


def shipped(variant):
    """The shipped az model of ``variant``: ``(network, config)``."""
    return AZAgent().model(variant)


def assert_same_outputs(net, game, states, plies):
    """The compiled forward pass gives the torch network's logits and values on ``states``."""
    x = network_inputs(game, states, plies)
    logits, values = torch_evaluator(net)(x)
    fast_logits, fast_values = numba_evaluator(net)(x)
    scale = max(1.0, float(np.abs(logits).max()))
    np.testing.assert_allclose(fast_logits, logits, rtol=0, atol=LOGIT_TOL * scale)
    np.testing.assert_allclose(fast_values, values, rtol=0, atol=VALUE_TOL)


@pytest.mark.parametrize("variant", variants(), ids=lambda g: g.variant)
def test_shipped_models_give_the_torch_outputs(variant):
    net, config = shipped(variant)
    assert_same_outputs(net, variant, positions(variant), lookahead_plies(config))


@pytest.mark.parametrize(
    "lookahead, replies, third, hidden",
    [(0, 0, 0, [24]), (0, 0, 0, [16, 12, 8]), (8, 0, 0, [16, 16]), (8, 6, 0, [16, 16]), (8, 6, 5, [16])],
    ids=["counts-one-layer", "counts-deep-trunk", "one-ply", "two-ply", "three-ply"],
)
@pytest.mark.parametrize("name, params", [("en_dodoi", {"holes_per_row": 7}), ("sadeqa_ii", {})])
def test_every_architecture_option_gives_the_torch_outputs(name, params, lookahead, replies, third, hidden):
    """Random weights everywhere (the reply and third-move outputs too, which start at zero), so
    that every layer counts; Sadeqa II's view has the opening flags."""
    game = get_game(name, **params)
    torch.manual_seed(lookahead + replies + third + len(hidden))
    net = build_network(network_config(game, hidden, 6, 10.0, lookahead, replies, third)).eval()
    with torch.no_grad():
        for p in net.parameters():
            p.copy_(torch.randn_like(p) * 0.5)
    plies = 0 if not lookahead else 1 if not replies else 2 if not third else 3
    assert_same_outputs(net, game, positions(game, 10, seed=5), plies)


def test_weights_are_exported_once_and_copied():
    game = get_game("en_dodoi", holes_per_row=6)
    net, _ = shipped(game)
    weights = export_weights(net)
    assert weights.counts_in.shape == (net.view_size, 128) and weights.after_counts.shape == (
        net.view_size,
        64,
    )
    assert weights.reply_counts.size == 0 and tuple(weights.dims) == (6, 12, 14, 20, 1)
    with torch.no_grad():
        before = weights.counts_in.copy()
        net.counts_in.weight.add_(1.0)
        net.counts_in.weight.sub_(1.0)
    np.testing.assert_array_equal(weights.counts_in, before)


def new_search(variant, sims=SIMS):
    """A search of one game with the shipped model's settings of ``variant``, as az builds it."""
    _, config = shipped(variant)
    params = config["search"]
    return GumbelSearch(
        variant, 1, sims, max_considered=params["max_considered"], c_visit=params["c_visit"],
        c_scale=params["c_scale"], lookahead=lookahead_plies(config), decided_discount=0.1,
    )  # fmt: skip


@pytest.mark.parametrize("variant", variants(), ids=lambda g: g.variant)
def test_the_search_with_the_compiled_forward_plays_the_torch_moves(variant):
    """Same root positions, the shipped model, az's 100 simulations: the same move, the same
    visits, the same completed Q values within tolerance (no position here has two moves whose
    results tie within float tolerance, where the two passes could choose differently)."""
    net, _ = shipped(variant)
    slow, fast = new_search(variant), new_search(variant)
    fast_eval, slow_eval = numba_evaluator(net), torch_evaluator(net)
    for row in positions(variant, 6, seed=20):
        a = slow.run(row[None], slow_eval)
        b = fast.run(row[None], fast_eval)
        assert a.action[0] == b.action[0]
        np.testing.assert_array_equal(a.visits, b.visits)
        np.testing.assert_allclose(a.q, b.q, atol=1e-4)


def test_compiled_simulations_equal_the_python_loop():
    """The search loop inside compiled code (no deadline) gives exactly what the simulation by
    simulation loop (a deadline far away) gives with the same forward pass."""
    variant = get_game("en_dodoi", holes_per_row=8)  # the three-ply model
    net, _ = shipped(variant)
    evaluate = numba_evaluator(net)
    whole, stepped = new_search(variant, 24), new_search(variant, 24)
    roots = positions(variant, 3, seed=7)[:1]
    gumbel = np.random.default_rng(1).gumbel(size=(1, variant.num_actions))
    a = whole.run(roots, evaluate, gumbel)
    b = stepped.run(roots, evaluate, gumbel, deadline=float("inf"))
    for field in ("action", "policy", "visits", "q", "value"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
    assert whole.evaluations == stepped.evaluations > 0 and whole.last_sims == stepped.last_sims == 24


def test_a_search_reused_with_other_networks_gives_what_a_new_one_gives():
    """A search looks its compiled entry points up once per evaluator (the kernels' argument
    types are fixed): another network's weights (trunks of other depths and widths) must be the
    ones its simulations use, in one compiled call or one a simulation."""
    game = get_game("en_dodoi", holes_per_row=7)
    nets = []
    for hidden in ([16, 16], [12], [16, 8, 8]):  # one-ply networks, the search's input
        torch.manual_seed(len(nets))
        net = build_network(network_config(game, hidden, 6, 10.0, 8, 0, 0)).eval()
        with torch.no_grad():
            for p in net.parameters():
                p.copy_(torch.randn_like(p) * 0.5)
        nets.append(net)
    reused = GumbelSearch(game, 1, 16, lookahead=1)
    roots = positions(game, 4, seed=3)[:1]
    for net in nets:
        for deadline in (None, float("inf")):  # one compiled call, or one a simulation
            evaluate = numba_evaluator(net)
            a = reused.run(roots, evaluate, deadline=deadline)
            b = GumbelSearch(game, 1, 16, lookahead=1).run(roots, evaluate, deadline=deadline)
            for field in ("action", "policy", "visits", "q", "value"):
                np.testing.assert_array_equal(getattr(a, field), getattr(b, field))


def test_forward_setting_of_the_agent():
    """The compiled pass is the default (its name drops it); torch's is named."""
    game = get_game("songo_ewondo")
    agent = make_agent("az:sims=8")
    assert make_agent("az:sims=8,forward=numba").name == agent.name == "az:sims=8"
    assert make_agent("az:sims=8,forward=torch").name == "az:sims=8,forward=torch"
    assert isinstance(agent.evaluator(game), NumbaEvaluator)
    assert agent.evaluator(game) is agent.evaluator(game)  # exported once
    assert not isinstance(make_agent("az:sims=8,forward=torch").evaluator(game), NumbaEvaluator)
    with pytest.raises(ValueError, match="forward"):
        make_agent("az:forward=jax")


def test_the_compiled_pass_names_a_network_it_cannot_compile():
    """A network of another class than the trainer's gets a clear error naming forward='torch',
    and plays with it."""
    game = get_game("songo_ewondo")

    class Uniform(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.level = torch.nn.Parameter(torch.zeros(1))

        def forward(self, x):
            return self.level.expand(x.shape[0], game.holes_per_row), self.level.expand(x.shape[0])

    with pytest.raises(ValueError, match="Uniform: pass forward='torch'"):
        AZAgent(network=Uniform(), sims=4).act(game, game.initial_state())
    action = AZAgent(network=Uniform().requires_grad_(False), sims=4, forward="torch").act(
        game, game.initial_state()
    )
    assert action in np.flatnonzero(game.legal_mask(game.initial_state()))


@pytest.mark.parametrize("spec", ["az:sims=0", "az:sims=16", "az:sims=64,time=30"])
def test_agent_with_the_compiled_forward_plays_the_same_moves(spec):
    """``az`` with ``forward=numba`` plays ``az``'s moves: the network alone, a search, and a time
    budget (the search then runs simulation by simulation; the budget leaves room for all 64, so
    the moves do not depend on the clock)."""
    game = get_game("sadeqa_ii")
    base, fast = make_agent(f"{spec},forward=torch"), make_agent(spec)
    for row in positions(game, 8, seed=30):
        assert base.act_batch(game, row[None])[0] == fast.act_batch(game, row[None])[0]
    assert fast.last_sims == base.last_sims


def test_a_new_process_finds_the_compiled_search_in_numbas_cache():
    """A second process loads the compiled simulation loop (for the MLP's and the conv net's
    weights, with and without a deadline) from numba's on-disk cache that the first wrote. A
    cached function that took the forward pass as an argument never matched its cached code in a
    new process (numba issue 2956): every process compiled it again, and its cache index grew by a
    megabyte each time until saving it failed."""
    import subprocess
    import sys

    conv = Path(__file__).resolve().parents[2] / "models" / "experiments" / "az_en_dodoi-conv-all-widths.json"
    script = (
        "import sys\n"
        "from mancala_envs import get_game\n"
        "from mancala_envs.agents.registry import make_agent\n"
        "from mancala_envs.agents.alphazero.search import run_simulations\n"
        "game = get_game('en_dodoi', holes_per_row=6)\n"
        "for spec in sys.argv[1:]:\n"
        "    make_agent(spec).act(game, game.initial_state())\n"
        "stats = [run_simulations.stats]\n"
        "print(*(sum(sum(getattr(s, k).values()) for s in stats) for k in ('cache_misses', 'cache_hits')))\n"
    )
    specs = ["az:sims=8", "az:sims=8,time=30", f"az:sims=8,path={conv}", f"az:sims=8,time=30,path={conv}"]
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, "-c", script, *specs], capture_output=True, text=True, timeout=600
        )
        assert done.returncode == 0, done.stderr[-2000:]
    misses, hits = map(int, done.stdout.split())
    assert (misses, hits) == (0, 2)  # one signature per pass, each found in the cache
