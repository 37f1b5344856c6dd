"""A suite of openings held out from a game's default suite, for choosing between models or settings
on other positions than the reported matches play:

    .venv/bin/python benchmarks/held_out_openings.py --game en_dodoi --holes-per-row 6 \\
        --out benchmarks/openings/en_dodoi_6-heldout.jsonl

``--pairs`` distinct openings of :func:`~mancala_envs.evaluation.openings.random_openings` with
``--seed`` (not the default suite's), none of them a position of the default suite of
``--exclude-pairs`` openings (it holds every smaller default suite: a match of up to that many pairs
shares no opening with them); written with a checksum (``save_openings``), read by
``strength_alphazero.py --openings``.
"""

from __future__ import annotations

import argparse

from mancala_envs import GAMES, Game, State, get_game
from mancala_envs.evaluation.openings import DEFAULT_SUITE_SEED, position_key, random_openings, save_openings


def held_out(game: Game, pairs: int, seed: int, exclude_pairs: int) -> list[State]:
    """``pairs`` openings drawn with ``seed``, none in the default suite of ``exclude_pairs``."""
    if seed == DEFAULT_SUITE_SEED:
        raise ValueError(f"--seed {seed} draws the default suite itself: choose another")
    default = {position_key(s) for s in random_openings(game, exclude_pairs)}
    drawn = [s for s in random_openings(game, 3 * pairs, seed=seed) if position_key(s) not in default]
    if len(drawn) < pairs:
        raise ValueError(f"only {len(drawn)} openings outside the default suite, {pairs} wanted")
    return drawn[:pairs]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", choices=GAMES, default="en_dodoi")
    p.add_argument("--holes-per-row", type=int, default=None)
    p.add_argument("--pairs", type=int, default=200)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--exclude-pairs", type=int, default=1000, help="the default suite's size to avoid")
    p.add_argument("--out", required=True)
    args = p.parse_args()
    params = {} if args.holes_per_row is None else {"holes_per_row": args.holes_per_row}
    suite = held_out(get_game(args.game, **params), args.pairs, args.seed, args.exclude_pairs)
    save_openings(args.out, suite)
    print(f"{len(suite)} openings in {args.out}")


if __name__ == "__main__":
    main()
