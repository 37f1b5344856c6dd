"""Golden seeded playthroughs: one recorded random game per game and En Dodoi width.

``python tests/golden.py`` regenerates ``tests/data/golden_playthroughs.json``; do that only
deliberately (a rules change), and review the diff.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from strategies import random_walk
from variants import ALL

from mancala_envs import get_game

GOLDEN_PATH = Path(__file__).parent / "data" / "golden_playthroughs.json"
CONFIGS = ALL
SEED = 2026


def play(name: str, params: dict, seed: int, first_player: int) -> dict:
    """A seeded random game: each move drawn from ``default_rng(seed)`` over ``legal_actions``."""
    game = get_game(name, **params)
    moves, positions = [], []
    for state in random_walk(game, np.random.default_rng(seed), game.initial_state(first_player)):
        moves.append(state.last_action)
        positions.append([*state.board.tolist(), *state.captured.tolist(), state.to_move])
    return {
        "game": name,
        "params": params,
        "seed": seed,
        "first_player": first_player,
        "moves": moves,
        "positions": positions,
        "done": state.done,
        "winner": state.winner,
    }


def generate() -> list[dict]:
    return [play(name, params, SEED + i, i % 2) for i, (name, params) in enumerate(CONFIGS)]


if __name__ == "__main__":
    GOLDEN_PATH.write_text(json.dumps(generate(), separators=(",", ":")) + "\n")
    print(f"wrote {GOLDEN_PATH}")
