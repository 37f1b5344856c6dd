"""The compiled Gumbel search (mancala_envs.agents.alphazero.search) against a plain Python Gumbel MuZero
search
written here from the paper's formulas (Danihelka et al., ICLR 2022), against the golden trees of
tests/golden_search.py, and on positions whose values are known exactly. (Just over 400 lines:
the plain search it is checked against is written here in full.)"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from golden_search import (
    CONFIGS,
    GOLDEN_PATH,
    SIMS,
    gumbel_noise,
    positions,
    random_position,
    stub_evaluator,
)
from strategies import running, walked_positions
from variants import NARROWEST, ids

from mancala_envs import get_game
from mancala_envs.agents.alphazero.search import GumbelSearch
from mancala_envs.agents.alphazero.select import halving_sequence
from mancala_envs.core.engine import decided_winner

C_VISIT, C_SCALE = 50.0, 0.1

# the decided-position tests: a subset for time (Songo Ewondo, and En Dodoi on its narrowest board)
DECIDED_GAMES = [v for v in NARROWEST if v[0] != "sadeqa_ii"]


# ---- the plain Python search -------------------------------------------------------------------


def sign(player: int) -> float:
    return 1.0 if player == 0 else -1.0


def decided_factor(game, state, discount) -> float:
    """1 - discount * (seeds on the board / all seeds) in a decided game, else 1."""
    if discount == 0 or decided_winner(state.array, game.rules) < 0:
        return 1.0
    return 1.0 - discount * int(np.sum(state.board)) / game.total_seeds


def known_value(game, state, settle_decided=True, discount=0.0) -> float | None:
    """The exact result for player 0 of a finished (or, on captures, decided) game, else None."""
    if state.truncated:
        return 0.0
    if state.done:
        return 0.0 if state.winner is None or state.winner == -1 else sign(state.winner)
    decided = decided_winner(state.array, game.rules) if settle_decided else -1
    return sign(decided) * decided_factor(game, state, discount) if decided >= 0 else None


class Node:
    def __init__(self, game, state, evaluate, root=False, settle_decided=True, discount=0.0):
        self.state, self.children, self.visits, self.value_sum = state, {}, 0, 0.0
        self.legal = game.legal_mask(state).astype(bool)
        exact = None if root else known_value(game, state, settle_decided, discount)  # the root is searched
        self.terminal = exact is not None
        if self.terminal:
            self.raw, self.logits = exact, np.full(game.num_actions, -np.inf)
        else:
            logits, value = evaluate(game.counts(state, state.to_move)[None].astype(np.float32))
            self.logits = np.where(self.legal, logits[0], -np.inf)
            self.raw = sign(state.to_move) * float(value[0])  # stored for player 0


def softmax_legal(x: np.ndarray, legal: np.ndarray) -> np.ndarray:
    e = np.where(legal, np.exp(np.where(legal, x, 0.0) - np.max(x[legal])), 0.0)
    return e / e.sum()


def sigma_completed(node: Node, n: int) -> np.ndarray:
    """The paper's sigma(completed Q), min-max rescaled over the legal actions (eq. 8, 10, 33)."""
    p = node.state.to_move
    visits = np.array([node.children[a].visits if a in node.children else 0 for a in range(n)])
    q = np.array([sign(p) * node.children[a].value_sum / visits[a] if visits[a] else 0.0 for a in range(n)])
    prior = softmax_legal(node.logits, node.legal)
    seen = visits > 0
    v = sign(p) * node.raw
    if seen.any():
        v_mix = (v + visits.sum() * (prior[seen] @ q[seen]) / prior[seen].sum()) / (1 + visits.sum())
    else:
        v_mix = v
    completed = np.where(seen, q, v_mix)
    low, high = completed[node.legal].min(), completed[node.legal].max()
    qhat = (completed - low) / max(high - low, 1e-8)
    return np.where(node.legal, (C_VISIT + visits.max()) * C_SCALE * qhat, -np.inf), completed, visits


def considered_visits(m: int, sims: int) -> list[int]:
    """Sequential halving written from the paper (§3.2): phase by phase, how many visits the
    action chosen at each simulation must already have."""
    if m <= 1:
        return list(range(sims))
    out, k, done = [], m, 0
    phases = math.ceil(math.log2(m))
    while len(out) < sims:
        per_action = max(1, math.floor(sims / (phases * k)))
        for r in range(per_action):
            out += [done + r] * k
        done += per_action
        k = max(2, k // 2)
    return out[:sims]


def argmax_first(scores: np.ndarray) -> int:
    return int(np.flatnonzero(scores == scores.max())[0])


def python_search(game, root_state, evaluate, sims, max_considered, gumbel, settle_decided=True, discount=0):
    n = game.num_actions
    root = Node(game, root_state, evaluate, root=True)
    root.visits, root.value_sum = 1, root.raw  # the root's own evaluation counts as its first visit
    table = considered_visits(min(max_considered, int(root.legal.sum())), sims)
    for k in range(sims):
        node, path = root, [root]
        while not node.terminal:
            sigma, _, visits = sigma_completed(node, n)
            if node is root:
                score = gumbel + node.logits + sigma
                a = argmax_first(np.where(node.legal & (visits == table[k]), score, -np.inf))
            else:
                pi = softmax_legal(node.logits + sigma, node.legal)
                a = argmax_first(np.where(node.legal, pi - visits / (1 + visits.sum()), -np.inf))
            if a not in node.children:
                child = game.apply(node.state, a)
                node.children[a] = Node(game, child, evaluate, False, settle_decided, discount)
                path.append(node.children[a])
                break
            node = node.children[a]
            path.append(node)
        for x in path:  # credited by player id: every node stores player 0's side
            x.visits += 1
            x.value_sum += path[-1].raw
    sigma, completed, visits = sigma_completed(root, n)
    score = np.where(root.legal & (visits == visits.max()), gumbel + root.logits + sigma, -np.inf)
    policy = softmax_legal(root.logits + sigma, root.legal)
    value = sign(root_state.to_move) * root.value_sum / root.visits
    return argmax_first(score), visits, np.where(root.legal, completed, -np.inf), policy, value


# ---- tests -------------------------------------------------------------------------------------


def compiled(game, root, sims, max_considered, gumbel, settle_decided=True, discount=0.0):
    search = GumbelSearch(
        game, 1, sims, max_considered=max_considered, settle_decided=settle_decided, decided_discount=discount
    )
    return search.run(root.array[None], stub_evaluator(game), gumbel), search


@pytest.mark.parametrize(("name", "params"), CONFIGS, ids=[c[0] for c in CONFIGS])
@pytest.mark.parametrize(("sims", "max_considered"), [(1, 16), (7, 2), (30, 4), (50, 16)])
def test_compiled_search_matches_the_python_search(name, params, sims, max_considered):
    game = get_game(name, **params)
    for k, root in enumerate(positions(game)):
        noise = gumbel_noise(game, k)
        got, _ = compiled(game, root, sims, max_considered, noise)
        action, visits, q, policy, value = python_search(
            game, root, stub_evaluator(game), sims, max_considered, noise[0]
        )
        assert got.visits[0].tolist() == visits.tolist()
        assert got.visits[0].sum() == sims
        assert got.action[0] == action
        np.testing.assert_allclose(got.q[0], q, rtol=0, atol=1e-12)
        np.testing.assert_allclose(got.policy[0], policy, rtol=0, atol=1e-12)
        assert got.value[0] == pytest.approx(value, abs=1e-12)


def test_golden_search_trees():
    golden = json.loads(GOLDEN_PATH.read_text())
    assert len(golden) == 4 * len(CONFIGS)
    for entry in golden:
        game = get_game(entry["game"], **entry["params"])
        root = game.state_from_array(np.array(entry["root"], dtype=np.int32))
        k = [p.array.tolist() for p in positions(game)].index(entry["root"])
        result, search = compiled(game, root, entry["sims"], entry["max_considered"], gumbel_noise(game, k))
        t, nodes = search.tree, int(search.tree.n_nodes[0])
        assert nodes == len(entry["nodes"]["parent"]) <= SIMS + 1
        for key in ("parent", "action", "visits", "terminal"):
            assert getattr(t, key)[0, :nodes].tolist() == entry["nodes"][key], key
        np.testing.assert_allclose(t.value_sum[0, :nodes], entry["nodes"]["value_sum"], atol=1e-12)
        assert int(result.action[0]) == entry["action"]
        assert result.visits[0].tolist() == entry["visits"]
        q = [None if not np.isfinite(x) else x for x in result.q[0]]
        assert [x is None for x in q] == [x is None for x in entry["q"]]
        np.testing.assert_allclose(
            [x for x in q if x is not None], [x for x in entry["q"] if x is not None], atol=1e-12
        )
        np.testing.assert_allclose(result.policy[0], entry["policy"], atol=1e-12)


@pytest.mark.parametrize(("m", "sims"), [(1, 5), (2, 8), (3, 10), (4, 16), (6, 16), (16, 200), (8, 7)])
def test_sequential_halving_follows_the_paper(m, sims):
    seq = halving_sequence(m, sims)
    assert seq == considered_visits(m, sims) and len(seq) == sims
    if m >= 2:
        assert seq[: min(m, sims)] == [0] * min(m, sims)  # phase 1 tries every considered action


def test_sequential_halving_budget_of_the_paper():
    """n = 200, m = 16: log2 m = 4 phases of floor(200 / (4 k)) visits to each of k = 16, 8, 4, 2
    actions (3, 6, 12, 25), the 6 simulations left to the last two (3 more each)."""
    seq = halving_sequence(16, 200)
    visits = np.zeros(16, dtype=int)
    for wanted in seq:  # each simulation visits the first action still at the wanted count
        visits[np.flatnonzero(visits == wanted)[0]] += 1
    assert sorted(visits.tolist(), reverse=True) == [49, 49] + [21] * 2 + [9] * 4 + [3] * 8


def test_halving_visits_in_the_final_tree():
    """16 simulations, 4 considered actions: phase 1 gives each 2 visits, phase 2 the best two 4
    more: visits {6, 6, 2, 2} whatever the values."""
    game = get_game("en_dodoi", holes_per_row=6)
    root = random_position(game, 5, 3)
    assert game.legal_mask(root).sum() >= 4
    got, _ = compiled(game, root, 16, 4, gumbel_noise(game, 0))
    assert sorted(got.visits[0][got.visits[0] > 0].tolist()) == [2, 2, 6, 6]


def test_completed_q_and_improved_policy_follow_the_paper():
    """The outputs recomputed from the compiled tree's own arrays with the paper's formulas."""
    game = get_game("songo_ewondo")
    root = random_position(game, 9, 5)
    result, search = compiled(game, root, 40, 16, gumbel_noise(game, 1))
    t, n, p = search.tree, game.num_actions, root.to_move
    legal = game.legal_mask(root).astype(bool)
    child = t.children[0, 0]
    visits = np.array([t.visits[0, c] if c >= 0 else 0 for c in child])
    q = np.array([sign(p) * t.value_sum[0, c] / t.visits[0, c] if c >= 0 else 0.0 for c in child])
    prior = softmax_legal(t.logits[0, 0], legal)
    v = sign(p) * t.raw_value[0, 0]
    seen = visits > 0
    v_mix = (v + visits.sum() * np.sum(prior[seen] * q[seen]) / prior[seen].sum()) / (1 + visits.sum())
    completed = np.where(seen, q, v_mix)
    np.testing.assert_allclose(result.q[0][legal], completed[legal], atol=1e-12)
    assert np.isneginf(result.q[0][~legal]).all()
    qhat = (completed - completed[legal].min()) / (completed[legal].max() - completed[legal].min())
    sigma = (C_VISIT + visits.max()) * C_SCALE * qhat
    np.testing.assert_allclose(result.policy[0], softmax_legal(t.logits[0, 0] + sigma, legal), atol=1e-12)
    assert result.policy[0][~legal].sum() == 0 and result.policy[0].sum() == pytest.approx(1.0)
    assert n == len(child)


def mirror(game, state):
    """The same position with the seats swapped (rows, captures, opening flags, player to move)."""
    n = game.holes_per_row
    board = np.concatenate([state.board[n:], state.board[:n]])
    pending = None if game.name != "sadeqa_ii" else list(state.first_move_pending)[::-1]
    return game.state_from(board, state.captured[::-1], 1 - state.to_move, pending, ply=state.ply)


@pytest.mark.parametrize(("name", "params"), CONFIGS, ids=[c[0] for c in CONFIGS])
def test_values_are_credited_by_player_id(name, params):
    """The mirrored position (the other seat to move) gives the same search, from its mover's side."""
    game = get_game(name, **params)
    for k, root in enumerate(positions(game)):
        a, _ = compiled(game, root, 30, 8, gumbel_noise(game, k))
        b, _ = compiled(game, mirror(game, root), 30, 8, gumbel_noise(game, k))
        assert a.visits.tolist() == b.visits.tolist() and a.action.tolist() == b.action.tolist()
        np.testing.assert_allclose(a.q, b.q, atol=1e-12)
        np.testing.assert_allclose(a.value, b.value, atol=1e-12)


def uniform_for(game):
    """A "network" with a uniform prior and value 0 everywhere."""
    return lambda obs: (np.zeros((len(obs), game.num_actions)), np.zeros(len(obs)))


def near_end(game, rng):
    """A running position with 2-5 seeds on the board and a capture or two deciding the game."""
    n, half = game.holes_per_row, game.total_seeds // 2
    while True:
        board = np.zeros(2 * n, dtype=np.int64)
        for _ in range(int(rng.integers(2, 6))):
            board[int(rng.integers(2 * n))] += 1
        first = half - int(rng.integers(0, 3))
        captured = [first, game.total_seeds - board.sum() - first][:: int(rng.choice([-1, 1]))]
        state = game.state_from(board, captured, to_move=int(rng.integers(2)))
        if not state.is_over and decided_winner(state.array, game.rules) < 0:
            return state


@pytest.mark.parametrize("seat", [0, 1])
def test_finished_children_carry_their_exact_result_for_the_mover(seat):
    """Near the end, every root move that ends (or decides) the game has Q = its result for the
    player who made it, +1 / 0 / -1, whichever seat he sits in; a move that wins outright is chosen."""
    game = get_game("en_dodoi", holes_per_row=6)
    rng = np.random.default_rng(11 + seat)
    checked, wins = {-1.0: 0, 0.0: 0, 1.0: 0}, 0
    for _ in range(150):
        root = near_end(game, rng)
        if root.to_move != seat:
            root = mirror(game, root)
        search = GumbelSearch(game, 1, 40)
        result = search.run(root.array[None], uniform_for(game))  # uniform prior, value 0: Q decides alone
        outcomes = {a: known_value(game, game.apply(root, a)) for a in game.legal_actions(root)}
        for a, value in outcomes.items():
            if value is not None and result.visits[0, a] > 0:
                assert result.q[0, a] == sign(seat) * value
                checked[sign(seat) * value] += 1
        if sign(seat) in outcomes.values():
            assert outcomes[int(result.action[0])] == sign(seat)
            wins += 1
    assert checked[1.0] >= 5 and checked[-1.0] + checked[0.0] >= 5 and wins >= 5, checked


def decided_positions(game, count, seed):
    """Running positions of random games in which one player already holds more than half the seeds."""
    decided = lambda s: decided_winner(s.array, game.rules) >= 0  # noqa: E731
    return walked_positions(game, count, seed, until=decided, keep=running)


@pytest.mark.parametrize(("name", "params"), DECIDED_GAMES, ids=ids(DECIDED_GAMES))
def test_without_settle_decided_decided_positions_go_to_the_network(name, params):
    """``settle_decided=False``: from a decided root the search is the plain search in which only
    finished games are known results; with the shortcut the same roots are searched differently,
    since every decided child is then a known result that needs no network."""
    game = get_game(name, **params)
    differ = 0
    for k, root in enumerate(decided_positions(game, 6, seed=3)):
        noise = gumbel_noise(game, k)
        got, search = compiled(game, root, 30, 4, noise, settle_decided=False)
        action, visits, q, policy, _ = python_search(
            game, root, stub_evaluator(game), 30, 4, noise[0], settle_decided=False
        )
        assert got.visits[0].tolist() == visits.tolist() and got.action[0] == action
        np.testing.assert_allclose(got.q[0], q, rtol=0, atol=1e-12)
        np.testing.assert_allclose(got.policy[0], policy, rtol=0, atol=1e-12)
        settled, fast = compiled(game, root, 30, 4, noise)
        assert fast.evaluations < search.evaluations
        differ += not np.allclose(settled.q[0], got.q[0])
    assert differ >= 3


@pytest.mark.parametrize(("name", "params"), DECIDED_GAMES, ids=ids(DECIDED_GAMES))
def test_decided_discount_matches_the_python_search(name, params):
    """``decided_discount``: a settled decided position is worth its result times
    ``1 - discount * share of the seeds on the board``; the compiled search equals the plain one
    on decided and other roots."""
    game = get_game(name, **params)
    for k, root in enumerate(decided_positions(game, 4, seed=5) + positions(game)):
        noise = gumbel_noise(game, k)
        got, _ = compiled(game, root, 30, 4, noise, discount=0.3)
        action, visits, q, policy, value = python_search(
            game, root, stub_evaluator(game), 30, 4, noise[0], discount=0.3
        )
        assert got.visits[0].tolist() == visits.tolist() and got.action[0] == action
        np.testing.assert_allclose(got.q[0], q, rtol=0, atol=1e-12)
        np.testing.assert_allclose(got.policy[0], policy, rtol=0, atol=1e-12)
        assert got.value[0] == pytest.approx(value, abs=1e-12)


@pytest.mark.parametrize(("name", "params"), DECIDED_GAMES, ids=ids(DECIDED_GAMES))
def test_decided_discount_steers_the_leader_towards_the_end(name, params):
    """From a decided root, one visit per move: without the discount every move of the leader is
    worth the same win (the search cannot tell the moves apart); with it each move is worth
    ``1 - discount * share`` of the position it leads to (1 when it ends the game with his win),
    and the move played is one that takes the most seeds off the board."""
    game = get_game(name, **params)
    discount, checked = 0.25, 0
    for root in decided_positions(game, 40, seed=9):
        leader = decided_winner(root.array, game.rules)
        if root.to_move != leader and not root.is_over:
            root = game.apply(root, game.legal_actions(root)[0])  # the other player's reply
        legal = game.legal_actions(root)
        if root.is_over or root.to_move != leader or len(legal) < 2:
            continue
        worth = {}
        for a in legal:
            child = game.apply(root, a)
            exact = known_value(game, child)
            worth[a] = sign(leader) * exact if child.is_over else decided_factor(game, child, discount)
        plain = GumbelSearch(game, 1, len(legal)).run(root.array[None], uniform_for(game))
        assert set(plain.q[0][legal].tolist()) == {1.0}
        search = GumbelSearch(game, 1, len(legal), decided_discount=discount)
        got = search.run(root.array[None], uniform_for(game))
        np.testing.assert_allclose(got.q[0][legal], [worth[a] for a in legal], atol=1e-12)
        assert worth[int(got.action[0])] == max(worth.values())
        checked += len(set(worth.values())) > 1
    assert checked >= 5


def test_batched_games_are_independent():
    """A batch of different roots gives each the result it gets alone."""
    game = get_game("sadeqa_ii")
    roots = positions(game)
    noise = np.concatenate([gumbel_noise(game, k) for k in range(len(roots))])
    search = GumbelSearch(game, len(roots), 20, max_considered=4)
    together = search.run(np.stack([r.array for r in roots]), stub_evaluator(game), noise)
    for k, root in enumerate(roots):
        alone, _ = compiled(game, root, 20, 4, noise[k : k + 1])
        assert together.visits[k].tolist() == alone.visits[0].tolist()
        np.testing.assert_allclose(together.q[k], alone.q[0], atol=1e-12)


def test_bad_arguments():
    game = get_game("en_dodoi")
    with pytest.raises(ValueError, match="sims"):
        GumbelSearch(game, 1, 0)
    for bad in (-0.1, 1.0, float("nan")):
        with pytest.raises(ValueError, match="decided_discount"):
            GumbelSearch(game, 1, 4, decided_discount=bad)
    search = GumbelSearch(game, 2, 4)
    with pytest.raises(ValueError, match="root positions"):
        search.run(np.stack([game.initial_state().array] * 3), stub_evaluator(game))
    over = near_end(game, np.random.default_rng(0))
    while not over.is_over:
        over = game.apply(over, game.legal_actions(over)[0])
    with pytest.raises(ValueError, match="running root"):
        search.run(np.stack([game.initial_state().array, over.array]), stub_evaluator(game))
