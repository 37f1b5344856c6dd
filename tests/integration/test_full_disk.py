"""A full disk ends a command with one line naming the file (exit 2), never a bus error or a
traceback, and everything finished before stays whole: tablebase layers, tournament records,
training checkpoints. Each test mounts a small tmpfs (skipped where it cannot: not root, no
``mount``, a container without the capability)."""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from mancala_envs import get_game
from mancala_envs.cli.main import main as cli_main
from mancala_envs.evaluation.arena import load_records
from mancala_envs.tablebase import build, load, store
from mancala_envs.tablebase.index import layer_offsets

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable
GAME = get_game("sadeqa_ii")


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Callable[[int], Path]]:
    """``small_disk(kib)``: a fresh tmpfs of ``kib`` KiB, unmounted after the test."""
    mounted: list[Path] = []

    def mount(kib: int) -> Path:
        where = tmp_path / f"disk{len(mounted)}"
        where.mkdir()
        if shutil.which("mount") is None:
            pytest.skip("no mount command here to make a small tmpfs")
        proc = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={kib}k", "tmpfs", str(where)],
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            pytest.skip(f"cannot mount a small tmpfs here: {proc.stderr.strip() or proc.returncode}")
        mounted.append(where)
        return where

    yield mount
    for where in mounted:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


def fill(disk: Path, leave: int = 0) -> Path:
    """Fill ``disk`` with a file until ``leave`` bytes are free (or none); returns the file."""
    filler = disk / "filler"
    with open(filler, "ab") as fh:
        while shutil.disk_usage(disk).free > leave:
            try:
                fh.write(b"\0" * max(4096, min(1 << 20, shutil.disk_usage(disk).free - leave)))
                fh.flush()
            except OSError as e:
                assert e.errno == errno.ENOSPC
                break
    return filler


def run(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([PY, *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def one_error_line(err: str, prefix: str) -> str:
    """The error line ending ``err`` (after any warnings), checked to be the only one."""
    assert "Traceback" not in err and "Bus error" not in err, err[-3000:]
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"{prefix}: error: "), err[-3000:]
    return last


# ---------------------------------------------------------------------------- tablebase


def table_sizes(max_seeds: int) -> dict[str, int]:
    positions = int(layer_offsets(max_seeds, 2 * GAME.holes_per_row)[max_seeds + 1])
    return {store.VALUES: positions * 2, store.ROUNDS: positions * 2}


def test_sparse_files_of_an_interrupted_build_do_not_count_as_space(small_disk):
    """The issue's bus error: an interrupted build leaves its files at full length but sparse; the
    space check counted them as held, then the build wrote through the memory map into a full disk."""
    tb = small_disk(4096) / "tb"
    build(GAME, 6, tb)
    for name, size in table_sizes(9).items():  # what an interrupted build of 9 seeds left
        os.truncate(tb / name, size)
    fill(tb.parent)
    proc = run("-m", "mancala_envs.cli.main", "tablebase", "build", "sadeqa_ii", "--max-seeds", "9",
               "--out", str(tb), "--quiet")  # fmt: skip
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert "more on disk" in one_error_line(proc.stderr, "mancala tablebase")
    assert load(tb, GAME, verify=True).max_seeds == 6  # the finished layers are whole


def test_a_disk_filled_during_a_build_is_an_error_naming_the_file(small_disk):
    """Another process fills the disk after the space check: the arrays are allocated before they
    are mapped, so the build ends in one line naming the file."""
    tb = small_disk(4096) / "tb"
    build(GAME, 6, tb)
    fill(tb.parent)
    code = (
        "import sys\n"
        "from mancala_envs.tablebase import builder\n"
        "builder.check_disk_space = lambda *args: None  # the disk fills up after the check\n"
        "from mancala_envs.cli.main import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    proc = run("-c", code, "tablebase", "build", "sadeqa_ii", "--max-seeds", "9", "--out", str(tb), "--quiet")
    assert proc.returncode == 2, proc.stderr[-3000:]  # not -7 (SIGBUS)
    line = one_error_line(proc.stderr, "mancala tablebase")
    assert "No space left on device" in line and str(tb / store.VALUES) in line
    assert load(tb, GAME, verify=True).max_seeds == 6
    (tb.parent / "filler").unlink()
    assert build(GAME, 9, tb).max_seeds == 9  # and it goes on once there is room


# ---------------------------------------------------------------------------- arena


def test_a_tournament_on_a_full_disk_ends_in_one_line_and_resumes(small_disk, capsys):
    disk = small_disk(1024)
    out = disk / "t"
    argv = ["tournament", "sadeqa_ii", "--max-plies", "60", "--agents", "random", "greedy", "--games", "40",
            "--out", str(out), "--no-progress", "--bootstrap", "0"]  # fmt: skip
    filler = fill(disk, leave=24 * 1024)
    assert cli_main(argv) == 2
    line = one_error_line(capsys.readouterr().err, "mancala")
    assert "No space left on device" in line and str(out) in line
    games = out / "games.jsonl"
    kept = load_records(games, verify=True)  # whole records only
    assert len(kept) < 40 and games.read_bytes().endswith(b"\n")
    filler.unlink()
    assert cli_main([*argv, "--resume"]) == 0
    assert len(load_records(games, verify=True)) == 40


# ---------------------------------------------------------------------------- training


def test_training_on_a_full_disk_ends_in_one_line_and_keeps_its_checkpoint(small_disk):
    from mancala_envs.agents.registry import make_agent

    disk = small_disk(32 * 1024)
    run_dir = disk / "r"
    args = ["-m", "mancala_envs.training.train_ppo", "--total-timesteps", "10000000", "--num-envs", "8",
            "--n-steps", "128", "--batch-size", "256", "--n-epochs", "1", "--eval-freq", "1024",
            "--eval-games", "2", "--final-eval-games", "2", "--eval-opponents", "random",
            "--pool", "random@1", "--net-arch", "16", "--no-progress-bar", "--out", str(run_dir)]  # fmt: skip
    proc = subprocess.Popen([PY, *args], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 300
        while not (run_dir / "state.json").exists() and time.time() < deadline and proc.poll() is None:
            time.sleep(0.1)
        fill(disk)
        _, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 2, err[-3000:]
    line = one_error_line(err, "mancala train")
    assert "No space left on device" in line and str(run_dir) in line
    state = json.loads((run_dir / "state.json").read_text())  # the last checkpoint is whole
    assert json.loads((run_dir / "policy.json").read_text())["trained"]["steps"] == state["num_timesteps"]
    assert zipfile.ZipFile(run_dir / "model.zip").testzip() is None
    make_agent(f"policy:path={run_dir / 'policy.json'}")


# ---------------------------------------------------------------------------- datasets


def test_a_dataset_on_a_full_disk_ends_in_one_line_and_leaves_nothing(small_disk, capsys):
    """Issue 43: h5py's RuntimeError (errno 28) came out as a traceback, and a partial ``mancala/...``
    folder stayed behind."""
    pytest.importorskip("minari", reason="needs Minari: pip install -e '.[dataset]'")
    disk = small_disk(512)
    out = disk / "datasets"
    fill(disk, leave=16 * 1024)
    argv = ["dataset", "--game", "sadeqa_ii", "--learner", "greedy", "--opponent", "random", "--openings",
            "20", "--out", str(out), "--no-progress"]  # fmt: skip
    assert cli_main(argv) == 2
    line = one_error_line(capsys.readouterr().err, "mancala")
    assert "No space left on device" in line and str(out / "mancala/sadeqa_ii/greedy-vs-random-v0") in line
    assert sorted(p.name for p in disk.iterdir()) == ["filler"]  # no partial dataset, no empty folders


# ---------------------------------------------------------------------------- proofs


def test_a_proof_on_a_full_disk_ends_in_one_line_naming_it_and_leaves_no_tmp(small_disk, tmp_path, capsys):
    """Issue 43: ``mancala solve`` on a full disk left a 0-byte ``proof-ge1.jsonl.gz.tmp`` and its
    message did not name the file."""
    from mancala_envs.cli.solve import main as solve_main
    from mancala_envs.tablebase.proof import header, write_proof

    table = build(GAME, 8, tmp_path / "tb")
    rng = np.random.default_rng(3)
    state = GAME.initial_state()
    while state.seeds_on_board > 11:  # a position a few plies above the table: a small proof
        state = GAME.apply(state, int(rng.choice(GAME.legal_actions(state))))
    assert not state.is_over
    disk = small_disk(64)
    out = disk / "solved"
    out.mkdir()
    fill(disk)
    argv = ["sadeqa_ii", "--table", str(table.path), "--out", str(out), "--no-first-moves",
            "--position", json.dumps(state.to_dict())]  # fmt: skip
    assert solve_main(argv) == 2
    line = one_error_line(capsys.readouterr().err, "mancala solve")
    assert "No space left on device" in line and f"{out}{os.sep}proof-" in line
    assert list(out.iterdir()) == []  # no .tmp, no partial proof
    with pytest.raises(OSError, match="No space left on device") as caught:  # write_proof itself
        write_proof(out / "p.jsonl", header(GAME, ">=0", 0, 8), ({"id": i} for i in range(100_000)))
    assert caught.value.filename == str(out / "p.jsonl") and list(out.iterdir()) == []
