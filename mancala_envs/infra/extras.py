"""Optional dependencies: one clear error naming the extra to install when one is missing."""

from __future__ import annotations

import importlib
from types import ModuleType


class MissingExtraError(ImportError):
    """An optional dependency is not installed; the message names the extra that brings it."""


def require(module: str, extra: str, what: str) -> ModuleType:
    """``import module``, or :class:`MissingExtraError` saying that ``what`` needs
    ``pip install '.[extra]'`` (the package installs from a checkout, not the index)."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise MissingExtraError(
            f"{what} needs {module.partition('.')[0]}, which is not installed: "
            f"install the mancala_envs[{extra}] extra (pip install '.[{extra}]' in a checkout)"
        ) from e
