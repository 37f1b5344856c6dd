"""Reading the JSON files this project writes beside its binary data (tablebase headers, the
configs of policy and az networks): one check, one set of messages, for every kind."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def read_config(file: Path, fmt: str, version: int, what: str) -> dict[str, Any]:
    """The JSON object in ``file``, which must declare ``"format": fmt`` and ``"version": version``;
    a ``ValueError`` naming the file otherwise (missing, not JSON, another format or version).
    ``what`` names the kind of file in the messages (e.g. "tablebase header")."""
    if not file.is_file():
        raise ValueError(f"{what} file {file} does not exist")
    try:
        config = json.loads(file.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ValueError(f"{file} is damaged: not valid JSON ({e})") from None
    if not isinstance(config, dict) or config.get("format") != fmt:
        raise ValueError(f"{file} is not a {fmt} {what}")
    if config.get("version") != version:
        raise ValueError(f"{file} has format version {config.get('version')!r}; this code reads {version}")
    return config
