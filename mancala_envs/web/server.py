"""``mancala serve``: run the web app (:mod:`mancala_envs.web.app`) with uvicorn.

    mancala serve [--host 127.0.0.1] [--port 0] [--open] [--records DIR] [--tables DIR]
                  [--max-seconds 10]

Binds to the loopback address unless ``--host`` says otherwise (then it warns: the app has no
login). ``--port 0`` (the default) takes a free port; the address is printed either way.
Ctrl-C or SIGTERM stops it (nothing to save: the server holds no game).
"""

from __future__ import annotations

import argparse
import ipaddress
import socket
import sys
import threading
import webbrowser
from collections.abc import Sequence
from pathlib import Path

from mancala_envs.infra.extras import require

DEFAULT_HOST = "127.0.0.1"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="mancala serve",
        description="Play, analyse and replay games in the browser (a local web app; the web extra: "
        "pip install '.[web]' in a checkout).",
    )
    p.add_argument("--host", default=DEFAULT_HOST, help="address to bind (default 127.0.0.1: this machine)")
    p.add_argument("--port", type=int, default=0, help="port (default 0: a free one, printed)")
    p.add_argument("--open", action="store_true", help="open the page in the default browser")
    p.add_argument("--records", type=Path, metavar="DIR", help="folder of game records (*.jsonl) to replay")
    p.add_argument(
        "--tables",
        type=Path,
        metavar="DIR",
        help="folder of tablebases, one subfolder per variant (default: the per-user cache folder)",
    )
    p.add_argument(
        "--max-seconds",
        type=float,
        default=10.0,
        metavar="S",
        help="time cap of every search, per move or analysis column (default 10)",
    )
    return p


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (port 0: a free one)."""
    if not 0 <= port <= 65535:
        raise ValueError(f"--port must be in 0..65535, got {port}")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    return sock


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    require("uvicorn", "web", "mancala serve")
    require("starlette", "web", "mancala serve")
    from mancala_envs.web.app import create_app
    from mancala_envs.web.service import warm_up

    app = create_app(records=args.records, tables=args.tables, max_seconds=args.max_seconds)
    if not is_loopback(args.host):
        print(
            f"mancala serve: warning: listening on {args.host}, not only this machine: anyone who can reach "
            "it can use the app (it has no login)",
            file=sys.stderr,
        )
    sock = bind(args.host, args.port)
    threading.Thread(target=warm_up, name="mancala-warm-up", daemon=True).start()  # off the clock
    host, port = sock.getsockname()[:2]
    url = f"http://{f'[{host}]' if ':' in host else host}:{port}/"
    print(f"mancala serve: {url}  (Ctrl-C stops)", flush=True)
    if args.open:
        threading.Timer(0.5, webbrowser.open, args=(url,)).start()
    run_server(app, sock)
    return 0


def run_server(app, sock: socket.socket) -> None:
    """Serve ``app`` on ``sock`` with uvicorn until Ctrl-C or SIGTERM (uvicorn configures the
    process's logging: tests replace this function)."""
    uvicorn = require("uvicorn", "web", "mancala serve")
    uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])
