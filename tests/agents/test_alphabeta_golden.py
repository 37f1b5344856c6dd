"""The compiled alpha-beta's work, pinned: on six seeded random positions of four variants, the
move, the value of every move (``None``: illegal) and the nodes visited by ``MinimaxAgent.search``
at depth 6 (iterative deepening from depth 1), as the kernel gave them before ``negamax`` was
split into helpers (issue 44). Values alone are checked against a plain negamax in
``tests/agents/test_alphabeta.py``; this also pins the move ordering, the cuts and the table's reuse, so
that a refactoring of the kernel that changes its work (not only its result) is seen."""

from __future__ import annotations

import numpy as np
import pytest

from mancala_envs import Game, State, get_game
from mancala_envs.agents.minimax.agent import MinimaxAgent
from mancala_envs.agents.minimax.alphabeta import INF

DEPTH = 6
GOLDEN = [  # (game, params, [(move, values, nodes) per position])
    (
        "songo_ewondo",
        {},
        [
            (5, [-1, -20, -20, -21, None, 0, -9], 2486),
            (0, [-5, -21, -8, -21, -21, -8, -8], 2955),
            (0, [-5, -31, None, -47, None, -37, None], 1359),
            (3, [-27, 20, 51, 53, 53, 44, 10], 2462),
            (5, [102, 106, 110, None, None, 117, 110], 1166),
            (2, [-7, -4, -4, -4, -6, -6, -8], 7687),
        ],
    ),
    (
        "sadeqa_ii",
        {},
        [
            (5, [-3, None, None, -1, -4, -1], 2394),
            (1, [None, 1000005, None, None, None, -1000005], 22),
            (0, [1000005, None, None, None, None, -1000005], 22),
            (3, [None, None, None, -1000003, None, None], 156),
            (4, [-1, None, None, None, 0, -1], 1996),
            (3, [-1, -1000000, None, 3, None, None], 785),
        ],
    ),
    (
        "en_dodoi",
        {"holes_per_row": 6},
        [
            (1, [-31, 2, -6, -5, -17, None], 2139),
            (2, [None, None, 0, None, None, None], 76),
            (1, [None, -3, -1000005, None, None, -1000004], 433),
            (0, [1000005, None, 1000003, 1000003, 1000003, 1000004], 290),
            (2, [-15, 2, 13, -14, -47, 12], 2037),
            (4, [None, -16, -22, -7, -3, -24], 1831),
        ],
    ),
    (
        "en_dodoi",
        {"holes_per_row": 8},
        [
            (0, [10, 2, -8, 10, None, -10, -42, None], 4369),
            (7, [None, None, None, None, 95, 89, 89, 95], 1236),
            (3, [None, None, None, 34, None, None, None, None], 1367),
            (4, [None, 22, None, 28, 28, 13, 28, 10], 4752),
            (1, [75, 75, None, 63, 72, 68, 58, 73], 4697),
            (1, [None, -63, -67, -67, -68, None, None, -74], 2649),
        ],
    ),
]


def positions(game: Game, count: int, seed: int) -> list[State]:
    """``count`` running positions after 0-39 seeded random moves each."""
    rng = np.random.default_rng(seed)
    out: list[State] = []
    while len(out) < count:
        state = game.initial_state()
        for _ in range(int(rng.integers(0, 40))):
            if state.is_over:
                break
            state = game.apply(state, int(rng.choice(game.legal_actions(state))))
        if not state.is_over:
            out.append(state)
    return out


@pytest.mark.parametrize(("name", "params", "want"), GOLDEN, ids=lambda x: str(x)[:24])
def test_search_moves_values_and_nodes_are_pinned(name, params, want):
    game = get_game(name, **params)
    agent = MinimaxAgent(depth=DEPTH, seed=3)
    got = []
    for state in positions(game, len(want), 11):
        move, values = agent.search(game, state)
        got.append((move, [None if v == -INF else int(v) for v in values], agent.last_nodes))
    assert got == want
