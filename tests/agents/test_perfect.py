"""The ``perfect`` agent: it converts won positions against random and minimax:depth=6, never loses
a drawn one, plays only outcome-preserving moves inside its table and exact leaves outside."""

from __future__ import annotations

import numpy as np
import pytest
from perfect_play import play_from, random_positions
from variants import DEFAULTS

from mancala_envs import get_game, tablebase
from mancala_envs.agents.perfect import PerfectAgent
from mancala_envs.agents.registry import make_agent
from mancala_envs.evaluation.arena import play_game
from mancala_envs.tablebase.index import board_unrank

# game, params, K: each game at its default parameters, with a K whose table builds in seconds
K = {"songo_ewondo": 8, "sadeqa_ii": 8, "en_dodoi": 6}
CASES = [(name, params, K[name]) for name, params in DEFAULTS]
IDS = [c[0] for c in CASES]


@pytest.fixture(scope="module", params=CASES, ids=IDS)
def setup(request, tmp_path_factory):
    name, params, k = request.param
    game = get_game(name, **params)
    path = tmp_path_factory.mktemp(name) / "table"
    tb = tablebase.build(game, max_seeds=k, path=path)
    return game, tb, path


@pytest.mark.parametrize("opponent", ["random", "minimax:depth=6"])
def test_converts_won_positions(setup, opponent):
    game, tb, path = setup
    perfect = make_agent(f"perfect:max_seeds={tb.max_seeds},path={path}")
    starts = random_positions(game, tb, 1, 6, seed=1)
    if game.name == "songo_ewondo":  # wins that cycling play could throw away (A != B)
        starts += random_positions(game, tb, 1, 4, seed=2, split=True)
    for i, state in enumerate(starts):
        assert play_from(game, tb, state, perfect, make_agent(opponent, seed=i), seed=i) == 1


def drawn_positions(game, tb, count, seed):
    """Covered drawn positions: canonical boards of the largest layers with a lead ``d`` in
    ``[-B, -A]`` (TABLEBASE.md §2), player 0 to move."""
    rng = np.random.default_rng(seed)
    holes = 2 * game.holes_per_row
    found = []
    for k in range(tb.max_seeds, 1, -1):
        values, _ = tb.layer(k)
        rest = game.total_seeds - k
        for i in rng.permutation(len(values))[:5000]:
            a, b = (int(x) for x in values[i])
            lo, hi = -rest if b == 127 else max(-b, -rest), rest if a == -127 else min(-a, rest)
            if game.name == "sadeqa_ii":  # d plays no role: a draw needs A <= 0 <= B
                lo, hi = (rest % 2, rest % 2) if a <= 0 <= b else (1, 0)
            ds = [d for d in range(lo, hi + 1) if (rest - d) % 2 == 0]
            if not ds:
                continue
            board = np.zeros(holes, dtype=np.int32)
            board_unrank(int(i), holes, k, tb.comp, board)
            d = ds[int(rng.integers(len(ds)))]
            state = game.state_from(
                board=board.tolist(), captured=[(rest + d) // 2, (rest - d) // 2], to_move=0
            )
            if tb.covers(state):
                assert tb.outcome(state) == 0
                found.append(state)
            if len(found) == count:
                return found
    return found


@pytest.mark.parametrize("opponent", ["random", "minimax:depth=6"])
def test_never_loses_a_drawn_position(setup, opponent):
    game, tb, path = setup
    perfect = make_agent(f"perfect:max_seeds={tb.max_seeds},path={path}")
    starts = drawn_positions(game, tb, 6, seed=5)
    if not starts:
        pytest.skip(f"no drawn position in {game.name} up to {tb.max_seeds} seeds")
    for i, state in enumerate(starts):
        assert play_from(game, tb, state, perfect, make_agent(opponent, seed=i), seed=i) >= 0


def test_search_takes_an_exact_win_outside_the_table(setup):
    """One ply above the table: if a move reaches a position the table calls lost for the
    opponent, the depth-1 search plays such a move (exact leaves dominate static values)."""
    game, tb, path = setup
    agent = PerfectAgent(path=path, depth=1)
    rng = np.random.default_rng(9)
    n, k = game.holes_per_row, tb.max_seeds + 1
    checked = 0
    for _ in range(3000):
        board = np.bincount(rng.integers(0, 2 * n, size=k), minlength=2 * n)
        rest = game.total_seeds - k
        state = game.state_from(board=board.tolist(), captured=[rest - rest // 2, rest // 2], to_move=0)
        if state.is_over or tb.covers(state):
            continue
        wins = []
        for a in game.legal_actions(state):
            child = game.apply(state, a)
            sign = 1 if child.to_move == state.to_move else -1
            wins.append(
                (child.done and child.winner == 0) or (tb.covers(child) and sign * tb.outcome(child) == 1)
            )
        if not any(wins):
            continue
        checked += 1
        move = agent.act(game, state)
        assert agent.last_source == "search"
        assert wins[game.legal_actions(state).index(move)]
        if checked == 15:
            break
    assert checked > 0


def test_spec_and_errors(tmp_path, setup):
    game, tb, path = setup
    agent = make_agent(f"perfect:max_seeds={tb.max_seeds},path={path},depth=3", seed=4)
    assert agent.name == f"perfect:max_seeds={tb.max_seeds},path={path},depth=3"
    assert make_agent(agent.name).name == agent.name
    assert make_agent("perfect").name == "perfect"
    with pytest.raises(ValueError, match=r"no .* table at"):
        make_agent(f"perfect:path={tmp_path / 'none'}").act(game, game.initial_state())
    for bad in ("perfect:depth=0", "perfect:max_seeds=-1", "perfect:depth=x"):
        with pytest.raises(ValueError):
            make_agent(bad)
    with pytest.raises(ValueError, match="is a table of"):
        other = get_game("en_dodoi", holes_per_row=6) if game.name != "en_dodoi" else get_game("sadeqa_ii")
        make_agent(f"perfect:path={path}").act(other, other.initial_state())


def test_plays_whole_games_from_the_start(setup):
    """From the initial position (far outside the table) it plays legal moves to the end."""
    game, _, path = setup
    record = play_game(game, PerfectAgent(path=path, depth=2), "random", seed=3)
    assert record.plies > 0


@pytest.mark.parametrize("holes", [6, 7, 9, 10])
def test_builds_its_table_on_demand_at_every_en_dodoi_width(holes, tmp_path):
    """``perfect:max_seeds=K`` builds the table of any En Dodoi width where none is, then plays
    only outcome-preserving moves inside it."""
    game = get_game("en_dodoi", holes_per_row=holes)
    path = tmp_path / "table"
    agent = make_agent(f"perfect:max_seeds=4,path={path},depth=2", seed=1)
    record = play_game(game, agent, "random", seed=2)
    assert record.plies > 0
    tb = tablebase.load(path, game)
    assert tb.max_seeds == 4
    for k, state in enumerate(random_positions(game, tb, 1, 5, seed=holes)):
        assert tb.best_actions(state)[PerfectAgent(path=path, seed=k).act(game, state)] == 1
