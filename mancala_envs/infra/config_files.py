"""Reading the JSON files this project writes beside its binary data (tablebase headers, the
configs of policy and az networks): one check, one set of messages, for every kind.

:func:`read_config` reads a file and its format; the field checks (:func:`check_keys`,
:func:`need_int`, :func:`need_equal`, :func:`need_number`, :func:`need_list`,
:func:`need_choice`) name the field they refuse, so that a validator built from them never reads
a bad value as a default;
:func:`sha256_hex` and :class:`UncheckedFileWarning` are the checksums of binary files."""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Collection, Iterable
from pathlib import Path
from typing import Any


class UncheckedFileWarning(UserWarning):
    """A file was loaded without its integrity check: it records no checksum (it was written
    before checksums were); re-save it to add one."""


def read_config(file: Path, fmt: str, version: int | tuple[int, ...], what: str) -> dict[str, Any]:
    """The JSON object in ``file``, which must declare ``"format": fmt`` and ``"version": version``
    (or one of a tuple of versions); a ``ValueError`` naming the file otherwise (missing, not JSON,
    another format or version).
    ``what`` names the kind of file in the messages (e.g. "tablebase header")."""
    if not file.is_file():
        raise ValueError(f"{what} file {file} does not exist")
    try:
        config = json.loads(file.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as e:
        raise ValueError(f"{file} is damaged: not valid JSON ({e})") from None
    if not isinstance(config, dict) or config.get("format") != fmt:
        raise ValueError(f"{file} is not a {fmt} {what}")
    versions = version if isinstance(version, tuple) else (version,)
    if config.get("version") not in versions or isinstance(config.get("version"), bool):
        reads = " or ".join(str(v) for v in versions)
        raise ValueError(f"{file} has format version {config.get('version')!r}; this code reads {reads}")
    return config


def sha256_hex(data: bytes) -> str:
    """The SHA-256 digest of ``data`` as 64 lowercase hex digits."""
    return hashlib.sha256(data).hexdigest()


def is_sha256(value: Any) -> bool:
    """Whether ``value`` is a SHA-256 digest as :func:`sha256_hex` writes it."""
    return isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value)


def check_keys(
    obj: Any, required: Iterable[str], optional: Iterable[str] = (), what: str = "", unknown_ok: bool = False
) -> dict:
    """``obj`` itself when it is a JSON object with every key of ``required`` and (unless
    ``unknown_ok``) no key outside ``required`` and ``optional``; a ``ValueError`` naming ``what``
    (a field path) and the key otherwise."""
    where = what or "the file"
    if not isinstance(obj, dict):
        raise ValueError(f"{where} must be an object, got {_short(obj)}")
    required = list(required)
    missing = [k for k in required if k not in obj]
    if missing:
        raise ValueError(f"{_join(what, missing[0])} is missing")
    allowed = set(required) | set(optional)
    unknown = sorted(str(k) for k in obj if k not in allowed)
    if unknown and not unknown_ok:
        known = ", ".join(sorted(allowed))
        raise ValueError(f"{_join(what, unknown[0])} is not a known field (known: {known})")
    return obj


def need_int(value: Any, what: str, lo: int | None = None, hi: int | None = None) -> int:
    """``value`` when it is an integer (never a bool or a float) in ``lo..hi``; a ``ValueError``
    naming the field ``what`` otherwise."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{what} must be an integer, got {_short(value)}")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        span = f"{lo if lo is not None else '-inf'}..{hi if hi is not None else 'inf'}"
        raise ValueError(f"{what} must be in {span}, got {value}")
    return value


def need_equal(value: Any, what: str, expected: int, whose: str = "the game's") -> int:
    """``value`` when it is the integer ``expected``; a ``ValueError`` naming ``what`` otherwise."""
    if isinstance(value, bool) or not isinstance(value, int) or value != expected:
        raise ValueError(f"{what} must be {expected} ({whose}), got {_short(value)}")
    return value


def need_number(value: Any, what: str, positive: bool = False, minimum: float | None = None) -> float:
    """``value`` when it is a finite number (an int or a float, never a bool), positive when asked
    or at least ``minimum``; a ``ValueError`` naming the field ``what`` otherwise."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"{what} must be a finite number, got {_short(value)}")
    if positive and not value > 0:
        raise ValueError(f"{what} must be a positive number, got {value}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{what} must be at least {minimum}, got {value}")
    return value


def need_list(value: Any, what: str, lo: int = 0, hi: int | None = None) -> list:
    """``value`` when it is a JSON array of ``lo..hi`` entries; a ``ValueError`` naming ``what``."""
    if not isinstance(value, list):
        raise ValueError(f"{what} must be a list, got {_short(value)}")
    if len(value) < lo or (hi is not None and len(value) > hi):
        raise ValueError(f"{what} must have {lo}..{hi if hi is not None else ''} entries, got {len(value)}")
    return value


def need_choice(value: Any, what: str, choices: Collection[Any]) -> Any:
    """``value`` when it is one of ``choices`` (and of the same type: ``1`` is not ``True``); a
    ``ValueError`` naming ``what`` and the choices otherwise."""
    if not any(value == c and type(value) is type(c) for c in choices):
        raise ValueError(f"{what} must be one of {', '.join(map(repr, choices))}; got {_short(value)}")
    return value


def _join(what: str, key: str) -> str:
    return f"{what}.{key}" if what else str(key)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
