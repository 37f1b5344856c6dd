"""No crash, no silent wrong result, nothing lost (issue 12): each numbered item of the issue has a
test here that failed before the fix, plus the boundary fuzz (in a subprocess) and Ctrl-C at
several moments of a tournament, an evaluation and a training run."""

from __future__ import annotations

import copy
import json
import os
import pickle
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest

from mancala_envs import IllegalMoveError, get_game
from mancala_envs.cli.main import main as cli_main
from mancala_envs.envs.vector import MancalaVecEnv
from mancala_envs.evaluation.arena import load_records, play_game, replay, round_robin

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable


def run(*argv: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([PY, *argv], cwd=ROOT, capture_output=True, text=True, timeout=timeout)


# ---------------------------------------------------------------------------- 1-3: arrays in


def test_1_observations_check_their_players():
    g = get_game("songo_ewondo")
    states = g.initial_states(2)
    for bad in (10**12, np.array([0, 1, 2]), 0.9, np.array([0.0, 1.0]), -1):
        with pytest.raises(ValueError, match="players"):
            g.observations(states, bad)
    assert g.observations(states, np.array([0, 1])).shape == (2, g.observation_size)


@pytest.mark.parametrize("field, value, says", [
    ("to_move", 10**8, "to_move"), ("winner", 7, "winner"), ("board0", -1, "board count"),
    ("board0", 10, "add up"), ("status", 5, "status"), ("mask", 0, "legal mask"),
    ("pending", 1, "first_move_pending"),
])  # fmt: skip
def test_2_state_from_array_checks_everything(field, value, says):
    g = get_game("songo_ewondo")
    lay = g.layout
    a = g.initial_state().array.copy()
    index = {"to_move": lay.to_move, "winner": lay.winner, "board0": 0, "status": lay.status,
             "mask": lay.mask.start + 3, "pending": lay.pending.start}[field]  # fmt: skip
    a[index] = value
    with pytest.raises(ValueError, match=says):
        g.state_from_array(a)


def test_2_floats_and_stale_masks_are_refused_not_rounded():
    g = get_game("sadeqa_ii")
    a = g.initial_state().array
    with pytest.raises(ValueError, match="integers"):
        g.state_from_array(a.astype(float) + 0.7)
    stale = a.copy()
    stale[g.layout.mask] = [1, 1, 1, 1, 1, 1]  # ignores SQ4
    with pytest.raises(ValueError, match="legal mask"):
        g.state_from_array(stale)


def test_3_apply_batch_checks_rows():
    g = get_game("en_dodoi")
    states = g.initial_states(3)
    states[1, g.layout.to_move] = 50_000_000
    with pytest.raises(ValueError, match="row 1"):
        g.apply_batch(states, np.array([0, 1, 2]))


# ---------------------------------------------------------------------------- 4-9: silent wrong results


def test_4_copies_of_the_vector_env_step_on_their_own():
    vec = MancalaVecEnv("songo_ewondo", 4, seed=3)
    vec.reset()
    for clone in (copy.deepcopy(vec), pickle.loads(pickle.dumps(vec))):
        before = clone.states
        clone.step(np.argmax(clone.action_masks(), axis=1))
        assert not np.array_equal(before, clone.states)  # the copy advanced ...
        assert np.array_equal(before, vec.states)  # ... and the original did not


def test_6_resume_refuses_a_tampered_record_naming_the_line(tmp_path):
    game = get_game("en_dodoi", holes_per_row=6, max_plies=150)
    out = tmp_path / "t"
    round_robin(game, ["random", "greedy"], 4, seed=0, out_dir=out, progress=False)
    lines = (out / "games.jsonl").read_text().splitlines()
    rec = json.loads(lines[2])
    rec["winner"] = 1 - rec["winner"] if rec["winner"] in (0, 1) else 0
    lines[2] = json.dumps(rec)
    (out / "games.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.raises(ValueError, match=r"line 3: the record was changed or damaged"):
        round_robin(game, ["random", "greedy"], 4, seed=0, out_dir=out, resume=True, progress=False)


def test_6_replay_checks_captured_and_refuses_fractional_moves():
    game = get_game("songo_ewondo")
    rec = play_game(game, "random", "greedy", seed=4).to_dict()
    edited = dict(rec, captured=[rec["captured"][0] + 1, rec["captured"][1] - 1])
    with pytest.raises(ValueError, match="captured"):
        replay(edited)
    with pytest.raises(ValueError, match="move 0"):
        replay(dict(rec, moves=[rec["moves"][0] + 0.7, *rec["moves"][1:]]))


def test_7_huge_counts_do_not_wrap_around():
    g = get_game("songo_ewondo")
    with pytest.raises(ValueError, match="above the game's 70 seeds"):
        g.state_from([2**62] * 4 + [0] * 10, captured=[0, 0])
    with pytest.raises(ValueError):
        g.state_from([2**80] + [0] * 13, captured=[0, 0])


def test_8_vector_env_takes_exactly_num_envs_actions():
    vec = MancalaVecEnv("sadeqa_ii", 4, seed=0)
    vec.reset()
    for bad in (np.zeros((2, 2), dtype=int), np.zeros(5, dtype=int), np.zeros((4, 1), dtype=int)):
        with pytest.raises(IllegalMoveError, match="actions must be 4"):
            vec.step(bad)


def test_9_rllib_env_copies_get_their_own_seeds():
    pytest.importorskip("ray")
    from ray.rllib.env.env_context import EnvContext

    from mancala_envs.training.train_rllib import RLlibMancalaEnv

    config = {"game": "sadeqa_ii", "opponents": {"random": 1.0}, "seed": 3}
    draws = set()
    for worker, vector in ((0, 0), (1, 0), (1, 1)):
        env = RLlibMancalaEnv(EnvContext(config, worker_index=worker, vector_index=vector))
        draws.add(int(env._rng.integers(2**31)))
    assert len(draws) == 3


# ---------------------------------------------------------------------------- 11-13: files and messages


class _Boom:
    def __reduce__(self):
        return (os.system, (f"touch {os.environ.get('BOOM_FILE', '/tmp/mancala_boom')}",))


def test_11_a_crafted_zip_runs_no_code_without_the_opt_in(tmp_path, monkeypatch):
    import base64

    boom = tmp_path / "boom"
    monkeypatch.setenv("BOOM_FILE", str(boom))
    payload = base64.b64encode(pickle.dumps(_Boom())).decode()
    evil = tmp_path / "evil.zip"
    with zipfile.ZipFile(evil, "w") as z:
        z.writestr("data", json.dumps({"policy_class": {":type:": "x", ":serialized:": payload}}))
    with pytest.raises(ValueError, match="pickle"):
        from mancala_envs.agents.registry import make_agent

        make_agent(f"policy:path={evil}")
    from mancala_envs.training.train_ppo import Args, load_checkpoint

    with pytest.raises(ValueError):  # a resume reads its own zip without unpickling what it cannot rebuild
        bad = dict(json.loads(zipfile.ZipFile(evil).read("data")), lr_evil={":serialized:": payload})
        with zipfile.ZipFile(tmp_path / "model.zip", "w") as z:
            z.writestr("data", json.dumps(bad))
        env, game = MancalaVecEnv("songo_ewondo", 2), get_game("songo_ewondo")
        load_checkpoint(tmp_path / "model.zip", env, Args(), game, "cpu")
    assert not boom.exists()


def test_12_late_or_odd_errors_are_early_value_errors(tmp_path, capsys):
    g = get_game("sadeqa_ii")
    with pytest.raises(IllegalMoveError, match="out of range"):
        g.apply(g.initial_state(), 2**63)
    for bad in ({"max_plies": 2**63}, {"max_plies": 0}):
        with pytest.raises(ValueError, match="max_plies"):
            get_game("sadeqa_ii", **bad)
    with pytest.raises(ValueError, match="unknown game"):
        get_game(["songo_ewondo"])
    board = [3] * 12
    with pytest.raises(ValueError, match="two booleans"):
        g.state_from(board, first_move_pending=True)
    assert g.state_from(board, first_move_pending=np.array([1, 1])).first_move_pending == (True, True)
    assert g.state_from(board, first_move_pending=[True, True]) == g.state_from(
        board, first_move_pending=[1, 1]
    )
    blocked = tmp_path / "blocked"
    blocked.mkdir()
    os.chmod(blocked, 0o500)
    if os.access(blocked, os.W_OK):  # running as root: a path below a file cannot be created instead
        target = tmp_path / "file"
        target.write_text("x")
        out = target / "game.jsonl"
    else:
        out = blocked / "game.jsonl"
    start = time.perf_counter()
    assert (
        cli_main(["play", "sadeqa_ii", "--p0", "random", "--p1", "random", "--quiet", "--out", str(out)]) == 2
    )
    err = capsys.readouterr()
    assert "error" in err.err and "game over" not in err.out  # refused before the game was played
    assert time.perf_counter() - start < 30


def test_13_clear_messages_for_damaged_files(tmp_path, capsys):
    not_records = tmp_path / "notes.jsonl"
    not_records.write_text('{"hello": 1}\n')
    assert cli_main(["replay", str(not_records)]) == 2
    assert "line 1: not a game record" in capsys.readouterr().err
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert cli_main(["replay", str(empty)]) == 2
    assert "holds no game records" in capsys.readouterr().err
    game = get_game("sadeqa_ii", max_plies=80)
    out = tmp_path / "t"
    round_robin(game, ["random", "greedy"], 2, seed=0, out_dir=out, progress=False)
    (out / "tournament.json").write_text("{broken")
    assert cli_main(["tournament", "sadeqa_ii", "--max-plies", "80", "--agents", "random", "greedy",
                     "--games", "2", "--out", str(out), "--resume"]) == 2  # fmt: skip
    assert "tournament.json is not valid JSON" in capsys.readouterr().err
    with pytest.raises(ValueError, match="line 2"):
        (tmp_path / "g.jsonl").write_text(play_game(game, "random", "random").to_json() + "\n{bad}\n\n")
        load_records(tmp_path / "g.jsonl")


# ---------------------------------------------------------------------------- fuzz


def test_boundary_fuzz_in_a_subprocess():
    """Hypothesis over state_from, state_from_array, apply_batch, legal_masks, observations,
    counts_batch, check_states and the vector env's step: a ValueError or a correct result, never
    another exception, never a crash (a segfault would show as a negative return code)."""
    proc = subprocess.run([PY, "-W", "ignore", "tests/fuzz/boundary.py"], cwd=ROOT, capture_output=True,
                          text=True, timeout=600, env={**os.environ, "FUZZ_EXAMPLES": "300"})  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    assert proc.stdout.count(": ok") == 4


# ---------------------------------------------------------------------------- 10: Ctrl-C


def interrupt_after(
    args: list[str], ready, delay: float, timeout: float = 300
) -> subprocess.CompletedProcess:
    """Start ``args``, wait until ``ready()`` holds, sleep ``delay`` and send SIGINT."""
    proc = subprocess.Popen([PY, *args], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + timeout
    while not ready() and time.time() < deadline and proc.poll() is None:
        time.sleep(0.1)
    time.sleep(delay)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=timeout)
    return subprocess.CompletedProcess(args, proc.returncode, out, err)


def test_10_ctrl_c_inside_a_compiled_search_during_a_tournament(tmp_path):
    out = tmp_path / "t"
    agents = ["minimax:depth=9", "minimax:depth=8"]
    args = ["-m", "mancala_envs.cli.main", "tournament", "songo_ewondo", "--agents", *agents,
            "--games", "200", "--out", str(out), "--no-progress"]  # fmt: skip
    proc = interrupt_after(args, lambda: (out / "tournament.json").exists(), delay=2.0)
    assert proc.returncode == 130, proc.stderr[-2000:]
    assert "interrupted; finished games are kept" in proc.stderr and "--resume" in proc.stderr
    assert "Traceback" not in proc.stderr and "SystemError" not in proc.stderr
    records = (out / "games.jsonl").read_text() if (out / "games.jsonl").exists() else ""
    assert all(line.endswith("}") for line in records.splitlines())  # whole records only


def test_10_ctrl_c_during_an_evaluation_keeps_the_finished_games(tmp_path):
    out = tmp_path / "e"
    games = out / "games.jsonl"
    # ~0.2 s a game here (200 games ~45 s): the evaluation is still running when the signal comes
    args = ["-m", "mancala_envs.evaluation.evaluate", "greedy", "--game", "songo_ewondo", "--opponents",
            "minimax:depth=11", "--games", "200", "--out", str(out), "--no-progress"]  # fmt: skip
    proc = interrupt_after(args, lambda: games.exists() and games.read_text().count("\n") >= 2, delay=0.5)
    assert proc.returncode == 130, proc.stderr[-2000:]
    assert "interrupted; the finished games are in" in proc.stderr and "Traceback" not in proc.stderr
    kept = load_records(games, verify=True)
    assert 2 <= len(kept) < 200


def test_10_ctrl_c_during_training_saves_a_checkpoint_at_the_interrupt(tmp_path):
    run_dir = tmp_path / "r"
    log = tmp_path / "out.txt"
    args = ["-m", "mancala_envs.training.train_ppo", "--total-timesteps", "10000000", "--num-envs", "8",
    "--n-steps", "64",
            "--batch-size", "128", "--n-epochs", "1", "--eval-freq", "10000000", "--net-arch", "16",
            "--pool", "minimax:depth=2@1", "--eval-games", "2", "--final-eval-games", "2",
            "--eval-opponents", "random", "--no-progress-bar", "--out", str(run_dir)]  # fmt: skip
    with open(log, "w") as fh:
        proc = subprocess.Popen([PY, *args], cwd=ROOT, stdout=fh, stderr=subprocess.STDOUT, text=True)
        deadline = time.time() + 300
        while "training songo_ewondo" not in log.read_text() and time.time() < deadline:
            time.sleep(0.2)
        time.sleep(4.0)  # a few rollouts in, the opponent searching in compiled code
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=300)
    text = log.read_text()
    assert proc.returncode == 130, text[-2000:]
    assert "checkpoint saved" in text and "Traceback" not in text
    state = json.loads((run_dir / "state.json").read_text())
    assert state["num_timesteps"] > 0 and state["evals"] == []  # at the interrupt, before any evaluation
    policy = json.loads((run_dir / "policy.json").read_text())
    assert policy["trained"]["steps"] == state["num_timesteps"]
    resumed = run("-m", "mancala_envs.training.train_ppo", "--resume", str(run_dir), "--total-timesteps",
                  str(state["num_timesteps"] + 512), "--no-progress-bar")  # fmt: skip
    assert resumed.returncode == 0 and "resuming" in resumed.stdout, resumed.stderr[-2000:]
