"""The retrograde build (``tablebase.build(..., retrograde=True)``, ``--retrograde``): every position
settled once per side by counting over predecessors generated from the rules.

Its values are byte-identical to value iteration's (the default build's), fresh or resumed from
either build's table; the predecessors it generates are exactly the reversed moves of a layer;
its ranks let the winner convert (a won position has a move to a lower rank, a lost one none to
a higher) and are never below value iteration's rounds; the ``perfect`` agent converts with them;
relay games, and bad options, are refused before any file is made.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from perfect_play import play_from, random_positions

from mancala_envs import get_game, tablebase
from mancala_envs.agents.registry import make_agent
from mancala_envs.cli.tablebase import main as tablebase_main
from mancala_envs.tablebase import retrograde, store
from mancala_envs.tablebase.index import compositions_table, layer_offsets
from mancala_envs.tablebase.kernels import NEG_INF, POS_INF, expand_layer
from mancala_envs.tablebase.table import unbounded_rules

SONGO = get_game("songo_ewondo")
K = 8  # Songo Ewondo's layers need 100+ rounds of value iteration from K = 6 on


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    root = tmp_path_factory.mktemp("retrograde")
    default = tablebase.build(SONGO, K, root / "default")
    retro = tablebase.build(SONGO, K, root / "retrograde", retrograde=True)
    return default, retro, root


def values_file(path):
    return (path / store.VALUES).read_bytes()


def test_values_are_byte_identical_to_value_iterations(tables):
    default, _, root = tables
    assert values_file(root / "default") == values_file(root / "retrograde")
    assert np.count_nonzero(default.values[:, 0] != default.values[:, 1]) > 0  # open positions exist
    header = json.loads((root / "retrograde" / store.HEADER).read_text())
    assert all(layer["build"] == "retrograde" for layer in header["layers"])
    assert max(layer["rounds"] for layer in header["layers"]) > 100  # cycles: many rounds needed


def test_small_blocks_and_a_growing_queue_give_the_same_values(tables, tmp_path, monkeypatch):
    """Seeds a few positions at a time, predecessors in blocks of 16 (parallel from 8), a queue
    that starts with one entry and must move its unprocessed entries and grow."""
    _, _, root = tables
    monkeypatch.setattr(retrograde, "SEED_BLOCK", 64)
    monkeypatch.setattr(retrograde, "BLOCK", 16)
    monkeypatch.setattr(retrograde, "PARALLEL_BLOCK", 8)
    monkeypatch.setattr(retrograde, "QUEUE_START", 1)
    grown = []
    monkeypatch.setattr(retrograde, "room", _spy(retrograde.room, grown))
    tablebase.build(SONGO, K, tmp_path / "t", retrograde=True)
    assert values_file(tmp_path / "t") == values_file(root / "default")
    assert any(new > old for old, new in grown)


def _spy(room, grown):
    def spy(queue, head, tail, more):
        out = room(queue, head, tail, more)
        grown.append((queue.shape[0], out.shape[0]))
        return out

    return spy


class Stop(Exception):
    pass


def test_an_interrupted_retrograde_build_resumes_to_the_same_values(tables, tmp_path):
    _, _, root = tables

    def stop_at_5(k, layer):
        if k == 5:
            raise Stop

    with pytest.raises(Stop):
        tablebase.build(SONGO, K, tmp_path / "t", retrograde=True, on_layer=stop_at_5)
    assert json.loads((tmp_path / "t" / store.HEADER).read_text())["max_seeds"] == 5
    offsets = layer_offsets(K, 14)  # layer 6 half-written, as a stop inside it leaves it
    shape = (int(offsets[K + 1]), 2)
    values = np.memmap(tmp_path / "t" / store.VALUES, dtype=np.int8, mode="r+", shape=shape)
    values[int(offsets[6]) : int(offsets[7])] = 5
    values.flush()
    del values
    tablebase.build(SONGO, K, tmp_path / "t", retrograde=True)
    assert values_file(tmp_path / "t") == values_file(root / "default")


def test_each_build_resumes_the_other(tables, tmp_path):
    _, _, root = tables
    tablebase.build(SONGO, 5, tmp_path / "a")
    tablebase.build(SONGO, K, tmp_path / "a", retrograde=True)
    tablebase.build(SONGO, 5, tmp_path / "b", retrograde=True)
    tablebase.build(SONGO, K, tmp_path / "b")
    assert values_file(tmp_path / "a") == values_file(root / "default")
    assert values_file(tmp_path / "b") == values_file(root / "default")
    layers = json.loads((tmp_path / "a" / store.HEADER).read_text())["layers"]
    assert ["build" in layer for layer in layers] == [k > 5 for k in range(K + 1)]


def layer_moves(tb, k):
    """The default build's view of layer ``k``: in-layer edges, constants and move counts."""
    n = SONGO.holes_per_row
    offsets = layer_offsets(k, 2 * n)
    size = int(offsets[k + 1] - offsets[k])
    edges = np.empty((size, n), dtype=np.int32)
    const = np.empty((size, 2), dtype=np.int8)
    moves = np.empty(size, dtype=np.int8)
    comp = compositions_table(k, 2 * n)
    values = np.ascontiguousarray(tb.values[: int(offsets[k + 1])])
    expand_layer(k, 0, size, unbounded_rules(SONGO), comp, offsets, values, edges, const, moves)
    return edges, const, moves, comp


@pytest.mark.parametrize("k", [4, 7])
def test_predecessors_are_exactly_the_reversed_moves(tables, k):
    default, _, _ = tables
    edges, _, _, comp = layer_moves(default, k)
    rows, holes = np.nonzero(edges >= 0)
    e = edges[rows, holes]
    forward = np.stack([e >> 1, rows << 1 | (e & 1)], axis=1)  # (target, source << 1 | same mover)
    rules = unbounded_rules(SONGO)
    pat, jump, origin = retrograde.sowing_patterns(rules, k)
    size = edges.shape[0]
    entries = (np.arange(size, dtype=np.int32) << 1).astype(np.int32)
    out = np.empty((size, 2 * SONGO.holes_per_row * k), dtype=np.int32)
    counts = np.empty(size, dtype=np.int32)
    retrograde.some_predecessors(entries, 0, size, k, rules, comp, pat, jump, origin, out, counts)
    targets = np.repeat(np.arange(size), counts)
    sources = np.concatenate([out[q, : counts[q]] for q in range(size)])
    backward = np.stack([targets, sources], axis=1)
    assert len(forward) > 0
    assert sorted(map(tuple, forward)) == sorted(map(tuple, backward))


@pytest.mark.parametrize("k", [6, 8])
def test_ranks_let_the_winner_convert(tables, k):
    """Keeping his value, the side with a finite bound can always move to a lower rank (or leave
    the layer); the other side can only move to lower ranks. Ranks are at least value iteration's
    rounds, and positions with no move have rank 0."""
    default, retro, _ = tables
    edges, const, moves, _ = layer_moves(default, k)
    values, ranks = (x.astype(np.int64) for x in retro.layer(k))
    _, rounds = default.layer(k)
    assert (ranks >= rounds).all()
    assert (ranks[moves == 0] == 0).all()
    opp = (edges >= 0) & (edges & 1 == 0)
    target = np.where(edges >= 0, edges >> 1, 0)
    a, b = values[:, 0], values[:, 1]
    # A side: a finite A is reached by a constant, or by a move to q with B(q) <= -A of a lower rank
    won = (a != NEG_INF) & (moves > 0)
    by_move = opp & (b[target] <= -a[:, None]) & (ranks[target, 1] < ranks[:, :1])
    assert not (const[:, 0] >= a)[won].all()  # some need an in-layer move
    assert ((const[:, 0] >= a) | by_move.any(axis=1))[won].all()
    # B side: with B finite, every in-layer move leads to A(q) >= -B of a lower rank
    held = (b != POS_INF) & (moves > 0)
    fine = ~opp | ((a[target] >= -b[:, None]) & (ranks[target, 0] < ranks[:, 1:]))
    assert fine[held].all()


def test_the_perfect_agent_converts_with_ranks(tables):
    _, retro, root = tables
    perfect = make_agent(f"perfect:max_seeds={K},path={root / 'retrograde'}")
    starts = random_positions(SONGO, retro, 1, 3, seed=1)
    starts += random_positions(SONGO, retro, 1, 3, seed=2, split=True)  # wins cycling play could throw away
    for i, state in enumerate(starts):
        assert play_from(SONGO, retro, state, perfect, make_agent("minimax:depth=4", seed=i), seed=i) == 1


def test_the_command_takes_retrograde(tables, tmp_path):
    _, _, root = tables
    args = ["build", "songo_ewondo", "--max-seeds", str(K), "--out", str(tmp_path / "t")]
    status = tablebase_main([*args, "--retrograde", "--quiet"])
    assert status == 0
    assert values_file(tmp_path / "t") == values_file(root / "default")


@pytest.mark.parametrize(("name", "params"), [("sadeqa_ii", {}), ("en_dodoi", {"holes_per_row": 6})])
def test_relay_games_are_refused(name, params, tmp_path):
    with pytest.raises(ValueError, match="sows in relays"):
        tablebase.build(get_game(name, **params), 4, tmp_path, retrograde=True)
    assert not (tmp_path / store.HEADER).exists()


def test_bad_retrograde_options_are_refused(tmp_path):
    with pytest.raises(ValueError, match="retrograde must be True or False"):
        tablebase.build(SONGO, 4, tmp_path, retrograde=1)
    with pytest.raises(ValueError, match="neither low_memory nor ray_address"):
        tablebase.build(SONGO, 4, tmp_path, retrograde=True, low_memory=True)
    with pytest.raises(ValueError, match="neither low_memory nor ray_address"):
        tablebase.build(SONGO, 4, tmp_path, retrograde=True, ray_address="local")
    assert not (tmp_path / store.HEADER).exists()
