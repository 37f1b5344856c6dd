"""Helpers of the perfect agent's tests: covered positions of a given outcome, and a game from one
with every covered move of the perfect agent checked (tests/agents/test_perfect.py,
tests/tablebase/test_tablebase_retrograde.py)."""

from __future__ import annotations

import numpy as np

from mancala_envs.evaluation.arena import play_game


def random_positions(game, tb, outcome, count, seed, split=False):
    """Covered positions (near the table's size) whose mover's exact outcome is ``outcome``;
    ``split``: only positions where never-ending play decides the value (A != B)."""
    rng = np.random.default_rng(seed)
    n = game.holes_per_row
    found = []
    for _ in range(200_000):
        k = int(rng.integers(max(2, tb.max_seeds - 3), tb.max_seeds + 1))
        board = np.bincount(rng.integers(0, 2 * n, size=k), minlength=2 * n)
        rest = game.total_seeds - k
        d = int(rng.integers(-min(rest, 6), min(rest, 6) + 1))
        if (rest + d) % 2:
            d += 1 if d < rest else -1
        p = int(rng.integers(2))
        captured = [0, 0]
        captured[p], captured[1 - p] = (rest + d) // 2, (rest - d) // 2
        state = game.state_from(board=board.tolist(), captured=captured, to_move=p)
        if not tb.covers(state) or tb.outcome(state) != outcome:
            continue
        if split and tb.bounds(state)[0] == tb.bounds(state)[1]:
            continue
        found.append(state)
        if len(found) == count:
            break
    assert len(found) == count
    return found


def play_from(game, tb, state, perfect, opponent, seed):
    """A game from ``state`` with ``perfect`` to move; checks each of its covered moves keeps the
    outcome. Returns the outcome for ``perfect`` (+1 / 0 / -1)."""
    seat = state.to_move
    agents = (perfect, opponent) if seat == 0 else (opponent, perfect)
    before = {}

    def on_move(s, action):
        if action is not None and before.get("mover") == seat:
            assert before["best"][action], "the perfect agent played a move that loses value"
        if not s.is_over and s.to_move == seat and tb.covers(s):
            before.update(mover=seat, best=tb.best_actions(s))
        else:
            before.update(mover=None)

    record = play_game(game, agents[0], agents[1], seed=seed, start=state, on_move=on_move)
    assert not record.truncated, "a won game must end (conversion), a drawn one is held"
    return 0 if record.winner == -1 else (1 if record.winner == seat else -1)
