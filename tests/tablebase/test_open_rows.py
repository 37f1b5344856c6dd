"""The low-memory build's files of open positions (:mod:`mancala_envs.tablebase.open_rows`): records
read back as written, a full disk an ``OSError`` naming the folder, a damaged file an error, and no
file left behind — after a build, or one interrupted in the middle of a round."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mancala_envs import get_game, tablebase
from mancala_envs.tablebase import lowmem
from mancala_envs.tablebase.open_rows import RowFiles


def record(rng: np.random.Generator, m: int, n: int = 7):
    degree = rng.integers(0, n + 1, size=m).astype(np.uint8)
    rows = np.sort(rng.choice(1 << 20, size=m, replace=False)).astype(np.uint32)
    const = rng.integers(-127, 128, size=(m, 2)).astype(np.int8)
    flat = rng.integers(0, 1 << 30, size=int(degree.sum())).astype(np.int32)
    return rows, const, degree, flat


@settings(max_examples=25, deadline=None)
@given(sizes=st.lists(st.integers(0, 300), max_size=5), seed=st.integers(0, 2**32 - 1))
def test_records_read_back_as_written_and_a_round_empties_the_other_file(tmp_path_factory, sizes, seed):
    rng = np.random.default_rng(seed)
    written = [record(rng, m) for m in sizes]
    with RowFiles(tmp_path_factory.mktemp("rows")) as files:
        for r in written:
            files.write(*r)
        files.next_round()
        for _ in range(2):  # a file is read as often as asked
            read = list(files.records())
            assert len(read) == len(written)
            for got, want in zip(read, written, strict=True):
                for g, w in zip(got, want, strict=True):
                    assert g.dtype == w.dtype
                    np.testing.assert_array_equal(g, w)
        files.next_round()  # nothing written this round
        assert list(files.records()) == []


def test_a_full_disk_is_an_os_error_naming_the_folder(tmp_path):
    with RowFiles(tmp_path) as files:
        files.write_file.close()
        files.write_file = open("/dev/full", "wb")  # noqa: SIM115 - closed by RowFiles
        with pytest.raises(OSError, match=str(tmp_path)) as err:
            for _ in range(64):  # buffered: the error comes at the latest with the flush
                files.write(*record(np.random.default_rng(0), 4096))
            files.next_round()
        assert err.value.errno == 28


def test_a_damaged_file_is_an_error(tmp_path):
    with RowFiles(tmp_path) as files:
        files.write(*record(np.random.default_rng(1), 100))
        files.next_round()
        files.read_file.truncate(files.read_file.seek(0, os.SEEK_END) - 3)
        with pytest.raises(OSError, match="ends early"):
            list(files.records())


def open_files_under(folder: Path) -> list[str]:
    """This process's open files in ``folder`` with no name left (anonymous or deleted ones), each
    once (a file mapped into memory also holds a descriptor of its own)."""
    links = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            links.append(os.readlink(f"/proc/self/fd/{fd}"))
        except OSError:
            continue
    return sorted({x for x in links if x.startswith(str(folder)) and x.endswith("(deleted)")})


class Stop(Exception):
    pass


def test_no_file_is_left_after_a_build_or_an_interrupted_round(tmp_path, tmp_path_factory, monkeypatch):
    game = get_game("en_dodoi", holes_per_row=6)
    monkeypatch.setattr(lowmem, "MIN_GRAPH_ROWS", 0)  # rounds read from the files to the end
    monkeypatch.setattr("mancala_envs.tablebase.builder.LOW_MEMORY_BYTES", 0)
    # Compiled first, elsewhere: numba's first compilation of a kernel leaves reference cycles that
    # hold its arguments (views of the mapped file) until the garbage collector runs.
    for seeds in (6, 8):
        tablebase.build(game, seeds, tmp_path_factory.mktemp("compile") / "table", low_memory=True)
    tablebase.build(game, 6, tmp_path / "done", low_memory=True)
    assert sorted(p.name for p in (tmp_path / "done").iterdir() if p.name.startswith(".open")) == []
    assert open_files_under(tmp_path) == []

    calls = []
    stream_rows = lowmem.stream_rows

    def stop_in_the_third_round(*args):
        calls.append(1)
        if len(calls) == 3:
            assert len(open_files_under(tmp_path / "stopped")) == 2  # both files exist meanwhile
            raise Stop
        return stream_rows(*args)

    monkeypatch.setattr(lowmem, "stream_rows", stop_in_the_third_round)
    with pytest.raises(Stop):
        tablebase.build(game, 8, tmp_path / "stopped", low_memory=True)
    assert open_files_under(tmp_path) == []
    assert sorted(p.name for p in (tmp_path / "stopped").iterdir() if p.name.startswith(".open")) == []
