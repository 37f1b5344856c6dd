"""A one-line note when the first call into the compiled kernels will compile them (40–70 s).

The CLI and every env constructor (through ``envs.common.resolve_game``) call
:func:`announce_compilation`. Once per process, when numba's cache is cold for the current
sources, it prints ``compiling kernels (first run only)…`` on stderr for a person watching (a
terminal or a Jupyter kernel) and otherwise logs it as an ``INFO`` message of the
``mancala_envs`` logger (``logging.basicConfig(level=logging.INFO)`` shows it), so that test runs
and piped output stay quiet. A warm cache costs one file check per call.
"""

from __future__ import annotations

import atexit
import logging
import sys

from mancala_envs._numba_cache import cache_is_warm, mark_warm

MESSAGE = "compiling kernels (first run only)…"
logger = logging.getLogger("mancala_envs")

_said = False


def _someone_watches() -> bool:
    """Is stderr a terminal, or is this a Jupyter/IPython kernel (whose stderr shows in the cell)?"""
    try:
        tty = sys.stderr is not None and sys.stderr.isatty()
    except (AttributeError, ValueError):  # a replaced or closed stream
        tty = False
    return tty or "ipykernel" in sys.modules


def announce_compilation() -> None:
    """Say :data:`MESSAGE` once per process when numba's cache is cold for the current sources
    (module docstring); the cache is marked warm at a normal exit."""
    global _said
    if _said or cache_is_warm():
        return
    _said = True
    if _someone_watches():
        print(MESSAGE, file=sys.stderr, flush=True)
    else:
        logger.info("%s (40–70 s; numba's cache is cold for these sources)", MESSAGE)
    atexit.register(mark_warm)
