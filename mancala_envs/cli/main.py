"""The ``mancala`` command: ``play``, ``tournament``, ``replay`` (and, from other modules,
``train``, ``train-az``, ``distill-az``, ``evaluate``, ``optimality``, ``tablebase``, ``dataset``,
``train-rllib``, ``solve``, ``serve``).
``mancala <command> --help`` documents each one.

Bad arguments, and the ``ValueError`` s the library raises for them, end in one line on stderr,
``mancala: error: ...``, and exit status 2 — never a traceback; so does a failed write (a full
disk), naming the file. Ctrl-C ends with a line saying what was kept and exit status 130, SIGTERM
likewise with 143 (:mod:`mancala_envs.infra.interrupts`). A game of ``play`` abandoned by a human
(``q``, or the input closed) ends with exit status 1; an abandoned game (Ctrl-C too) writes no
record, and leaves the ``--out`` file as it was (absent if it was).
"""

from __future__ import annotations

import argparse
import csv
import errno
import json
import os
import shlex
import sys
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

from mancala_envs import GAMES, Game, State, __version__, get_game
from mancala_envs.agents.human import QuitGame
from mancala_envs.agents.registry import models_played
from mancala_envs.evaluation.arena import GAMES_FILE, load_records, play_game, replay, round_robin
from mancala_envs.evaluation.arena.records import TornLineWarning
from mancala_envs.evaluation.evaluate import pairwise_table, result_row
from mancala_envs.evaluation.ratings import check_rating_options, compute_ratings
from mancala_envs.infra import interrupts
from mancala_envs.infra.compile_note import agent_kernels, announce_compilation
from mancala_envs.infra.errors import one_line
from mancala_envs.infra.interrupts import deferred_interrupts
from mancala_envs.infra.locks import is_lock_file
from mancala_envs.infra.results import provenance, write_result
from mancala_envs.render import ansi_board, result_text, write_gif
from mancala_envs.rulesets import parameter_help

PROG = "mancala"


def _train(argv: list[str]) -> int:
    from mancala_envs.training import train_ppo

    return train_ppo.main(argv)


def _train_az(argv: list[str]) -> int:
    from mancala_envs.training import train_alphazero

    return train_alphazero.main(argv)


def _distill_az(argv: list[str]) -> int:
    from mancala_envs.training import distill_az

    return distill_az.main(argv)


def _evaluate(argv: list[str]) -> int:
    from mancala_envs.evaluation import evaluate

    return evaluate.main(argv)


def _optimality(argv: list[str]) -> int:
    from mancala_envs.evaluation import optimality

    return optimality.main(argv)


def _dataset(argv: list[str]) -> int:
    from mancala_envs.evaluation import dataset

    return dataset.main(argv)


def _tablebase(argv: list[str]) -> int:
    from mancala_envs.cli import tablebase

    return tablebase.main(argv)


def _solve(argv: list[str]) -> int:
    from mancala_envs.cli import solve

    return solve.main(argv)


def _serve(argv: list[str]) -> int:
    from mancala_envs.web import server

    return server.main(argv)


def _train_rllib(argv: list[str]) -> int:
    from mancala_envs.training import train_rllib

    return train_rllib.main(argv)


# Subcommands with parsers of their own, imported when run (the training ones need extras):
# name -> (``main(argv) -> int``, summary).
EXTERNAL_COMMANDS: dict[str, tuple[Callable[[list[str]], int], str]] = {
    "train": (_train, "train a MaskablePPO policy by self-play"),
    "train-az": (_train_az, "train an AlphaZero-style agent by self-play"),
    "distill-az": (_distill_az, "distil minimax over an az model's value into more plies"),
    "evaluate": (_evaluate, "evaluate agents or policies against baselines"),
    "optimality": (_optimality, "how often an agent's moves keep the exact outcome"),
    "tablebase": (_tablebase, "build or probe an exact endgame tablebase"),
    "solve": (_solve, "prove a game's value from its initial position, or check a proof"),
    "dataset": (_dataset, "write games of an agent pair as a Minari dataset"),
    "train-rllib": (_train_rllib, "train with RLlib (the rllib extra)"),
    "serve": (_serve, "play, analyse and replay games in the browser (the web extra)"),
}
AGENT_SPECS = (
    "random, greedy, minimax:depth=4, mcts:sims=1000, policy[:path=FILE.json], az, perfect, "
    "rllib:path=DIR, human"
)


class UsageError(Exception):
    """A bad command line; printed as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")


def _game_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("game", choices=GAMES, help="which game: " + ", ".join(GAMES))
    p.add_argument(
        "--holes-per-row", type=int, default=None, metavar="N", help=parameter_help("holes_per_row")
    )
    p.add_argument(
        "--max-plies", type=int, default=None, metavar="N", help="truncate games after N plies (1000)"
    )
    p.add_argument("--seed", type=int, default=0, help="seed of every random choice (default 0)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description="Mancala games: play, run tournaments, replay recorded games, train and evaluate agents.",
        formatter_class=lambda prog: argparse.HelpFormatter(prog, max_help_position=28),
    )
    parser.add_argument("--version", action="version", version=f"{PROG} (mancala_envs) {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    p = sub.add_parser(
        "play",
        help="play or watch one game",
        description="Play or watch one game; the board is printed after every move, the seat 0 "
        f"player at the bottom (a human player's row is always at the bottom), the count of the hole "
        "the last move was sown from in brackets and the seeds it captured after the captured count "
        f"(+k). Agents: {AGENT_SPECS}. A human is told his seat before the game, and types a hole "
        "number, ? for the legal holes, q to quit: a game abandoned (q, the input closed, Ctrl-C) "
        "writes no record and exits non-zero (1 for q or closed input, 130 for Ctrl-C).",
    )
    _game_args(p)
    p.add_argument("--p0", default="human", metavar="SPEC", help="agent in seat 0, who moves first (human)")
    p.add_argument("--p1", default="greedy", metavar="SPEC", help="agent in seat 1 (greedy)")
    p.add_argument(
        "--out",
        type=Path,
        metavar="FILE",
        help="append the record (one JSON line) of the finished game to FILE",
    )
    p.add_argument("--quiet", action="store_true", help="print only the result")

    p = sub.add_parser(
        "tournament",
        help="round robin with ratings",
        description="Round robin over an opening suite: every pair of agents plays --games games, "
        "--games/2 openings each played once with each seating. Games are written to OUT/games.jsonl "
        "and OUT/results.csv as they finish; --resume checks and continues an interrupted "
        "tournament. Then prints the Bradley-Terry (Elo) ratings and writes OUT/ratings.{md,csv,png,json} "
        "and OUT/pairwise.csv.",
    )
    _game_args(p)
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

    p = sub.add_parser(
        "replay",
        help="step through a recorded game",
        description="Print every state of one recorded game (games.jsonl or a record file); "
        "--step waits between moves: Enter = next, b = back, q = quit.",
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

    for name, (_, summary) in EXTERNAL_COMMANDS.items():
        sub.add_parser(name, help=summary, add_help=False)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``mancala`` console script; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    with interrupts.sigterm_raises():
        return _main(argv)


def _main(argv: list[str]) -> int:
    try:
        if argv and argv[0] in EXTERNAL_COMMANDS:
            return _external(argv[0], argv[1:])
        try:
            args = build_parser().parse_args(argv)
        except SystemExit as e:  # --help, --version
            return int(e.code or 0)
        if args.command is None:
            build_parser().print_help()
            return 2
        args.argv = argv  # the command as typed, for the result files
        return {"play": _play, "tournament": _tournament, "replay": _replay}[args.command](args)
    except BrokenPipeError:  # output piped into e.g. head, which has gone: stop quietly
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - lets the interpreter's final flush succeed
        return 141
    except (UsageError, ValueError, OSError) as e:
        print(f"{PROG}: error: {_one_line(e)}", file=sys.stderr)
        return 2
    except ImportError as e:  # an optional dependency of an agent or subcommand
        print(f"{PROG}: error: {_one_line(e)}", file=sys.stderr)
        return 1
    except EOFError:
        print(f"\n{PROG}: input closed; game abandoned", file=sys.stderr)
        return 1
    except QuitGame as e:
        print(f"{PROG}: {e}; game abandoned")
        return 1
    except KeyboardInterrupt as e:
        print(f"\n{PROG}: {interrupts.stopped(e)}", file=sys.stderr)
        return interrupts.exit_status(e)


_one_line = one_line


def _external(name: str, argv: list[str]) -> int:
    return int(EXTERNAL_COMMANDS[name][0](argv) or 0)


def _make_game(args: argparse.Namespace) -> Game:
    params = {"max_plies": args.max_plies}
    if args.holes_per_row is not None:
        params["holes_per_row"] = args.holes_per_row
    return get_game(args.game, **params)


def board_text(game: Game, state: State, bottom: int = 0, *, previous: State | None = None) -> str:
    """The text board of :func:`mancala_envs.render.ansi_board`, player ``bottom`` at the bottom
    (``previous``: the state before the last move, whose captures the board then shows)."""
    return ansi_board(game, state, bottom=bottom, previous=previous)


def _describe_end(game: Game, state: State, names: Sequence[str]) -> str:
    who = "" if state.winner is None or state.winner < 0 else f" — {names[state.winner]}"
    return f"game over after {state.ply} plies: {result_text(game, state)}{who}"


def _check_writable(path: Path) -> None:
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


def _sides(names: Sequence[str], first: int) -> str | None:
    """Which side the human is (or the humans are), said before the game; ``None`` without one."""
    humans = [i for i, n in enumerate(names) if n == "human"]

    def order(i: int) -> str:
        return "moves first" if i == first else "moves second"

    if len(humans) == 1:
        [i] = humans
        return f"you are player_{i} (seat {i}, {order(i)}, your row is at the bottom)"
    if len(humans) == 2:
        return (
            f"two humans: player_0 (seat 0) {order(0)}, player_1 (seat 1) {order(1)}; "
            "the board shows the mover's row at the bottom"
        )
    return None


def _play(args: argparse.Namespace) -> int:

    game = _make_game(args)
    names = (args.p0, args.p1)
    humans = [i for i, n in enumerate(names) if n == "human"]
    bottom = humans[0] if len(humans) == 1 else 0  # a lone human keeps his row at the bottom
    if args.out is not None:  # checked now, so an unwritable file fails before the game, not after;
        _check_writable(args.out)  # written only when the game ends (an abandoned one writes nothing)
    last = [game.initial_state()]

    def show(state: State, action: int | None) -> None:
        previous = None
        if action is None:
            print(f"{game.name}: P0 = {names[0]}, P1 = {names[1]}; player {state.to_move} moves first")
            sides = _sides(names, state.to_move)
            if sides:
                print(sides)
        else:
            previous = last[0]
            if not args.quiet:
                mover = previous.to_move
                print(f"\nply {state.ply}: player {mover} ({names[mover]}) plays hole {action}")
        last[0] = state
        human_next = not state.is_over and names[state.to_move] == "human"  # who shows the board himself
        if not args.quiet and not human_next:
            print(board_text(game, state, bottom, previous=previous))

    announce_compilation(*agent_kernels(args.p0), *agent_kernels(args.p1))
    record = play_game(game, args.p0, args.p1, seed=args.seed, on_move=show)
    print(_describe_end(game, last[0], names))
    if args.out is not None:
        with deferred_interrupts():  # a Ctrl-C while writing lets the line be finished first
            args.out.parent.mkdir(parents=True, exist_ok=True)
            with open(args.out, "a", encoding="utf-8") as fh:
                fh.write(record.to_json() + "\n")
            print(f"record appended to {args.out}")
    return 0


def _tournament(args: argparse.Namespace) -> int:

    _check_tournament_flags(args)
    game = _make_game(args)
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
    _write_pairwise(result, args.out / "pairwise.csv")
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
    if str(args.openings).lower() in ("none", "initial") and "only" in pairwise:
        print(
            f"{PROG}: warning: --openings none: games repeat (see the distinct column); the ratings rest on "
            "few distinct games",
            file=sys.stderr,
        )
    print(f"games, results.csv, ratings.{{md,csv,png,json}} and pairwise.csv are in {args.out}")
    return 0


def _check_tournament_flags(args: argparse.Namespace) -> None:
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


def _write_pairwise(result, path: Path) -> None:
    """Score of each row agent against each column agent."""

    names = result.agents
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["agent", *names])
        for a in names:
            w.writerow([a, *("" if a == b else f"{result.match(a, b).score:.4f}" for b in names)])


def _replay(args: argparse.Namespace) -> int:

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
    rec = records[args.game]
    game = get_game(rec.game, **rec.params)
    states = replay(rec, game)
    print(
        f"game {args.game} of {len(records)}: {rec.game} {rec.params}, seed {rec.seed}; "
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
    print(_describe_end(game, states[-1], rec.agents))
    return 0


if __name__ == "__main__":
    sys.exit(main())
