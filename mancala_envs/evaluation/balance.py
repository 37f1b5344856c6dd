"""How fair an opening suite is (:func:`suite_balance`); ``python -m mancala_envs.evaluation.balance
GAME`` measures a game's default suite (:mod:`mancala_envs.evaluation.openings`; its command line:
:mod:`mancala_envs.cli.balance`)."""

from __future__ import annotations

import warnings
from collections.abc import Sequence

from mancala_envs import Game
from mancala_envs.evaluation.arena import play_game, wilson_interval
from mancala_envs.evaluation.openings import random_openings


def suite_balance(
    game: Game,
    agent: str = "minimax:depth=4",
    n: int = 200,
    seed: int = 0,
    plies: int | tuple[int, int] | None = None,
) -> tuple[float, int, tuple[float, float]]:
    """How fair the default suite is: ``agent`` playing itself once from each of the ``n``
    openings (``plies`` as :func:`random_openings`); returns the mean score of the player to move
    at the opening (1 win, 0.5 draw), the number of games, and a 95% Wilson interval (each
    opening is one independent game)."""
    score = 0.0
    openings = random_openings(game, n, plies)
    for k, start in enumerate(openings):
        record = play_game(game, agent, agent, seed=seed + k, start=start)
        score += record.score_of(start.to_move)
    return score / len(openings), len(openings), wilson_interval(score, len(openings))


def main(argv: Sequence[str] | None = None) -> int:
    """Deprecated: :func:`mancala_envs.cli.balance.main` (``python -m mancala_envs.evaluation.balance``)."""
    from mancala_envs.cli import balance as command  # the command line is the cli layer's

    warnings.warn(
        "mancala_envs.evaluation.balance.main is deprecated: use mancala_envs.cli.balance.main",
        DeprecationWarning,
        stacklevel=2,
    )
    return command.main(argv)


if __name__ == "__main__":  # python -m mancala_envs.evaluation.balance: the command, unwarned
    from mancala_envs.cli import balance as _command

    raise SystemExit(_command.main())
