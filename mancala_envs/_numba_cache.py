"""Keep numba's on-disk cache honest across modules. ``@njit(cache=True)`` invalidates a cached
function when its *own* file changes, not when a function it calls from another module does: after
an edit to ``core/engine.py``, the cached kernels of ``envs/vector_kernel.py`` or
``agents/minimax/alphabeta.py`` would keep running the old rules. This module adds a cache locator,
for this project's files only, whose source stamp also carries a digest of every project module
that holds compiled code (or the rules constants they read), so such an edit recompiles every
dependent kernel. Other code's caches are untouched. Importing this module installs the locator.
"""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path

from numba.core import caching

_PACKAGE_DIR = Path(__file__).resolve().parent


def _subpackage_dir(name: str) -> Path | None:
    """Where ``mancala_envs.<name>`` lives: inside the package once installed, the repository's
    own folder in a checkout (setuptools package-dir); found without importing it."""
    spec = importlib.util.find_spec(f"mancala_envs.{name}")
    return (
        Path(spec.submodule_search_locations[0]).resolve()
        if spec and spec.submodule_search_locations
        else None
    )


_PROJECT_DIRS = tuple(
    dict.fromkeys(d for d in (_PACKAGE_DIR, _subpackage_dir("agents"), _subpackage_dir("training")) if d)
)


def _project_digest() -> str:
    digest = hashlib.sha1()
    for directory in _PROJECT_DIRS:
        for path in sorted(directory.rglob("*.py")):
            source = path.read_bytes()
            if b"njit" in source or path.name == "rulesets.py":
                digest.update(str(path.relative_to(directory)).encode())
                digest.update(source)
    return digest.hexdigest()


_DIGEST = _project_digest()


class ProjectCacheLocator(caching.InTreeCacheLocator):
    """In-tree cache (``__pycache__``) for the project's kernels, stamped with the project digest."""

    def get_source_stamp(self):
        return super().get_source_stamp(), _DIGEST

    @classmethod
    def from_function(cls, py_func, py_file):
        parents = Path(py_file).resolve().parents
        if not any(d in parents for d in _PROJECT_DIRS):
            return None
        return super().from_function(py_func, py_file)


if ProjectCacheLocator not in caching.CacheImpl._locator_classes:
    caching.CacheImpl._locator_classes.insert(0, ProjectCacheLocator)


MARKERS = _PACKAGE_DIR / "__pycache__"  # where a kernel set's marker says it was compiled


def _marker(kernel_set: str) -> Path:
    return MARKERS / f".kernels-{kernel_set}-{_DIGEST[:16]}"


def cache_is_warm(kernel_set: str) -> bool:
    """Has a process of this checkout compiled ``kernel_set``'s kernels of the current sources
    (:mod:`mancala_envs.infra.compile_note` names the sets; :func:`mark_warm`)?"""
    return _marker(kernel_set).exists()


def mark_warm(kernel_set: str) -> None:
    """Note that ``kernel_set``'s kernels of the current sources have been compiled and cached."""
    try:
        MARKERS.mkdir(parents=True, exist_ok=True)
        _marker(kernel_set).touch()
    except OSError:
        pass
