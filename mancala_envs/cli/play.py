"""``mancala play``: play or watch one game, the board printed after every move.

A game abandoned by a human (``q``, the input closed, Ctrl-C) writes no record and leaves the
``--out`` file as it was (absent if it was); :mod:`~mancala_envs.cli.main` gives its exit status.
"""

from __future__ import annotations

import argparse
import errno
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mancala_envs import Game, State
from mancala_envs.evaluation.arena import play_game
from mancala_envs.infra.compile_note import agent_kernels, announce_compilation
from mancala_envs.infra.interrupts import deferred_interrupts
from mancala_envs.render import ansi_board, result_text
from mancala_envs.variant import add_game_arguments, game_from_arguments

NAME = "play"
AGENT_SPECS = (
    "random, greedy, minimax:depth=4, mcts:sims=1000, policy[:path=FILE.json], az, perfect, "
    "rllib:path=DIR, human"
)


def add_seeded_game_arguments(p: argparse.ArgumentParser) -> None:
    """The game with its parameters and ``--max-plies``, and ``--seed``: ``play`` and ``tournament``."""
    add_game_arguments(p)
    p.add_argument("--seed", type=int, default=0, help="seed of every random choice (default 0)")


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        NAME,
        help="play or watch one game",
        description="Play or watch one game; the board is printed after every move, the seat 0 "
        "player at the bottom (a human player's row is always at the bottom), the count of the hole "
        "the last move was sown from in brackets and the seeds it captured after the captured count "
        f"(+k). Agents: {AGENT_SPECS}. A human is told his seat before the game, and types a hole "
        "number, ? for the legal holes, q to quit: a game abandoned (q, the input closed, Ctrl-C) "
        "writes no record and exits non-zero (1 for q or closed input, 130 for Ctrl-C).",
        one_line_errors=True,
    )
    add_seeded_game_arguments(p)
    p.add_argument("--p0", default="human", metavar="SPEC", help="agent in seat 0, who moves first (human)")
    p.add_argument("--p1", default="greedy", metavar="SPEC", help="agent in seat 1 (greedy)")
    p.add_argument(
        "--out",
        type=Path,
        metavar="FILE",
        help="append the record (one JSON line) of the finished game to FILE",
    )
    p.add_argument("--quiet", action="store_true", help="print only the result")
    return p


def board_text(game: Game, state: State, bottom: int = 0, *, previous: State | None = None) -> str:
    """The text board of :func:`mancala_envs.render.ansi_board`, player ``bottom`` at the bottom
    (``previous``: the state before the last move, whose captures the board then shows)."""
    return ansi_board(game, state, bottom=bottom, previous=previous)


def describe_end(game: Game, state: State, names: Sequence[str]) -> str:
    """The last line of a game: its length, its result and the winner's name."""
    who = "" if state.winner is None or state.winner < 0 else f" — {names[state.winner]}"
    return f"game over after {state.ply} plies: {result_text(game, state)}{who}"


def check_writable(path: Path) -> None:
    """``OSError`` naming the obstacle when a record could not be appended to ``path`` (created with
    its missing folders); creates nothing, so an abandoned game leaves no file behind."""
    if path.exists():
        if path.is_dir():
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        if not os.access(path, os.W_OK):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
        return
    folder = path.parent
    while not folder.exists() and folder != folder.parent:  # the nearest existing folder
        folder = folder.parent
    if not folder.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(folder))
    if not os.access(folder, os.W_OK | os.X_OK):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(folder))


def sides(names: Sequence[str], first: int) -> str | None:
    """Which side the human is (or the humans are), said before the game; ``None`` without one."""
    humans = [i for i, n in enumerate(names) if n == "human"]
    order = {i: "moves first" if i == first else "moves second" for i in (0, 1)}
    if len(humans) == 1:
        [i] = humans
        return f"you are player_{i} (seat {i}, {order[i]}, your row is at the bottom)"
    if len(humans) == 2:
        return (
            f"two humans: player_0 (seat 0) {order[0]}, player_1 (seat 1) {order[1]}; "
            "the board shows the mover's row at the bottom"
        )
    return None


class Watcher:
    """The ``on_move`` of :func:`~mancala_envs.evaluation.arena.play_game`: prints the game's
    header, then each move and board (the boards not shown when a human is to move: the human
    agent shows it itself; only the result with ``quiet``)."""

    def __init__(self, game: Game, names: Sequence[str], quiet: bool):
        humans = [i for i, n in enumerate(names) if n == "human"]
        self.game, self.names, self.quiet = game, names, quiet
        self.bottom = humans[0] if len(humans) == 1 else 0  # a lone human keeps his row at the bottom
        self.last = game.initial_state()

    def __call__(self, state: State, action: int | None) -> None:
        previous = None
        names = self.names
        if action is None:
            print(f"{self.game.name}: P0 = {names[0]}, P1 = {names[1]}; player {state.to_move} moves first")
            said = sides(names, state.to_move)
            if said:
                print(said)
        else:
            previous = self.last
            if not self.quiet:
                mover = previous.to_move
                print(f"\nply {state.ply}: player {mover} ({names[mover]}) plays hole {action}")
        self.last = state
        human_next = not state.is_over and names[state.to_move] == "human"  # who shows the board himself
        if not self.quiet and not human_next:
            print(board_text(self.game, state, self.bottom, previous=previous))


def run(args: argparse.Namespace) -> int:
    game = game_from_arguments(args)
    names = (args.p0, args.p1)
    if args.out is not None:  # checked now, so an unwritable file fails before the game, not after;
        check_writable(args.out)  # written only when the game ends (an abandoned one writes nothing)
    watch = Watcher(game, names, args.quiet)
    announce_compilation(*agent_kernels(args.p0), *agent_kernels(args.p1))
    record = play_game(game, args.p0, args.p1, seed=args.seed, on_move=watch)
    print(describe_end(game, watch.last, names))
    if args.out is not None:
        with deferred_interrupts():  # a Ctrl-C while writing lets the line be finished first
            args.out.parent.mkdir(parents=True, exist_ok=True)
            with open(args.out, "a", encoding="utf-8") as fh:
                fh.write(record.to_json() + "\n")
            print(f"record appended to {args.out}")
    return 0
