"""The open positions of a low-memory layer and their in-layer moves, on disk between rounds.

A *record* holds up to a block of open positions (rows): each row's position in the layer
(``uint32``), its constants (``int8`` pairs: the moves that leave the layer, and the in-layer moves
to positions already final, folded in), its number of in-layer moves (``uint8``) and those moves
(``int32`` edges, ``(rank << 1) | same_mover``, all rows' one after the other), each part padded to
8 bytes. A round reads the records of one file, mapped into memory, and writes the rows still open to
another (:class:`RowFiles`); the files are anonymous (:func:`tempfile.TemporaryFile` in the table's
folder: they vanish when closed and unmapped, or when the process dies) and live only while a layer
is built.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
from numba import njit

from mancala_envs.core.fast import inline_kernel
from mancala_envs.tablebase.kernels import edge_terms

RECORD_HEADER = 2  # int64: rows, edges
ALIGN = 8  # every part of a record starts at a multiple of this many bytes


@inline_kernel
def fold_if_final(x, values, lo, a, b):
    """Edge ``x``'s terms folded into the constants ``(a, b)`` if its child is final in ``values``
    (``A == B``: the term never changes again). Returns ``(a, b, folded)``."""
    q = lo + (x >> 1)
    if values[q, 0] != values[q, 1]:
        return a, b, False
    ta, tb = edge_terms(x, values, lo)
    return max(a, ta), max(b, tb), True


@njit(cache=True)
def pack_open(start, open_next, edges, const, values, lo, rows, row_const, degree, flat):
    """The rows of block ``start`` flagged in ``open_next`` (their edges in ``edges``, one slot a
    hole, and constants in ``const``) as a record in ``rows``, ``row_const``, ``degree`` and
    ``flat``, their edges to positions final in ``values`` folded into their constants; returns the
    rows and edges written."""
    m = 0
    e = 0
    for i in range(open_next.shape[0]):
        if open_next[i] == 0:
            continue
        a = np.int32(const[i, 0])
        b = np.int32(const[i, 1])
        d = 0
        for j in range(edges.shape[1]):
            x = edges[i, j]
            if x < 0:
                continue
            a, b, folded = fold_if_final(x, values, lo, a, b)
            if not folded:
                flat[e] = x
                e += 1
                d += 1
        rows[m] = start + i
        row_const[m, 0] = a
        row_const[m, 1] = b
        degree[m] = d
        m += 1
    return m, e


@njit(cache=True)
def repack_open(rows, row_const, degree, flat, open_next, values, lo):
    """Keep, in place, the rows of a record flagged in ``open_next``, folding their edges to
    positions final in ``values`` into their constants; returns the rows and edges kept."""
    m = 0
    e = 0
    src = 0
    for r in range(rows.shape[0]):
        end = src + degree[r]
        if open_next[r] == 0:
            src = end
            continue
        a = np.int32(row_const[r, 0])
        b = np.int32(row_const[r, 1])
        d = 0
        for k in range(src, end):
            x = flat[k]
            a, b, folded = fold_if_final(x, values, lo, a, b)
            if not folded:
                flat[e] = x
                e += 1
                d += 1
        src = end
        rows[m] = rows[r]
        row_const[m, 0] = a
        row_const[m, 1] = b
        degree[m] = d
        m += 1
    return m, e


class RowFiles:
    """Two anonymous files in ``folder``: the rows of this round (read) and of the next (written).
    A context manager: both are closed (and so gone) on leaving it."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.read_file = tempfile.TemporaryFile(dir=folder, prefix=".open-rows-")  # noqa: SIM115 (close)
        self.write_file = tempfile.TemporaryFile(dir=folder, prefix=".open-rows-")  # noqa: SIM115

    def __enter__(self) -> RowFiles:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def write(self, rows, row_const, degree, flat) -> None:
        """Append one record to the file being written (``OSError`` naming the folder if the disk is
        full, here or when the round's file is flushed by :meth:`next_round`)."""
        head = np.array([rows.shape[0], flat.shape[0]], dtype=np.int64)
        try:
            for part in (head, rows, row_const, degree, flat):
                if part.size:
                    self.write_file.write(memoryview(np.ascontiguousarray(part)).cast("B"))
                    self.write_file.write(bytes(_padded(part.nbytes) - part.nbytes))
        except OSError as err:
            raise self._error(err) from err

    def records(self) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
        """The records of the file being read: ``(rows, const, degree, edges)``, views of the file
        mapped into memory (no copy; private: changing them leaves the file as it is; the mapping
        lasts as long as they do)."""
        fd = self.read_file.fileno()
        size = os.fstat(fd).st_size
        at = 0
        while at < size:
            head = np.frombuffer(_bytes_at(fd, at, RECORD_HEADER * 8, size), dtype=np.int64)
            m, e = int(head[0]), int(head[1])
            parts = [(np.uint32, m), (np.int8, 2 * m), (np.uint8, m), (np.int32, e)]
            lengths = [_padded(np.dtype(t).itemsize * n) for t, n in parts]
            start = at + RECORD_HEADER * 8
            at = start + sum(lengths)
            if at > size or m < 0 or e < 0:
                raise OSError(f"a low-memory build's file of open positions ends early ({at} > {size} bytes)")
            base = start - start % mmap.ALLOCATIONGRANULARITY
            mapped = mmap.mmap(fd, at - base, access=mmap.ACCESS_COPY, offset=base) if at > start else b""
            views, offset = [], start - base
            for (dtype, count), length in zip(parts, lengths, strict=True):
                views.append(
                    np.frombuffer(mapped, dtype=dtype, count=count, offset=offset)
                    if count
                    else np.empty(0, dtype)
                )
                offset += length
            rows, row_const, degree, flat = views
            yield rows, row_const.reshape(m, 2), degree, flat

    def next_round(self) -> None:
        """The file just written becomes the one read; the other is replaced by an empty one (the
        views of its records stay valid: a file mapped into memory outlives its closing)."""
        try:
            self.write_file.flush()
            empty = tempfile.TemporaryFile(dir=self.folder, prefix=".open-rows-")  # noqa: SIM115
        except OSError as err:
            raise self._error(err) from err
        old = self.read_file
        self.read_file, self.write_file = self.write_file, empty
        old.close()

    def _error(self, err: OSError) -> OSError:
        return OSError(
            err.errno, f"writing a low-memory build's open positions in {self.folder}: {err.strerror}"
        )

    def close(self) -> None:
        """Close (and so delete) both files; what a full disk kept from being written is dropped
        with them, so closing raises nothing of it (the write or flush that failed did)."""
        for f in (self.read_file, self.write_file):
            with contextlib.suppress(OSError):
                f.close()


def _padded(nbytes: int) -> int:
    return nbytes + (-nbytes % ALIGN)


def _bytes_at(fd: int, at: int, n: int, size: int) -> bytes:
    """``n`` bytes of the file at ``at``; a file that ends before them is damaged."""
    got = os.pread(fd, n, at) if at + n <= size else b""
    if len(got) != n:
        raise OSError(f"a low-memory build's file of open positions ends early ({size - at} of {n} bytes)")
    return got
