"""``mancala replay``: step through a recorded game (games.jsonl or a record file)."""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path
from typing import Any

from mancala_envs import get_game
from mancala_envs.cli.parsing import UsageError
from mancala_envs.cli.play import board_text, describe_end
from mancala_envs.evaluation.arena import GAMES_FILE, GameRecord, load_records, replay
from mancala_envs.evaluation.arena.records import TornLineWarning
from mancala_envs.render import write_gif

NAME = "replay"


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        NAME,
        help="step through a recorded game",
        description="Print every state of one recorded game (games.jsonl or a record file); "
        "--step waits between moves: Enter = next, b = back, q = quit.",
        one_line_errors=True,
    )
    p.add_argument("file", type=Path, help="games.jsonl, a tournament directory or a --out file of 'play'")
    p.add_argument(
        "--game",
        type=int,
        default=0,
        metavar="K",
        help="which record: K-th line counting from 0 (= game_id in results.csv; default 0)",
    )
    p.add_argument(
        "--step", action="store_true", help="wait for a key between moves (when stdin is a terminal)"
    )
    p.add_argument("--gif", type=Path, metavar="FILE", help="also write the game as an animated GIF")
    return p


def chosen_record(args: argparse.Namespace) -> tuple[GameRecord, int]:
    """The record ``--game`` of ``args.file`` and the number of records there; ``UsageError``
    for a file without records or an index out of range (naming a torn last line)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        records = load_records(args.file)
    file = args.file / GAMES_FILE if args.file.is_dir() else args.file
    # load_records skips a bad last line as an interrupted write (a warning): name it all the same
    bad_last = any(issubclass(w.category, TornLineWarning) for w in caught)
    bad_line = f"{file}, line {len(records) + 1}: not valid JSON or incomplete" if bad_last else ""
    if not records:
        raise UsageError(bad_line or f"{args.file} holds no game records")
    if not 0 <= args.game < len(records):
        raise UsageError(
            f"--game {args.game} is out of range: {args.file} holds games 0..{len(records) - 1}"
            + (f" ({bad_line})" if bad_line else "")
        )
    return records[args.game], len(records)


def run(args: argparse.Namespace) -> int:
    rec, count = chosen_record(args)
    game = get_game(rec.game, **rec.params)
    states = replay(rec, game)
    print(
        f"game {args.game} of {count}: {rec.game} {rec.params}, seed {rec.seed}; "
        f"P0 = {rec.agents[0]}, P1 = {rec.agents[1]}"
    )
    if args.gif is not None:
        write_gif(game, states, args.gif)
        print(f"wrote {args.gif}")
    wait = args.step and sys.stdin.isatty()
    ply = 0
    while ply < len(states):
        if ply:
            print(f"\nply {ply}: player {states[ply - 1].to_move} plays hole {rec.moves[ply - 1]}")
        print(board_text(game, states[ply], previous=states[ply - 1] if ply else None))
        if wait and ply < len(states) - 1:
            key = input("-- Enter: next, b: back, q: quit -- ").strip().lower()
            if key == "q":
                return 0
            if key == "b":
                ply = max(ply - 1, 0)
                continue
        ply += 1
    print(describe_end(game, states[-1], rec.agents))
    return 0
