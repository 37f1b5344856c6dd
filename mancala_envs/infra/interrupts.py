"""Ctrl-C that never breaks a file or a compiled call.

Python turns SIGINT into ``KeyboardInterrupt`` at the next bytecode, which inside a numba call
surfaces as ``SystemError: ... returned a result with an exception set`` and can land between a
file write and its bookkeeping. Inside :func:`deferred_interrupts` the first Ctrl-C only sets a
flag; long-running loops call :func:`check` at safe points (after a move, a game, a training
step), which raises ``KeyboardInterrupt`` there. A second Ctrl-C raises at once (an escape hatch
when nothing checks). Outside the main thread the context does nothing.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_pending = False


def _handler(signum, frame) -> None:
    global _pending
    if _pending:
        raise KeyboardInterrupt
    _pending = True


def pending() -> bool:
    """Has Ctrl-C been pressed (and not yet acted on)?"""
    return _pending


def check() -> None:
    """Raise ``KeyboardInterrupt`` here if Ctrl-C was pressed inside :func:`deferred_interrupts`."""
    global _pending
    if _pending:
        _pending = False
        raise KeyboardInterrupt


@contextmanager
def deferred_interrupts() -> Iterator[None]:
    """Defer SIGINT to the next :func:`check` (module docstring)."""
    global _pending
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, _handler)
    _pending = False
    try:
        yield
        check()
    finally:
        signal.signal(signal.SIGINT, previous)
        _pending = False
