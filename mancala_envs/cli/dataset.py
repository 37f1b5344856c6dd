"""``mancala dataset``: games of an agent pair as a Minari dataset
(:func:`mancala_envs.evaluation.dataset.write_dataset`; the ``dataset`` extra).

::

    mancala dataset --game songo_ewondo --learner greedy --opponent minimax:depth=2 \\
        --openings 20 --max-seeds 10 --out datasets/ [--dataset-id mancala/songo_ewondo/greedy-v0]
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mancala_envs.cli.parsing import PROG, command_args
from mancala_envs.evaluation.dataset import DEFAULT_AUTHOR, DEFAULT_PAIRS, default_dataset_id, write_dataset
from mancala_envs.infra import interrupts
from mancala_envs.variant import add_game_arguments, game_from_arguments

NAME = "dataset"


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        NAME,
        prog=f"{PROG} {NAME}",
        help="write games of an agent pair as a Minari dataset",
        description="Play an agent pair over an opening suite (each opening with the learner in both seats) "
        "and write the learner's episodes as a Minari dataset (observations, actions, rewards, "
        "infos.action_mask, infos.exact_value). Needs the dataset extra: "
        "pip install '.[dataset]' in a checkout.",
    )
    add_game_arguments(p, positional=False)
    p.add_argument("--learner", required=True, metavar="SPEC", help="the recorded agent, e.g. greedy")
    p.add_argument(
        "--opponent", required=True, metavar="SPEC", help="the fixed opponent, e.g. minimax:depth=2"
    )
    p.add_argument(
        "--openings",
        type=int,
        default=DEFAULT_PAIRS,
        metavar="N",
        help=f"opening pairs from the game's default suite: 2N episodes (default {DEFAULT_PAIRS})",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of every random choice (default 0)")
    p.add_argument(
        "--out", type=Path, required=True, metavar="DIR", help="the Minari datasets root to write into"
    )
    p.add_argument(
        "--dataset-id",
        default=None,
        metavar="ID",
        help="Minari id [namespace/]name-vN (default mancala/<game>/<learner>-vs-<opponent>-v0)",
    )
    p.add_argument(
        "--tablebase",
        type=Path,
        default=None,
        metavar="DIR",
        help="a table folder for infos.exact_value (with --max-seeds: built there if missing or smaller)",
    )
    p.add_argument(
        "--max-seeds",
        type=int,
        default=None,
        metavar="K",
        help="build (or load) the table of every board of <= K seeds (default folder: the tablebase cache)",
    )
    p.add_argument("--author", default=DEFAULT_AUTHOR, help=f"the dataset's author ({DEFAULT_AUTHOR})")
    p.add_argument("--description", default=None, help="the dataset's description (default: generated)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """``mancala dataset`` (``argv``: its arguments); returns the exit status."""
    return run(command_args(add_parser, NAME, list(sys.argv[1:] if argv is None else argv)))


def run(args: argparse.Namespace) -> int:
    game = game_from_arguments(args)
    dataset_id = args.dataset_id or default_dataset_id(game, args.learner, args.opponent)
    try:
        with interrupts.sigterm_raises():
            dataset = write_dataset(
                game,
                args.learner,
                args.opponent,
                args.out,
                dataset_id,
                openings=args.openings,
                seed=args.seed,
                tablebase=args.tablebase,
                max_seeds=args.max_seeds,
                author=args.author,
                description=args.description,
                progress=not args.no_progress,
            )
    except KeyboardInterrupt as e:
        print(f"\n{PROG} {NAME}: {interrupts.stopped(e)}; no dataset was written", file=sys.stderr)
        return interrupts.exit_status(e)
    meta = dataset.storage.metadata["mancala"]
    skipped = len(meta["skipped"])
    print(
        f"wrote {dataset_id} to {args.out / dataset_id}: {dataset.total_episodes} episodes, "
        f"{dataset.total_steps} steps, {meta['exact_values']} observations with an exact value"
        + (
            f", {skipped} of {2 * meta['pairs']} games skipped (the opponent's moves ended them before "
            "the learner's first move)"
            if skipped
            else ""
        )
        + f" (command: {shlex.join([PROG, *args.argv])})"
    )
    print(
        f"load it with minari.load_dataset({dataset_id!r}), MINARI_DATASETS_PATH={shlex.quote(str(args.out))}"
    )
    return 0
