"""A layer partitioned across workers (:mod:`mancala_envs.tablebase.distributed`): each worker plays
its slice's moves and recomputes its slice's dirty rows every Jacobi round, exchanging only the
changed values. Run in this process with an in-process stand-in for Ray (actors are plain objects,
remote calls return their results), so every game is checked without starting Ray: the files are
byte-identical to a local build's for any number of workers, slices of unequal size or empty
included, and for Songo Ewondo's layers of 100+ rounds (the smallest layers are built locally, the
others partitioned). ``test_tablebase_ray.py`` checks the same on
a real local Ray."""

from __future__ import annotations

import json

import numpy as np
import pytest
from test_tablebase_lowmem import DEEP_K, assert_same_files
from variants import ALL, ALL_IDS

from mancala_envs import get_game, tablebase
from mancala_envs.tablebase import distributed, store


class _Ref:
    def __init__(self, value):
        self.value = value


def _deref(x):
    return x.value if isinstance(x, _Ref) else x


class _Call:
    def __init__(self, fn):
        self.fn = fn

    def remote(self, *args):
        return _Ref(self.fn(*map(_deref, args)))


class _Actor:
    def __init__(self, obj):
        self.obj = obj

    def __getattr__(self, name):
        return _Call(getattr(self.obj, name))


class _ActorClass:
    def __init__(self, cls):
        self.cls = cls

    def remote(self, *args):
        return _Actor(self.cls(*args))


class InProcessRay:
    """What :class:`~mancala_envs.tablebase.distributed.RayLayerSolver` uses of Ray, in process: a
    remote call runs at once, its result an object reference."""

    def __init__(self, cpus: int):
        self.cpus, self.calls = cpus, []

    def is_initialized(self):
        return False

    def init(self, address, num_cpus=None, **_):
        self.cpus = num_cpus or self.cpus

    def cluster_resources(self):
        return {"CPU": self.cpus}

    def remote(self, num_cpus):
        return lambda cls: _ActorClass(cls)

    def put(self, value):
        return _Ref(value)

    def get(self, refs):
        return [r.value for r in refs] if isinstance(refs, list) else refs.value

    def wait(self, pending, num_returns):
        return pending[:num_returns], pending[num_returns:]

    def kill(self, actor):
        self.calls.append("kill")

    def shutdown(self):
        self.calls.append("shutdown")


@pytest.fixture
def in_process_ray(monkeypatch):
    ray = InProcessRay(cpus=2)
    monkeypatch.setattr(distributed, "require", lambda *args: ray)
    monkeypatch.setattr(distributed, "MIN_LAYER", 50)  # the smallest layers local, the rest partitioned
    return ray


@pytest.mark.parametrize(("name", "params"), ALL, ids=ALL_IDS)
def test_partitioned_layers_give_the_local_build_files(name, params, in_process_ray, tmp_path, monkeypatch):
    game = get_game(name, **params)
    k = DEEP_K[params["holes_per_row"]] if name == "en_dodoi" else DEEP_K[name]
    tablebase.build(game, k, tmp_path / "local")
    monkeypatch.setattr(distributed, "CHUNK", 1000)  # several expansion calls a slice
    tablebase.build(game, k, tmp_path / "parts", ray_address="local", ray_workers=3)
    assert_same_files(tmp_path / "local", tmp_path / "parts")
    assert in_process_ray.calls == ["kill"] * 3 + ["shutdown"]


@pytest.mark.parametrize("workers", [1, 7])
def test_any_number_of_workers_gives_the_same_files(workers, in_process_ray, tmp_path):
    """One worker owns whole layers; seven leave the smallest layers' slices empty."""
    game = get_game("songo_ewondo")
    tablebase.build(game, 6, tmp_path / "local")
    tablebase.build(game, 4, tmp_path / "parts")  # resumed by the partitioned build
    tablebase.build(game, 6, tmp_path / "parts", ray_address="local", ray_workers=workers)
    assert_same_files(tmp_path / "local", tmp_path / "parts")


def test_rounds_exchange_the_changes_or_whole_values_where_most_changed(
    in_process_ray, tmp_path, monkeypatch
):
    calls = []
    original = distributed.LayerPart.round

    def spy(self, rows, vals):
        out = original(self, rows, vals)
        calls.append((self.ids, len(self.cur), rows, vals, out))
        return out

    monkeypatch.setattr(distributed.LayerPart, "round", spy)
    table = tablebase.build(
        get_game("songo_ewondo"), 6, tmp_path / "parts", ray_address="local", ray_workers=2
    )
    calls = [call for call in calls if call[1] > 1]  # not the workers' warm-up on layer 0 (1 position)
    dense = distributed.DENSE
    for ids, size, rows, vals, (_, out_rows, out_vals) in calls:
        if rows is None:  # to the worker: the whole layer's values, or the changed positions
            assert vals.shape == (size, 2)
        else:
            assert len(rows) * dense <= size and len(np.unique(rows)) == len(rows)
        if out_rows is None:  # from the worker: all its values, or its changed positions
            assert out_vals.shape == (len(ids), 2)
        else:
            assert len(out_rows) * dense <= len(ids) and np.isin(out_rows, ids).all()
    assert any(rows is None for _, _, rows, _, _ in calls)
    assert any(rows is not None and len(rows) for _, _, rows, _, _ in calls)
    parted = [layer for layer in table.header["layers"] if layer["positions"] >= distributed.MIN_LAYER]
    assert len(parted) >= 3
    # per layer and worker: one round per round that changed something, and the last, which did not
    assert len(calls) == 2 * sum(layer["rounds"] + 1 for layer in parted)


class Stop(Exception):
    pass


def test_a_build_stopped_inside_a_partitioned_layer_keeps_the_finished_layers_and_resumes(
    in_process_ray, tmp_path, monkeypatch
):
    game = get_game("songo_ewondo")
    tablebase.build(game, 6, tmp_path / "local")
    original, calls = distributed.LayerPart.round, []

    def stop_in_layer_5(self, rows, vals):
        calls.append(self.seeds)
        if self.seeds == 5 and calls.count(5) == 3:  # the workers' third round of layer 5
            raise Stop
        return original(self, rows, vals)

    monkeypatch.setattr(distributed.LayerPart, "round", stop_in_layer_5)
    with pytest.raises(Stop):
        tablebase.build(game, 6, tmp_path / "parts", ray_address="local", ray_workers=2)
    assert in_process_ray.calls == ["kill", "kill", "shutdown"]  # the workers are let go
    assert json.loads((tmp_path / "parts" / store.HEADER).read_text())["max_seeds"] == 4
    monkeypatch.setattr(distributed.LayerPart, "round", original)
    tablebase.build(game, 6, tmp_path / "parts", ray_address="local", ray_workers=2)
    assert_same_files(tmp_path / "local", tmp_path / "parts")
