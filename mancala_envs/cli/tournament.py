"""``mancala tournament``: a round robin over an opening suite, then the Bradley-Terry (Elo)
ratings; ``--resume`` continues an interrupted one."""

from __future__ import annotations

import argparse
import csv
import json
import shlex
import sys
from pathlib import Path
from typing import Any

from mancala_envs.agents.registry import models_played
from mancala_envs.cli.parsing import PROG, UsageError
from mancala_envs.cli.play import add_seeded_game_arguments
from mancala_envs.evaluation.arena import round_robin
from mancala_envs.evaluation.evaluate import pairwise_table, result_row
from mancala_envs.evaluation.ratings import check_rating_options, compute_ratings
from mancala_envs.infra import interrupts
from mancala_envs.infra.compile_note import agent_kernels, announce_compilation
from mancala_envs.infra.interrupts import deferred_interrupts
from mancala_envs.infra.locks import is_lock_file
from mancala_envs.infra.results import provenance, write_result
from mancala_envs.variant import game_from_arguments

NAME = "tournament"


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        NAME,
        help="round robin with ratings",
        description="Round robin over an opening suite: every pair of agents plays --games games, "
        "--games/2 openings each played once with each seating. Games are written to OUT/games.jsonl "
        "and OUT/results.csv as they finish; --resume checks and continues an interrupted "
        "tournament. Then prints the Bradley-Terry (Elo) ratings and writes OUT/ratings.{md,csv,png,json} "
        "and OUT/pairwise.csv.",
        one_line_errors=True,
    )
    add_seeded_game_arguments(p)
    p.add_argument("--agents", nargs="+", required=True, metavar="SPEC", help="two or more agent specs")
    p.add_argument("--games", type=int, default=100, metavar="N", help="games per pair, even (default 100)")
    p.add_argument(
        "--openings",
        default="default",
        metavar="SUITE",
        help="default (the game's default suite), none (the bare initial position) or a JSONL file",
    )
    p.add_argument("--out", type=Path, required=True, metavar="DIR", help="output directory (new or empty)")
    p.add_argument("--resume", action="store_true", help="continue the tournament in DIR")
    p.add_argument(
        "--reuse",
        type=Path,
        metavar="OLD",
        help="copy from the same tournament in OLD the games of pairs without a --fresh agent "
        "(re-rating a retrained model: equal to a full run when the other agents are unchanged)",
    )
    p.add_argument(
        "--fresh",
        nargs="+",
        default=[],
        metavar="SPEC",
        help="with --reuse: the agents whose games are played",
    )
    p.add_argument(
        "--bootstrap",
        type=int,
        default=1000,
        metavar="B",
        help="bootstrap resamples for the rating intervals (0: none; default 1000)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def run(args: argparse.Namespace) -> int:
    check_flags(args)
    game = game_from_arguments(args)
    check_rating_options(args.bootstrap, 1.0)  # before any game is played
    announce_compilation(*(s for spec in args.agents for s in agent_kernels(str(spec))))
    try:
        with deferred_interrupts():
            result = round_robin(
                game,
                args.agents,
                args.games,
                seed=args.seed,
                out_dir=args.out,
                resume=args.resume,
                progress=not args.no_progress,
                openings=args.openings,
                reuse=args.reuse,
                fresh=args.fresh,
            )
    except KeyboardInterrupt as e:
        print(
            f"\n{PROG}: {interrupts.stopped(e)}; finished games are kept in {args.out}; "
            "continue with --resume",
            file=sys.stderr,
        )
        return interrupts.exit_status(e)
    pairwise = write_ratings(args, game, result)
    if str(args.openings).lower() in ("none", "initial") and "only" in pairwise:
        print(
            f"{PROG}: warning: --openings none: games repeat (see the distinct column); the ratings rest on "
            "few distinct games",
            file=sys.stderr,
        )
    print(f"games, results.csv, ratings.{{md,csv,png,json}} and pairwise.csv are in {args.out}")
    return 0


def write_ratings(args: argparse.Namespace, game, result) -> str:
    """Rate the tournament's games, write ``ratings.{csv,md,png,json}`` and ``pairwise.csv`` in
    ``args.out`` and print the tables; returns the pairwise table."""
    ratings = compute_ratings(
        result.records, agents=result.agents, n_bootstrap=args.bootstrap, seed=args.seed
    )
    title = f"{game.name} {json.dumps(game.params)}, {args.games} games per pair, openings: {args.openings}"
    ratings.to_csv(args.out / "ratings.csv")
    pairs = [
        result_row(result.match(a, b)) for i, a in enumerate(result.agents) for b in result.agents[i + 1 :]
    ]
    pairwise = pairwise_table(pairs)
    (args.out / "ratings.md").write_text(
        f"## {title}\n\n{ratings.to_markdown()}\n{pairwise}", encoding="utf-8"
    )
    ratings.plot(args.out / "ratings.png", title=title)
    write_pairwise(result, args.out / "pairwise.csv")
    command = shlex.join([PROG, *args.argv])
    write_result(
        args.out / "ratings.json",
        {
            "game": game.name,
            "params": dict(game.params),
            "games_per_pair": args.games,
            "seed": args.seed,
            "openings": str(args.openings),
            "ratings": ratings.rows(),
            "notes": ratings.notes(),
            "pairs": pairs,
            "provenance": provenance(command, models_played(game, result.agents)),
        },
    )
    print(ratings.to_markdown())
    print(pairwise)
    return pairwise


def check_flags(args: argparse.Namespace) -> None:
    """``UsageError`` for flags that mean nothing as given: ``--fresh`` without ``--reuse``, and
    ``--resume`` of a folder that holds no tournament yet (the library would start a new one)."""
    if args.fresh and args.reuse is None:
        raise UsageError(
            "--fresh needs --reuse OLD: it names the agents whose games are played instead of copied "
            "from OLD (see 'mancala tournament --help')"
        )
    if args.resume and not args.out.exists():
        raise UsageError(f"--resume: {args.out} does not exist, there is no tournament to resume there")
    if args.resume and args.out.is_dir() and all(is_lock_file(p) for p in args.out.iterdir()):
        raise UsageError(f"--resume: {args.out} is empty, there is no tournament to resume there")


def write_pairwise(result, path: Path) -> None:
    """Score of each row agent against each column agent."""
    names = result.agents
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["agent", *names])
        for a in names:
            w.writerow([a, *("" if a == b else f"{result.match(a, b).score:.4f}" for b in names)])
