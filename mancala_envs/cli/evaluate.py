"""``mancala evaluate``: agents (specs, policy files or run folders) against baselines over an
opening suite with paired seats (:mod:`mancala_envs.evaluation.evaluate`); prints the table and,
with ``--out``, writes ``report.md``, ``report.json`` and ``games.jsonl``.

Ctrl-C stops at once (exit 130), SIGTERM likewise (exit 143); with ``--out`` every finished game is
already in ``games.jsonl``, and the folder is locked while the evaluation runs. A failed write (a
full disk) ends in one line naming the file (exit 2).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import IO, Any

from mancala_envs.agents.registry import make_agent, models_played
from mancala_envs.cli.parsing import PROG, command_args, usage_error
from mancala_envs.evaluation.arena import MatchResult
from mancala_envs.evaluation.arena.matches import check_even, check_seed
from mancala_envs.evaluation.evaluate import (
    DEFAULT_OPPONENTS,
    agent_spec,
    evaluate,
    load_once,
    result_row,
    table,
    write_report,
)
from mancala_envs.evaluation.openings import resolve_openings
from mancala_envs.infra import interrupts
from mancala_envs.infra.errors import one_line
from mancala_envs.infra.files import append_synced
from mancala_envs.infra.interrupts import deferred_interrupts
from mancala_envs.infra.locks import folder_lock
from mancala_envs.infra.results import provenance
from mancala_envs.variant import add_game_arguments, game_from_arguments

NAME = "evaluate"


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        NAME,
        prog=f"{PROG} {NAME}",
        help="evaluate agents or policies against baselines",
        description="Evaluate agents or policies against baselines over an opening suite with paired seats; "
        "prints the table and, with --out, writes OUT/report.md, OUT/report.json and OUT/games.jsonl.",
    )
    p.add_argument(
        "agents", nargs="+", metavar="AGENT", help="agent spec, policy file (.json) or training run folder"
    )
    add_game_arguments(p, positional=False, default="songo_ewondo")
    p.add_argument(
        "--opponents",
        nargs="+",
        default=list(DEFAULT_OPPONENTS),
        metavar="SPEC",
        help="agent specs to play against (default: " + " ".join(DEFAULT_OPPONENTS) + ")",
    )
    p.add_argument(
        "--games",
        type=int,
        default=400,
        metavar="N",
        help="games per pairing, even: N/2 openings (default: 400)",
    )
    p.add_argument(
        "--openings",
        default="default",
        metavar="SUITE",
        help="default (the game's default suite), none (the initial position) or a JSONL file",
    )
    p.add_argument("--seed", type=int, default=0, help="arena seed (default: 0)")
    p.add_argument("--out", type=Path, default=None, help="report folder (default: print only)")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """``mancala evaluate`` (``argv``: its arguments); returns the exit status."""
    return run(command_args(add_parser, NAME, list(sys.argv[1:] if argv is None else argv)))


def run(args: argparse.Namespace) -> int:
    """Returns the exit status (2 with one line for a failed write, 128 + the signal after Ctrl-C
    or SIGTERM; a bad argument exits with argparse's usage, ``SystemExit(2)``)."""
    try:
        with interrupts.sigterm_raises(), ExitStack() as held:
            return evaluation(args, held)
    except OSError as e:  # a failed write (a full disk): the finished games are in games.jsonl
        print(f"{PROG} {NAME}: error: {one_line(e)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as e:  # before, during or after the games (the report)
        games = args.out / "games.jsonl" if args.out is not None else None
        kept = f"; the finished games are in {games}" if games is not None and games.is_file() else ""
        print(f"\n{PROG} {NAME}: {interrupts.stopped(e)}{kept}", file=sys.stderr)
        return interrupts.exit_status(e)


def setup(args: argparse.Namespace, held: ExitStack):
    """The game, the agents and the suite, every argument checked; with ``--out``, the folder
    locked (``held`` keeps the lock to the end). argparse's usage error for a bad argument."""
    try:
        game = game_from_arguments(args)
        check_even(args.games, "--games")
        check_seed(args.seed)
        for spec in args.opponents:
            make_agent(spec)
        agents = [load_once(agent_spec(text)) for text in args.agents]
        suite = resolve_openings(game, args.openings, args.games // 2)
        if args.out is not None:
            check_new_folder(args.out)  # checked again under the lock
            held.enter_context(folder_lock(args.out, "is in use by another evaluation"))
            check_new_folder(args.out)
    except ValueError as e:
        usage_error(add_parser, str(e))
    return game, agents, suite


def check_new_folder(out: Path) -> None:
    """``ValueError`` when ``out`` already holds an evaluation."""
    if (out / "games.jsonl").exists():
        raise ValueError(f"{out} already holds an evaluation (games.jsonl); choose another --out")


def evaluation(args: argparse.Namespace, held: ExitStack) -> int:
    """:func:`run`; ``held`` keeps the ``--out`` folder's lock to the end."""
    game, agents, suite = setup(args, held)
    results: list[MatchResult] = []
    games_fh = open(args.out / "games.jsonl", "a", encoding="utf-8") if args.out is not None else None  # noqa: SIM115
    try:
        with deferred_interrupts():
            for agent in agents:
                results += evaluate(
                    game,
                    agent,
                    args.opponents,
                    args.games,
                    args.seed,
                    suite,
                    not args.no_progress,
                    on_game=GamesFile(games_fh) if games_fh else None,
                )
    finally:
        if games_fh:
            games_fh.close()
    report(args, game, agents, suite, results)
    return 0


class GamesFile:
    """The ``on_game`` that appends each finished game's record to ``games.jsonl``, synced."""

    def __init__(self, fh: IO[str]):
        self.fh = fh

    def __call__(self, record) -> None:
        append_synced(self.fh, record.to_json() + "\n")


def report(args: argparse.Namespace, game, agents, suite, results: list[MatchResult]) -> None:
    """Print the table (and a warning when games repeat); with ``--out``, write the report."""
    rows = [result_row(r) for r in results]
    if suite is None and any(r.caveat() for r in results):
        print(
            f"{PROG} {NAME}: warning: --openings none: games repeat (see the distinct column); the "
            "scores rest on few distinct games",
            file=sys.stderr,
        )
    if args.out is not None:
        command = shlex.join([PROG, *args.argv])
        specs = [a if isinstance(a, str) else a.name for a in agents] + list(args.opponents)
        write_report(
            args.out,
            game,
            results,
            args.seed,
            "Evaluation",
            [f"Command: `{command}`"],
            openings=str(args.openings),
            provenance=provenance(command, models_played(game, specs)),
        )
        print(f"report: {args.out / 'report.md'}; games: {args.out / 'games.jsonl'}")
    print(table(rows))
