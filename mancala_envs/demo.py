"""Play one seeded game of each game between uniformly random players and print the final board.

python -m mancala_envs.demo [--seed 0]
"""

from __future__ import annotations

import argparse

import numpy as np

from mancala_envs.game import get_game
from mancala_envs.render import ansi_board
from mancala_envs.rulesets import GAMES


def play_random_game(name: str, seed: int) -> str:
    """The final text board of a random game of ``name`` (moves drawn from ``default_rng(seed)``)."""
    game = get_game(name)
    rng = np.random.default_rng(seed)
    state = game.initial_state()
    while not state.is_over:
        legal = game.legal_actions(state)
        state = game.apply(state, legal[rng.integers(len(legal))])
    return ansi_board(game, state, title=f"{name}: random vs random, seed {seed}, {state.ply} plies")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    for name in GAMES:
        print(play_random_game(name, args.seed), end="\n\n")


if __name__ == "__main__":
    main()
