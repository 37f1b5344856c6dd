"""Play one seeded game of each game between uniformly random players and print the final board.

python -m mancala_envs.demo [--seed 0]    (its command line: mancala_envs.cli.demo)
"""

from __future__ import annotations

import warnings

import numpy as np

from mancala_envs.game import get_game
from mancala_envs.render import ansi_board


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
    """Deprecated: :func:`mancala_envs.cli.demo.main` (``python -m mancala_envs.demo``)."""
    from mancala_envs.cli import demo as command  # the command line is the cli layer's

    message = "mancala_envs.demo.main is deprecated: use mancala_envs.cli.demo.main"
    warnings.warn(message, DeprecationWarning, stacklevel=2)
    command.main(argv)


if __name__ == "__main__":  # python -m mancala_envs.demo: the command, unwarned
    from mancala_envs.cli import demo as _command

    _command.main()
