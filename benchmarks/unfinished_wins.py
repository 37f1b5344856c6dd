"""Which draws of a match are won games the agent did not end: the tablebase's verdict on them.

    .venv/bin/python benchmarks/unfinished_wins.py --game songo_ewondo --agent az --opponent policy \\
        --games 60 --max-seeds 14

Plays :func:`mancala_envs.evaluation.arena.play_match` (``--games`` games over the game's default opening
suite,
arena seed ``--seed``: the first ``games / 2`` pairs of the README's strength protocol) and, for
every drawn or truncated game, replays it through the endgame table of ``--max-seeds`` seeds
(:func:`mancala_envs.tablebase.build`: loaded from ``--table`` or the cache folder, built there
first if missing). A game is an *unfinished win* when the agent's side is won by the table at the
first position the table covers and at every covered position after it. Prints one line per
draw and the totals.
"""

from __future__ import annotations

import argparse

from mancala_envs import GAMES, get_game, tablebase
from mancala_envs.evaluation.arena import play_match
from mancala_envs.evaluation.arena.records import replay


def verdicts(tb, game, record, seat: int) -> list[tuple[int, int]]:
    """``(ply, outcome for seat)`` of every position of ``record`` the table covers."""
    out = []
    for ply, state in enumerate(replay(record, game)):
        if not state.is_over and tb.covers(state):
            value = tb.outcome(state)  # for the player to move
            out.append((ply, value if state.to_move == seat else -value))
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", choices=GAMES, default="songo_ewondo")
    p.add_argument("--holes-per-row", type=int, default=None)
    p.add_argument("--agent", default="az")
    p.add_argument("--opponent", default="policy")
    p.add_argument("--games", type=int, default=60)
    p.add_argument("--seed", type=int, default=2024)
    p.add_argument("--max-seeds", type=int, default=14)
    p.add_argument("--table", default=None, help="table folder (default: the cache folder)")
    args = p.parse_args()
    params = {} if args.holes_per_row is None else {"holes_per_row": args.holes_per_row}
    game = get_game(args.game, **params)
    tb = tablebase.build(game, max_seeds=args.max_seeds, path=args.table)
    res = play_match(game, args.agent, args.opponent, args.games, seed=args.seed)
    print(res.summary(), f"({res.truncated} truncated)")
    unfinished = 0
    for rec in res.records:
        seat = rec.seat_of(res.a)
        if rec.score_of(seat) != 0.5:
            continue
        seen = verdicts(tb, game, rec, seat)
        won = bool(seen) and all(value == 1 for _, value in seen)
        unfinished += won
        first = seen[0][0] if seen else None
        print(
            f"game {rec.meta['index']}: {rec.plies} plies, truncated {rec.truncated}, captured "
            f"{rec.captured[seat]}-{rec.captured[1 - seat]} ({res.a} first); first covered ply {first}; "
            f"won by the table throughout: {won}"
        )
    print(f"{unfinished} of {res.draws} draws are unfinished wins of {res.a}")


if __name__ == "__main__":
    main()
