"""Seeded playthroughs must reproduce the recorded games exactly (tests/golden.py regenerates)."""

import json

import pytest
from golden import GOLDEN_PATH, play

GOLDEN = json.loads(GOLDEN_PATH.read_text())


@pytest.mark.parametrize(
    "record", GOLDEN, ids=[f"{g['game']}{g['params'].get('holes_per_row', '')}" for g in GOLDEN]
)
def test_golden_playthrough(record):
    assert len(record["moves"]) > 10
    replayed = play(record["game"], record["params"], record["seed"], record["first_player"])
    assert replayed["moves"] == record["moves"]
    for ply, (got, want) in enumerate(zip(replayed["positions"], record["positions"], strict=True)):
        assert got == want, f"position after ply {ply + 1} differs"
    assert (replayed["done"], replayed["winner"]) == (record["done"], record["winner"])
