"""``mancala tablebase build|probe|suite`` through the ``mancala`` entry point."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from mancala_envs import get_game, tablebase
from mancala_envs.cli.main import main as mancala

BOARD = [1, 0, 2, 0, 0, 0, 0, 1, 0, 0, 0, 1]  # En Dodoi, 6 holes a row: 5 seeds
BUILD = ["tablebase", "build", "en_dodoi", "--holes-per-row", "6", "--max-seeds", "6"]
PROBE = ["tablebase", "probe", "en_dodoi", "--holes-per-row", "6"]


@pytest.fixture(scope="module")
def table_dir(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "ed6"
    assert mancala([*BUILD, "--out", str(path), "--quiet"]) == 0
    return path


def test_build_reports_the_table(table_dir, capsys):
    code = mancala([*BUILD, "--out", str(table_dir)])
    out = capsys.readouterr().out
    assert code == 0
    tb = tablebase.load(table_dir)
    assert tb.max_seeds == 6 and tb.game == get_game("en_dodoi", holes_per_row=6)
    assert f"{tb.covered_positions:,} positions" in out and "positions/s" in out


def test_build_shows_a_progress_bar(tmp_path):
    cmd = [sys.executable, "-m", "mancala_envs.cli.tablebase", "build", "sadeqa_ii", "--max-seeds", "4"]
    done = subprocess.run([*cmd, "--out", str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "pos/s" in done.stderr and "100%" in done.stderr


def test_probe_prints_the_values_and_every_move(table_dir, capsys):
    game = get_game("en_dodoi", holes_per_row=6)
    state = game.state_from(board=BOARD, captured=[29, 14], to_move=1)
    args = ["--board", ",".join(map(str, BOARD)), "--captured", "29,14", "--to-move", "1"]
    assert mancala([*PROBE, *args, "--path", str(table_dir)]) == 0
    out = capsys.readouterr().out
    tb = tablebase.load(table_dir)
    a, b = tb.bounds(state)
    word = {1: "win", 0: "draw", -1: "loss"}
    assert f"lead d = {tb.lead(state)}: {word[tb.outcome(state)]}" in out
    assert f"(A, B) = ({a:g}, {b:g})" in out
    outcomes, best = tb.move_outcomes(state), tb.best_actions(state)
    for m in np.flatnonzero(game.legal_mask(state)):
        line = f"  {m}: {word[int(outcomes[m])]} ({int(outcomes[m]):+d})" + ("  optimal" if best[m] else "")
        assert line in out.splitlines()
    assert out.count("optimal") == int(best.sum())


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--board", "1,2", "--captured", "0,0", "--to-move", "0"], "board"),
        (["--board", ",".join(["9"] * 12), "--captured", "0,0", "--to-move", "0"], "seeds"),
        (["--board", ",".join(["4"] * 12), "--captured", "0,0", "--to-move", "0"], "48 seeds on the board"),
    ],
)
def test_probe_errors_are_one_line(table_dir, capsys, args, message):
    code = mancala([*PROBE, *args, "--path", str(table_dir)])
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_probe_without_a_table_says_how_to_build_one(tmp_path, capsys):
    args = [
        "--board",
        ",".join(map(str, BOARD)),
        "--captured",
        "29,14",
        "--to-move",
        "0",
        "--path",
        str(tmp_path),
    ]
    assert mancala([*PROBE, *args]) == 2
    assert "mancala tablebase build en_dodoi" in capsys.readouterr().err


def test_bad_max_seeds(tmp_path, capsys):
    assert mancala(["tablebase", "build", "sadeqa_ii", "--max-seeds", "-3", "--out", str(tmp_path)]) == 2
    assert "max_seeds must be in" in capsys.readouterr().err


def test_header_is_json(table_dir):
    header = json.loads((table_dir / "header.json").read_text())
    assert header["max_seeds"] == 6 and header["params"] == {"holes_per_row": 6}
