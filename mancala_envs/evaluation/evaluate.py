"""Evaluate agents (specs or trained policies) against baselines with the arena, over an opening
suite with paired seats; write ``report.md``, ``report.json`` and the games (``games.jsonl``).
Also the report writer of the training scripts.

::

    mancala evaluate --game songo_ewondo runs/songo/policy.json policy --games 400 --out eval/
    python -m mancala_envs.evaluation.evaluate --game en_dodoi runs/en_dodoi          # a run folder: its
    policy

An agent is an agent spec (``minimax:depth=3``, ``policy`` = the shipped model, ...), a policy file
(``.json``/``.pt``) or a run folder. Each agent plays :func:`mancala_envs.evaluation.arena.play_match` against
each
opponent: ``--games`` games, that is ``--games / 2`` openings of the suite (``--openings``: the
game's default suite, ``none`` for the bare initial position, or a JSONL file) each played once
with each seating. The score is ``(wins + draws / 2) / games`` from the agent's side (truncated
games count as draws); its 95% interval is the Wilson interval over the opening pairs
(:mod:`mancala_envs.evaluation.arena.matches`); ``distinct`` counts distinct games, and a report says so when
fewer
than 90% are. ``report.json``: ``{"game", "params", "seed", "openings", "results": [{"agent",
"opponent", "pairs", "games", "distinct", "wins", "draws", "losses", "truncated", "score", "ci95",
"caveat"}, ...]}``.

Ctrl-C stops at once (exit 130), SIGTERM likewise (exit 143); with ``--out`` every finished game is
already in ``games.jsonl``, and the folder is locked while the evaluation runs. A failed write (a
full disk) ends in one line naming the file (exit 2).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shlex
import sys
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from mancala_envs import GAMES, Game, get_game
from mancala_envs.agents.base import Agent
from mancala_envs.agents.registry import AGENT_NAMES, make_agent, models_played, parse_spec
from mancala_envs.evaluation.arena import GameRecord, MatchResult, play_match
from mancala_envs.evaluation.arena.matches import check_even, check_seed
from mancala_envs.evaluation.openings import resolve_openings
from mancala_envs.infra import interrupts
from mancala_envs.infra.errors import one_line
from mancala_envs.infra.extras import require
from mancala_envs.infra.files import append_synced, atomic_write
from mancala_envs.infra.interrupts import deferred_interrupts
from mancala_envs.infra.locks import folder_lock
from mancala_envs.infra.results import provenance, write_result
from mancala_envs.rulesets import parameter_help

DEFAULT_OPPONENTS = ("random", "greedy", "minimax:depth=2")
POLICY_SUFFIXES = (".json", ".pt", ".zip")  # a file to play through policy:path=


def agent_spec(text: str) -> str:
    """A spec for a policy file or a run folder (``policy:path=...``), or the text unchanged (an
    agent spec such as ``az:path=model.json``); ``ValueError`` "no such file" for text that looks
    like a path (a ``/``, or a ``.json``/``.pt``/``.zip`` end) but names nothing there."""
    path = Path(text)
    if path.is_dir():
        if not (path / "policy.json").is_file():
            raise ValueError(f"{text!r} is a folder without policy.json (not a training run folder)")
        return f"policy:path={path / 'policy.json'}"
    if path.suffix in POLICY_SUFFIXES and path.is_file():
        return f"policy:path={path}"
    if text.partition(":")[0].strip() in AGENT_NAMES:
        return text
    if "/" in text or os.sep in text or path.suffix in POLICY_SUFFIXES:
        raise ValueError(
            f"no such file or folder: {text!r} (an agent is a spec, a policy file or a run folder)"
        )
    return text


def load_once(spec: str) -> Agent | str:
    """A policy agent built once (the arena would reload its file for every game; the arena
    reseeds it per game, so the games are the same), any other spec unchanged (fresh per game)."""
    return make_agent(spec) if parse_spec(spec)[0] in ("policy", "az") else spec


def evaluate(
    game: Game,
    agent: Agent | str,
    opponents: Sequence[str],
    games: int,
    seed: int,
    openings: Any = "default",
    progress: bool = False,
    on_game: Callable[[GameRecord], None] | None = None,
) -> list[MatchResult]:
    """``agent`` against each opponent: one :func:`mancala_envs.evaluation.arena.play_match` each, same
    ``seed``
    and suite."""
    suite = resolve_openings(game, openings, games // 2)
    return [
        play_match(game, agent, opp, games, seed=seed, openings=suite, progress=progress, on_game=on_game)
        for opp in opponents
    ]


SCORE_COLUMNS = ("wins", "draws", "losses", "score", "ci_low", "ci_high")


def score_columns(res: MatchResult) -> dict[str, Any]:
    """A match's result in the :data:`SCORE_COLUMNS` of the training runs' ``eval.csv``."""
    lo, hi = res.confidence_interval()
    return dict(zip(SCORE_COLUMNS, (res.wins, res.draws, res.losses, res.score, lo, hi), strict=True))


def result_row(res: MatchResult) -> dict[str, Any]:
    """One ``report.json`` row."""
    lo, hi = res.confidence_interval()
    return {
        "agent": res.a,
        "opponent": res.b,
        "pairs": res.pairs,
        "games": res.games,
        "distinct": res.distinct,
        "wins": res.wins,
        "draws": res.draws,
        "losses": res.losses,
        "truncated": res.truncated,
        "score": res.score,
        "ci95": [lo, hi],
        "caveat": res.caveat(),
    }


def table(rows: Sequence[dict[str, Any]]) -> str:
    """The evaluation table (Markdown; also readable as plain text), caveats below it."""
    lines = [
        "| agent | opponent | pairs | games | distinct | wins | draws | losses | score | 95% CI (pairs) |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    notes = []
    for r in rows:
        lo, hi = r["ci95"]
        mark = " ⚠" if r.get("caveat") else ""
        lines.append(
            f"| {r['agent']} | {r['opponent']} | {r['pairs']} | {r['games']} | {r['distinct']} "
            f"| {r['wins']} | "
            f"{r['draws']} | {r['losses']} | {r['score']:.3f}{mark} | [{lo:.3f}, {hi:.3f}] |"
        )
        if r.get("caveat"):
            notes.append(f"⚠ {r['agent']} vs {r['opponent']}: {r['caveat']}.")
    return "\n".join([*lines, *(["", *notes] if notes else [])])


def pairwise_table(rows: Sequence[dict[str, Any]]) -> str:
    """A tournament's pairings (:func:`result_row` rows): each pair's score with its pair interval
    and distinct games, and a caveat when games repeat."""
    lines = [
        "| agent | opponent | games | distinct | score | 95% CI (pairs) |",
        "|---|---|---:|---:|---:|---|",
    ]
    notes = []
    for r in rows:
        lo, hi = r["ci95"]
        a, b = r["agent"], r["opponent"]
        lines.append(
            f"| `{a}` | `{b}` | {r['games']} | {r['distinct']} | {r['score']:.3f} | [{lo:.3f}, {hi:.3f}] |"
        )
        if r.get("caveat"):
            notes.append(f"⚠ `{a}` vs `{b}`: {r['caveat']}.")
    return "\n".join([*lines, *(["", *notes] if notes else [])]) + "\n"


def plot_curve(history: Sequence[dict[str, Any]], path: Path) -> None:
    """Evaluation score against training steps, one line (with its 95% band) per opponent."""
    matplotlib = require("matplotlib", "train", "the learning-curve plot")

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 4), layout="constrained")
    ax = fig.add_subplot()
    for opp in dict.fromkeys(r["opponent"] for r in history):
        pts = [r for r in history if r["opponent"] == opp]
        x = [r["timesteps"] for r in pts]
        ax.plot(x, [r["score"] for r in pts], marker="o", label=opp)
        ax.fill_between(x, [r["ci_low"] for r in pts], [r["ci_high"] for r in pts], alpha=0.15)
    ax.set_xlabel("training steps")
    ax.set_ylabel("score over opening pairs")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    atomic_write(path, buf.getvalue())


def write_report(
    out: Path,
    game: Game,
    results: Sequence[MatchResult],
    seed: int,
    title: str,
    notes: Sequence[str] = (),
    history: Sequence[dict[str, Any]] | None = None,
    openings: str = "default",
    provenance: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """Write ``report.json``, ``report.md`` (and ``learning_curve.png`` from an evaluation
    ``history``) in ``out``; returns the rows. With ``provenance``
    (:func:`mancala_envs.infra.results.provenance`) ``report.json`` is a checked result file."""
    out = Path(out)
    rows = [result_row(r) for r in results]
    payload = {
        "game": game.name,
        "params": dict(game.params),
        "seed": seed,
        "openings": openings,
        "results": rows,
    }
    if provenance is not None:
        write_result(out / "report.json", {**payload, "provenance": provenance})
    else:
        atomic_write(out / "report.json", json.dumps(payload, indent=2) + "\n")
    md = [
        f"# {title}",
        "",
        f"Game: `{game.name}` {dict(game.params)}; arena seed {seed}; openings: {openings}, "
        "each played with both seatings.",
        "",
        table(rows),
        "",
        "Score = (wins + draws/2) / games; 95% Wilson interval over the opening pairs (the independent "
        "units). Truncated games are draws.",
    ]
    md += ["", *notes] if notes else []
    if history:
        plot_curve(history, out / "learning_curve.png")
        md += ["", "## Learning curve", "", "![learning curve](learning_curve.png)"]
    atomic_write(out / "report.md", "\n".join(md) + "\n")
    return rows


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="mancala evaluate",
        description="Evaluate agents or policies against baselines over an opening suite with paired seats; "
        "prints the table and, with --out, writes OUT/report.md, OUT/report.json and OUT/games.jsonl.",
    )
    p.add_argument(
        "agents", nargs="+", metavar="AGENT", help="agent spec, policy file (.json) or training run folder"
    )
    p.add_argument("--game", choices=GAMES, default="songo_ewondo", help="the game (default: songo_ewondo)")
    p.add_argument(
        "--holes-per-row", type=int, default=None, metavar="N", help=parameter_help("holes_per_row")
    )
    p.add_argument(
        "--max-plies", type=int, default=None, metavar="N", help="truncate games at N plies (default: 1000)"
    )
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
    """``mancala evaluate``; returns the exit status (2 with one line for a failed write, 128 + the
    signal after Ctrl-C or SIGTERM)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        with interrupts.sigterm_raises(), ExitStack() as held:
            return _main(argv, held)
    except OSError as e:  # a failed write (a full disk): the finished games are in games.jsonl
        print(f"mancala evaluate: error: {one_line(e)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as e:  # before the games: nothing to keep
        print(f"\nmancala evaluate: {interrupts.stopped(e)}", file=sys.stderr)
        return interrupts.exit_status(e)


def _main(argv: list[str], held: ExitStack) -> int:
    """:func:`main`; ``held`` keeps the ``--out`` folder's lock to the end."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        params: dict[str, int] = {}
        if args.holes_per_row is not None:
            params["holes_per_row"] = args.holes_per_row
        if args.max_plies is not None:
            params["max_plies"] = args.max_plies
        game = get_game(args.game, **params)
        check_even(args.games, "--games")
        check_seed(args.seed)
        for spec in args.opponents:
            make_agent(spec)
        agents = [load_once(agent_spec(text)) for text in args.agents]
        suite = resolve_openings(game, args.openings, args.games // 2)
        if args.out is not None:
            if (args.out / "games.jsonl").exists():  # checked again under the lock
                raise ValueError(
                    f"{args.out} already holds an evaluation (games.jsonl); choose another --out"
                )
            held.enter_context(folder_lock(args.out, "is in use by another evaluation"))
            if (args.out / "games.jsonl").exists():
                raise ValueError(
                    f"{args.out} already holds an evaluation (games.jsonl); choose another --out"
                )
    except ValueError as e:
        parser.error(str(e))
    results: list[MatchResult] = []
    games_fh = open(args.out / "games.jsonl", "a", encoding="utf-8") if args.out is not None else None  # noqa: SIM115
    write = (lambda rec: append_synced(games_fh, rec.to_json() + "\n")) if games_fh else None
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
                    on_game=write,
                )
    except KeyboardInterrupt as e:
        kept = f"; the finished games are in {args.out / 'games.jsonl'}" if args.out else ""
        print(f"\nmancala evaluate: {interrupts.stopped(e)}{kept}", file=sys.stderr)
        return interrupts.exit_status(e)
    finally:
        if games_fh:
            games_fh.close()
    rows = [result_row(r) for r in results]
    if suite is None and any(r.caveat() for r in results):
        print(
            "mancala evaluate: warning: --openings none: games repeat (see the distinct column); the "
            "scores rest on few distinct games",
            file=sys.stderr,
        )
    if args.out is not None:
        command = shlex.join(["mancala", "evaluate", *argv])
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
