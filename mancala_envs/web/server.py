"""``mancala serve``: run the web app (:mod:`mancala_envs.web.app`) with uvicorn (:func:`serve`; the
command line: :mod:`mancala_envs.cli.serve`).

    mancala serve [--host 127.0.0.1] [--port 0] [--open] [--records DIR] [--tables DIR]
                  [--max-seconds 10] [--workers N] [--queue 8]

Binds to the loopback address unless ``--host`` says otherwise (then it warns: the app has no
login). ``--port 0`` (the default) takes a free port; the address is printed either way.
Before it prints the address it starts its worker processes and warms them up (every kernel and
model loaded). Ctrl-C or SIGTERM stops it at once, a running computation included (nothing to
save: the server holds no game).
"""

from __future__ import annotations

import ipaddress
import socket
import sys
import threading
import time
import warnings
import webbrowser
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mancala_envs.infra import interrupts
from mancala_envs.infra.extras import require
from mancala_envs.web.workers import DEFAULT_QUEUE

DEFAULT_HOST = "127.0.0.1"
FORCE_AFTER = 5.0  # seconds of shutdown after which a second Ctrl-C forces the exit


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (port 0: a free one); ``ValueError`` naming the host
    when it is not an address of this machine."""
    if not 0 <= port <= 65535:
        raise ValueError(f"--port must be in 0..65535, got {port}")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError as e:
        sock.close()
        reason = e.strerror or str(e)
        raise ValueError(f"cannot listen on --host {host} --port {port}: {reason}") from None
    return sock


def serve(
    host: str = DEFAULT_HOST,
    port: int = 0,
    open_browser: bool = False,
    records: Path | None = None,
    tables: Path | None = None,
    max_seconds: float = 10.0,
    workers: int | None = None,
    queue: int = DEFAULT_QUEUE,
) -> int:
    """Serve the web app on ``host:port`` until Ctrl-C or SIGTERM (``mancala serve``, whose flags
    are these arguments: :mod:`mancala_envs.cli.serve`); returns the exit status."""
    require("uvicorn", "web", "mancala serve")
    require("starlette", "web", "mancala serve")
    from mancala_envs.web.app import create_app
    from mancala_envs.web.service import warm_up_views

    app = create_app(records=records, tables=tables, max_seconds=max_seconds, workers=workers, queue=queue)
    sock = bind(host, port)  # a bad host or a port in use fails here, before any warning
    try:
        if not is_loopback(host):
            print(
                f"mancala serve: warning: listening on {host}, not only this machine: anyone who "
                "can reach it can use the app (it has no login)",
                file=sys.stderr,
            )
        warm_up_views()
        app.state.pool.start()  # every worker warmed up: the first search spends its budget searching
        bound_host, bound_port = sock.getsockname()[:2]
        url = f"http://{f'[{bound_host}]' if ':' in bound_host else bound_host}:{bound_port}/"
        print(f"mancala serve: {url}  (Ctrl-C stops)", flush=True)
        if open_browser:
            threading.Timer(0.5, webbrowser.open, args=(url,)).start()
        run_server(app, sock)
    finally:
        app.state.pool.stop()
        sock.close()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Deprecated: :func:`mancala_envs.cli.serve.main` (``mancala serve``)."""
    from mancala_envs.cli import serve as command  # the command line is the cli layer's

    warnings.warn(
        "mancala_envs.web.server.main is deprecated: use mancala_envs.cli.serve.main",
        DeprecationWarning,
        stacklevel=2,
    )
    return command.main(argv)


def build_parser() -> Any:
    """Deprecated: ``mancala serve``'s parser is :func:`mancala_envs.cli.serve.add_parser`."""
    from mancala_envs.cli import serve as command
    from mancala_envs.cli.parsing import standalone

    warnings.warn(
        "mancala_envs.web.server.build_parser is deprecated: use mancala_envs.cli.serve.add_parser",
        DeprecationWarning,
        stacklevel=2,
    )
    return standalone(command.add_parser)


def run_server(app, sock: socket.socket) -> None:
    """Serve ``app`` on ``sock`` with uvicorn until Ctrl-C or SIGTERM, which kill the app's workers
    at once (a running computation answers 503) and then stop uvicorn; the signal is raised again
    after (the command's ``KeyboardInterrupt`` line and exit status), as an
    :class:`~mancala_envs.infra.interrupts.Interrupted` when the process ignores that signal (a
    server started in the background of a script: uvicorn still stops on it). uvicorn configures
    the process's logging: tests replace this function."""
    uvicorn = require("uvicorn", "web", "mancala serve")

    class Server(uvicorn.Server):
        stop_asked = 0.0
        stop_signal = 0

        def handle_exit(self, sig: int, frame) -> None:
            """The first signal kills the workers and starts the (then quick) shutdown; another
            one forces the exit only if that shutdown has taken over :data:`FORCE_AFTER` s."""
            app.state.pool.kill()
            if not self.should_exit:
                self.stop_asked, self.stop_signal = time.monotonic(), sig
                super().handle_exit(sig, frame)
            elif time.monotonic() - self.stop_asked > FORCE_AFTER:
                super().handle_exit(sig, frame)

    server = Server(uvicorn.Config(app, log_level="warning"))
    server.run(sockets=[sock])  # re-raises the stop signal when its handler raises
    if server.stop_signal:
        raise interrupts.Interrupted(server.stop_signal)
