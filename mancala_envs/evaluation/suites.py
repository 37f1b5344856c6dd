"""Deprecated name of :mod:`mancala_envs.evaluation.suite_sampling` (making optimality suites);
every name still reads from here, with a ``DeprecationWarning``."""

from __future__ import annotations

import warnings
from typing import Any

from mancala_envs.evaluation import suite_sampling


def __getattr__(name: str) -> Any:
    value = getattr(suite_sampling, name)
    warnings.warn(
        f"mancala_envs.evaluation.suites is deprecated: use mancala_envs.evaluation.suite_sampling.{name}",
        DeprecationWarning,
        stacklevel=2,
    )
    return value
