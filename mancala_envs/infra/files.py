"""Writing files so that an interruption never loses or breaks them: atomic replacement,
fsynced appends, and JSONL reading that tells a torn last line (an interrupted write) from damage."""

from __future__ import annotations

import io
import json
import os
import tempfile
from pathlib import Path
from typing import Any


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write(path: str | os.PathLike, data: str | bytes) -> None:
    """Write ``path`` through a temporary file in the same folder and a rename: a reader (or a
    crash) sees the old file or the new one, never a partial one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # mkstemp's 0600 -> the usual permissions of a new file
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode() if isinstance(data, str) else data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def append_synced(fh: io.TextIOBase, text: str) -> None:
    """Append ``text`` and make it durable before returning."""
    fh.write(text)
    fh.flush()
    os.fsync(fh.fileno())


def read_json(path: str | os.PathLike) -> Any:
    """A JSON file's content; ``ValueError`` naming the file when it is not valid JSON."""
    path = Path(path)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise ValueError(f"{path} is not valid JSON ({e}); the file is damaged") from None
    except UnicodeDecodeError:
        raise ValueError(f"{path} is not a text file") from None


def read_jsonl(path: str | os.PathLike) -> tuple[list[Any], int, bool]:
    """Complete lines of ``path`` as parsed JSON, the byte length they span, and whether an
    incomplete last line (no newline, or not valid JSON) was found. A bad line elsewhere raises
    ``ValueError`` naming the file and the line."""
    path = Path(path)
    data = path.read_bytes()
    lines = data.split(b"\n")
    tail = lines.pop()  # text after the last newline: empty when the file ends cleanly
    dropped = bool(tail.strip())
    items, good = [], 0
    for i, line in enumerate(lines):
        try:
            items.append(json.loads(line))
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            if i == len(lines) - 1 and not tail.strip():
                dropped = True  # a garbled final line is an interrupted write
                break
            raise ValueError(f"{path}, line {i + 1}: not valid JSON ({e}); the file is damaged") from None
        good += len(line) + 1
    return items, good, dropped
