"""SIGTERM (``kill``, ``timeout``, Slurm, Kubernetes) stops every long-running command the way Ctrl-C
does: at the next safe point, with what was finished kept (a checkpoint at the signal), one line
saying so, exit status 143, and ``--resume`` (or the same command) continuing. Each test sends
SIGTERM to a real subprocess; the Ctrl-C (SIGINT, exit 130) twins are in test_hardening.py,
test_training.py, test_alphazero_training.py and test_distill.py."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from mancala_envs import get_game
from mancala_envs.cli.main import main as cli_main
from mancala_envs.evaluation.arena import load_records
from mancala_envs.infra import interrupts
from mancala_envs.tablebase import store
from mancala_envs.tablebase.table import load

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable
ENV = {**os.environ, "OMP_NUM_THREADS": "1"}


def stop_when(
    args: list[str], ready: Callable[[], bool], sig: int = signal.SIGTERM, delay: float = 0.0
) -> subprocess.CompletedProcess:
    """Run ``python <args>`` in the project root, send ``sig`` once ``ready()`` holds (and
    ``delay`` seconds more), and return the finished process."""
    proc = subprocess.Popen(
        [PY, *args], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV
    )
    deadline = time.time() + 300  # a cold numba cache compiles the kernels first
    while not ready() and time.time() < deadline and proc.poll() is None:
        time.sleep(0.1)
    time.sleep(delay)
    assert proc.poll() is None, "the command ended before the signal: " + proc.communicate()[1][-2000:]
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=300)
    return subprocess.CompletedProcess(args, proc.returncode, out, err)


def lines(path: Path) -> int:
    return path.read_text().count("\n") if path.exists() else 0


# ---------------------------------------------------------------------------- the signal itself


def test_deferred_sigterm_raises_at_the_next_check_and_a_second_one_at_once():
    before = signal.getsignal(signal.SIGTERM)  # SIG_DFL, or a test runner's own (pytest-xdist)
    with interrupts.deferred_interrupts():
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0.05)
        assert interrupts.pending()
        with pytest.raises(interrupts.Interrupted) as caught:
            interrupts.check()
        assert caught.value.signum == signal.SIGTERM and interrupts.exit_status(caught.value) == 143
        assert interrupts.stopped(caught.value) == "interrupted by SIGTERM"
        assert isinstance(caught.value, KeyboardInterrupt)  # every Ctrl-C handler handles it
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0.05)
        with pytest.raises(interrupts.Interrupted):  # the escape hatch: a second signal at once
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(1)
    assert signal.getsignal(signal.SIGTERM) is before and not interrupts.pending()  # restored
    with pytest.raises(interrupts.Interrupted) as caught, interrupts.sigterm_raises():
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(1)
    assert interrupts.exit_status(caught.value) == 143
    assert interrupts.exit_status(KeyboardInterrupt()) == 130
    assert interrupts.stopped(KeyboardInterrupt()) == "interrupted"


# ---------------------------------------------------------------------------- arena


def test_sigterm_stops_a_tournament_that_resumes_to_the_end(tmp_path):
    out = tmp_path / "t"
    argv = ["tournament", "songo_ewondo", "--max-plies", "80", "--agents", "minimax:depth=8", "greedy",
            "--games", "24", "--out", str(out), "--no-progress", "--bootstrap", "0"]  # fmt: skip
    games = out / "games.jsonl"
    proc = stop_when(["-m", "mancala_envs.cli.main", *argv], lambda: lines(games) >= 2)
    assert proc.returncode == 143, proc.stderr[-2000:]
    assert "interrupted by SIGTERM; finished games are kept" in proc.stderr and "--resume" in proc.stderr
    assert "Traceback" not in proc.stderr
    kept = load_records(games, verify=True)
    assert 2 <= len(kept) < 24
    assert cli_main([*argv, "--resume"]) == 0
    assert len(load_records(games, verify=True)) == 24
    assert (out / "ratings.md").is_file()


def test_sigterm_stops_an_evaluation_keeping_its_games(tmp_path):
    out = tmp_path / "e"
    games = out / "games.jsonl"
    args = ["-m", "mancala_envs.evaluation.evaluate", "greedy", "--game", "songo_ewondo", "--max-plies",
            "80", "--opponents", "minimax:depth=8", "--games", "200", "--out", str(out),
            "--no-progress"]  # fmt: skip
    proc = stop_when(args, lambda: lines(games) >= 2)
    assert proc.returncode == 143, proc.stderr[-2000:]
    assert "interrupted by SIGTERM; the finished games are in" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert 2 <= len(load_records(games, verify=True)) < 200


# ---------------------------------------------------------------------------- tablebase


def test_sigterm_stops_a_tablebase_build_that_resumes(tmp_path):
    out = tmp_path / "tb"

    def layers_done() -> int:
        try:
            return int(json.loads((out / store.HEADER).read_text())["max_seeds"])
        except (OSError, ValueError, KeyError):
            return -1

    args = ["-m", "mancala_envs.cli.main", "tablebase", "build", "sadeqa_ii", "--max-seeds", "15",
            "--out", str(out), "--quiet"]  # fmt: skip
    proc = stop_when(args, lambda: layers_done() >= 3)
    assert proc.returncode == 143, proc.stderr[-2000:]
    done = layers_done()
    assert 3 <= done < 15
    assert f"interrupted by SIGTERM; layers 0..{done} are kept in {out}, run again to resume" in proc.stderr
    assert "Traceback" not in proc.stderr
    # the same command resumes after the kept layers (checking them); one more layer is enough here
    assert cli_main(["tablebase", "build", "sadeqa_ii", "--max-seeds", str(done + 1), "--out", str(out),
                     "--quiet"]) == 0  # fmt: skip
    assert layers_done() == done + 1
    assert load(out, get_game("sadeqa_ii"), verify=True).max_seeds == done + 1  # every checksum holds


# ---------------------------------------------------------------------------- training

PPO = ["--total-timesteps", "10000000", "--num-envs", "8", "--n-steps", "128", "--batch-size", "256",
       "--n-epochs", "1", "--eval-freq", "1024", "--eval-games", "2", "--final-eval-games", "2",
       "--eval-opponents", "random", "--pool", "random@1", "greedy@1", "--net-arch", "16",
       "--no-progress-bar", "--seed", "3"]  # fmt: skip


def test_sigterm_before_the_first_layer_says_none_was_finished(tmp_path, monkeypatch, capsys):
    """Issue 43: a SIGTERM before any layer was done said 'layers 0..-1 are kept'."""
    from mancala_envs.cli import tablebase as cli_tablebase

    def stopped_at_once(*args, **kwargs):
        raise interrupts.Interrupted(signal.SIGTERM)

    monkeypatch.setattr(cli_tablebase, "build", stopped_at_once)
    out = tmp_path / "tb"
    argv = ["tablebase", "build", "sadeqa_ii", "--max-seeds", "6", "--out", str(out), "--quiet"]
    assert cli_main(argv) == 143
    err = capsys.readouterr().err.strip()
    kept = f"no layer was finished yet in {out}; run again to build it"
    assert err == f"mancala tablebase: interrupted by SIGTERM; {kept}"


def test_sigterm_checkpoints_ppo_training_and_resume_continues(tmp_path, capsys):
    from mancala_envs.training.train_ppo import main as train_main

    run = tmp_path / "r"
    refused: list[int] = []

    def ready() -> bool:
        if not (run / "state.json").exists():
            return False
        if not refused:  # meanwhile, a second session of the same run is refused: the folder is locked
            refused.append(train_main(["--resume", str(run), "--no-progress-bar"]))
        return True

    proc = stop_when(["-m", "mancala_envs.training.train_ppo", *PPO, "--out", str(run)], ready)
    assert refused == [2] and "is in use by another training run (pid" in capsys.readouterr().err
    assert proc.returncode == 143, proc.stderr[-2000:]
    assert "interrupted by SIGTERM at" in proc.stdout and "checkpoint saved" in proc.stdout
    assert "Traceback" not in proc.stderr
    state = json.loads((run / "state.json").read_text())
    policy = json.loads((run / "policy.json").read_text())
    assert policy["trained"]["steps"] == state["num_timesteps"] >= 1024
    steps = state["num_timesteps"]
    assert (
        train_main(["--resume", str(run), "--total-timesteps", str(steps + 1024), "--no-progress-bar"]) == 0
    )
    assert json.loads((run / "state.json").read_text())["num_timesteps"] >= steps + 1024


AZ = ["--game", "en_dodoi", "--holes-per-row", "6", "--games", "32", "--sims", "8", "--hidden", "32", "32",
      "--batch-size", "128", "--min-replay", "256", "--eval-every", "100000000", "--eval-games", "2",
      "--final-eval-games", "2", "--eval-sims", "2", "--eval-opponents", "random",
      "--eval-net-opponents", "random", "--train-openings", "50",
      "--total-positions", "100000000"]  # fmt: skip


def test_sigterm_checkpoints_az_training_and_resume_continues(tmp_path):
    from mancala_envs.training.train_alphazero import main as az_main

    run = tmp_path / "az"
    proc = stop_when(
        ["-m", "mancala_envs.training.train_alphazero", *AZ, "--out", str(run)],
        lambda: lines(run / "metrics.csv") >= 2,
    )
    assert proc.returncode == 143, proc.stderr[-2000:]
    assert "interrupted by SIGTERM at" in proc.stdout and "checkpoint saved" in proc.stdout
    state = json.loads((run / "state.json").read_text())
    assert json.loads((run / "az.json").read_text())["trained"]["positions"] == state["positions"] > 0
    positions = state["positions"]
    assert az_main(["--resume", str(run), "--total-positions", str(positions + 256)]) == 0
    assert json.loads((run / "state.json").read_text())["positions"] >= positions + 256


def test_sigterm_checkpoints_a_distillation_and_resume_finishes_it(tmp_path):
    from tiny_models import distill_args, tiny_teacher

    from mancala_envs.training.distill_az import main as distill_main

    run = tmp_path / "d"
    extra = ("--positions", "3000", "--holdout", "500", "--epochs", "3", "--save-every", "1")
    args = distill_args(tiny_teacher(tmp_path), run, *extra)
    per_epoch = 2500 // 128

    def some_updates_saved() -> bool:
        state = run / "state.json"
        try:
            return json.loads(state.read_text())["updates"] >= 2
        except (OSError, ValueError, KeyError):
            return False

    proc = stop_when(["-m", "mancala_envs.training.distill_az", *args], some_updates_saved)
    assert proc.returncode == 143, proc.stderr[-2000:]
    assert "interrupted by SIGTERM at update" in proc.stdout and "checkpoint saved" in proc.stdout
    stopped = json.loads((run / "state.json").read_text())["updates"]
    assert 2 <= stopped < 3 * per_epoch
    assert distill_main(["--resume", str(run)]) == 0
    assert json.loads((run / "state.json").read_text())["updates"] == 3 * per_epoch


# ---------------------------------------------------------------------------- RLlib


RLLIB = ["--game", "sadeqa_ii", "--num-env-runners", "0", "--train-batch-size", "128", "--minibatch-size",
         "64", "--num-epochs", "1", "--hidden", "16", "--frozen", "1", "--snapshot-every", "1",
         "--eval-games", "2", "--eval-opponents", "random", "--num-cpus", "1"]  # fmt: skip


@pytest.mark.rllib
def test_sigterm_checkpoints_rllib_training_and_resume_continues(tmp_path):
    pytest.importorskip("ray.rllib", reason="needs the rllib extra")
    out = tmp_path / "rl"
    proc = stop_when(
        ["-m", "mancala_envs.training.train_rllib", *RLLIB, "--iterations", "1000", "--out", str(out)],
        lambda: lines(out / "progress.jsonl") >= 1,
    )
    assert proc.returncode == 143, proc.stderr[-2000:]
    assert "interrupted by SIGTERM at iteration" in proc.stdout and "checkpoint saved" in proc.stdout
    done = lines(out / "progress.jsonl")
    assert done >= 1 and (out / "checkpoint").is_dir()
    again = ["-m", "mancala_envs.training.train_rllib", *RLLIB, "--iterations", str(done + 1)]
    resumed = subprocess.run(
        [PY, *again, "--out", str(out), "--resume"], cwd=ROOT, capture_output=True, text=True, env=ENV
    )
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert "resumed" in resumed.stdout and lines(out / "progress.jsonl") == done + 1
