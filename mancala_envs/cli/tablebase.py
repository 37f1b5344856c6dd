"""``mancala tablebase build|probe|suite`` (TABLEBASE.md §4).

::

    mancala tablebase build GAME [--holes-per-row N] --max-seeds K [--out DIR] [--ray-address ADDR]
                            [--low-memory | --retrograde]
    mancala tablebase probe GAME --board 1,0,2,... --captured A,B --to-move P [--path DIR]
    mancala tablebase suite GAME --positions N [--max-seeds K] [--path DIR] [--out FILE] [--max-games G]

``DIR`` is a table's folder (default: :func:`~mancala_envs.tablebase.store.default_path`). A
build shows a progress bar over the covered positions (both players to move) with their rate
and the time left; Ctrl-C (exit 130) or SIGTERM (exit 143) keeps the finished layers and the same
command resumes after them. A full disk ends in one line naming the file, the finished layers kept.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mancala_envs import Game
from mancala_envs.cli.parsing import command_args, standalone
from mancala_envs.evaluation.suite_sampling import SUITE_AGENTS, make_suite
from mancala_envs.infra import interrupts
from mancala_envs.infra.compile_note import announce_compilation
from mancala_envs.infra.errors import one_line
from mancala_envs.tablebase import store
from mancala_envs.tablebase.builder import build
from mancala_envs.tablebase.optimality_suite import write_suite
from mancala_envs.tablebase.table import NO_MOVE, Tablebase, load
from mancala_envs.variant import add_game_arguments, game_from_arguments

NAME = "tablebase"
PROG = f"mancala {NAME}"
OUTCOME_WORDS = {1: "win", 0: "draw", -1: "loss"}


def _ints(text: str) -> list[int]:
    try:
        return [int(x) for x in text.replace(" ", "").split(",") if x != ""]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        NAME,
        prog=PROG,
        help="build or probe an exact endgame tablebase",
        description="Build, probe or sample an exact endgame tablebase (docs/TABLEBASE.md, section 4).",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser("build", help="build (or extend, or resume) a table")
    add_game_arguments(p, max_plies=False)
    p.add_argument("--max-seeds", type=int, required=True, metavar="K", help="every board of <= K seeds")
    p.add_argument("--out", type=Path, default=None, metavar="DIR", help="table folder (default: cache)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument(
        "--ray-address",
        default=None,
        metavar="ADDR",
        help="partition each layer (moves and value iteration) across Ray workers: 'local' (a Ray on this "
        "machine), 'auto' or HOST:PORT (a running cluster; the table folder must be shared); the rllib extra",
    )
    p.add_argument(
        "--ray-workers", type=int, default=None, metavar="N", help="CPUs of a --ray-address local instance"
    )
    p.add_argument(
        "--low-memory",
        action="store_true",
        help="keep no moves in memory: at most 4 bytes a position (both players to move) plus a constant, "
        "slower where positions converge slowly (Songo Ewondo); the same files",
    )
    p.add_argument(
        "--retrograde",
        action="store_true",
        help="settle each position once per side by retrograde counting over predecessors from the rules "
        "(one-lap sowing: Songo Ewondo); keeps no moves; the same values, ranks in the place of rounds",
    )

    p = sub.add_parser("probe", help="exact values of one position and of its moves")
    add_game_arguments(p, max_plies=False)
    p.add_argument("--board", type=_ints, required=True, help="2n seed counts, RULES.md §1 order")
    p.add_argument("--captured", type=_ints, required=True, metavar="A,B", help="captured[0],captured[1]")
    p.add_argument("--to-move", type=int, required=True, choices=(0, 1), metavar="P")
    p.add_argument("--path", type=Path, default=None, metavar="DIR", help="table folder (default: cache)")

    p = sub.add_parser("suite", help="draw an optimality suite from games of varied agents")
    add_game_arguments(p, max_plies=False)
    p.add_argument("--positions", type=int, required=True, metavar="N", help="suite size")
    p.add_argument("--max-seeds", type=int, default=None, metavar="K", help="table size (default: all)")
    p.add_argument("--path", type=Path, default=None, metavar="DIR", help="table folder (default: cache)")
    p.add_argument("--out", type=Path, default=None, metavar="FILE", help="JSONL file (default: stdout)")
    p.add_argument("--max-games", type=int, default=None, metavar="G", help="games at most (N)")
    p.add_argument("--min-positions", type=int, default=None, metavar="M", help="accept M or more (N)")
    p.add_argument("--agents", default=None, metavar="SPECS", help="players separated by ; (default: varied)")
    p.add_argument("--seed", type=int, default=0, help="seed of every random choice (0)")
    return parser


def build_parser() -> argparse.ArgumentParser:
    """Deprecated: the parser is :func:`add_parser`'s."""
    message = "mancala_envs.cli.tablebase.build_parser is deprecated: use add_parser"
    warnings.warn(message, DeprecationWarning, stacklevel=2)
    return standalone(add_parser)


def _open(game: Game, path: Path | None, max_seeds: int | None = None) -> Tablebase:
    path = path if path is not None else store.default_path(game)
    if not (path / store.HEADER).is_file():
        raise ValueError(
            f"no table of {store.table_name(game)} at {path}: build one with "
            f"'mancala tablebase build {game.name} --max-seeds K' (or give --path)"
        )
    return load(path, game, max_seeds)


def kept_layers(path: Path) -> str:
    """What an interrupted build leaves in ``path``: ``layers 0..K are kept in PATH, run again to
    resume``, or that no layer was finished."""
    done = store.read_header(path)["max_seeds"] if (path / store.HEADER).is_file() else -1
    if done < 0:
        return f"no layer was finished yet in {path}; run again to build it"
    return f"layers 0..{done} are kept in {path}, run again to resume"


def _build(args: argparse.Namespace) -> int:
    game = game_from_arguments(args)
    announce_compilation("rules", "tablebase")
    start = time.perf_counter()
    try:
        tb = build(
            game,
            args.max_seeds,
            args.out,
            progress=not args.quiet,
            ray_address=args.ray_address,
            ray_workers=args.ray_workers,
            low_memory=args.low_memory,
            retrograde=args.retrograde,
        )
    except KeyboardInterrupt as e:
        path = args.out if args.out is not None else store.default_path(game)
        print(f"\n{PROG}: {interrupts.stopped(e)}; {kept_layers(path)}", file=sys.stderr)
        return interrupts.exit_status(e)
    seconds = time.perf_counter() - start
    layers = tb.header["layers"][: tb.max_seeds + 1]
    build_s = sum(layer["seconds"] for layer in layers)
    size = sum(f.stat().st_size for f in tb.path.iterdir() if f.is_file())
    print(
        f"{store.table_name(game)}, max_seeds={tb.max_seeds}: {tb.covered_positions:,} positions in "
        f"{tb.path}\nbuild time {build_s:.1f} s over all runs "
        f"({tb.covered_positions / max(build_s, 1e-9):,.0f} positions/s), "
        f"this run {seconds:.1f} s, files {size / 2**20:.1f} MB"
    )
    return 0


def probe_text(tb: Tablebase, state) -> str:
    """The probe report of one covered state (TABLEBASE.md §4)."""
    p = tb.probe(state)
    a, b = p.bounds
    lines = [
        f"player {state.to_move} to move, lead d = {p.lead}: {OUTCOME_WORDS[p.outcome]} ({p.outcome:+d})",
        f"(A, B) = ({a:g}, {b:g})" + ("  never-ending play decides it" if a != b else ""),
        "moves:",
    ]
    best = tb.best_actions(state)
    for m, outcome in enumerate(p.move_outcomes):
        if outcome == NO_MOVE:
            continue
        mark = "  optimal" if best[m] else ""
        lines.append(f"  {m}: {OUTCOME_WORDS[int(outcome)]} ({int(outcome):+d}){mark}")
    return "\n".join(lines)


def _probe(args: argparse.Namespace) -> int:
    game = game_from_arguments(args)
    state = game.state_from(board=args.board, captured=args.captured, to_move=args.to_move)
    tb = _open(game, args.path)
    why = tb.why_not_covered(state)
    if why is not None:
        raise ValueError(f"the table (max_seeds={tb.max_seeds}) does not cover this position: {why}")
    print(probe_text(tb, state))
    return 0


def _suite(args: argparse.Namespace) -> int:

    game = game_from_arguments(args)
    tb = _open(game, args.path, args.max_seeds)

    specs = SUITE_AGENTS if args.agents is None else tuple(x.strip() for x in args.agents.split(";"))
    entries = make_suite(
        tb, args.positions, args.seed, args.max_games, args.out is not None, specs, args.min_positions
    )
    if args.out is None:
        write_suite(entries, sys.stdout)
    else:
        write_suite(entries, args.out)
        print(f"{len(entries)} positions written to {args.out}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``mancala tablebase`` (``argv``: its arguments); returns the exit status."""
    return run(command_args(add_parser, NAME, list(sys.argv[1:] if argv is None else argv)))


def run(args: argparse.Namespace) -> int:
    """Returns the exit status (2 with one line on stderr for bad input or a failed write, 128 + the
    signal after Ctrl-C or SIGTERM)."""
    try:
        with interrupts.sigterm_raises():
            return {"build": _build, "probe": _probe, "suite": _suite}[args.command](args)
    except (ValueError, OSError) as e:  # OSError: a failed write (a full disk), naming the file
        print(f"{PROG}: error: {one_line(e)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as e:
        print(f"\n{PROG}: {interrupts.stopped(e)}", file=sys.stderr)
        return interrupts.exit_status(e)


if __name__ == "__main__":
    sys.exit(main())
