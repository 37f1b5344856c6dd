"""One process at a time in an output folder: :func:`folder_lock`.

The lock is an exclusive ``flock`` on the folder's ``.lock`` file, which names its holder (PID,
host, start time) for the refusal message. The kernel releases a ``flock`` when its process ends,
however it ends (``kill -9``, a crash, a power cut), so a lock is never stale: a ``.lock`` file
left by a process that is gone is simply free, and the next run takes it over (and rewrites the
holder). The file itself is left in place, so no other process can race on its removal. On a
file system without ``flock`` (some network mounts) the folder is used unlocked, with a warning.
A lock is not re-entrant: a second :func:`folder_lock` of the same folder fails even in the same
process.
"""

from __future__ import annotations

import contextlib
import errno
import os
import socket
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: no advisory locks here
    fcntl = None  # type: ignore[assignment]

LOCK_FILE = ".lock"
BUSY = "is in use by another process"


class FolderInUse(ValueError):
    """The folder is locked by another process (a ``ValueError``: a one-line refusal)."""


def holder_text() -> str:
    """What a lock file records of its holder: PID, host and start time."""
    started = time.strftime("%Y-%m-%d %H:%M:%S")
    return f"pid {os.getpid()} on {socket.gethostname()} since {started}\n"


def _holder(fd: int) -> str:
    try:
        text = os.pread(fd, 200, 0).decode("utf-8", "replace").strip()
    except OSError:
        return ""
    return f" ({text})" if text.startswith("pid ") else ""


class FolderLock:
    """An acquired lock of ``folder`` (see the module docstring); :meth:`release` frees it."""

    def __init__(self, folder: str | os.PathLike, busy: str = BUSY) -> None:
        self.folder = Path(folder)
        self.path = self.folder / LOCK_FILE
        self.fd: int | None = None
        if fcntl is None:
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                holder = _holder(fd)
                os.close(fd)
                raise FolderInUse(
                    f"{self.folder} {busy}{holder}; wait for it to end or choose another folder"
                ) from None
            os.close(fd)  # ENOLCK, EOPNOTSUPP...: a file system without flock
            warnings.warn(f"{self.path}: cannot lock ({e.strerror}); using the folder unlocked", stacklevel=2)
            return
        self.fd = fd
        with contextlib.suppress(OSError):  # the holder's name is for messages only: a full disk
            os.ftruncate(fd, 0)  # must not stop the run here
            os.pwrite(fd, holder_text().encode(), 0)

    def release(self) -> None:
        """Free the lock (idempotent); the ``.lock`` file stays."""
        fd = getattr(self, "fd", None)
        if fd is not None:
            self.fd = None
            os.close(fd)  # closing the only descriptor drops the flock

    def __del__(self) -> None:
        self.release()


@contextmanager
def folder_lock(folder: str | os.PathLike, busy: str = BUSY) -> Iterator[FolderLock]:
    """Hold ``folder``'s lock (made with the folder if need be) for the block; :class:`FolderInUse`
    naming the holder when another process holds it."""
    lock = FolderLock(folder, busy)
    try:
        yield lock
    finally:
        lock.release()


def is_lock_file(path: Path) -> bool:
    """Is ``path`` a folder's lock file (to be ignored when asking whether a folder is empty)?"""
    return path.name == LOCK_FILE
