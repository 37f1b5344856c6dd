"""Writing files so that an interruption never loses or breaks them: atomic replacement,
fsynced appends, and JSONL reading that tells a torn last line (an interrupted write) from damage.
A write that fails (a full disk) leaves the previous content whole and raises ``OSError`` naming
the file; :func:`preallocate` reserves a memory-mapped file's space before it is written."""

from __future__ import annotations

import contextlib
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
    except BaseException as e:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(e, OSError) and not e.filename:
            raise named(e, path) from None
        raise


def named(e: OSError, path: str | os.PathLike | int | None) -> OSError:
    """``e`` with ``path`` as its file name (a failed ``write`` names none), for one-line errors."""
    if e.filename or not isinstance(path, str | os.PathLike):
        return e
    return OSError(e.errno, e.strerror or str(e), os.fspath(path))


def preallocate(path: str | os.PathLike, size: int) -> None:
    """Make ``path`` (created if need be) at least ``size`` bytes long with all of them allocated on
    disk (``posix_fallocate``; where it is missing, a sparse extension), so that writing them later
    through a memory map cannot fail; ``OSError`` naming the file when the space is not there."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        if size > 0 and hasattr(os, "posix_fallocate"):
            os.posix_fallocate(fd, 0, size)
        elif os.fstat(fd).st_size < size:
            os.ftruncate(fd, size)
    except OSError as e:
        raise OSError(e.errno, f"{e.strerror} (allocating {size:,} bytes)", os.fspath(path)) from None
    finally:
        os.close(fd)


def allocated_bytes(path: str | os.PathLike) -> int:
    """The bytes of ``path`` really allocated on disk (a sparse file's holes hold none); 0 when it
    does not exist."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return 0
    blocks = getattr(st, "st_blocks", None)
    return st.st_size if blocks is None else min(st.st_size, blocks * 512)


def append_synced(fh: io.TextIOBase, text: str) -> None:
    """Append ``text`` to ``fh`` (a file opened for appending) and make it durable before
    returning. A failed write (a full disk) is cut off again, so the file keeps whole lines only,
    and raises ``OSError`` naming the file."""
    fh.flush()
    fd = fh.fileno()
    start = os.fstat(fd).st_size
    data = memoryview(text.encode(getattr(fh, "encoding", None) or "utf-8"))
    try:
        while data:  # straight to the descriptor: nothing is left in a buffer to fail again at close
            data = data[os.write(fd, data) :]
        os.fsync(fd)
    except OSError as e:
        with contextlib.suppress(OSError):
            os.ftruncate(fd, start)
        raise named(e, getattr(fh, "name", None)) from None


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
