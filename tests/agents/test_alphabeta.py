"""The alpha-beta baseline against a plain negamax written here (issue 10): with every option on —
the low-material and forced-move extension, move ordering, the transposition table and iterative
deepening — ``MinimaxAgent.search`` returns the root value of the plain search, at depths 1–5, on
random positions of every game, including positions within reach of ``max_plies``."""

from __future__ import annotations

import numpy as np
import pytest
from strategies import walk
from variants import GAME_NAMES

from mancala_envs import Game, get_game
from mancala_envs.agents.minimax.agent import HEURISTIC_WEIGHTS, MinimaxAgent
from mancala_envs.agents.minimax.alphabeta import MAX_EXTENSION, WIN

GAMES = GAME_NAMES  # each game at its default parameters


def static_value(game: Game, cursor, weights) -> int:
    s = cursor.state()
    n, p = game.holes_per_row, s.to_move
    own, opp = s.board[p * n : p * n + n], s.board[(1 - p) * n : (2 - p) * n]
    cap = int(s.captured[p]) - int(s.captured[1 - p])
    rows = int(own.sum()) - int(opp.sum())
    holes = int((own > 0).sum()) - int((opp > 0).sum())
    return weights[0] * cap + weights[1] * rows + weights[2] * holes


def plain_value(game: Game, cursor, left: int, forced: int, low: bool, weights) -> int:
    """The value the kernel's docstring defines, by exhaustive negamax (no pruning, no table)."""
    s = cursor.state()
    if s.is_over:
        if s.truncated or s.winner == -1:
            return 0
        return WIN + left if s.winner == s.to_move else -WIN - left
    if left == 0:
        return static_value(game, cursor, weights)
    legal = cursor.legal_actions()
    n = game.holes_per_row
    args = (left - 1, forced, low)
    if len(legal) == 1 and forced < MAX_EXTENSION:
        args = (left, forced + 1, low)  # a forced move costs no depth
    elif not low and min(int(s.board[:n].sum()), int(s.board[n:].sum())) <= weights[3]:
        args = (left, forced, True)  # low material: one ply deeper, once along the line
    best = -(1 << 62)
    for a in legal:
        cursor.apply(a)
        v = plain_value(game, cursor, *args, weights)
        if cursor.to_move != s.to_move:  # credited by player id
            v = -v
        cursor.undo()
        best = max(best, v)
    return best


def plain_root(game: Game, state, depth: int, weights) -> dict[int, int]:
    """Each root move's value, its child searched at ``(depth - 1, 0)``."""
    cursor = game.cursor(state)
    values = {}
    for a in cursor.legal_actions():
        cursor.apply(a)
        v = plain_value(game, cursor, depth - 1, 0, False, weights)
        values[a] = v if cursor.to_move == state.to_move else -v
        cursor.undo()
    return values


def positions(game: Game, count: int, seed: int, near_end: bool):
    """Running positions of seeded random games with two legal moves or more; ``near_end``: in the
    last 8 plies before ``max_plies``."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        s = game.initial_state(int(rng.integers(2)))
        target = game.max_plies - int(rng.integers(1, 9)) if near_end else int(rng.integers(0, 80))
        s = walk(game, rng, s, plies=target)
        if not s.is_over and len(game.legal_actions(s)) > 1:
            out.append(s)
    return out


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("depth", [1, 2, 3, 4, 5])
def test_alphabeta_root_value_equals_plain_negamax(name, depth):
    game = get_game(name)
    short = get_game(name, max_plies=40)  # positions where truncation is within the search's reach
    weights = HEURISTIC_WEIGHTS[name]
    count = {1: 40, 2: 40, 3: 30, 4: 30, 5: 20}[depth]
    cases = [(game, s) for s in positions(game, count, seed=depth, near_end=False)]
    cases += [(short, s) for s in positions(short, max(count // 2, 4), seed=100 + depth, near_end=True)]
    for k, (g, s) in enumerate(cases):
        agent = MinimaxAgent(depth=depth, seed=k)
        move, values = agent.search(g, s)
        expected = plain_root(g, s, depth, weights)
        best = max(expected.values())
        assert values[move] == best, (name, depth, k, s)
        assert expected[move] == best  # the chosen move is a best one
        assert agent.last_depth == depth


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("depth", [1, 2, 3, 4])
def test_move_values_are_every_moves_plain_value(name, depth):
    """``MinimaxAgent.move_values`` (the web app's minimax column): the exact value of every legal
    move, not only the best one."""
    game = get_game(name)
    weights = HEURISTIC_WEIGHTS[name]
    for k, s in enumerate(positions(game, 12, seed=50 + depth, near_end=False)):
        values, reached = MinimaxAgent(depth=depth, seed=k).move_values(game, s)
        assert reached == depth
        expected = plain_root(game, s, depth, weights)
        assert {a: int(values[a]) for a in expected} == expected
        assert all(values[a] < -WIN for a in range(game.num_actions) if a not in expected)


def test_the_table_is_reused_and_cleared_between_moves():
    """Deeper searches visit fewer nodes with the table than their tree size, and a second search
    of the same position (new generation) does the same work as the first."""
    game = get_game("songo_ewondo")
    s = positions(game, 1, seed=3, near_end=False)[0]
    agent = MinimaxAgent(depth=5, seed=0)
    agent.search(game, s)
    first = agent.last_nodes
    agent.search(game, s)
    assert agent.last_nodes == first
