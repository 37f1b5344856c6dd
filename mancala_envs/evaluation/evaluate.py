"""Evaluate agents (specs or trained policies) against baselines with the arena, over an opening
suite with paired seats; write ``report.md``, ``report.json`` and the games (``games.jsonl``).
Also the report writer of the training scripts; the command line is :mod:`mancala_envs.cli.evaluate`.

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
"""

from __future__ import annotations

import io
import json
import os
import sys
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from mancala_envs import Game
from mancala_envs.agents.base import Agent
from mancala_envs.agents.registry import AGENT_NAMES, make_agent, parse_spec
from mancala_envs.evaluation.arena import GameRecord, MatchResult, play_match
from mancala_envs.evaluation.openings import resolve_openings
from mancala_envs.infra.extras import require
from mancala_envs.infra.files import atomic_write
from mancala_envs.infra.results import write_result

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


def build_parser() -> Any:
    """Deprecated: ``mancala evaluate``'s parser is :func:`mancala_envs.cli.evaluate.add_parser`."""
    from mancala_envs.cli import evaluate as command  # the command line is the cli layer's
    from mancala_envs.cli.parsing import standalone

    warnings.warn(DEPRECATED.format("build_parser", "add_parser"), DeprecationWarning, stacklevel=2)
    return standalone(command.add_parser)


def main(argv: Sequence[str] | None = None) -> int:
    """Deprecated: :func:`mancala_envs.cli.evaluate.main` (``mancala evaluate``)."""
    from mancala_envs.cli import evaluate as command

    warnings.warn(DEPRECATED.format("main", "main"), DeprecationWarning, stacklevel=2)
    return command.main(argv)


DEPRECATED = "mancala_envs.evaluation.evaluate.{} is deprecated: use mancala_envs.cli.evaluate.{}"


if __name__ == "__main__":  # python -m mancala_envs.evaluation.evaluate: the command, unwarned
    from mancala_envs.cli import evaluate as _command

    sys.exit(_command.main())
