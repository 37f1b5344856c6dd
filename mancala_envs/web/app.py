"""The web app of ``mancala serve``: a Starlette application over the library (``create_app``).

The page (``static/``, plain HTML and JavaScript, no build step) keeps a game as its start and its
list of moves; every request sends them, and the server replays them with ``Game.apply``, so the
server holds no game state. JSON API (every error is ``{"error": MESSAGE}`` with a 4xx status):

- ``GET /api/info``: the variants, the agents, the limits, which variants have a tablebase.
- ``POST /api/position``: the board of a position (SVG with clickable legal pits), its status.
- ``POST /api/move``: an agent's move in a position, and the board after it.
- ``POST /api/analyse``: one analysis column (:mod:`mancala_envs.web.analysis`) of a position.
- ``GET /api/records``, ``GET /api/records/{file}/{game}``: the game records of the folder given at
  start, chosen by index (no path from a request reaches the file system).
- ``POST /api/export``: the position as SVG, or the game so far as an animated GIF.

Safety: request bodies over :data:`~mancala_envs.web.checks.MAX_BODY_BYTES` get 413; every body is
checked by :mod:`mancala_envs.web.checks` (400 with the message); each search runs within the
server's time cap; a browser session (a cookie) runs one computation (an agent's move, an analysis,
an export) at a time (429 while busy). At start a background thread loads the compiled search
kernels, so that a first search's time budget is not spent compiling.
"""

from __future__ import annotations

import io
import json
import os
import secrets
import threading
import warnings
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from mancala_envs import GAMES, Game, get_game, tablebase, variants
from mancala_envs.agents.minimax.agent import MAX_DEPTH, MinimaxAgent
from mancala_envs.agents.perfect import PerfectAgent
from mancala_envs.agents.registry import make_agent, parse_spec
from mancala_envs.evaluation.arena.records import GameRecord, load_records, start_state
from mancala_envs.game import as_int
from mancala_envs.render import move_captures, result_text, status_line, svg_board, write_gif
from mancala_envs.rulesets import RESULT_BY_SURVIVAL, game_info
from mancala_envs.tablebase import store
from mancala_envs.web import analysis
from mancala_envs.web.checks import (
    MAX_BODY_BYTES,
    SUITE_OPENINGS,
    WEB_AGENTS,
    Position,
    bounded_spec,
    position_from,
    require_dict,
    require_keys,
)

STATIC = Path(__file__).parent / "static"
SESSION_COOKIE = "mancala_session"
MAX_AGENTS = 16  # agents kept between requests (models, trees), least recently used dropped first
MAX_GIF_FRAMES = 401
CELL = 64  # pixels per pit of the page's board
POSITION_KEYS = ("game", "params", "start", "moves", "bottom")


class TooLarge(Exception):
    """A request body over the limit (413)."""


class Busy(Exception):
    """The session already has a computation running (429)."""


class NotFound(Exception):
    """A record file or game index that the listing does not hold (404)."""


@dataclass
class Server:
    """What the app keeps between requests: its settings, agents, tables and session locks."""

    records: Path | None
    tables: Path
    max_seconds: float
    agents: OrderedDict[str, tuple[Any, threading.Lock]] = field(default_factory=OrderedDict)
    tables_open: dict[str, tablebase.Tablebase | None] = field(default_factory=dict)  # None: not found
    sessions: dict[str, threading.Lock] = field(default_factory=dict)
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
                        tb = tablebase.load(path, get_game(game.name, **game.params))
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

    def session_lock(self, request: Request) -> threading.Lock:
        sid = request.cookies.get(SESSION_COOKIE) or (request.client.host if request.client else "?")
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


async def read_body(request: Request) -> dict[str, Any]:
    """The request's JSON object, read with a size limit."""
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > MAX_BODY_BYTES:
        raise TooLarge
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY_BYTES:
            raise TooLarge
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        raise ValueError("the request body is not a valid JSON object") from None
    return require_dict(data, "the request body")


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
    }


def error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


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


def agent_move(server: Server, body: dict[str, Any]) -> dict[str, Any]:
    pos, bottom = position_part(body, ("agent", "seed"))
    if pos.state.is_over:
        raise ValueError("the game is over: no move to make")
    spec = bounded_spec(body.get("agent"), server.max_seconds, server.table(pos.game) is not None)
    agent, lock = server.agent(spec, pos.game)
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


def analyse(server: Server, body: dict[str, Any]) -> dict[str, Any]:
    pos, bottom = position_part(body, ("column", "agent", "depth", "seconds"))
    game, state = pos.game, pos.state
    if state.is_over:
        raise ValueError("the game is over: there is no move to analyse")
    column = body.get("column")
    if column not in analysis.COLUMNS:
        raise ValueError(f"column must be one of {', '.join(analysis.COLUMNS)}, got {column!r}")
    seconds = seconds_from(body, server.max_seconds)
    who = body.get("agent", "az" if column in ("network", "search") else None)
    if column == "network":
        if who not in ("az", "policy"):
            raise ValueError(f"the network column shows 'az' or 'policy', got {who!r}")
        agent, lock = server.agent(who, game)
        with lock:
            result = analysis.network_column(game, state, agent)
    elif column == "search":
        if who not in ("az", "mcts"):
            raise ValueError(f"the search column shows 'az' or 'mcts', got {who!r}")
        agent, lock = server.agent(f"{who}:time={seconds:g}", game)
        with lock:
            agent.reseed(seed_for(body.get("seed", 0), state.ply))
            result = analysis.search_column(game, state, agent)
    elif column == "minimax":
        depth = as_int(body.get("depth", 8), "depth")
        if not 1 <= depth <= MAX_DEPTH:
            raise ValueError(f"depth must be in 1..{MAX_DEPTH}, got {depth}")
        agent, lock = server.agent(f"minimax:depth={depth},time={seconds:g}", game)
        with lock:
            result = analysis.minimax_column(game, state, agent)
    else:
        tb = server.table(game)
        if tb is None:
            raise ValueError(
                f"no tablebase for {game.variant} in {server.tables}: build one with "
                f"'mancala tablebase build ... --out {server.tables / game.variant}'"
            )
        result = analysis.exact_column(game, state, tb)
    labels = {int(a): LABELS[column](m) for a, m in result["moves"].items()}
    return {"column": column, **result, "board": view(pos, bottom, labels)["svg"]}


def record_list(server: Server) -> dict[str, Any]:
    files = []
    for i, path in enumerate(server.record_files()):
        entry: dict[str, Any] = {"id": i, "name": str(path.relative_to(server.records or path))}
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                records = load_records(path)
            entry["games"] = [summary(k, r) for k, r in enumerate(records)]
        except (ValueError, OSError) as e:
            entry["error"] = str(e)
            entry["games"] = []
        files.append(entry)
    return {"folder": None if server.records is None else server.records.name, "files": files}


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


def record_detail(server: Server, file_id: int, index: int) -> dict[str, Any]:
    files = server.record_files()
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


def export(body: dict[str, Any]) -> Response:
    pos, bottom = position_part(body, ("format",))
    kind = body.get("format")
    name = f"{pos.game.variant}-ply{pos.state.ply}"
    if kind == "svg":
        previous = pos.states[-2] if len(pos.states) > 1 else None
        picture = svg_board(pos.game, pos.state, bottom=bottom, previous=previous)
        return Response(
            picture,
            media_type="image/svg+xml",
            headers={"Content-Disposition": f'attachment; filename="{name}.svg"'},
        )
    if kind == "gif":
        if len(pos.states) > MAX_GIF_FRAMES:
            raise ValueError(
                f"a GIF holds at most {MAX_GIF_FRAMES} positions; this game has {len(pos.states)}"
            )
        buf = io.BytesIO()
        write_gif(pos.game, pos.states, buf, bottom=bottom)
        return Response(
            buf.getvalue(),
            media_type="image/gif",
            headers={"Content-Disposition": f'attachment; filename="{name}.gif"'},
        )
    raise ValueError(f"format must be 'svg' or 'gif', got {kind!r}")


def info(server: Server) -> dict[str, Any]:
    entries = []
    for game in variants():
        entries.append(
            {
                "variant": game.variant,
                "game": game.name,
                "params": {k: v for k, v in game.params.items() if k != "max_plies"},
                "title": game_info(game.name).variant_name(game.params),
                "survival": game.ruleset.result == RESULT_BY_SURVIVAL,
                "table": None if (tb := server.table(game)) is None else tb.max_seeds,
            }
        )
    return {
        "games": list(GAMES),
        "variants": entries,
        "agents": list(WEB_AGENTS),
        "openings": SUITE_OPENINGS,
        "max_seconds": server.max_seconds,
        "max_depth": MAX_DEPTH,
        "columns": list(analysis.COLUMNS),
        "records": server.records is not None,
    }


# ---------------------------------------------------------------- the app


def warm_up() -> None:
    """Load the compiled kernels of the searches (numba's cache, or a compilation) with one tiny
    search per game, so that the first timed search of a request spends its budget searching."""
    for game in variants():
        if game.variant.startswith("en_dodoi") and game.holes_per_row != 6:
            continue  # one width compiles the same kernels as the others
        state = game.initial_state()
        MinimaxAgent(depth=2).move_values(game, state)
        make_agent("mcts:sims=32").act(game, state)


def create_app(
    records: str | os.PathLike | None = None,
    tables: str | os.PathLike | None = None,
    max_seconds: float = 10.0,
) -> Starlette:
    """The web app: ``records`` the folder of game records to list (None: none), ``tables`` the
    folder of tablebases (one subfolder per variant, as ``mancala tablebase build`` writes;
    default :func:`mancala_envs.tablebase.default_dir`), ``max_seconds`` the cap of every search."""
    if (
        isinstance(max_seconds, bool)
        or not isinstance(max_seconds, (int, float))
        or not 0 < max_seconds <= 600
    ):
        raise ValueError(f"max_seconds must be a number in (0, 600], got {max_seconds!r}")
    if records is not None and not Path(records).is_dir():
        raise ValueError(f"the records folder {records} is not a folder")
    server = Server(
        records=None if records is None else Path(records).resolve(),
        tables=Path(tables) if tables is not None else store.default_dir(),
        max_seconds=float(max_seconds),
    )

    async def run(request: Request, work: Callable[[], Any]) -> Response:
        lock = server.session_lock(request)
        if not lock.acquire(blocking=False):
            raise Busy
        try:
            result = await run_in_threadpool(work)
        finally:
            lock.release()
        return result if isinstance(result, Response) else JSONResponse(result)

    async def page(request: Request) -> Response:
        html = (STATIC / "index.html").read_text(encoding="utf-8")
        response = HTMLResponse(html)
        if SESSION_COOKIE not in request.cookies:
            response.set_cookie(SESSION_COOKIE, secrets.token_urlsafe(16), httponly=True, samesite="strict")
        return response

    async def api_info(request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(info, server))

    async def api_position(request: Request) -> Response:  # cheap: not one-at-a-time
        body = await read_body(request)
        return JSONResponse(await run_in_threadpool(lambda: view(*position_part(body, ()))))

    async def api_move(request: Request) -> Response:
        body = await read_body(request)
        return await run(request, lambda: agent_move(server, body))

    async def api_analyse(request: Request) -> Response:
        body = await read_body(request)
        return await run(request, lambda: analyse(server, body))

    async def api_records(request: Request) -> Response:  # cheap: not one-at-a-time
        return JSONResponse(await run_in_threadpool(record_list, server))

    async def api_record(request: Request) -> Response:
        file_id, index = request.path_params["file"], request.path_params["index"]
        return await run(request, lambda: record_detail(server, file_id, index))

    async def api_export(request: Request) -> Response:
        body = await read_body(request)
        return await run(request, lambda: export(body))

    async def bad_request(request: Request, exc: Exception) -> Response:
        return error(400, str(exc))

    async def not_found(request: Request, exc: Exception) -> Response:
        return error(404, str(exc))

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        return error(exc.status_code, str(exc.detail))

    routes = [
        Route("/", page),
        Route("/api/info", api_info),
        Route("/api/position", api_position, methods=["POST"]),
        Route("/api/move", api_move, methods=["POST"]),
        Route("/api/analyse", api_analyse, methods=["POST"]),
        Route("/api/records", api_records),
        Route("/api/records/{file:int}/{index:int}", api_record),
        Route("/api/export", api_export, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    handlers: dict[Any, Any] = {
        ValueError: bad_request,
        NotFound: not_found,
        TooLarge: lambda r, e: error(413, f"the request body is over {MAX_BODY_BYTES} bytes"),
        Busy: lambda r, e: error(429, "a computation is already running for this page; wait for it"),
        HTTPException: http_error,
    }
    threading.Thread(target=warm_up, name="mancala-warm-up", daemon=True).start()
    app = Starlette(routes=routes, exception_handlers=handlers)
    app.state.server = server
    return app
