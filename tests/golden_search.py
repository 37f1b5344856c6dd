"""Golden Gumbel search trees: the compiled search (:mod:`mancala_envs.agents.alphazero.search`) from a few
positions
of every game, with a fixed stub network, recorded node by node.

``python tests/golden_search.py`` regenerates ``tests/data/golden_search_trees.json``; do that only
deliberately (a change of the search or the rules), after ``tests/agents/test_alphazero_search.py`` has
shown that the compiled search still matches the plain Python search written there, and review
the diff.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from strategies import random_position
from variants import NARROWEST

from mancala_envs import Game, State, get_game

GOLDEN_PATH = Path(__file__).parent / "data" / "golden_search_trees.json"
CONFIGS = NARROWEST
SIMS = 24
SEED = 2027


def stub_evaluator(game: Game, seed: int = 7):
    """A fixed "network": smooth functions of the mover's raw counts, ``obs -> (logits, values)``
    with values in (-1, 1) for the player to move (no ties, no training)."""
    rng = np.random.default_rng(seed)
    w_logits = rng.normal(size=(game.observation_size, game.num_actions)) * 0.4
    w_value = rng.normal(size=game.observation_size) * 0.2

    def evaluate(obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        x = np.asarray(obs, dtype=np.float64) / 4.0
        return 2.0 * np.sin(x @ w_logits + 0.3), np.tanh(np.cos(x @ w_value))

    return evaluate


def endgame(game: Game, seed: int) -> State:
    """A running position with few seeds left on the board, the captures nearly level: searches
    from it reach finished games within a few plies."""
    rng = np.random.default_rng(seed)
    n, total = game.holes_per_row, game.total_seeds
    while True:
        board = np.zeros(2 * n, dtype=np.int64)
        on_board = int(rng.integers(4, 9))
        for _ in range(on_board):
            board[int(rng.integers(2 * n))] += 1
        rest = total - on_board
        captured = [rest // 2, rest - rest // 2]
        pending = [False, False] if game.name == "sadeqa_ii" else None
        state = game.state_from(board, captured, to_move=int(rng.integers(2)), first_move_pending=pending)
        if not state.is_over and sum(game.legal_mask(state)) >= 2:
            return state


def positions(game: Game) -> list[State]:
    """The recorded roots of ``game``: two midgames (either player to move) and two endgames."""
    return [random_position(game, 7, SEED), random_position(game, 12, SEED + 1)] + [
        endgame(game, SEED + k) for k in (2, 3)
    ]


def gumbel_noise(game: Game, k: int) -> np.ndarray:
    return np.random.default_rng(SEED + 100 + k).gumbel(size=(1, game.num_actions))


def record(name: str, params: dict) -> list[dict]:
    """One entry per root: the root, the noise seed, the outputs and every node of the tree."""
    from mancala_envs.agents.alphazero.search import GumbelSearch

    game = get_game(name, **params)
    search = GumbelSearch(game, 1, SIMS, max_considered=4)
    out = []
    for k, root in enumerate(positions(game)):
        result = search.run(root.array[None], stub_evaluator(game), gumbel_noise(game, k))
        t, nodes = search.tree, int(search.tree.n_nodes[0])
        out.append(
            {
                "game": name,
                "params": params,
                "root": root.array.tolist(),
                "sims": SIMS,
                "max_considered": 4,
                "action": int(result.action[0]),
                "visits": result.visits[0].tolist(),
                "q": [float(q) if np.isfinite(q) else None for q in result.q[0]],
                "policy": result.policy[0].tolist(),
                "value": float(result.value[0]),
                "nodes": {
                    "parent": t.parent[0, :nodes].tolist(),
                    "action": t.action[0, :nodes].tolist(),
                    "visits": t.visits[0, :nodes].tolist(),
                    "value_sum": t.value_sum[0, :nodes].tolist(),
                    "terminal": t.terminal[0, :nodes].tolist(),
                },
            }
        )
    return out


def generate() -> list[dict]:
    return [entry for name, params in CONFIGS for entry in record(name, params)]


if __name__ == "__main__":
    GOLDEN_PATH.write_text(json.dumps(generate(), indent=None, separators=(",", ":")) + "\n")
    print(f"wrote {GOLDEN_PATH}")
