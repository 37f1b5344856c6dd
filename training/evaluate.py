"""Evaluate agents (specs or trained checkpoints) against the baselines with the arena; write
``report.md`` and ``report.json``. Also the report writer of :mod:`training.train_ppo`.

    mancala evaluate --game songo_ewondo runs/songo/model.zip policy greedy --games 400 --out eval/
    python -m training.evaluate --game en_dodoi runs/en_dodoi          # a run folder: its model.zip

An agent is an agent spec (``minimax:depth=3``, ``policy`` = the shipped model, ...), a ``.zip``
checkpoint or a run folder. Every agent plays :func:`agents.arena.play_match` against each opponent
(default ``random``, ``greedy``, ``minimax:depth=2``): ``--games`` games, seats balanced (the agent
is seat 0, who moves first, in the even-numbered games), game ``k`` seeded with
``derive_seed(seed, k)`` — the same seed gives the same games as the arena itself.

``report.json``: ``{"game", "params", "seed", "games", "results": [{"agent", "opponent", "games",
"wins", "draws", "losses", "truncated", "score", "ci95": [low, high]}, ...]}`` where score is
``(wins + draws / 2) / games`` from the agent's side (truncated games count as draws) and ci95
its Wilson interval (:meth:`agents.arena.MatchResult.confidence_interval`).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agents.arena import MatchResult, play_match
from agents.base import Agent
from mancala_envs import GAMES, Game, get_game

DEFAULT_OPPONENTS = ("random", "greedy", "minimax:depth=2")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write(path: Path, data: str | bytes) -> None:
    """Write ``path`` through a temporary file in the same folder and a rename: a reader (or a
    crash) sees the old file or the new one, never a partial one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # mkstemp's 0600 -> the usual permissions of a new file
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode() if isinstance(data, str) else data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def agent_spec(text: str) -> str:
    """A spec for a ``.zip`` path or a run folder (``policy:path=...``), or the text unchanged."""
    path = Path(text)
    if path.is_dir():
        if not (path / "model.zip").is_file():
            raise ValueError(f"{text!r} is a folder without model.zip (not a run folder)")
        return f"policy:path={path / 'model.zip'}"
    if text.endswith(".zip"):
        if not path.is_file():
            raise ValueError(f"checkpoint {text!r} does not exist")
        return f"policy:path={path}"
    return text


def load_once(spec: str) -> Agent | str:
    """A policy agent built once (the arena would reload its file for every game; the arena
    re-seeds it per game, so the games are the same), any other spec unchanged (fresh per game)."""
    from agents.registry import make_agent, parse_spec

    return make_agent(spec) if parse_spec(spec)[0] == "policy" else spec


def evaluate(
    game: Game, agent: Agent | str, opponents: Sequence[str], games: int, seed: int, progress: bool = False
) -> list[MatchResult]:
    """``agent`` against each opponent: one :func:`agents.arena.play_match` each, same ``seed``."""
    return [play_match(game, agent, opp, games, seed=seed, progress=progress) for opp in opponents]


def result_row(res: MatchResult) -> dict[str, Any]:
    """One ``report.json`` row."""
    lo, hi = res.confidence_interval()
    return {
        "agent": res.a,
        "opponent": res.b,
        "games": res.games,
        "wins": res.wins,
        "draws": res.draws,
        "losses": res.losses,
        "truncated": res.truncated,
        "score": res.score,
        "ci95": [lo, hi],
    }


def table(rows: Sequence[dict[str, Any]]) -> str:
    """The evaluation table (Markdown; also readable as plain text)."""
    lines = [
        "| agent | opponent | games | wins | draws | losses | score | 95% CI |",
        "|---|---|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        lo, hi = r["ci95"]
        lines.append(
            f"| {r['agent']} | {r['opponent']} | {r['games']} | {r['wins']} | {r['draws']} | "
            f"{r['losses']} | {r['score']:.3f} | [{lo:.3f}, {hi:.3f}] |"
        )
    return "\n".join(lines)


def plot_curve(history: Sequence[dict[str, Any]], path: Path) -> None:
    """Evaluation score against training steps, one line (with its 95% band) per opponent."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for opp in dict.fromkeys(r["opponent"] for r in history):
        pts = [r for r in history if r["opponent"] == opp]
        x = [r["timesteps"] for r in pts]
        ax.plot(x, [r["score"] for r in pts], marker="o", label=opp)
        ax.fill_between(x, [r["ci_low"] for r in pts], [r["ci_high"] for r in pts], alpha=0.15)
    ax.set_xlabel("training steps")
    ax.set_ylabel("score (wins + draws/2) / games")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".png")
    os.fchmod(fd, 0o666 & ~_umask())
    os.close(fd)
    fig.savefig(tmp, dpi=100)
    plt.close(fig)
    os.replace(tmp, path)


def write_report(
    out: Path,
    game: Game,
    results: Sequence[MatchResult],
    seed: int,
    title: str,
    notes: Sequence[str] = (),
    history: Sequence[dict[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """Write ``report.json``, ``report.md`` (and ``learning_curve.png`` from an evaluation
    ``history``) in ``out``; returns the rows."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    rows = [result_row(r) for r in results]
    payload = {
        "game": game.name,
        "params": dict(game.params),
        "seed": seed,
        "games": sorted({r["games"] for r in rows}),
        "results": rows,
    }
    atomic_write(out / "report.json", json.dumps(payload, indent=2) + "\n")
    md = [
        f"# {title}",
        "",
        f"Game: `{game.name}` {dict(game.params)}; arena seed {seed}; seats balanced.",
        "",
    ]
    md += [
        table(rows),
        "",
        "Score = (wins + draws/2) / games; 95% Wilson interval. Truncated games are draws.",
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
        description="Evaluate agents or checkpoints against baselines with the arena (seats balanced); "
        "writes OUT/report.md and OUT/report.json and prints the table.",
    )
    p.add_argument("agents", nargs="+", metavar="AGENT", help="agent spec, MODEL.zip or run folder")
    p.add_argument("--game", choices=GAMES, default="songo_ewondo", help="the game (songo_ewondo)")
    p.add_argument("--holes-per-row", type=int, default=None, metavar="N", help="en_dodoi only (8)")
    p.add_argument("--max-plies", type=int, default=None, metavar="N", help="truncation (1000)")
    p.add_argument("--opponents", nargs="+", default=list(DEFAULT_OPPONENTS), metavar="SPEC")
    p.add_argument("--games", type=int, default=400, help="games per pair, even (400)")
    p.add_argument("--seed", type=int, default=0, help="arena seed (0)")
    p.add_argument("--out", type=Path, default=None, help="report folder (default: print only)")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """``mancala evaluate``; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        params: dict[str, int] = {}
        if args.holes_per_row is not None:
            params["holes_per_row"] = args.holes_per_row
        if args.max_plies is not None:
            params["max_plies"] = args.max_plies
        game = get_game(args.game, **params)
        results = []
        for text in args.agents:
            agent = load_once(agent_spec(text))
            results += evaluate(game, agent, args.opponents, args.games, args.seed, not args.no_progress)
    except ValueError as e:
        parser.error(str(e))
    rows = [result_row(r) for r in results]
    if args.out is not None:
        write_report(
            args.out,
            game,
            results,
            args.seed,
            "Evaluation",
            [f"Command: `{shlex.join(['mancala', 'evaluate', *(sys.argv[1:] if argv is None else argv)])}`"],
        )
        print(f"report: {args.out / 'report.md'}")
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
