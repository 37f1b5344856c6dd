"""JSONL suites (opening suites, optimality suites) with a digest: a header line, then the body.

The header ``{"format": NAME, "version": 1, "lines": N, "sha256": HEX}`` records how many lines the
body holds and the SHA-256 of its bytes, so an edit that keeps every line well formed (outcomes
swapped on every line, an opening's ``to_move`` flipped, lines repeated) is refused, naming the
file. A file without a header (written before digests, or by hand) is read with an
:class:`~mancala_envs.infra.config_files.UncheckedFileWarning`: its lines are checked one by one,
their digest cannot be.
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path

from mancala_envs.infra.config_files import UncheckedFileWarning, check_keys, sha256_hex

VERSION = 1
HEADER_KEYS = ("format", "version", "lines", "sha256")


def stamped(fmt: str, body: str) -> str:
    """The file's text: the header of ``body`` (JSON lines, each ending in a newline), then it."""
    head = {"format": fmt, "version": VERSION, "lines": body.count("\n"), "sha256": sha256_hex(body.encode())}
    return json.dumps(head, separators=(",", ":")) + "\n" + body


def checked_body(path: str | os.PathLike, text: str, fmt: str) -> tuple[str, int]:
    """The body of a suite file's ``text`` and the file's line number of its first line: after a
    header of format ``fmt`` that matches it (else ``ValueError`` naming the file), or the whole
    text, with an :class:`UncheckedFileWarning`, when the file has no header."""
    first, _, body = text.partition("\n")
    try:
        head = json.loads(first)
    except (ValueError, RecursionError):
        head = None
    if not (isinstance(head, dict) and isinstance(head.get("format"), str)):
        warnings.warn(
            f"{path} records no digest (written before suites carried one, or by hand): its lines are "
            "checked one by one, not as a whole; write it again to add one",
            UncheckedFileWarning,
            stacklevel=3,
        )
        return text, 1
    try:
        check_keys(head, HEADER_KEYS, (), "header")
    except ValueError as e:
        raise ValueError(f"{Path(path)}, line 1: {e}") from None
    if head["format"] != fmt or head["version"] != VERSION:
        raise ValueError(f"{path}: not a {fmt} file of version {VERSION} (its header says {first[:200]})")
    if head["lines"] != body.count("\n") or head["sha256"] != sha256_hex(body.encode()):
        raise ValueError(
            f"{path}: the suite was changed after it was written: its lines differ from the digest its "
            "header records"
        )
    return body, 2
