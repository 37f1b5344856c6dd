"""Resumable round-robin tournaments over an opening suite.

Every pair of agents ``(i, j)`` plays ``games_per_pair`` games: game ``k`` starts from opening
``k // 2`` of the suite (cycled when shorter; no suite: the initial position) with agent ``i`` in
seat 0 when ``k`` is even, and has seed ``derive_seed(seed, i, j, k)``. Games are played in
rounds (``k`` outside, pairs inside), so an interrupted tournament holds a balanced sample.

Files in ``out_dir``: ``tournament.json`` (the configuration), ``openings.jsonl`` (the suite),
``games.jsonl`` (a record per game, appended and fsynced as each game ends) and ``results.csv``
(one row per game, rewritten from ``games.jsonl`` on resume). A resumed tournament checks every
kept record against the schedule and replays it through the core (moves legal, result and
captured as recorded) before it plays on, and refuses a tampered file, naming the line.

**Reuse** (``reuse=DIR``, ``fresh=[names]``): to re-rate agents that changed (a retrained model
under the same spec), the games of pairs that involve none of the ``fresh`` agents are copied from
the tournament in DIR — same configuration, checked and replayed like resumed records — and only
the others are played. With deterministic agents and seeded games, this equals a full rerun when
the other agents are unchanged (same specs, code and model files): that is the caller's claim.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mancala_envs import Game, State
from mancala_envs.agents.base import Agent
from mancala_envs.agents.registry import make_agent
from mancala_envs.evaluation.arena.matches import (
    MatchResult,
    agent_name,
    check_even,
    check_seed,
    derive_seed,
    play_game,
    progress_bar,
    tally,
)
from mancala_envs.evaluation.arena.records import (
    GAMES_FILE,
    RECORD_FORMAT,
    GameRecord,
    TornLineWarning,
    parse_records,
    replay,
)
from mancala_envs.evaluation.openings import load_openings, openings_text, resolve_openings, save_openings
from mancala_envs.infra.files import append_synced, atomic_write, read_json, read_jsonl
from mancala_envs.infra.locks import folder_lock, is_lock_file

RESULTS_FILE = "results.csv"
CONFIG_FILE = "tournament.json"
OPENINGS_FILE = "openings.jsonl"
RESULTS_COLUMNS = (
    "game_id",
    "pair",
    "index",
    "seed",
    "agent0",
    "agent1",
    "winner",
    "winner_agent",
    "plies",
    "captured0",
    "captured1",
    "truncated",
    "opening",
)


@dataclass
class Tournament:
    """A finished (or resumed-to-the-end) round robin: its configuration and every record."""

    config: dict[str, Any]
    records: list[GameRecord]
    out_dir: Path

    @property
    def agents(self) -> list[str]:
        return list(self.config["agents"])

    def match(self, a: str, b: str) -> MatchResult:
        """``a``'s results against ``b``."""
        return tally(a, b, (r for r in self.records if set(r.agents) == {a, b}))


def schedule(n_agents: int, games_per_pair: int) -> list[tuple[int, int, int]]:
    """The order games are played in: rounds ``k`` outside, pairs ``(i, j)``, ``i < j``, inside."""
    pairs = [(i, j) for i in range(n_agents) for j in range(i + 1, n_agents)]
    return [(i, j, k) for k in range(games_per_pair) for i, j in pairs]


def _csv_row(rec: GameRecord) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow(
        [
            rec.meta["game_id"],
            "{}-{}".format(*rec.meta["pair"]),
            rec.meta["index"],
            rec.seed,
            *rec.agents,
            "" if rec.winner is None else rec.winner,
            rec.winner_name or "",
            rec.plies,
            *rec.captured,
            int(rec.truncated),
            "" if rec.meta.get("opening") is None else rec.meta["opening"],
        ]
    )
    return buf.getvalue()


def suite_text(suite: Sequence[State] | None) -> str:
    """The suite's lines (their SHA-256 identifies the suite in ``tournament.json``)."""
    return "" if suite is None else openings_text(suite)


def round_robin(
    game: Game,
    agents: Sequence[Agent | str],
    games_per_pair: int,
    seed: int,
    out_dir: str | os.PathLike,
    resume: bool = False,
    progress: bool = True,
    on_game: Callable[[GameRecord], None] | None = None,
    openings: Sequence[State] | str | None = "default",
    reuse: str | os.PathLike | None = None,
    fresh: Sequence[str] = (),
) -> Tournament:
    """Every pair of ``agents`` plays ``games_per_pair`` (even) games over ``openings`` (module
    docstring; ``"default"``, ``"none"``, a JSONL path or a list of States). A non-empty
    ``out_dir`` is never overwritten: pass ``resume=True`` to continue the tournament it holds.
    While it runs, ``out_dir`` is locked (:mod:`~mancala_envs.infra.locks`): a second round robin
    there, fresh or resumed, is refused with a ``ValueError`` naming the holder.
    ``on_game(record)`` is called after each game is written; ``reuse``, ``fresh``: the module
    docstring's reuse."""

    # a spec's name is the one its agent reports (make_agent normalises spellings)
    names = [make_agent(a).name if isinstance(a, str) else agent_name(a) for a in agents]
    if len(names) < 2:
        raise ValueError(f"a round robin needs at least two agents, got {names}")
    if len(set(names)) != len(names):
        raise ValueError(f"agent names must be unique, got {names}")
    games_per_pair = check_even(games_per_pair, "games_per_pair")
    seed = check_seed(seed)
    out = Path(out_dir)
    if resume and (out / OPENINGS_FILE).is_file():
        suite = load_openings(out / OPENINGS_FILE, game)  # exactly the suite the games used
    else:
        suite = resolve_openings(game, openings, games_per_pair // 2)
    config = {
        "format": RECORD_FORMAT,
        "game": game.name,
        "params": dict(game.params),
        "agents": names,
        "games_per_pair": games_per_pair,
        "seed": seed,
        "openings": None
        if suite is None
        else {"count": len(suite), "sha256": hashlib.sha256(suite_text(suite).encode()).hexdigest()},
    }
    plan = schedule(len(names), games_per_pair)
    expected = _Schedule(plan, seed, names, suite, game)
    fresh = [a if a in names else make_agent(a).name for a in fresh]
    reused = _reusable(Path(reuse), config, fresh, expected) if reuse else {}
    _check_folder(out, config, resume)  # again under the lock; a refused folder gets no .lock
    with folder_lock(out, "is in use by another tournament"):  # fresh or resumed: one process only
        return _play(game, agents, out, config, resume, suite, plan, expected, reused, on_game, progress)


def _play(
    game: Game,
    agents: Sequence[Agent | str],
    out: Path,
    config: dict[str, Any],
    resume: bool,
    suite: Sequence[State] | None,
    plan: list[tuple[int, int, int]],
    expected: _Schedule,
    reused: dict[int, GameRecord],
    on_game: Callable[[GameRecord], None] | None,
    progress: bool,
) -> Tournament:
    """The body of :func:`round_robin`, run holding ``out``'s lock."""
    seed = config["seed"]
    done = _open_tournament(out, config, resume, suite)
    for gid, rec in enumerate(done):  # every kept record is the scheduled game and replays
        expected.check(f"{out / GAMES_FILE}, line {gid + 1}", gid, rec)
    atomic_write(out / RESULTS_FILE, ",".join(RESULTS_COLUMNS) + "\n" + "".join(_csv_row(r) for r in done))
    records = list(done)
    with (
        open(out / GAMES_FILE, "a", encoding="utf-8") as games_fh,
        open(out / RESULTS_FILE, "a", encoding="utf-8") as csv_fh,
    ):
        bar = progress_bar(
            plan[len(done) :], progress, f"{game.name} round robin", total=len(plan), initial=len(done)
        )
        for gid, (i, j, k) in enumerate(bar, start=len(done)):
            seats = (agents[i], agents[j]) if k % 2 == 0 else (agents[j], agents[i])
            start = None if suite is None else suite[(k // 2) % len(suite)]
            rec = reused.get(gid) or play_game(game, *seats, seed=derive_seed(seed, i, j, k), start=start)
            rec.meta = {
                "game_id": gid,
                "pair": [i, j],
                "index": k,
                "opening": None if suite is None else (k // 2) % len(suite),
            }
            append_synced(games_fh, rec.to_json() + "\n")
            append_synced(csv_fh, _csv_row(rec))
            records.append(rec)
            if on_game is not None:
                on_game(rec)
    return Tournament(config, records, out)


@dataclass(frozen=True)
class _Schedule:
    """What each game of a tournament must be: its pair, index, seed, seats and opening."""

    plan: list
    seed: int
    names: list[str]
    suite: Sequence[State] | None
    game: Game

    def check(self, where: str, gid: int, rec: GameRecord) -> None:
        """``rec`` is game ``gid`` of the schedule and replays as recorded; else ``ValueError``."""
        plan, seed, names, suite, game = self.plan, self.seed, self.names, self.suite, self.game
        if gid >= len(plan):
            raise ValueError(f"{where}: more games than this tournament's schedule holds")
        i, j, k = plan[gid]
        seats = (names[i], names[j]) if k % 2 == 0 else (names[j], names[i])
        start = None if suite is None else suite[(k // 2) % len(suite)].to_dict()
        expected = {
            "meta.pair": [i, j],
            "meta.index": k,
            "seed": derive_seed(seed, i, j, k),
            "agents": seats,
            "start": start,
        }
        got = {
            "meta.pair": rec.meta.get("pair"),
            "meta.index": rec.meta.get("index"),
            "seed": rec.seed,
            "agents": rec.agents,
            "start": rec.start,
        }
        wrong = [key for key in expected if got[key] != expected[key]]
        if wrong:
            raise ValueError(f"{where}: not this tournament's game {gid} ({', '.join(wrong)} differ)")
        try:
            replay(rec, game)
        except ValueError as e:
            raise ValueError(f"{where}: the record was changed or damaged: {e}") from None


def _reusable(
    source: Path, config: dict[str, Any], fresh: Sequence[str], expected: _Schedule
) -> dict[int, GameRecord]:
    """The records of ``source`` (the same tournament) of the pairs without a ``fresh`` agent, by
    game id, each checked and replayed."""
    unknown = sorted(set(fresh) - set(expected.names))
    if unknown:
        raise ValueError(f"fresh agents {unknown} are not in this tournament ({expected.names})")
    if not (source / CONFIG_FILE).is_file() or not (source / GAMES_FILE).is_file():
        raise ValueError(f"cannot reuse {source}: it holds no {CONFIG_FILE} and {GAMES_FILE}")
    old = read_json(source / CONFIG_FILE)
    diff = sorted(k for k in config if not isinstance(old, dict) or old.get(k) != config[k])
    if diff:
        raise ValueError(f"cannot reuse {source}: a different tournament ({', '.join(diff)} differ)")
    raw, _, _ = read_jsonl(source / GAMES_FILE)
    keep = {}
    for line, rec in enumerate(parse_records(source / GAMES_FILE, raw, verify=False), start=1):
        gid = rec.meta.get("game_id")
        if not isinstance(gid, int) or set(rec.agents) & set(fresh):
            continue
        expected.check(f"{source / GAMES_FILE}, line {line}", gid, rec)
        keep[gid] = rec
    return keep


def _holds_files(out: Path) -> bool:
    """Does the folder ``out`` hold anything but a lock file?"""
    return out.is_dir() and not all(is_lock_file(p) for p in out.iterdir())


def _refuse_overwrite(out: Path) -> None:
    raise ValueError(
        f"{out} is not empty; refusing to overwrite it. Resume the tournament it holds "
        "(resume=True / --resume) or choose another directory"
    )


def _check_folder(out: Path, config: dict[str, Any], resume: bool) -> bool:
    """``ValueError`` unless ``out`` can take this tournament: new (returns ``False``), or the same
    one to resume (returns ``True``). Writes nothing."""
    if out.exists() and not out.is_dir():
        raise ValueError(f"{out} exists and is not a directory")
    if not _holds_files(out):
        return False
    if not resume:
        _refuse_overwrite(out)
    config_path = out / CONFIG_FILE
    if not config_path.is_file():
        raise ValueError(f"cannot resume: {out} holds no {CONFIG_FILE}")
    old = read_json(config_path)
    if not isinstance(old, dict):
        raise ValueError(f"{config_path} is not a tournament configuration")
    diff = sorted(k for k in config if old.get(k) != config[k])
    if diff:
        details = "; ".join(f"{k}: {old.get(k)!r} there, {config[k]!r} now" for k in diff)
        raise ValueError(f"cannot resume {out}: a different tournament ({details})")
    return True


def _open_tournament(
    out: Path, config: dict[str, Any], resume: bool, suite: Sequence[State] | None
) -> list[GameRecord]:
    """Check ``out`` against ``config``; return the finished records (empty for a new one)."""
    config_path, games_path = out / CONFIG_FILE, out / GAMES_FILE
    if _check_folder(out, config, resume):
        if not games_path.exists():
            return []
        raw, good, dropped = read_jsonl(games_path)
        if dropped:
            with open(games_path, "r+b") as fh:
                fh.truncate(good)
                os.fsync(fh.fileno())
            warnings.warn(
                f"{games_path}: dropped an incomplete last line (interrupted write)",
                TornLineWarning,
                stacklevel=3,
            )
        return parse_records(games_path, raw, verify=False)
    out.mkdir(parents=True, exist_ok=True)
    if suite is not None:
        save_openings(out / OPENINGS_FILE, suite)
    atomic_write(config_path, json.dumps(config, indent=2) + "\n")
    return []
