"""A table build on Ray workers (``mancala tablebase build ... --ray-address local``): each layer
partitioned across two workers of a local Ray instance (its moves and its value iteration), reading
the finished layers from the table's folder, gives the same files, byte for byte, as a local build.
Skipped without the rllib extra (Ray)."""

from __future__ import annotations

import filecmp
import json

import numpy as np
import pytest

pytest.importorskip("ray", reason="needs the rllib extra (Ray): pip install -e '.[rllib]'")

from mancala_envs import get_game, tablebase
from mancala_envs.cli.tablebase import main as tablebase_main
from mancala_envs.tablebase import store
from mancala_envs.tablebase.distributed import RayLayerSolver

pytestmark = pytest.mark.slow


def test_a_ray_build_is_byte_identical_to_a_local_one(tmp_path, monkeypatch):
    game = get_game("en_dodoi", holes_per_row=6)
    local = tablebase.build(game, 9, tmp_path / "local")
    # small chunks: several expansion calls a slice
    monkeypatch.setattr("mancala_envs.tablebase.distributed.CHUNK", 4096)
    monkeypatch.setattr("mancala_envs.tablebase.distributed.MIN_LAYER", 1000)  # layers 6-9 partitioned
    folder = tmp_path / "ray"
    tablebase.build(game, 5, folder)  # a started table: the Ray build extends it (resume)
    status = tablebase_main(
        ["build", "en_dodoi", "--holes-per-row", "6", "--max-seeds", "9", "--out", str(folder),
         "--ray-address", "local", "--ray-workers", "2", "--quiet"]
    )  # fmt: skip
    assert status == 0
    for name in (store.VALUES, store.ROUNDS):
        assert filecmp.cmp(tmp_path / "local" / name, folder / name, shallow=False), name
    ours = json.loads((folder / store.HEADER).read_text())
    theirs = json.loads((tmp_path / "local" / store.HEADER).read_text())
    assert [layer["crc32"] for layer in ours["layers"]] == [layer["crc32"] for layer in theirs["layers"]]
    ray_table = tablebase.load(folder, game)
    assert ray_table.max_seeds == 9 and np.array_equal(ray_table.values, local.values)


def test_bad_ray_options_are_refused_before_ray_starts():
    with pytest.raises(ValueError, match="ray_address"):
        RayLayerSolver("")
    with pytest.raises(ValueError, match="workers"):
        RayLayerSolver("local", workers=0)
