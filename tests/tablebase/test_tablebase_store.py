"""The tablebase on disk and its API contract (TABLEBASE.md §4): header checks, resumable builds,
the default location, coverage and the errors for states a table does not cover."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mancala_envs import get_game, tablebase
from mancala_envs.tablebase import store


@pytest.fixture(scope="module")
def sadeqa(tmp_path_factory):
    return tablebase.build(get_game("sadeqa_ii"), max_seeds=5, path=tmp_path_factory.mktemp("sq") / "t")


def state(game, board, to_move=0, **kw):
    rest = game.total_seeds - sum(board)
    return game.state_from(board=board, captured=[rest - rest // 2, rest // 2], to_move=to_move, **kw)


def small_board(game, seeds):
    board = [0] * (2 * game.holes_per_row)
    board[0] = seeds - seeds // 2
    board[game.holes_per_row + 1] = seeds // 2
    return board


def test_api_attributes_and_repr(sadeqa):
    assert sadeqa.game == get_game("sadeqa_ii")
    assert sadeqa.max_seeds == 5
    assert "sadeqa_ii" in repr(sadeqa) and "max_seeds=5" in repr(sadeqa)
    header = json.loads((sadeqa.path / store.HEADER).read_text())
    assert header["game"] == "sadeqa_ii" and header["version"] == store.VERSION
    assert [layer["seeds"] for layer in header["layers"]] == list(range(6))


def test_covers(sadeqa):
    game = sadeqa.game
    assert sadeqa.covers(state(game, small_board(game, 5)))
    assert not sadeqa.covers(state(game, small_board(game, 6)))
    assert not sadeqa.covers(state(game, small_board(game, 4), first_move_pending=[False, True]))
    assert not sadeqa.covers(game.initial_state())
    over = state(game, [0] * 6 + [1] + [0] * 5)  # the mover's row is empty: SQ6 ended it
    assert over.done and not sadeqa.covers(over)
    short = get_game("sadeqa_ii", max_plies=1)
    s = short.apply(state(short, [2, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0]), 0)
    assert s.truncated and not sadeqa.covers(s)
    assert sadeqa.covers(state(short, [2, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0]))  # any max_plies


@pytest.mark.parametrize("method", ["outcome", "bounds", "best_actions", "move_outcomes", "probe"])
def test_uncovered_states_raise(sadeqa, method):
    game = sadeqa.game
    with pytest.raises(ValueError, match="6 seeds on the board"):
        getattr(sadeqa, method)(state(game, small_board(game, 6)))
    with pytest.raises(ValueError, match="opening move is pending"):
        getattr(sadeqa, method)(state(game, small_board(game, 3), first_move_pending=[True, True]))
    other = get_game("en_dodoi", holes_per_row=6)
    with pytest.raises(ValueError, match="en_dodoi_6 state"):
        getattr(sadeqa, method)(state(other, small_board(other, 3)))
    with pytest.raises(ValueError, match="expected a State"):
        getattr(sadeqa, method)([0] * 12)


def test_bad_arguments(tmp_path):
    game = get_game("sadeqa_ii")
    for bad in (-1, 3.0, "3", True, 500):
        with pytest.raises(ValueError, match="max_seeds"):
            tablebase.build(game, max_seeds=bad, path=tmp_path)
    with pytest.raises(ValueError, match="must be a Game"):
        tablebase.build("sadeqa_ii", max_seeds=3, path=tmp_path)
    with pytest.raises(ValueError, match="not a tablebase"):
        tablebase.load(tmp_path)


@pytest.mark.parametrize("low_memory", [False, True])
def test_a_layer_too_large_for_its_move_codes_is_refused_before_any_file(tmp_path, low_memory):
    game = get_game("songo_ewondo")  # layer 22: 1,476,337,800 boards, more than 2**30
    with pytest.raises(ValueError, match=r"layer of 22 seeds holds 1,476,337,800 boards.*max_seeds <= 21"):
        tablebase.build(game, 22, tmp_path / "t", low_memory=low_memory)
    assert not (tmp_path / "t").exists()


def test_header_checks(sadeqa, tmp_path):
    path = tmp_path / "copy"
    path.mkdir()
    for f in sadeqa.path.iterdir():
        (path / f.name).write_bytes(f.read_bytes())
    assert tablebase.load(path).max_seeds == 5
    with pytest.raises(ValueError, match="is a table of sadeqa_ii, not of songo_ewondo"):
        tablebase.load(path, get_game("songo_ewondo"))
    with pytest.raises(ValueError, match="is a table of sadeqa_ii"):
        tablebase.build(get_game("en_dodoi", holes_per_row=6), max_seeds=3, path=path)
    with pytest.raises(ValueError, match="holds layers up to 5 seeds, not 6"):
        tablebase.load(path, max_seeds=6)
    assert tablebase.load(path, max_seeds=3).max_seeds == 3
    assert tablebase.load(path, get_game("sadeqa_ii", max_plies=77)).max_seeds == 5

    good = (path / store.HEADER).read_text()

    def edited(**changes) -> None:
        header = json.loads(good)
        header.update(changes)
        (path / store.HEADER).write_text(json.dumps(header))

    edited(version=store.VERSION + 1)
    with pytest.raises(ValueError, match="format version"):
        tablebase.load(path)
    edited(format="something else")
    with pytest.raises(ValueError, match="header"):
        tablebase.load(path)
    edited(params={"holes_per_row": 7})
    with pytest.raises(ValueError, match="names no known game"):
        tablebase.load(path)
    rules = json.loads(good)["rules"]
    edited(rules=[*rules[:-1], rules[-1] + 1])
    with pytest.raises(ValueError, match="other rules"):
        tablebase.load(path)
    (path / store.HEADER).write_text("{not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        tablebase.load(path)
    (path / store.HEADER).write_text(good)

    values = bytearray((path / store.VALUES).read_bytes())
    values[-1] ^= 1
    (path / store.VALUES).write_bytes(bytes(values))
    with pytest.raises(ValueError, match="layer 5 fails its checksum"):
        tablebase.load(path)
    (path / store.VALUES).write_bytes(bytes(values[:10]))
    with pytest.raises(ValueError, match="shorter than"):
        tablebase.load(path)


def test_interrupted_build_keeps_its_layers_and_resumes(tmp_path):
    game = get_game("en_dodoi", holes_per_row=6)
    fresh = tablebase.build(game, max_seeds=6, path=tmp_path / "fresh")
    seen = []

    def interrupt_after_3(k: int, layer: dict) -> None:
        seen.append(k)
        if k == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        tablebase.build(game, max_seeds=6, path=tmp_path / "t", on_layer=interrupt_after_3)
    assert seen == [0, 1, 2, 3]
    assert tablebase.load(tmp_path / "t").max_seeds == 3  # the finished layers are kept
    seen.clear()
    tb = tablebase.build(game, max_seeds=6, path=tmp_path / "t", on_layer=lambda k, layer: seen.append(k))
    assert seen == [4, 5, 6]  # resumed after them
    np.testing.assert_array_equal(tb.values, fresh.values)
    np.testing.assert_array_equal(tb.rounds, fresh.rounds)
    seen.clear()
    assert tablebase.build(game, max_seeds=4, path=tmp_path / "t", on_layer=seen.append).max_seeds == 4
    assert seen == []  # a complete table is loaded, not rebuilt


def test_a_damaged_layer_is_never_built_on(tmp_path):
    game = get_game("en_dodoi", holes_per_row=6)
    tablebase.build(game, max_seeds=3, path=tmp_path)
    values = bytearray((tmp_path / store.VALUES).read_bytes())
    values[0] ^= 1
    (tmp_path / store.VALUES).write_bytes(bytes(values))
    with pytest.raises(ValueError, match="layer 0 fails its checksum"):
        tablebase.build(game, max_seeds=4, path=tmp_path)


def test_a_table_being_built_is_locked(tmp_path):
    game = get_game("en_dodoi", holes_per_row=6)
    with store.build_lock(tmp_path), pytest.raises(ValueError, match="being built by another process"):
        tablebase.build(game, max_seeds=2, path=tmp_path)


def test_default_location(tmp_path, monkeypatch):
    game = get_game("en_dodoi", holes_per_row=7)
    monkeypatch.delenv("MANCALA_TABLEBASE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert tablebase.default_path(game) == tmp_path / "cache" / "mancala_envs" / "tablebases" / "en_dodoi_7"
    tb = tablebase.build(game, max_seeds=2)
    assert tb.path == tablebase.default_path(game) and (tb.path / store.HEADER).is_file()
    monkeypatch.setenv("MANCALA_TABLEBASE_DIR", str(tmp_path / "tables"))
    assert tablebase.default_path(game) == tmp_path / "tables" / "en_dodoi_7"
    assert tablebase.table_name(get_game("songo_ewondo")) == "songo_ewondo"


def test_malformed_headers_are_refused_by_field_before_any_allocation(sadeqa, tmp_path):
    """Every field of ``header.json`` is checked (:mod:`mancala_envs.tablebase.header`) before a size
    is computed from it: a huge ``max_seeds`` is refused at once, not allocated."""
    import time

    from mancala_envs.tablebase.header import check_header

    path = tmp_path / "copy"
    path.mkdir()
    for f in sadeqa.path.iterdir():
        (path / f.name).write_bytes(f.read_bytes())
    good = json.loads((path / store.HEADER).read_text())
    assert check_header(good, path) == get_game("sadeqa_ii")
    layer = good["layers"][2]
    cases = [
        ({"max_seeds": 1000000000}, "max_seeds"),
        ({"max_seeds": -2}, "max_seeds"),
        ({"max_seeds": 4.0}, "max_seeds"),
        ({"max_seeds": 4}, "layers"),
        ({"layers": None}, "layers"),
        ({"layers": [*good["layers"][:2], "layer", *good["layers"][3:]]}, r"layers\[2\]"),
        (
            {"layers": [*good["layers"][:2], {**layer, "positions": -1}, *good["layers"][3:]]},
            r"layers\[2\]\.positions",
        ),
        (
            {"layers": [*good["layers"][:2], {**layer, "seeds": 3}, *good["layers"][3:]]},
            r"layers\[2\]\.seeds",
        ),
        (
            {"layers": [*good["layers"][:2], {**layer, "rounds": -1}, *good["layers"][3:]]},
            r"layers\[2\]\.rounds",
        ),
        (
            {"layers": [*good["layers"][:2], {**layer, "crc32": {}}, *good["layers"][3:]]},
            r"layers\[2\]\.crc32",
        ),
        ({"holes": "12"}, "holes"),
        ({"holes": 14}, "holes"),
        ({"rules": None}, "rules"),
        ({"rules": ["1"]}, r"rules\[0\]"),
        ({"params": []}, "params"),
        ({"params": {"max_plies": "1000"}}, "params.max_plies"),
        ({"game": None}, "game"),
    ]
    for change, field in cases:
        header = {**good, **change}
        with pytest.raises(ValueError, match=rf"header\.json is damaged: .*{field}"):
            check_header(header, path)
        (path / store.HEADER).write_text(json.dumps(header))
        start = time.perf_counter()
        with pytest.raises(ValueError, match=rf"header\.json is damaged: .*{field}"):
            tablebase.load(path)
        assert time.perf_counter() - start < 5
    (path / store.HEADER).write_text(json.dumps(good))
    (path / store.ROUNDS).write_bytes((path / store.ROUNDS).read_bytes()[:-2])
    with pytest.raises(ValueError, match=r"rounds\.u8 is damaged: shorter than"):
        check_header(good, path)


def test_files_take_two_bytes_a_covered_position(sadeqa):
    sizes = {f.name: f.stat().st_size for f in sadeqa.path.iterdir() if f.suffix in (".i8", ".u8")}
    assert sizes == {store.VALUES: sadeqa.positions * 2, store.ROUNDS: sadeqa.positions * 2}
    assert sum(sizes.values()) == 2 * sadeqa.covered_positions
    assert sadeqa.rounds.dtype == np.uint8


def test_a_table_whose_rounds_outgrow_a_byte_is_widened_to_format_1(tmp_path, monkeypatch):
    """Songo Ewondo's layers need 14-116 rounds up to 7 seeds: with room for 20 a byte, the build
    widens the table to format 1 (two-byte rounds) at layer 3 and goes on; its values and rounds
    equal those of a format-2 table, it loads, and it extends as format 1."""
    from mancala_envs.tablebase import builder

    game = get_game("songo_ewondo")
    plain = tablebase.build(game, 7, tmp_path / "plain")
    assert max(layer["rounds"] for layer in plain.header["layers"]) > 20
    monkeypatch.setattr(builder, "MAX_BYTE_ROUND", 20)
    wide = tablebase.build(game, 5, tmp_path / "wide")
    assert wide.header["version"] == 1 and wide.rounds.dtype == np.uint16
    assert not (tmp_path / "wide" / store.ROUNDS).exists() and (tmp_path / "wide" / store.ROUNDS_V1).is_file()
    monkeypatch.setattr(builder, "MAX_BYTE_ROUND", 255)
    tablebase.build(game, 7, tmp_path / "wide", low_memory=True)  # a format-1 table extends as format 1
    again = tablebase.load(tmp_path / "wide")
    assert again.header["version"] == 1
    assert np.array_equal(again.values, plain.values)
    assert np.array_equal(again.rounds.astype(np.int64), plain.rounds.astype(np.int64))
    state = game.state_from(board=[1, 0, 0, 2, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0], captured=[35, 30], to_move=0)
    assert again.covers(state)
    assert again.rounds_of(state) == plain.rounds_of(state)
    assert np.array_equal(again.probe(state).moves, plain.probe(state).moves)


def test_a_damaged_format_1_table_and_a_newer_version_are_refused(tmp_path, monkeypatch):
    from mancala_envs.tablebase import builder

    monkeypatch.setattr(builder, "MAX_BYTE_ROUND", -1)  # every table widens at its first layer
    game = get_game("sadeqa_ii")
    tb = tablebase.build(game, 4, tmp_path / "t")
    assert tb.header["version"] == 1
    rounds = tmp_path / "t" / store.ROUNDS_V1
    data = bytearray(rounds.read_bytes())
    data[-1] ^= 1
    rounds.write_bytes(bytes(data))
    with pytest.raises(ValueError, match=r"rounds\.u16 is damaged: layer 4 fails its checksum"):
        tablebase.load(tmp_path / "t", verify=True)
    header = json.loads((tmp_path / "t" / store.HEADER).read_text())
    header["version"] = 3
    (tmp_path / "t" / store.HEADER).write_text(json.dumps(header))
    with pytest.raises(ValueError, match="format version 3; this code reads 1 or 2"):
        tablebase.load(tmp_path / "t")
