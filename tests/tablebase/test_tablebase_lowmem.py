"""The low-memory build (``tablebase.build(..., low_memory=True)``, ``--low-memory``): no moves kept
in memory, rounds read from files of the open positions until they fit a small graph.

Its values equal the brute-force solver's for every game and En Dodoi width, and its files (values,
rounds, every layer's checksums, rounds and counts in the header) are byte-identical to the default
build's, whether the small graph takes over after the first round, part-way, or never (a budget of
nothing makes every round read the files); an interrupted low-memory build resumes to the same
files, and either build resumes the other's table; rounds past a byte are widened; the file of open
rows rewritten every round, at half, or never gives the same files; a round recomputes only the rows
with a child that changed.
"""

from __future__ import annotations

import filecmp
import json

import numpy as np
import pytest
from tablebase_reference import Reference, all_keys
from test_tablebase import small_k
from variants import ALL, ALL_IDS

from mancala_envs import get_game, tablebase
from mancala_envs.cli.tablebase import main as tablebase_main
from mancala_envs.tablebase import builder, lowmem, store
from mancala_envs.tablebase.index import layer_offsets

# K per game whose in-layer iteration takes many rounds (Songo Ewondo: 100+), so that every way of
# ending a layer happens: sweeps to the fixpoint, a switch to the small graph part-way, at once.
DEEP_K = {"songo_ewondo": 7, "sadeqa_ii": 10, 6: 10, 7: 8, 8: 7, 9: 6, 10: 6}


def layers_of(folder):
    header = json.loads((folder / store.HEADER).read_text())
    return [(x["seeds"], x["rounds"], x["finished_positions"], x["crc32"]) for x in header["layers"]]


def assert_same_files(a, b):
    for name in (store.VALUES, store.ROUNDS):
        assert filecmp.cmp(a / name, b / name, shallow=False), name
    assert layers_of(a) == layers_of(b)


def small_budget(monkeypatch, rows: int) -> None:
    """A graph budget of ``rows`` rows whatever the table's size."""
    monkeypatch.setattr(builder, "LOW_MEMORY_BYTES", 0)
    monkeypatch.setattr(lowmem, "MIN_GRAPH_ROWS", rows)


@pytest.mark.parametrize(("name", "params"), ALL, ids=ALL_IDS)
def test_low_memory_values_equal_the_brute_force(name, params, tmp_path, monkeypatch):
    game = get_game(name, **params)
    k = small_k(name, params)
    small_budget(monkeypatch, 8)
    tb = tablebase.build(game, k, tmp_path / "low", low_memory=True)
    ref = Reference(game, all_keys(game, k))
    checked = 0
    for key in ref.a:
        state = ref.state(key)
        if state.done:
            assert not tb.covers(state)
            continue
        assert tb.bounds(state) == (ref.a[key], ref.b[key]), key
        checked += 1
    assert checked > 0


@pytest.mark.parametrize("rows", [0, 40, 1 << 40], ids=["sweeps-only", "switch-part-way", "graph-at-once"])
@pytest.mark.parametrize(("name", "params"), ALL, ids=ALL_IDS)
def test_low_memory_files_are_byte_identical_to_the_default_build(name, params, rows, tmp_path, monkeypatch):
    game = get_game(name, **params)
    k = DEEP_K[params["holes_per_row"]] if name == "en_dodoi" else DEEP_K[name]
    tablebase.build(game, k, tmp_path / "default")
    small_budget(monkeypatch, rows)
    seen: list[tuple[int, int]] = []
    monkeypatch.setattr(lowmem, "iterate", _spy(lowmem.iterate, seen))
    tablebase.build(game, k, tmp_path / "low", low_memory=True)
    assert_same_files(tmp_path / "default", tmp_path / "low")
    if rows == 0:
        assert all(size == 0 for size, _ in seen)  # never a graph with an open position
    if rows == 1 << 40:
        assert all(start == 1 for _, start in seen)  # the graph after the first sweep
    if rows == 40 and name == "songo_ewondo":
        assert any(start > 1 for _, start in seen)  # sweeps first, then the graph


def _spy(iterate, seen):
    def spy(edges, const, cur, rounds, dirty, round_no, on_round=None):
        seen.append((edges.shape[0], round_no))
        return iterate(edges, const, cur, rounds, dirty, round_no, on_round)

    return spy


class Stop(Exception):
    pass


def test_an_interrupted_low_memory_build_resumes_to_the_same_files(tmp_path, monkeypatch):
    game = get_game("songo_ewondo")
    tablebase.build(game, 7, tmp_path / "default")
    small_budget(monkeypatch, 40)

    def stop_at_5(k, layer):
        if k == 5:
            raise Stop

    with pytest.raises(Stop):
        tablebase.build(game, 7, tmp_path / "low", low_memory=True, on_layer=stop_at_5)
    assert json.loads((tmp_path / "low" / store.HEADER).read_text())["max_seeds"] == 5
    # layer 6's values half-written in place, as an interruption inside a sweep leaves them
    offsets = layer_offsets(7, 14)
    values = np.memmap(tmp_path / "low" / store.VALUES, dtype=np.int8, mode="r+", shape=(int(offsets[8]), 2))
    values[int(offsets[6]) : int(offsets[7])] = 5
    values.flush()
    del values
    tablebase.build(game, 7, tmp_path / "low", low_memory=True)
    assert_same_files(tmp_path / "default", tmp_path / "low")


def test_each_build_resumes_the_other(tmp_path):
    game = get_game("en_dodoi", holes_per_row=7)
    tablebase.build(game, 8, tmp_path / "default")
    tablebase.build(game, 5, tmp_path / "a")
    tablebase.build(game, 8, tmp_path / "a", low_memory=True)
    tablebase.build(game, 5, tmp_path / "b", low_memory=True)
    tablebase.build(game, 8, tmp_path / "b")
    assert_same_files(tmp_path / "default", tmp_path / "a")
    assert_same_files(tmp_path / "default", tmp_path / "b")


def test_the_command_takes_low_memory(tmp_path):
    game = get_game("sadeqa_ii")
    tablebase.build(game, 8, tmp_path / "default")
    status = tablebase_main(
        ["build", "sadeqa_ii", "--max-seeds", "8", "--out", str(tmp_path / "low"), "--low-memory", "--quiet"]
    )
    assert status == 0
    assert_same_files(tmp_path / "default", tmp_path / "low")


def test_bad_low_memory_options_are_refused(tmp_path):
    game = get_game("sadeqa_ii")
    with pytest.raises(ValueError, match="low_memory must be True or False"):
        tablebase.build(game, 4, tmp_path, low_memory="yes")
    with pytest.raises(ValueError, match="cannot take a ray_address"):
        tablebase.build(game, 4, tmp_path, low_memory=True, ray_address="local")
    assert not (tmp_path / store.HEADER).exists()


@pytest.mark.parametrize("rows", [0, 40], ids=["sweeps-only", "switch-part-way"])
def test_rounds_past_a_byte_are_widened_and_the_files_unchanged(rows, tmp_path, monkeypatch):
    game = get_game("songo_ewondo")  # layers of 100+ rounds
    tablebase.build(game, 7, tmp_path / "default")
    small_budget(monkeypatch, rows)
    monkeypatch.setattr(lowmem, "BYTE_ROUNDS", 20)
    kinds = []
    solve = builder.solve_layer_low_memory

    def spy(*args):
        rounds, n_rounds, finished = solve(*args)
        kinds.append((rounds.dtype, n_rounds))
        return rounds, n_rounds, finished

    monkeypatch.setattr(builder, "solve_layer_low_memory", spy)
    tablebase.build(game, 7, tmp_path / "low", low_memory=True)
    assert_same_files(tmp_path / "default", tmp_path / "low")
    assert {dtype for dtype, n in kinds if n > 20} == {np.dtype(np.uint16)}
    assert {dtype for dtype, n in kinds if n <= 20} == {np.dtype(np.uint8)}


@pytest.mark.parametrize("share", [0.0, 0.5, 1.0], ids=["never", "at-half", "every-round"])
@pytest.mark.parametrize("rows", [0, 40], ids=["sweeps-only", "switch-part-way"])
def test_the_rows_file_rewritten_or_not_gives_the_same_files(share, rows, tmp_path, monkeypatch):
    game = get_game("songo_ewondo")
    tablebase.build(game, 7, tmp_path / "default")
    small_budget(monkeypatch, rows)
    monkeypatch.setattr(lowmem, "REWRITE_SHARE", share)
    monkeypatch.setattr(lowmem, "BLOCK", 1000)  # layers of several records
    rewrites = []
    next_round = lowmem._next_round

    def spy(values, lo, changed_bits, pending_bits, fresh, files, rewrite, on_chunk):
        rewrites.append(rewrite)
        return next_round(values, lo, changed_bits, pending_bits, fresh, files, rewrite, on_chunk)

    monkeypatch.setattr(lowmem, "_next_round", spy)
    tablebase.build(game, 7, tmp_path / "low", low_memory=True)
    assert_same_files(tmp_path / "default", tmp_path / "low")
    assert (True in rewrites) == (share > 0)
    assert (False in rewrites) == (share < 1)


def test_a_round_recomputes_only_rows_with_a_changed_child():
    values = np.array([[0, 0], [-3, 3], [-5, 5], [1, 1], [-2, 2]], dtype=np.int8)  # layer of 5 at 0
    rows = np.array([1, 2, 3, 4], dtype=np.uint32)  # row 3 final since the file was written
    row_const = np.full((4, 2), -9, dtype=np.int8)
    degree = np.array([1, 1, 1, 1], dtype=np.uint8)
    flat = np.array([2 << 1, 0 << 1, 1 << 1, 4 << 1 | 1], dtype=np.int32)  # 1->2, 2->0, 3->1, 4->4 (again)
    fresh = np.full((5, 2), 99, dtype=np.int8)
    open_next = np.full(4, 7, dtype=np.uint8)
    changed_bits = np.array([1 << 2 | 1 << 4], dtype=np.uint64)  # positions 2 and 4 changed last round
    pending = np.zeros(1, dtype=np.uint64)
    lowmem.stream_rows(rows, row_const, degree, flat, values, 0, changed_bits, fresh, open_next, pending)
    assert fresh[1].tolist() == [-5, 5]  # recomputed: (-B(2), -A(2)), and flagged
    assert fresh[2].tolist() == [99, 99]  # child 0 unchanged: not recomputed (it would be (0, 0))
    assert fresh[3].tolist() == [99, 99] and open_next.tolist() == [1, 1, 0, 1]  # final: skipped
    assert fresh[4].tolist() == [99, 99]  # recomputed, the same values: not flagged
    assert pending.tolist() == [1 << 1]


def test_a_commit_of_the_flagged_positions():
    rng = np.random.default_rng(3)
    size = 64 * 64 * 3 + 11  # several parallel parts of the bitmap
    cur = np.tile(np.array([[-4, 4]], dtype=np.int8), (size, 1))
    fresh = np.zeros((size, 2), dtype=np.int8)  # a flagged position closes at (0, 0)
    flagged = rng.random(size) < 0.2
    fresh[flagged & (np.arange(size) % 2 == 1)] = [[-1, 3]]  # or stays open
    pending = np.packbits(flagged, bitorder="little")
    pending = np.concatenate([pending, np.zeros(-len(pending) % 8, np.uint8)]).view(np.uint64)
    clear = np.full_like(pending, 12345)
    rounds = np.zeros((size, 2), dtype=np.uint16)
    changed, closed = lowmem.commit_pending(300, cur, fresh, rounds, pending, clear)
    assert changed == flagged.sum() and closed == (flagged & (np.arange(size) % 2 == 0)).sum()
    assert (cur[flagged] == fresh[flagged]).all() and (cur[~flagged] == [-4, 4]).all()
    assert (rounds[flagged] == 300).all() and (rounds[~flagged] == 0).all() and not clear.any()


def test_a_commit_flags_exactly_the_positions_that_changed():
    assert lowmem.CHUNK % 64 == 0  # each parallel chunk owns whole words of the bitmap
    rng = np.random.default_rng(5)
    size = 3 * lowmem.CHUNK + 77
    cur = rng.integers(-3, 3, size=(size, 2)).astype(np.int8)
    cur[:, 1] = np.maximum(cur[:, 0], cur[:, 1])  # A <= B; some final
    fresh = cur.copy()
    moved = rng.random(size) < 0.1
    opened = cur[:, 0] != cur[:, 1]
    fresh[moved & opened, 0] += 1  # A rises at some open positions (may close them)
    rounds = np.zeros((size, 2), dtype=np.uint8)
    bits = np.full((size + 63) // 64, np.uint64(0xFFFFFFFFFFFFFFFF))  # stale bits from an earlier round
    changed, still_open = lowmem.commit_layer(7, cur, fresh, rounds, bits)
    flagged = np.unpackbits(bits.view(np.uint8), bitorder="little")[:size].astype(bool)
    assert flagged.tolist() == (moved & opened).tolist()
    assert changed == int((moved & opened).sum()) and still_open == int((cur[:, 0] != cur[:, 1]).sum())
    assert (rounds[moved & opened, 0] == 7).all() and (rounds[~(moved & opened)] == 0).all()
