"""Optimality suites: positions with their exact outcome and optimal moves, so that an agent's
play can be scored without a table (:mod:`mancala_envs.evaluation.optimality`).

A suite is a JSONL file, one position a line::

    {"state": State.to_dict(), "outcome": +1/0/-1, "best": [0/1 per hole],
     "move_outcomes": [outcome per hole, -2 where illegal], "bounds": [A, B], "max_seeds": K}

Only *informative* positions are kept (:func:`informative`): at least one legal move is not
outcome-preserving. :func:`mancala_envs.evaluation.suites.make_suite` draws them from games
between agents. The package ships one suite per game (``suites/<table name>.jsonl``, En Dodoi
at 8 holes), read by :func:`load_suite`; this module reads and writes suites, and plays nothing.
"""

from __future__ import annotations

import io
import json
import math
import os
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from mancala_envs.game import Game, get_game
from mancala_envs.infra.files import atomic_write
from mancala_envs.state import State
from mancala_envs.tablebase.store import table_name
from mancala_envs.tablebase.table import NO_MOVE, Tablebase


@dataclass(frozen=True)
class SuiteEntry:
    """One suite position (module docstring); ``best`` and ``move_outcomes`` are int8 ``(n,)``."""

    state: State
    outcome: int
    best: np.ndarray
    move_outcomes: np.ndarray
    bounds: tuple[float, float]
    max_seeds: int

    def to_dict(self) -> dict:
        return {
            "state": self.state.to_dict(),
            "outcome": self.outcome,
            "best": self.best.tolist(),
            "move_outcomes": self.move_outcomes.tolist(),
            "bounds": [_json_bound(x) for x in self.bounds],
            "max_seeds": self.max_seeds,
        }


def _json_bound(x: float) -> float | str:
    return x if math.isfinite(x) else ("inf" if x > 0 else "-inf")


def entry_of(tb: Tablebase, state: State) -> SuiteEntry:
    """The suite entry of a covered state."""
    p = tb.probe(state)
    return SuiteEntry(
        state, p.outcome, tb.best_actions(state), p.move_outcomes.copy(), p.bounds, tb.max_seeds
    )


def informative(entry: SuiteEntry) -> bool:
    """At least one legal move is not outcome-preserving."""
    legal = entry.move_outcomes != NO_MOVE
    return bool(np.any(legal & (entry.best == 0)))


def write_suite(entries: Iterable[SuiteEntry], out: str | os.PathLike | io.TextIOBase) -> None:
    """Write a suite as JSONL (atomically when ``out`` is a path)."""
    text = "".join(json.dumps(e.to_dict(), separators=(",", ":")) + "\n" for e in entries)
    if isinstance(out, str | os.PathLike):
        atomic_write(Path(out), text)
    else:
        out.write(text)


def read_suite(path: str | os.PathLike, game: Game | None = None) -> list[SuiteEntry]:
    """A suite file; with ``game``, ``ValueError`` unless every position is of that game."""
    entries = []
    path = Path(path)
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                d = json.loads(line)
                s = d["state"]
                g = get_game(s["game"], **{k: v for k, v in s["params"].items() if k != "max_plies"})
                if game is not None and table_name(g) != table_name(game):
                    raise ValueError(f"a {table_name(g)} position, {table_name(game)} expected")
                g = game if game is not None else g
                state = g.state_from_dict(s)
                bounds = tuple(float(x) for x in d["bounds"])
                entry = SuiteEntry(
                    state,
                    int(d["outcome"]),
                    np.array(d["best"], dtype=np.int8),
                    np.array(d["move_outcomes"], dtype=np.int8),
                    (bounds[0], bounds[1]),
                    int(d["max_seeds"]),
                )
            except (KeyError, TypeError, ValueError, json.JSONDecodeError) as e:
                raise ValueError(f"{path}, line {number}: not a suite position ({e})") from None
            if entry.best.shape != (g.holes_per_row,) or entry.move_outcomes.shape != (g.holes_per_row,):
                raise ValueError(f"{path}, line {number}: masks of the wrong length")
            entries.append(entry)
    return entries


def shipped_suite_path(game: Game) -> Path:
    """The package's suite file of ``game`` (``ValueError`` if none ships for it)."""
    file = resources.files("mancala_envs.tablebase") / "suites" / f"{table_name(game)}.jsonl"
    if not file.is_file():
        raise ValueError(
            f"no optimality suite ships for {table_name(game)}; make one with 'mancala tablebase suite'"
        )
    return Path(str(file))


def load_suite(game: Game, path: str | os.PathLike | None = None) -> list[SuiteEntry]:
    """The suite at ``path``, default the shipped suite of ``game``."""
    return read_suite(shipped_suite_path(game) if path is None else path, game)
