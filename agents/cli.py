"""The ``mancala`` command: ``play``, ``tournament``, ``replay`` (and, once installed, ``train``,
``evaluate``, ``train-rllib``). ``mancala <command> --help`` documents each one.

Bad arguments, and the ``ValueError`` s the library raises for them, end in one line on stderr,
``mancala: error: ...``, and exit status 2 — never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from mancala_envs import GAMES, Game, State, get_game

PROG = "mancala"

# Subcommands living in other packages: name -> (module exposing ``main(argv) -> int``, summary).
EXTERNAL_COMMANDS: dict[str, tuple[str, str]] = {
    "train": ("training.train_ppo", "train a MaskablePPO policy (training package)"),
    "evaluate": ("training.evaluate", "evaluate a trained policy against baselines (training package)"),
    "train-rllib": ("training.train_rllib", "train with RLlib (training package)"),
}


class UsageError(Exception):
    """A bad command line; printed as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")


def _game_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("game", choices=GAMES, help="which game: " + ", ".join(GAMES))
    p.add_argument(
        "--holes-per-row", type=int, default=None, metavar="N", help="en_dodoi only: 6..10 (default 8)"
    )
    p.add_argument(
        "--max-plies", type=int, default=None, metavar="N", help="truncate games after N plies (1000)"
    )
    p.add_argument("--seed", type=int, default=0, help="seed of every random choice (default 0)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description="Mancala games: play, run tournaments, replay recorded games.",
        formatter_class=lambda prog: argparse.HelpFormatter(prog, max_help_position=28),
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    p = sub.add_parser(
        "play",
        help="play or watch one game",
        description="Play or watch one game; the board is "
        "printed after every move. Agent specs: random, greedy, minimax:depth=4, mcts:sims=1000, "
        "policy[:path=run/model.zip], rllib:path=DIR, human.",
    )
    _game_args(p)
    p.add_argument("--p0", default="human", metavar="SPEC", help="agent in seat 0, who moves first (human)")
    p.add_argument("--p1", default="greedy", metavar="SPEC", help="agent in seat 1 (greedy)")
    p.add_argument("--out", type=Path, metavar="FILE", help="append the game record (one JSON line) to FILE")
    p.add_argument("--quiet", action="store_true", help="print only the result")

    p = sub.add_parser(
        "tournament",
        help="round robin with ratings",
        description="Round robin: every pair of agents plays --games games (seats balanced: "
        "each agent of a pair plays each seat in half of them). Games are written to "
        "OUT/games.jsonl and OUT/results.csv as they finish; --resume continues an interrupted "
        "tournament. Then prints the Bradley-Terry (Elo) ratings and writes OUT/ratings.{md,csv,png} "
        "and OUT/pairwise.csv.",
    )
    _game_args(p)
    p.add_argument("--agents", nargs="+", required=True, metavar="SPEC", help="two or more agent specs")
    p.add_argument("--games", type=int, default=100, metavar="N", help="games per pair, even (default 100)")
    p.add_argument("--out", type=Path, required=True, metavar="DIR", help="output directory (new or empty)")
    p.add_argument("--resume", action="store_true", help="continue the tournament in DIR")
    p.add_argument(
        "--bootstrap", type=int, default=1000, metavar="B", help="bootstrap resamples (default 1000)"
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")

    p = sub.add_parser(
        "replay",
        help="step through a recorded game",
        description="Print every state of one recorded game (games.jsonl or a record file).",
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
        "--step", action="store_true", help="wait for Enter between moves (when stdin is a terminal)"
    )

    for name, (_, summary) in EXTERNAL_COMMANDS.items():
        sub.add_parser(name, help=summary, add_help=False)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``mancala`` console script; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] in EXTERNAL_COMMANDS:
            return _external(argv[0], argv[1:])
        try:
            args = build_parser().parse_args(argv)
        except SystemExit as e:  # --help
            return int(e.code or 0)
        if args.command is None:
            build_parser().print_help()
            return 2
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
    except KeyboardInterrupt:
        print(f"\n{PROG}: interrupted", file=sys.stderr)
        return 130


def _one_line(e: BaseException) -> str:
    text = str(e) if not isinstance(e, OSError) or not e.filename else f"{e.strerror}: {e.filename}"
    return " ".join(text.split()) or type(e).__name__


def _external(name: str, argv: list[str]) -> int:
    module_name = EXTERNAL_COMMANDS[name][0]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        raise UsageError(f"'{name}' is not available: module {module_name} is not installed ({e})") from e
    return int(module.main(argv) or 0)


def _make_game(args: argparse.Namespace) -> Game:
    params = {"max_plies": args.max_plies}
    if args.holes_per_row is not None:
        params["holes_per_row"] = args.holes_per_row
    return get_game(args.game, **params)


def board_text(game: Game, state: State) -> str:
    """The text board of :func:`mancala_envs.render.ansi_board` (seen from the player to move)."""
    from mancala_envs.render import ansi_board

    return ansi_board(game, state)


def _describe_end(state: State, names: Sequence[str]) -> str:
    caps = f"captured {state.captured[0]}-{state.captured[1]}, {state.ply} plies"
    if state.truncated:
        return f"truncated at max_plies: no winner ({caps})"
    if state.winner == -1:
        return f"draw ({caps})"
    return f"player {state.winner} ({names[state.winner]}) wins ({caps})"


def _play(args: argparse.Namespace) -> int:
    from agents.arena import play_game

    game = _make_game(args)
    names = (args.p0, args.p1)
    last = [game.initial_state()]

    def show(state: State, action: int | None) -> None:
        if action is None:
            print(f"{game.name}: P0 = {names[0]}, P1 = {names[1]}; player {state.to_move} moves first")
        else:
            mover = last[0].to_move
            if not args.quiet:
                print(f"\nply {state.ply}: player {mover} ({names[mover]}) plays hole {action}")
        last[0] = state
        human_next = not state.is_over and names[state.to_move] == "human"  # who shows the board himself
        if not args.quiet and not human_next:
            print(board_text(game, state))

    record = play_game(game, args.p0, args.p1, seed=args.seed, on_move=show)
    print(_describe_end(last[0], names))
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        with open(args.out, "a", encoding="utf-8") as fh:
            fh.write(record.to_json() + "\n")
        print(f"record appended to {args.out}")
    return 0


def _tournament(args: argparse.Namespace) -> int:
    from agents.arena import round_robin
    from agents.ratings import compute_ratings

    game = _make_game(args)
    try:
        result = round_robin(
            game,
            args.agents,
            args.games,
            seed=args.seed,
            out_dir=args.out,
            resume=args.resume,
            progress=not args.no_progress,
        )
    except KeyboardInterrupt:
        print(
            f"\n{PROG}: interrupted; finished games are kept in {args.out}; continue with --resume",
            file=sys.stderr,
        )
        return 130
    ratings = compute_ratings(
        result.records, agents=result.agents, n_bootstrap=args.bootstrap, seed=args.seed
    )
    title = f"{game.name} {json.dumps(game.params)}, {args.games} games per pair"
    ratings.to_csv(args.out / "ratings.csv")
    (args.out / "ratings.md").write_text(f"## {title}\n\n" + ratings.to_markdown(), encoding="utf-8")
    ratings.plot(args.out / "ratings.png", title=title)
    _write_pairwise(result, args.out / "pairwise.csv")
    print(ratings.to_markdown())
    print(f"games, results.csv, ratings.{{md,csv,png}} and pairwise.csv are in {args.out}")
    return 0


def _write_pairwise(result, path: Path) -> None:
    """Score of each row agent against each column agent."""
    import csv

    names = result.agents
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["agent", *names])
        for a in names:
            w.writerow([a, *("" if a == b else f"{result.match(a, b).score:.4f}" for b in names)])


def _replay(args: argparse.Namespace) -> int:
    from agents.arena import load_records, replay

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        records = load_records(args.file)
    if not 0 <= args.game < len(records):
        raise UsageError(f"--game {args.game} is out of range: {args.file} holds games 0..{len(records) - 1}")
    rec = records[args.game]
    game = get_game(rec.game, **rec.params)
    states = replay(rec, game)
    wait = args.step and sys.stdin.isatty()
    print(
        f"game {args.game} of {len(records)}: {rec.game} {rec.params}, seed {rec.seed}; "
        f"P0 = {rec.agents[0]}, P1 = {rec.agents[1]}"
    )
    for ply, state in enumerate(states):
        if ply:
            print(f"\nply {ply}: player {states[ply - 1].to_move} plays hole {rec.moves[ply - 1]}")
        print(board_text(game, state))
        if wait and ply < len(states) - 1:
            input("-- Enter for the next move --")
    print(_describe_end(states[-1], rec.agents))
    return 0


if __name__ == "__main__":
    sys.exit(main())
