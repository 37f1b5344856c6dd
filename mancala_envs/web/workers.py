"""The web app's computations (agents' moves, analyses, exports) in a bounded pool of worker
processes, so that the server's own process, which answers the cheap routes (the page, positions,
record lists), never waits for a search.

At most ``workers`` computations run at once and ``queue`` more wait; beyond that a request gets
:class:`Overloaded` (503 with ``Retry-After``). Each worker is a spawned process with its own
agents and tables (:class:`~mancala_envs.web.service.Server`), ignores Ctrl-C (the server's
process handles it), runs at a lower priority than the server's process, and with ``warm`` loads
every kernel and model the work needs before the pool is ready
(:func:`~mancala_envs.web.service.warm_up`). :meth:`Pool.stop` kills the workers: a computation
running then ends at once, its request answered 503 (:class:`Stopping`).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import multiprocessing
import os
import signal
import threading
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mancala_envs.infra import interrupts
from mancala_envs.rulesets import BUILTIN_GAMES, GameInfo, registered_games

DEFAULT_QUEUE = 8  # computations that may wait for a worker
WORKER_NICENESS = 5  # the workers yield the processor to the server's process (its cheap routes)
READY_TIMEOUT = 900.0  # seconds the workers may take to start and warm up (a first compilation)


def default_workers() -> int:
    """Half the processors, at least 1 and at most 4 (each worker holds its own models)."""
    return max(1, min(4, (os.cpu_count() or 2) // 2))


class Overloaded(Exception):
    """Every worker is busy and the queue is full (503, ``retry_after`` seconds)."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(
            "the server is busy: every worker is computing and the queue is full; try again shortly"
        )
        self.retry_after = retry_after


class Stopping(Exception):
    """The server is stopping, or a worker ended: the computation was not done (503)."""


def added_games() -> tuple[GameInfo, ...]:
    """The games registered in this process besides the built-in ones (a game registered through
    :func:`~mancala_envs.registration.register_game`): each spawned worker registers them too."""
    return tuple(info for info in registered_games() if info not in BUILTIN_GAMES)


@dataclass(frozen=True)
class Settings:
    """What a worker needs to build its own :class:`~mancala_envs.web.service.Server`."""

    records: Path | None
    tables: Path
    max_seconds: float
    games: tuple[GameInfo, ...] = field(default_factory=added_games)  # registered anew there


_SERVER: Any = None  # the worker process's Server
_BARRIER: Any = None  # the pool's start barrier (multiprocessing objects pass at process creation)


def _start_worker(settings: Settings, warm: bool, barrier: Any) -> None:
    """The initializer of a worker process (module docstring)."""
    global _SERVER, _BARRIER
    _BARRIER = barrier
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(os, "nice"):
        os.nice(WORKER_NICENESS)
    try:
        import torch

        torch.set_num_threads(1)  # one computation per worker: no threads fighting over the cores
    except ImportError:
        pass
    from mancala_envs.registration import register_game
    from mancala_envs.web.service import Server, warm_up

    for info in settings.games:
        register_game(info)
    _SERVER = Server(records=settings.records, tables=settings.tables, max_seconds=settings.max_seconds)
    if warm:
        warm_up(_SERVER)


def _work(kind: str, body: dict[str, Any]) -> Any:
    """One computation in a worker: ``WORK[kind]`` on the worker's server."""
    from mancala_envs.web.service import WORK

    return WORK[kind](_SERVER, body)


@contextlib.contextmanager
def _sigint_blocked() -> Iterator[None]:
    """SIGINT blocked in this thread while it spawns workers, which inherit the signal mask: Ctrl-C,
    which a terminal sends to the whole process group, then never reaches a worker, not even while
    it imports (before its initializer ignores SIGINT); here a Ctrl-C waits until the spawn is done."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _ready() -> int:
    """A task that ends when every worker holds one: all have started (and warmed up)."""
    _BARRIER.wait(READY_TIMEOUT)
    return os.getpid()


class Pool:
    """The bounded pool of worker processes of one app (module docstring)."""

    def __init__(self, settings: Settings, workers: int, queue: int, warm: bool = True) -> None:
        for name, value, low in (("workers", workers, 1), ("queue", queue, 0)):
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= 256:
                raise ValueError(f"{name} must be an integer in {low}..256, got {value!r}")
        self.settings, self.workers, self.queue, self.warm = settings, workers, queue, warm
        self.pending = 0  # computations running or queued (touched by the event loop only)
        self.stopping = False
        self._executor: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()

    def start(self) -> None:
        """Start the workers and wait until each has warmed up (does nothing when started)."""
        with self._lock:
            if self._executor is not None or self.stopping:
                return
            context = multiprocessing.get_context("spawn")  # no fork of a process with threads
            barrier = context.Barrier(self.workers)
            self._executor = ProcessPoolExecutor(
                self.workers,
                context,
                initializer=_start_worker,
                initargs=(self.settings, self.warm, barrier),
            )
            # each submit spawns a worker: a stop signal waits until they all have their orders
            with interrupts.deferred_interrupts(), _sigint_blocked():
                ready = [self._executor.submit(_ready) for _ in range(self.workers)]
        try:
            for future in ready:
                future.result()
        except BaseException:
            self.stop()
            raise

    def retry_after(self) -> int:
        """Seconds after which the queue has room again, about (every computation is capped)."""
        rounds = (self.pending - self.workers) // self.workers + 1
        return max(1, math.ceil(rounds * self.settings.max_seconds))

    async def run(self, kind: str, body: dict[str, Any]) -> Any:
        """``WORK[kind](server, body)`` in a worker; :class:`Overloaded` when the queue is full."""
        if self.stopping:
            raise Stopping("the server is stopping")
        if self.pending >= self.workers + self.queue:
            raise Overloaded(self.retry_after())
        self.pending += 1
        try:
            if self._executor is None:
                await asyncio.to_thread(self.start)
            return await asyncio.wrap_future(self._submit(kind, body))
        except BrokenProcessPool:
            self._replace()
            raise Stopping(
                "the server is stopping" if self.stopping else "a worker ended; try again"
            ) from None
        finally:
            self.pending -= 1

    def _submit(self, kind: str, body: dict[str, Any]) -> Future:
        if self._executor is None or self.stopping:
            raise BrokenProcessPool("the server is stopping")
        with _sigint_blocked():  # a submit may spawn a worker
            return self._executor.submit(_work, kind, body)

    def _replace(self) -> None:
        """After a worker died (not a stop): a new pool at the next request."""
        with self._lock:
            if self._executor is not None and not self.stopping:
                self._executor.shutdown(wait=False, cancel_futures=True)
                self._executor = None

    def kill(self) -> None:
        """End every worker now (safe in a signal handler: it only sends signals); the running
        computations' requests get :class:`Stopping`."""
        self.stopping = True
        executor = self._executor
        processes = getattr(executor, "_processes", None) or {}
        for process in list(processes.values()):
            with contextlib.suppress(OSError, AttributeError, ValueError):
                process.kill()

    def stop(self) -> None:
        """Kill the workers and release the pool (idempotent)."""
        self.kill()
        with self._lock:
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)
