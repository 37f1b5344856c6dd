"""Result files: a measured table and what it was measured with, in one checked JSON file.

Every published table of the docs is rendered from such a file (``make results``,
``docs/render_results.py``). A result file is a JSON object with the figures under keys of the
writer's choosing, plus ``provenance`` — the ``command`` that measured it, the ``date`` (UTC), the
code ``revision`` (git, ``+dirty`` with uncommitted changes), the ``machine`` (platform, CPUs,
load average at the start) and the ``models`` it played (file and SHA-256 of the weights, so a
renderer can tell that a model changed since) — and ``sha256``, the checksum of everything else
(:func:`read_result` verifies it).
"""

from __future__ import annotations

import datetime
import functools
import hashlib
import json
import os
import platform
import shlex
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mancala_envs.infra.files import atomic_write

PROJECT_ROOT = Path(__file__).resolve().parents[2]  # the checkout, in an editable install


def git_revision() -> str:
    """The project's git commit (``+dirty`` with uncommitted changes outside ``results/``: result
    files written by a run beside this one are no change of the code), or ``unknown`` (not a git
    checkout, e.g. an installed wheel). Read-only: ``GIT_OPTIONAL_LOCKS=0`` keeps ``git status``
    from touching the index."""
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0"}
    try:
        run = functools.partial(
            subprocess.run, cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=10, env=env
        )
        rev = run(["git", "rev-parse", "HEAD"])
        if rev.returncode != 0:
            return "unknown"
        dirty = run(["git", "status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)results"])
        return rev.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def machine() -> dict[str, Any]:
    """What ran it: platform, processor, logical CPUs, Python, and the 1-minute load average."""
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    return {
        "platform": platform.platform(),
        "processor": platform.machine(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "load_average": None if load is None else round(load, 2),
    }


def command_line(argv: Sequence[str] | None = None, prog: str | None = None) -> str:
    """The command as typed: ``prog`` (default: ``python -m``/the script) and ``argv``."""
    args = list(sys.argv[1:] if argv is None else argv)
    if prog is None:
        main = sys.modules.get("__main__")
        spec = getattr(main, "__spec__", None)
        prog = f"python -m {spec.name}" if spec is not None and spec.name else f"python {sys.argv[0]}"
    return f"{prog} {shlex.join(args)}".strip()


def provenance(command: str, models: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The ``provenance`` record of a result measured now by ``command``."""
    return {
        "command": command,
        "date": datetime.datetime.now(datetime.UTC).replace(microsecond=0).isoformat(),
        "revision": git_revision(),
        "machine": machine(),
        "models": dict(models or {}),
    }


def _digest(payload: Mapping[str, Any]) -> str:
    body = {k: v for k, v in payload.items() if k != "sha256"}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def write_result(path: str | os.PathLike, payload: Mapping[str, Any]) -> dict[str, Any]:
    """Write ``payload`` (which must hold ``provenance``) with its checksum, atomically; returns
    what was written."""
    if "provenance" not in payload:
        raise ValueError("a result file needs its provenance (mancala_envs.infra.results.provenance)")
    stamped = {**{k: v for k, v in payload.items() if k != "sha256"}, "sha256": _digest(payload)}
    atomic_write(path, json.dumps(stamped, indent=1) + "\n")
    return stamped


def read_result(path: str | os.PathLike) -> dict[str, Any]:
    """A result file, checked: JSON, with ``provenance`` and a matching ``sha256``; ``ValueError``
    naming the file otherwise."""
    try:
        payload = json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: not valid JSON ({e})") from None
    if not isinstance(payload, dict) or not isinstance(payload.get("provenance"), dict):
        raise ValueError(f"{path}: not a result file (no provenance)")
    if payload.get("sha256") != _digest(payload):
        raise ValueError(f"{path}: checksum mismatch (the file was changed after it was written)")
    return payload
