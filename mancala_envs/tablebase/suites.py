"""Optimality suites: positions with their exact outcome and optimal moves, so that an agent's
play can be scored without a table (:mod:`mancala_envs.evaluation.optimality`).

A suite is a JSONL file: a header with the digest of its lines
(:mod:`mancala_envs.infra.suite_files`), then one position a line (no position twice)::

    {"state": State.to_dict(), "outcome": +1/0/-1, "best": [0/1 per hole],
     "move_outcomes": [outcome per hole, -2 where illegal], "bounds": [A, B], "max_seeds": K}

Only *informative* positions are kept (:func:`informative`): at least one legal move is not
outcome-preserving. :func:`mancala_envs.evaluation.suites.make_suite` draws them from games
between agents. The package ships one suite per variant (``suites/<variant>.jsonl``, En Dodoi at
every width), read by :func:`load_suite`; this module reads and writes suites, and plays nothing.
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
from mancala_envs.infra.config_files import check_keys, need_choice, need_int, need_list, need_number
from mancala_envs.infra.files import atomic_write
from mancala_envs.infra.suite_files import checked_body, stamped
from mancala_envs.state import State
from mancala_envs.tablebase.kernels import MAX_MARGIN
from mancala_envs.tablebase.proof import position_key
from mancala_envs.tablebase.store import table_name
from mancala_envs.tablebase.table import NO_MOVE, Tablebase

FORMAT = "mancala_envs.optimality_suite"


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
    """Write a suite as JSONL, a header with the digest of its lines first
    (:mod:`mancala_envs.infra.suite_files`; atomically when ``out`` is a path)."""
    text = stamped(FORMAT, "".join(json.dumps(e.to_dict(), separators=(",", ":")) + "\n" for e in entries))
    if isinstance(out, str | os.PathLike):
        atomic_write(Path(out), text)
    else:
        out.write(text)


def read_suite(path: str | os.PathLike, game: Game | None = None) -> list[SuiteEntry]:
    """A suite file; with ``game``, ``ValueError`` unless every position is of that game. The lines
    must match the digest of the header (a file without one loads with an
    :class:`~mancala_envs.infra.config_files.UncheckedFileWarning`), every field of every line is
    checked (:func:`entry_from_dict`), no position is listed twice and the suite is not empty; a
    bad file is a ``ValueError`` naming the file (and the line)."""
    entries, seen = [], {}
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{path} is damaged: not UTF-8 text ({e})") from None
    body, first = checked_body(path, text, FORMAT)
    for number, line in enumerate(body.splitlines(), first):
        if not line.strip():
            continue
        try:
            entries.append(entry_from_dict(json.loads(line), game))
        except (TypeError, ValueError, RecursionError) as e:  # JSONDecodeError is a ValueError
            raise ValueError(f"{path}, line {number}: not a suite position ({e})") from None
        again = seen.setdefault(position_key(entries[-1].state), number)
        if again != number:
            raise ValueError(
                f"{path}, line {number}: the position of line {again} again (each is listed once)"
            )
    if not entries:
        raise ValueError(f"{path}: the suite is empty")
    return entries


SUITE_FIELDS = ("state", "outcome", "best", "move_outcomes", "bounds", "max_seeds")


def entry_from_dict(d: object, game: Game | None = None) -> SuiteEntry:
    """The entry of one suite line, every field checked: no key missing or unknown, the state of
    a known game (``game`` when given) with every key ``State.to_dict`` writes, ``outcome`` in
    -1..1, ``best`` and ``move_outcomes`` one integer a hole, ``bounds`` two integral margins or
    ``"inf"`` / ``"-inf"`` with ``A <= B``, ``max_seeds`` covering the position, and the outcomes
    consistent with one another (TABLEBASE.md §3: ``move_outcomes`` is -2 exactly on the illegal
    holes, ``outcome`` their maximum, ``best`` where they equal it); ``ValueError`` otherwise."""
    d = check_keys(d, SUITE_FIELDS, (), "the entry")
    s = check_keys(d["state"], ("game", "params"), (), "state", unknown_ok=True)
    if not isinstance(s["game"], str):
        raise ValueError(f"state.game must be a game name, got {s['game']!r}")
    params = check_keys(s["params"], (), (), "state.params", unknown_ok=True)
    g = get_game(s["game"], **params).with_max_plies()  # a table's values hold at any max_plies
    if game is not None and table_name(g) != table_name(game):
        raise ValueError(f"a {table_name(g)} position, {table_name(game)} expected")
    g = game if game is not None else g
    check_keys(s, g.initial_state().to_dict(), (), "state")
    state = g.state_from_dict(s)
    n = g.holes_per_row
    outcome = need_choice(d["outcome"], "outcome", [-1, 0, 1])
    best = [need_choice(x, f"best[{i}]", [0, 1]) for i, x in enumerate(need_list(d["best"], "best", n, n))]
    moves = need_list(d["move_outcomes"], "move_outcomes", n, n)
    moves = [need_choice(x, f"move_outcomes[{i}]", [NO_MOVE, -1, 0, 1]) for i, x in enumerate(moves)]
    bounds = tuple(_bound(x, f"bounds[{i}]") for i, x in enumerate(need_list(d["bounds"], "bounds", 2, 2)))
    if not bounds[0] <= bounds[1]:
        raise ValueError(f"bounds must have A <= B, got {d['bounds']!r}")
    max_seeds = need_int(d["max_seeds"], "max_seeds", state.seeds_on_board, MAX_MARGIN)
    legal = g.legal_mask(state).astype(bool)
    if [m != NO_MOVE for m in moves] != legal.tolist():
        raise ValueError(f"move_outcomes must be {NO_MOVE} exactly on the illegal holes, got {moves}")
    if legal.any() and outcome != max(m for m in moves if m != NO_MOVE):
        raise ValueError(f"outcome {outcome} is not the best of the move outcomes {moves}")
    if best != [int(m == outcome and m != NO_MOVE) for m in moves]:
        raise ValueError(f"best must mark the moves whose outcome is {outcome}, got {best}")
    return SuiteEntry(
        state,
        outcome,
        np.array(best, dtype=np.int8),
        np.array(moves, dtype=np.int8),
        (bounds[0], bounds[1]),
        max_seeds,
    )


def _bound(x: object, what: str) -> float:
    """A bound of a suite line: an integral margin, or ``"inf"`` / ``"-inf"``."""
    if x in ("inf", "-inf"):
        return float(x)  # type: ignore[arg-type]
    value = need_number(x, what)
    if value != int(value) or abs(value) > MAX_MARGIN:
        raise ValueError(f"{what} must be an integral margin in -{MAX_MARGIN}..{MAX_MARGIN} or 'inf'/'-inf'")
    return float(value)


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
