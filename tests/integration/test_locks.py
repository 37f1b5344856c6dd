"""An output folder in use by another process is refused, naming the holder (its ``.lock`` file's
``flock``, which the kernel drops when the holder dies: a dead holder's lock is free), for
tournaments (fresh and ``--resume``), evaluations, training runs and tablebase builds."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from mancala_envs import get_game
from mancala_envs.cli.main import main as cli_main
from mancala_envs.infra.locks import LOCK_FILE, FolderInUse, FolderLock, folder_lock
from mancala_envs.tablebase import build

ROOT = Path(__file__).resolve().parents[2]
HOLDER = (
    "import sys\n"
    "from mancala_envs.infra.locks import FolderLock\n"
    "lock = FolderLock(sys.argv[1])\n"
    "print('locked', flush=True)\n"
    "sys.stdin.read()\n"
)


@contextmanager
def held(folder: Path) -> Iterator[subprocess.Popen]:
    """Another process holds ``folder``'s lock for the block."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(folder)], cwd=ROOT, stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert proc.stdout.readline().strip() == "locked"
        yield proc
    finally:
        if proc.poll() is None:
            proc.stdin.close()
        proc.wait(timeout=30)


def tournament(out: Path, *extra: str) -> list[str]:
    return ["tournament", "sadeqa_ii", "--max-plies", "60", "--agents", "random", "greedy",
            "--games", "2", "--out", str(out), "--no-progress", "--bootstrap", "0", *extra]  # fmt: skip


def test_a_held_folder_is_refused_naming_the_holder_and_freed_when_it_dies(tmp_path):
    folder = tmp_path / "out"
    with held(folder) as proc:
        with pytest.raises(FolderInUse, match=f"{folder} is in use by another process \\(pid {proc.pid} on "):
            FolderLock(folder)
        assert socket.gethostname() in (folder / LOCK_FILE).read_text()
        proc.send_signal(signal.SIGKILL)  # no cleanup code runs: the lock file stays, the lock does not
        proc.wait(timeout=30)
        assert f"pid {proc.pid} " in (folder / LOCK_FILE).read_text()
        with folder_lock(folder):  # a stale lock: taken over
            assert f"pid {os.getpid()} " in (folder / LOCK_FILE).read_text()
            with pytest.raises(FolderInUse):  # not re-entrant, even in one process
                FolderLock(folder)
    with folder_lock(folder):  # released at the end of the block
        pass


def test_a_tournament_folder_in_use_is_refused_fresh_and_resumed(tmp_path, capsys):
    out = tmp_path / "t"
    for argv in (tournament(out), tournament(out, "--resume")):
        with held(out) as proc:
            assert cli_main(argv) == 2
            err = capsys.readouterr().err
            assert f"{out} is in use by another tournament (pid {proc.pid}" in err and err.count("\n") == 1
        assert cli_main(argv) == 0  # once the holder is gone (a folder with only a lock file is new)
    assert sorted(os.listdir(out))[0] == LOCK_FILE


def test_a_running_tournament_refuses_a_resume_of_its_folder(tmp_path, capsys):
    """The issue's case: a tournament and a --resume of it started a few seconds later."""
    out = tmp_path / "t"
    argv = ["tournament", "songo_ewondo", "--max-plies", "80", "--agents", "minimax:depth=8", "greedy",
            "--games", "200", "--out", str(out), "--no-progress", "--bootstrap", "0"]  # fmt: skip
    proc = subprocess.Popen(
        [sys.executable, "-m", "mancala_envs.cli.main", *argv], cwd=ROOT, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.time() + 300
        while not (out / "games.jsonl").exists() and time.time() < deadline and proc.poll() is None:
            time.sleep(0.1)
        assert cli_main([*argv, "--resume"]) == 2
        assert f"is in use by another tournament (pid {proc.pid}" in capsys.readouterr().err
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=300)
    assert proc.returncode == 143
    lines = (out / "games.jsonl").read_text().splitlines()
    assert [int(line.split('"game_id":')[1].split(",")[0]) for line in lines] == list(range(len(lines)))


def test_an_evaluation_folder_in_use_is_refused(tmp_path, capsys):
    from mancala_envs.evaluation.evaluate import main as evaluate_main

    out = tmp_path / "e"
    with held(out), pytest.raises(SystemExit) as exit_:
        evaluate_main(["greedy", "--game", "sadeqa_ii", "--opponents", "random", "--games", "2",
                       "--out", str(out), "--no-progress"])  # fmt: skip
    assert exit_.value.code == 2 and "is in use by another evaluation (pid" in capsys.readouterr().err


def test_a_training_run_folder_in_use_is_refused(tmp_path, capsys):
    from mancala_envs.training.train_alphazero import main as az_main

    run = tmp_path / "run"
    with held(run) as proc:
        assert az_main(["--game", "sadeqa_ii", "--out", str(run)]) == 2
    err = capsys.readouterr().err
    assert f"{run} is in use by another training run (pid {proc.pid}" in err and err.count("\n") == 1
    assert sorted(os.listdir(run)) == [LOCK_FILE]


def test_a_table_being_built_is_refused_naming_the_builder(tmp_path):
    out = tmp_path / "tb"
    with (
        held(out) as proc,
        pytest.raises(ValueError, match=f"being built by another process \\(pid {proc.pid}"),
    ):
        build(get_game("sadeqa_ii"), 2, out)
    assert build(get_game("sadeqa_ii"), 2, out).max_seeds == 2
