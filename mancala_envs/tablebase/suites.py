"""Deprecated name of :mod:`mancala_envs.tablebase.optimality_suite` (the optimality-suite files);
every name still reads from here, with a ``DeprecationWarning``."""

from __future__ import annotations

import warnings
from typing import Any

from mancala_envs.tablebase import optimality_suite


def __getattr__(name: str) -> Any:
    value = getattr(optimality_suite, name)
    warnings.warn(
        f"mancala_envs.tablebase.suites is deprecated: use mancala_envs.tablebase.optimality_suite.{name}",
        DeprecationWarning,
        stacklevel=2,
    )
    return value
