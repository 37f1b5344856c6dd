"""How fair an opening suite is (:func:`suite_balance`); ``python -m mancala_envs.evaluation.balance
GAME`` measures a game's default suite (:mod:`mancala_envs.evaluation.openings`)."""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

from mancala_envs import GAMES, Game, get_game
from mancala_envs.evaluation.arena import play_game, wilson_interval
from mancala_envs.evaluation.openings import opening_plies, random_openings, save_openings
from mancala_envs.infra.results import provenance, write_result
from mancala_envs.rulesets import parameter_help


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
    """``python -m mancala_envs.evaluation.balance GAME [--holes-per-row N] [--n 200] [--agent SPEC]
    [--out FILE] [--report FILE]``: write the game's default suite (``--out``) and print its
    balance (and write it as a result file, ``--report``)."""
    parser = argparse.ArgumentParser(
        prog="python -m mancala_envs.evaluation.balance", description=main.__doc__
    )
    parser.add_argument("game", choices=sorted(GAMES))
    parser.add_argument("--holes-per-row", type=int, default=None, help=parameter_help("holes_per_row"))
    parser.add_argument("--n", type=int, default=200, help="openings in the suite (default 200)")
    parser.add_argument("--agent", default="minimax:depth=4", help="the self-play agent of the balance")
    parser.add_argument("--out", type=Path, default=None, help="also write the suite as JSONL here")
    parser.add_argument("--report", type=Path, default=None, help="also write the result file (JSON) here")
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(argv)
    params = {} if args.holes_per_row is None else {"holes_per_row": args.holes_per_row}
    game = get_game(args.game, **params)
    if args.out is not None:
        save_openings(args.out, random_openings(game, args.n))
        print(f"wrote {args.n} openings to {args.out}")
    mean, games, (lo, hi) = suite_balance(game, args.agent, args.n)
    lo_p, hi_p = opening_plies(game, None)
    print(
        f"{game.name}: {args.agent} self-play from {games} openings of {lo_p}-{hi_p} random plies: "
        f"player to move scores {mean:.3f} [{lo:.3f}, {hi:.3f}]"
    )
    if args.report is not None:
        command = shlex.join(["python", "-m", "mancala_envs.evaluation.balance", *argv])
        payload = {
            "game": game.name,
            "params": dict(game.params),
            "agent": args.agent,
            "openings": games,
            "plies": [lo_p, hi_p],
            "score": mean,
            "ci95": [lo, hi],
            "provenance": provenance(command),
        }
        write_result(args.report, payload)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
