"""What the web app does, without HTTP: the resources it keeps between requests (:class:`Resources`:
settings, agents, tables, session locks) and the work of each route of :mod:`mancala_envs.web.app`,
as functions of a checked request body (:mod:`mancala_envs.web.checks`) that return JSON-ready dicts."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import os
import threading
import warnings
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mancala_envs import GAMES, Game, get_game, tablebase, variants
from mancala_envs.agents.minimax.agent import MAX_DEPTH
from mancala_envs.agents.perfect import PerfectAgent
from mancala_envs.agents.registry import make_agent, parse_spec
from mancala_envs.evaluation.arena.records import GameRecord, load_records, start_state
from mancala_envs.game import as_int
from mancala_envs.infra.lru import LRU
from mancala_envs.render import move_captures, result_text, status_line, svg_board, write_gif
from mancala_envs.rulesets import RESULT_BY_SURVIVAL
from mancala_envs.state import State
from mancala_envs.tablebase import shipped, store
from mancala_envs.web import analysis
from mancala_envs.web.checks import (
    SUITE_OPENINGS,
    WEB_AGENTS,
    Position,
    bounded_spec,
    position_from,
    require_keys,
)

MAX_AGENTS = 16  # agents kept between requests (models, trees), least recently used dropped first
LISTED_KEPT = 256  # record files whose game list is kept (by path, modification time and size)
MAX_GIF_FRAMES = 401
CELL = 64  # pixels per pit of the page's board
POSITION_KEYS = ("game", "params", "start", "moves", "bottom")


class NotFound(Exception):
    """A record file or game index that the listing does not hold (404)."""


@dataclass
class Resources:
    """What the app keeps between requests: its settings, agents, tables and session locks (a
    cache, not the HTTP server: that is :mod:`mancala_envs.web.server`)."""

    records: Path | None
    tables: Path
    max_seconds: float
    agents: OrderedDict[str, tuple[Any, threading.Lock]] = field(default_factory=OrderedDict)
    tables_open: dict[str, tablebase.Tablebase | None] = field(default_factory=dict)  # None: not found
    sessions: dict[str, threading.Lock] = field(default_factory=dict)
    listed: LRU[dict[str, Any]] = field(default_factory=lambda: LRU(LISTED_KEPT))  # record files' games
    lock: threading.Lock = field(default_factory=threading.Lock)

    def table(self, game: Game) -> tablebase.Tablebase | None:
        """The variant's table in the tables folder, or None."""
        key = store.table_name(game)
        with self.lock:
            if self.tables_open.get(key) is None:  # a table built while the server runs is found
                path = self.tables / key
                tb = None
                if (path / store.HEADER).is_file():
                    try:
                        tb = tablebase.load(path, game)
                    except ValueError as e:
                        warnings.warn(f"mancala serve: the table at {path} is not used: {e}", stacklevel=1)
                self.tables_open[key] = tb
            return self.tables_open[key]

    def agent(self, spec: str, game: Game) -> tuple[Any, threading.Lock]:
        """A cached agent for a checked spec (``perfect`` reads the server's table)."""
        key = f"{spec}|{store.table_name(game)}" if spec.startswith("perfect") else spec
        with self.lock:
            if key in self.agents:
                self.agents.move_to_end(key)
                return self.agents[key]
        name, params = parse_spec(spec)
        if name == "perfect":
            agent: Any = PerfectAgent(
                path=self.tables / store.table_name(game), depth=int(params.get("depth", 4))
            )
        else:
            agent = make_agent(spec)
        with self.lock:
            self.agents[key] = (agent, threading.Lock())
            while len(self.agents) > MAX_AGENTS:
                self.agents.popitem(last=False)
            return self.agents[key]

    def session_lock(self, sid: str) -> threading.Lock:
        """The lock of one page session (its cookie; the client's address without one)."""
        with self.lock:
            if len(self.sessions) > 10_000:  # forget idle sessions
                self.sessions = {k: v for k, v in self.sessions.items() if v.locked()}
            return self.sessions.setdefault(sid[:64], threading.Lock())

    def record_files(self) -> list[Path]:
        """The ``*.jsonl`` files under the records folder (no symbolic links followed), sorted."""
        if self.records is None:
            return []
        found = []
        for root, dirs, files in os.walk(self.records, followlinks=False):
            dirs.sort()
            for name in sorted(files):
                path = Path(root) / name
                if name.endswith(".jsonl") and not path.is_symlink():
                    found.append(path)
        return found


# ---------------------------------------------------------------- helpers


def position_part(body: dict[str, Any], extra: tuple[str, ...]) -> tuple[Position, int]:
    """The position of a request and the seat drawn at the bottom (``bottom``, default 0)."""
    require_keys(body, POSITION_KEYS + extra, "the request")
    bottom = as_int(body.get("bottom", 0), "bottom")
    if bottom not in (0, 1):
        raise ValueError(f"bottom must be 0 or 1, got {bottom}")
    return position_from(body), bottom


def view(pos: Position, bottom: int, labels: dict[int, str] | None = None) -> dict[str, Any]:
    """What the page shows of a position."""
    game, state = pos.game, pos.state
    previous = pos.states[-2] if len(pos.states) > 1 else None
    last = None
    if state.last_action is not None and previous is not None:
        last = {"player": previous.to_move, "hole": state.last_action}
    return {
        "state": state.to_dict(),
        "moves": pos.moves,
        "svg": svg_board(game, state, CELL, bottom, previous=previous, interactive=True, labels=labels),
        "legal": [] if state.is_over else game.legal_actions(state),
        "to_move": state.to_move,
        "over": state.is_over,
        "status": status_line(game, state),
        "result": result_text(game, state) if state.is_over else None,
        "last_move": last,
        "captured_now": list(move_captures(game, previous, state)) if previous is not None else [0, 0],
        "variant": game.variant,
        "proven": proven(game, state),
    }


def proven(game: Game, state: State) -> dict[str, Any] | None:
    """The proven values of a solved game's opening position (its initial position, its forced
    moves, its first real choice: :func:`~mancala_envs.tablebase.shipped.proven_values`) for the
    player to move, with a line that says them; None elsewhere."""
    values = shipped.proven_values(game, state)
    if values is None:
        return None
    moves = ", ".join(
        f"hole {a} {shipped.VALUE_WORDS.get(v, 'unproven')}" for a, v in sorted(values["moves"].items())
    )
    tables = " and ".join(str(k) for k in values["tables"])
    text = (
        f"Solved: player_{state.to_move} to move {shipped.VALUE_WORDS[values['value']]} with perfect play; "
        f"{moves} (proofs on tables of {tables} seeds)"
    )
    return {"value": values["value"], "moves": {str(a): v for a, v in values["moves"].items()}, "text": text}


def seed_for(body_seed: object, ply: int) -> int:
    seed = as_int(body_seed, "seed")
    if not 0 <= seed < 2**32:
        raise ValueError(f"seed must be in 0..2**32-1, got {seed}")
    return int(np.random.SeedSequence([seed, ply]).generate_state(1)[0])


def seconds_from(body: dict[str, Any], cap: float) -> float:
    value = body.get("seconds", cap)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= cap:
        raise ValueError(f"seconds must be a number in (0, {cap:g}], got {value!r}")
    return float(value)


# ---------------------------------------------------------------- the work of each route


def agent_move(resources: Resources, body: dict[str, Any]) -> dict[str, Any]:
    pos, bottom = position_part(body, ("agent", "seed"))
    if pos.state.is_over:
        raise ValueError("the game is over: no move to make")
    spec = bounded_spec(body.get("agent"), resources.max_seconds, resources.table(pos.game) is not None)
    agent, lock = resources.agent(spec, pos.game)
    with lock:
        agent.reseed(seed_for(body.get("seed", 0), pos.state.ply))
        action = int(agent.act(pos.game, pos.state))
    played = Position(pos.game, [*pos.states, pos.game.apply(pos.state, action)], [*pos.moves, action])
    return {"action": action, "agent": agent.name, **view(played, bottom)}


LABELS: dict[str, Callable[[dict[str, Any]], str]] = {
    "network": lambda m: f"{100 * m['prior']:.0f}%",
    "search": lambda m: str(m["visits"]),
    "minimax": lambda m: m["text"],
    "exact": lambda m: m["text"] if m.get("outcome") is not None else "?",
}


def analyse(resources: Resources, body: dict[str, Any]) -> dict[str, Any]:
    pos, bottom = position_part(body, ("column", "agent", "depth", "seconds"))
    game, state = pos.game, pos.state
    if state.is_over:
        raise ValueError("the game is over: there is no move to analyse")
    column = body.get("column")
    if column not in analysis.COLUMNS:
        raise ValueError(f"column must be one of {', '.join(analysis.COLUMNS)}, got {column!r}")
    seconds = seconds_from(body, resources.max_seconds)
    who = body.get("agent", "az" if column in ("network", "search") else None)
    if column == "network":
        if who not in ("az", "policy"):
            raise ValueError(f"the network column shows 'az' or 'policy', got {who!r}")
        agent, lock = resources.agent(who, game)
        with lock:
            result = analysis.network_column(game, state, agent)
    elif column == "search":
        if who not in ("az", "mcts"):
            raise ValueError(f"the search column shows 'az' or 'mcts', got {who!r}")
        agent, lock = resources.agent(f"{who}:time={seconds:g}", game)
        with lock:
            agent.reseed(seed_for(body.get("seed", 0), state.ply))
            result = analysis.search_column(game, state, agent)
    elif column == "minimax":
        depth = as_int(body.get("depth", 8), "depth")
        if not 1 <= depth <= MAX_DEPTH:
            raise ValueError(f"depth must be in 1..{MAX_DEPTH}, got {depth}")
        agent, lock = resources.agent(f"minimax:depth={depth},time={seconds:g}", game)
        with lock:
            result = analysis.minimax_column(game, state, agent)
    else:
        tb = resources.table(game)
        if tb is None:
            raise ValueError(
                f"no tablebase for {game.variant} in {resources.tables}: build one with "
                f"'mancala tablebase build ... --out {resources.tables / game.variant}'"
            )
        result = analysis.exact_column(game, state, tb)
    labels = {int(a): LABELS[column](m) for a, m in result["moves"].items()}
    return {"column": column, **result, "board": view(pos, bottom, labels)["svg"]}


def record_list(resources: Resources) -> dict[str, Any]:
    files = []
    for i, path in enumerate(resources.record_files()):
        entry: dict[str, Any] = {"id": i, "name": str(path.relative_to(resources.records or path))}
        try:
            stat = path.stat()
            key = (str(path), stat.st_mtime_ns, stat.st_size)  # a changed file is read again
            entry.update(resources.listed.get(key, lambda path=path: file_games(path)))
        except OSError as e:
            entry.update({"error": str(e), "games": []})
        files.append(entry)
    return {"folder": None if resources.records is None else resources.records.name, "files": files}


def file_games(path: Path) -> dict[str, Any]:
    """``{"games": [summary, ...]}`` of a records file, or ``{"error": ..., "games": []}``."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            records = load_records(path)
        return {"games": [summary(k, r) for k, r in enumerate(records)]}
    except (ValueError, OSError) as e:
        return {"error": str(e), "games": []}


def summary(index: int, rec: GameRecord) -> dict[str, Any]:
    winner = {0: rec.agents[0], 1: rec.agents[1]}.get(rec.winner, "draw" if rec.winner == -1 else "none")
    return {
        "index": index,
        "game": rec.game,
        "params": rec.params,
        "agents": list(rec.agents),
        "plies": rec.plies,
        "winner": winner,
        "captured": list(rec.captured),
    }


def record_detail(resources: Resources, file_id: int, index: int) -> dict[str, Any]:
    files = resources.record_files()
    if not 0 <= file_id < len(files):
        raise NotFound(f"no records file {file_id}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        records = load_records(files[file_id])
    if not 0 <= index < len(records):
        raise NotFound(f"no game {index} in records file {file_id} (it holds {len(records)})")
    rec = records[index]
    game = get_game(rec.game, **rec.params)
    start = start_state(rec, game)
    return {
        **summary(index, rec),
        "variant": game.variant,
        "start": {"state": start.to_dict()},
        "moves": list(rec.moves),
    }


def export(body: dict[str, Any]) -> tuple[bytes | str, str, str]:
    """The position as SVG, or the game so far as a GIF: ``(content, media type, file name)``."""
    pos, bottom = position_part(body, ("format",))
    kind = body.get("format")
    name = f"{pos.game.variant}-ply{pos.state.ply}"
    if kind == "svg":
        previous = pos.states[-2] if len(pos.states) > 1 else None
        picture = svg_board(pos.game, pos.state, bottom=bottom, previous=previous)
        return picture, "image/svg+xml", f"{name}.svg"
    if kind == "gif":
        if len(pos.states) > MAX_GIF_FRAMES:
            raise ValueError(
                f"a GIF holds at most {MAX_GIF_FRAMES} positions; this game has {len(pos.states)}"
            )
        buf = io.BytesIO()
        write_gif(pos.game, pos.states, buf, bottom=bottom)
        return buf.getvalue(), "image/gif", f"{name}.gif"
    raise ValueError(f"format must be 'svg' or 'gif', got {kind!r}")


def info(resources: Resources, warmed: bool = False) -> dict[str, Any]:
    entries = []
    for game in variants():
        entries.append(
            {
                "variant": game.variant,
                "game": game.name,
                "params": game.variant_params,
                "title": game.title,
                "survival": game.ruleset.result == RESULT_BY_SURVIVAL,
                "table": None if (tb := resources.table(game)) is None else tb.max_seeds,
                "solved": shipped.proven_opening(game),
            }
        )
    return {
        "games": list(GAMES),
        "variants": entries,
        "agents": list(WEB_AGENTS),
        "openings": SUITE_OPENINGS,
        "max_seconds": resources.max_seconds,
        "max_depth": MAX_DEPTH,
        "columns": list(analysis.COLUMNS),
        "records": resources.records is not None,
        "networks_loaded": networks_loaded(resources, warmed),
    }


def networks_loaded(resources: Resources, warmed: bool = False) -> list[str]:
    """The network agents (``az``, ``policy``) ready to answer at once: those this process holds,
    and with ``warmed`` (the workers warmed up before the server was ready) every one the warm-up
    ran. The page announces that the first analysis of another one loads and compiles it."""
    with resources.lock:
        names = {key.split("|")[0].split(":")[0] for key in resources.agents}
    if warmed:
        names |= {body["agent"].split(":")[0] for kind, body in warm_up_requests(resources) if kind == "move"}
    return sorted(names & {"az", "policy"})


WARM_SECONDS = 0.05  # the budget of each warm-up search: its kernels compile whatever the budget


def warm_up_requests(resources: Resources) -> list[tuple[str, dict[str, Any]]]:
    """One request of every kind of work the server does, per game: each web agent's move and each
    analysis column (the networks only with torch, ``perfect`` and ``exact`` only with a table)."""
    torch = importlib.util.find_spec("torch") is not None
    out: list[tuple[str, dict[str, Any]]] = []
    for game in variants():
        table = resources.table(game) is not None
        if game.variant.startswith("en_dodoi") and game.holes_per_row != 8 and not table:
            continue  # one width compiles the same kernels as the others
        base = {"game": game.name, "params": game.variant_params}
        for name in WEB_AGENTS:
            if (name in ("az", "policy") and not torch) or (name == "perfect" and not table):
                continue
            spec = f"{name}:time={WARM_SECONDS}" if name in ("minimax", "mcts", "az") else name
            out.append(("move", {**base, "agent": spec}))
        columns = [("network", "az"), ("network", "policy"), ("search", "az")] if torch else []
        columns += [("search", "mcts"), ("minimax", None)] + ([("exact", None)] if table else [])
        for column, who in columns:
            request = {**base, "column": column, "seconds": WARM_SECONDS, "depth": 2}
            out.append(("analyse", request if who is None else {**request, "agent": who}))
    return out


def warm_up(resources: Resources) -> None:
    """Load (numba's cache) or compile every kernel the server's work runs, and load its models,
    with one tiny request of each kind (:func:`warm_up_requests`), so that a first search's time
    budget is spent searching. A request the server would refuse (a model missing) is skipped."""
    for kind, body in warm_up_requests(resources):
        with contextlib.suppress(ValueError):  # the server answers such a request 400 too
            WORK[kind](resources, body)


def warm_up_views() -> None:
    """Compile (or load) what the cheap routes run in the server's own process: a position's view."""
    for game in variants():
        view(*position_part({"game": game.name, "params": dict(game.params)}, ()))


def __getattr__(name: str) -> Any:
    """``Server``, the old name of :class:`Resources`, still works (with a ``DeprecationWarning``)."""
    if name == "Server":
        warnings.warn(
            "mancala_envs.web.service.Server is deprecated: use Resources", DeprecationWarning, stacklevel=2
        )
        return Resources
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


WORK: dict[str, Callable[[Resources, dict[str, Any]], Any]] = {
    "move": agent_move,
    "analyse": analyse,
    "export": lambda _resources, body: export(body),
    "record": lambda resources, where: record_detail(resources, where["file"], where["index"]),
}
