"""Ctrl-C and SIGTERM that never break a file or a compiled call.

Python turns SIGINT into ``KeyboardInterrupt`` at the next bytecode, which inside a numba call
surfaces as ``SystemError: ... returned a result with an exception set`` and can land between a
file write and its bookkeeping; SIGTERM (``kill``, ``timeout``, Slurm, Kubernetes) kills the
process outright. Inside :func:`deferred_interrupts` the first SIGINT or SIGTERM only sets a flag;
long-running loops call :func:`check` at safe points (after a move, a game, a training step),
which raises :class:`Interrupted` there. A second signal raises at once (an escape hatch when
nothing checks). Outside the main thread the context does nothing.

:class:`Interrupted` is a ``KeyboardInterrupt`` that knows its signal, so every ``except
KeyboardInterrupt`` handles SIGTERM too; a command's handler exits with :func:`exit_status`
(``128 + signal``: 130 for Ctrl-C, 143 for SIGTERM) and names the signal with :func:`stopped`.
:func:`sigterm_raises` makes SIGTERM raise like Ctrl-C does outside the deferred parts.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

SIGNALS = (signal.SIGINT, signal.SIGTERM)
_pending: int | None = None  # the signal received and not yet acted on


class Interrupted(KeyboardInterrupt):
    """A stop requested by a signal (``signum``: SIGINT for Ctrl-C, or SIGTERM)."""

    def __init__(self, signum: int = signal.SIGINT) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = int(signum)

    def __reduce__(self) -> tuple:
        return type(self), (self.signum,)


def signal_of(e: BaseException) -> int:
    """The signal behind a ``KeyboardInterrupt`` (SIGINT unless it is an :class:`Interrupted`)."""
    return getattr(e, "signum", signal.SIGINT)


def exit_status(e: BaseException) -> int:
    """The exit status of a command stopped by ``e``: ``128 + signal`` (130 Ctrl-C, 143 SIGTERM)."""
    return 128 + signal_of(e)


def stopped(e: BaseException) -> str:
    """``interrupted`` for Ctrl-C, ``interrupted by SIGTERM`` (etc.) for another signal."""
    signum = signal_of(e)
    return "interrupted" if signum == signal.SIGINT else f"interrupted by {signal.Signals(signum).name}"


def _deferring(signum: int, frame) -> None:
    global _pending
    if _pending is not None:  # a second signal: stop at once (it acts on the first one too)
        _pending = None
        raise Interrupted(signum)
    _pending = signum


def _raising(signum: int, frame) -> None:
    raise Interrupted(signum)


def pending() -> bool:
    """Has a stop signal arrived (and not yet been acted on)?"""
    return _pending is not None


def check() -> None:
    """Raise :class:`Interrupted` here if a signal arrived inside :func:`deferred_interrupts`."""
    global _pending
    if _pending is not None:
        signum, _pending = _pending, None
        raise Interrupted(signum)


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


@contextmanager
def deferred_interrupts() -> Iterator[None]:
    """Defer SIGINT and SIGTERM to the next :func:`check` (module docstring)."""
    global _pending
    if not _main_thread():
        yield
        return
    previous = {s: signal.signal(s, _deferring) for s in SIGNALS}
    _pending = None
    try:
        yield
        check()
    finally:
        for s, handler in previous.items():
            signal.signal(s, signal.SIG_DFL if handler is None else handler)
        _pending = None


@contextmanager
def sigterm_raises() -> Iterator[None]:
    """SIGTERM raises :class:`Interrupted` (like Ctrl-C raises ``KeyboardInterrupt``) until the end
    of the block, so a command stopped outside its deferred parts still ends through its handler."""
    if not _main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raising)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL if previous is None else previous)
