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
an export) at a time (429 while busy). The computations run in a bounded pool of worker processes
(:mod:`mancala_envs.web.workers`): at most ``workers`` at once and ``queue`` waiting, 503 with
``Retry-After`` beyond, so the page, positions and record lists, answered in the server's own
process, never wait for a search. The workers load every kernel and model they use before the
pool is ready (:func:`~mancala_envs.web.service.warm_up`), so that a first search's time budget is
not spent compiling; stopping the app kills them, ending any computation at once (503).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import warnings
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import State
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from mancala_envs.tablebase import store
from mancala_envs.web.checks import MAX_BODY_BYTES, require_dict
from mancala_envs.web.service import NotFound, Resources, info, position_part, record_list, view
from mancala_envs.web.workers import DEFAULT_QUEUE, Overloaded, Pool, Settings, Stopping, default_workers

STATIC = Path(__file__).parent / "static"
SESSION_COOKIE = "mancala_session"
MAX_DIGITS = 30  # digits of an integer in a request (seeds are below 2**32; 10**30 still gets its message)


class TooLarge(Exception):
    """A request body over the limit (413)."""


class Busy(Exception):
    """The session already has a computation running (429)."""


# ---------------------------------------------------------------- HTTP


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
        data = json.loads(body, parse_int=bounded_int)
    except HugeNumber as e:
        raise ValueError(str(e)) from None
    except (ValueError, RecursionError):
        raise ValueError("the request body is not a valid JSON object") from None
    return require_dict(data, "the request body")


class HugeNumber(ValueError):
    """An integer in a request body with more digits than any value of the app needs."""


def bounded_int(digits: str) -> int:
    """A JSON integer, refused (:class:`HugeNumber`) over :data:`MAX_DIGITS` digits."""
    if len(digits.lstrip("-")) > MAX_DIGITS:
        raise HugeNumber(
            f"the request body holds an integer of {len(digits.lstrip('-'))} digits; "
            f"no value here has more than {MAX_DIGITS}"
        )
    return int(digits)


def error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def create_app(
    records: str | os.PathLike | None = None,
    tables: str | os.PathLike | None = None,
    max_seconds: float = 10.0,
    workers: int | None = None,
    queue: int = DEFAULT_QUEUE,
    warm: bool = True,
) -> Starlette:
    """The web app: ``records`` the folder of game records to list (None: none), ``tables`` the
    folder of tablebases (one subfolder per variant, as ``mancala tablebase build`` writes;
    default :func:`mancala_envs.tablebase.default_dir`), ``max_seconds`` the cap of every search,
    ``workers`` the worker processes (default :func:`~mancala_envs.web.workers.default_workers`),
    ``queue`` the computations that may wait for one, ``warm`` whether the workers warm up before
    they are ready. The pool starts with the app (or ``app.state.pool.start()``); the handlers
    reach both through ``request.app.state`` (``resources``, ``pool``)."""
    if (
        isinstance(max_seconds, bool)
        or not isinstance(max_seconds, (int, float))
        or not 0 < max_seconds <= 600
    ):
        raise ValueError(f"max_seconds must be a number in (0, 600], got {max_seconds!r}")
    if records is not None and not Path(records).is_dir():
        raise ValueError(f"the records folder {records} is not a folder")
    resources = Resources(
        records=None if records is None else Path(records).resolve(),
        tables=Path(tables) if tables is not None else store.default_dir(),
        max_seconds=float(max_seconds),
    )
    settings = Settings(resources.records, resources.tables, resources.max_seconds)
    app = Starlette(routes=routes(), exception_handlers=dict(HANDLERS), lifespan=lifespan)
    app.state = AppState()
    app.state.resources = resources
    app.state.pool = Pool(settings, default_workers() if workers is None else workers, queue, warm)
    return app


class AppState(State):
    """``app.state``, where ``server``, the old name of ``resources``, still reads (deprecated)."""

    def __getattr__(self, key: str) -> Any:
        if key == "server":
            warnings.warn("app.state.server is deprecated: use app.state.resources", DeprecationWarning, 2)
            key = "resources"
        return super().__getattr__(key)


@contextlib.asynccontextmanager
async def lifespan(app: Starlette) -> AsyncIterator[None]:
    """The app's worker pool runs while the app does."""
    await run_in_threadpool(app.state.pool.start)
    try:
        yield
    finally:
        await run_in_threadpool(app.state.pool.stop)


# ---------------------------------------------------------------- routes


async def in_pool(request: Request, kind: str, body: dict[str, Any]) -> Any:
    """``WORK[kind](resources, body)`` in the pool, one at a time per page session (429 while one
    runs)."""
    sid = request.cookies.get(SESSION_COOKIE) or (request.client.host if request.client else "?")
    lock = request.app.state.resources.session_lock(sid)
    if not lock.acquire(blocking=False):
        raise Busy
    try:
        return await request.app.state.pool.run(kind, body)
    finally:
        lock.release()


async def page(request: Request) -> Response:
    html = (STATIC / "index.html").read_text(encoding="utf-8")
    response = HTMLResponse(html)
    if SESSION_COOKIE not in request.cookies:
        response.set_cookie(SESSION_COOKIE, secrets.token_urlsafe(16), httponly=True, samesite="strict")
    return response


async def api_info(request: Request) -> Response:
    # warmed workers hold every network the warm-up ran: the page need not announce a compile
    state = request.app.state
    return JSONResponse(await run_in_threadpool(info, state.resources, state.pool.warm))


async def api_position(request: Request) -> Response:  # cheap: not one-at-a-time
    return JSONResponse(await run_in_threadpool(position_view, await read_body(request)))


def position_view(body: dict[str, Any]) -> dict[str, Any]:
    """``/api/position``'s answer: the board and status of the position in ``body``."""
    return view(*position_part(body, ()))


async def api_move(request: Request) -> Response:
    return JSONResponse(await in_pool(request, "move", await read_body(request)))


async def api_analyse(request: Request) -> Response:
    return JSONResponse(await in_pool(request, "analyse", await read_body(request)))


async def api_records(request: Request) -> Response:  # cheap: not one-at-a-time
    return JSONResponse(await run_in_threadpool(record_list, request.app.state.resources))


async def api_record(request: Request) -> Response:  # reads and replays a file: in a worker
    where = {"file": request.path_params["file"], "index": request.path_params["index"]}
    return JSONResponse(await in_pool(request, "record", where))


async def api_export(request: Request) -> Response:
    content, media, name = await in_pool(request, "export", await read_body(request))
    disposition = {"Content-Disposition": f'attachment; filename="{name}"'}
    return Response(content, media_type=media, headers=disposition)


def routes() -> list[BaseRoute]:
    """The page, the JSON API (module docstring) and the static files."""
    return [
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


# ---------------------------------------------------------------- errors


async def bad_request(request: Request, exc: Exception) -> Response:
    return error(400, str(exc))


async def not_found(request: Request, exc: Exception) -> Response:
    return error(404, str(exc))


async def too_large(request: Request, exc: Exception) -> Response:
    return error(413, f"the request body is over {MAX_BODY_BYTES} bytes")


async def busy(request: Request, exc: Exception) -> Response:
    return error(429, "a computation is already running for this page; wait for it")


async def stopping(request: Request, exc: Exception) -> Response:
    return error(503, str(exc))


async def http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return error(exc.status_code, str(exc.detail))


async def overloaded(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, Overloaded)
    response = error(503, str(exc))
    response.headers["Retry-After"] = str(exc.retry_after)
    return response


HANDLERS: dict[Any, Any] = {
    ValueError: bad_request,
    NotFound: not_found,
    TooLarge: too_large,
    Busy: busy,
    Overloaded: overloaded,
    Stopping: stopping,
    HTTPException: http_error,
}
