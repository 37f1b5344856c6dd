"""A one-line note when the first call into the compiled kernels will compile them."""

from __future__ import annotations

import atexit
import sys

from mancala_envs._numba_cache import cache_is_warm, mark_warm

_said = False


def announce_compilation() -> None:
    """Tell a person at a terminal ``compiling kernels (first run only)…`` when numba's cache is
    cold for the current sources (once per process; the cache is marked warm at a normal exit)."""
    global _said
    if _said or cache_is_warm() or not sys.stderr.isatty():
        return
    _said = True
    print("compiling kernels (first run only)…", file=sys.stderr, flush=True)
    atexit.register(mark_warm)
