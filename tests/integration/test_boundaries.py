"""Bad input at the public boundaries of ``mancala train``, ``mancala tablebase build``,
``mancala tournament``, ``mancala replay`` and ``mancala evaluate``: a ValueError (or one error
line, exit status 2) naming the problem, before any file or folder is made; and network agents
given an empty batch, the lookahead given a bool for its plies."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from mancala_envs import get_game, tablebase
from mancala_envs.cli.main import main as cli_main
from mancala_envs.cli.tablebase import main as tablebase_main
from mancala_envs.evaluation.arena import play_game
from mancala_envs.evaluation.evaluate import agent_spec
from mancala_envs.tablebase import builder, store
from mancala_envs.training.train_ppo import main as train_main
from mancala_envs.training.train_ppo import resolve_args

# ---------------------------------------------------------------------------- mancala train (PPO)


@pytest.mark.parametrize(
    "flag, value",
    [
        ("--gamma", "2"),
        ("--gamma", "0"),
        ("--gae-lambda", "1.5"),
        ("--gae-lambda", "-0.1"),
        ("--learning-rate", "-1"),
        ("--learning-rate", "0"),
        ("--learning-rate", "nan"),
        ("--clip-range", "0"),
        ("--max-grad-norm", "-1"),
        ("--obs-scale", "0"),
        ("--ent-coef", "-0.01"),
        ("--vf-coef", "-1"),
        ("--vf-coef", "inf"),
        ("--snapshot-weight", "-1"),
        ("--capture-shaping", "-1"),
        ("--batch-size", "1"),
        ("--n-steps", "0"),
        ("--n-epochs", "0"),
        ("--num-envs", "0"),
        ("--max-snapshots", "-1"),
        ("--one-hot-max", "-1"),
        ("--net-arch", "0"),
    ],
)
def test_ppo_rejects_a_bad_hyperparameter_naming_it(flag, value):
    with pytest.raises(ValueError, match=f"^{flag} must be"):
        resolve_args([flag, value])


def test_ppo_accepts_the_closed_ends_of_its_ranges():
    args = resolve_args(["--gamma", "1", "--gae-lambda", "1", "--ent-coef", "0", "--batch-size", "2"])
    assert (args.gamma, args.gae_lambda, args.ent_coef, args.batch_size) == (1.0, 1.0, 0.0, 2)


def test_ppo_rejects_a_pool_with_no_opponent_to_draw():
    with pytest.raises(ValueError, match="no opponent to draw"):
        resolve_args(["--pool", "greedy@0", "--snapshot-weight", "0"])


@pytest.mark.parametrize("flag, value", [("--gamma", "2"), ("--learning-rate", "-1")])
def test_ppo_bad_argument_makes_no_run_folder(flag, value, tmp_path, capsys):
    run = tmp_path / "r"
    assert train_main([flag, value, "--out", str(run)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"mancala train: error: {flag} must be") and "Traceback" not in err
    assert not run.exists()


# ---------------------------------------------------------------------------- tablebase build


def test_tablebase_refuses_more_seeds_than_the_game_has(tmp_path):
    out = tmp_path / "tbx"
    with pytest.raises(ValueError, match=r"at most the 70 seeds of songo_ewondo, got 100"):
        tablebase.build(get_game("songo_ewondo"), 100, out)
    assert not out.exists()


def test_tablebase_cli_refuses_more_seeds_than_the_game_has(tmp_path, capsys):
    out = tmp_path / "tbx"
    argv = ["build", "songo_ewondo", "--max-seeds", "100", "--out", str(out), "--quiet"]
    assert tablebase_main(argv) == 2
    err = capsys.readouterr().err
    assert "70" in err and "100" in err and "Traceback" not in err
    assert not out.exists()


def test_tablebase_refuses_a_table_larger_than_the_disk(tmp_path, monkeypatch):
    out = tmp_path / "tbx"
    with pytest.raises(ValueError, match=r"layer of 70 seeds holds [\d,]+ boards"):
        tablebase.build(get_game("songo_ewondo"), 70, out)  # ~10^15 positions: its layers first
    monkeypatch.setattr(builder, "MAX_LAYER", 1 << 62)  # past that check, the disk's
    with pytest.raises(ValueError, match=r"needs [\d,.]+ GiB more on disk, .* free"):
        tablebase.build(get_game("songo_ewondo"), 70, out)
    assert not out.exists()


def test_tablebase_size_check_counts_the_free_space_of_the_folder(tmp_path, monkeypatch):
    seen = []

    def no_space(path):
        seen.append(Path(path))
        return SimpleNamespace(total=100, used=100, free=0)

    monkeypatch.setattr(shutil, "disk_usage", no_space)
    out = tmp_path / "a" / "tb"
    with pytest.raises(ValueError, match=r"sadeqa_ii with max_seeds=3 .* 0\.0 MiB free"):
        tablebase.build(get_game("sadeqa_ii"), 3, out)
    assert seen == [tmp_path]  # the nearest existing folder above the table's
    assert not (tmp_path / "a").exists()


def test_tablebase_path_that_is_a_file_is_a_value_error(tmp_path):
    plain = tmp_path / "plain.txt"
    plain.write_text("keep me")
    game = get_game("sadeqa_ii")
    with pytest.raises(ValueError, match=re.escape(f"{plain} is a file, not a table folder")):
        tablebase.build(game, 2, plain)
    with pytest.raises(
        ValueError, match=re.escape(f"{plain} is a file: the table folder {plain / 't'} cannot")
    ):
        tablebase.build(game, 2, plain / "t")
    assert plain.read_text() == "keep me"


def test_tablebase_failed_build_leaves_no_blocking_lock(tmp_path, monkeypatch):
    game, out = get_game("sadeqa_ii"), tmp_path / "tb"

    def crash(*args, **kwargs) -> None:
        (out / store.VALUES).write_bytes(b"")  # the build had begun
        raise OSError(27, "File too large")

    monkeypatch.setattr(builder, "_build_layers", crash)
    with pytest.raises(OSError, match="File too large"):
        tablebase.build(game, 3, out)
    assert (out / store.LOCK).exists()
    with store.build_lock(out):  # the file is left, the lock is not held: the next build may run
        pass


def test_tablebase_lock_of_a_dead_builder_does_not_block(tmp_path):
    """A builder that holds the lock blocks a second build; once its process is gone (no cleanup
    code ran), the lock is free again."""
    game, out = get_game("sadeqa_ii"), tmp_path / "tb"
    out.mkdir()
    holder = (
        "import fcntl, os, sys\n"
        f"fh = open({str(out / store.LOCK)!r}, 'w')\n"
        "fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)\n"
        "print('locked', flush=True)\n"
        "sys.stdin.read()\n"
        "os._exit(1)\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", holder], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout.readline().strip() == "locked"
        with pytest.raises(ValueError, match="being built by another process"):
            tablebase.build(game, 2, out)
    finally:
        proc.stdin.close()
        proc.wait(timeout=10)
    assert (out / store.LOCK).exists()
    with store.build_lock(out):
        pass


# ---------------------------------------------------------------------------- mancala tournament


def tournament_argv(out: Path, *extra: str) -> list[str]:
    return ["tournament", "sadeqa_ii", "--max-plies", "60", "--agents", "random", "greedy",
            "--games", "2", "--out", str(out), "--no-progress", "--bootstrap", "0", *extra]  # fmt: skip


def one_error_line(capsys) -> str:
    err = capsys.readouterr().err
    assert err.startswith("mancala: error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    return err


def test_tournament_fresh_without_reuse_is_a_usage_error(tmp_path, capsys):
    out = tmp_path / "t"
    assert cli_main(tournament_argv(out, "--fresh", "greedy")) == 2
    err = one_error_line(capsys)
    assert "--fresh needs --reuse" in err
    assert not out.exists()


def test_tournament_resume_of_a_missing_folder_is_an_error(tmp_path, capsys):
    out = tmp_path / "missing"
    assert cli_main(tournament_argv(out, "--resume")) == 2
    assert f"--resume: {out} does not exist" in one_error_line(capsys)
    assert not out.exists()
    out.mkdir()
    assert cli_main(tournament_argv(out, "--resume")) == 2
    assert f"--resume: {out} is empty" in one_error_line(capsys)
    assert not any(out.iterdir())


# ---------------------------------------------------------------------------- mancala replay


def record_line(seed: int = 0) -> str:
    """A well-formed record line of a real game (every reader replays it)."""
    return play_game(get_game("sadeqa_ii", max_plies=60), "random", "random", seed=seed).to_json() + "\n"


@pytest.mark.parametrize("text", ["{bad\n", "{bad", "not json at all\n"])
def test_replay_of_a_lone_bad_line_names_the_line(text, tmp_path, capsys):
    path = tmp_path / "g.jsonl"
    path.write_text(text)
    assert cli_main(["replay", str(path)]) == 2
    err = one_error_line(capsys)
    assert f"{path}, line 1: not valid JSON" in err and "holds no game records" not in err


def test_replay_bad_line_among_good_ones_is_named_wherever_it_is(tmp_path, capsys):
    middle = tmp_path / "middle.jsonl"
    middle.write_text(record_line(0) + "{bad\n" + record_line(1))
    assert cli_main(["replay", str(middle), "--game", "1"]) == 2
    assert f"{middle}, line 2: not valid JSON" in one_error_line(capsys)
    last = tmp_path / "last.jsonl"
    last.write_text(record_line(0) + "{bad\n")
    assert cli_main(["replay", str(last), "--game", "1"]) == 2
    assert f"{last}, line 2: not valid JSON" in one_error_line(capsys)


def test_replay_of_an_empty_file_still_says_no_records(tmp_path, capsys):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert cli_main(["replay", str(empty)]) == 2
    assert "holds no game records" in one_error_line(capsys)


# ---------------------------------------------------------------------------- mancala evaluate


@pytest.mark.parametrize("text", ["/nonexistent_dir", "runs/nope", "model.zip", "nope.json", "x.pt"])
def test_evaluate_missing_path_says_no_such_file(text, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_info:
        cli_main(["evaluate", text, "--game", "sadeqa_ii", "--games", "2", "--no-progress"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert f"no such file or folder: {text!r}" in err and "unknown agent" not in err


def test_evaluate_keeps_agent_specs_that_name_a_file():
    model = str(Path(__file__).resolve().parents[2] / "models" / "az_songo_ewondo.json")
    assert Path(model).is_file()
    assert agent_spec(f"az:path={model}") == f"az:path={model}"
    assert agent_spec(f"policy:path={model}") == f"policy:path={model}"
    assert agent_spec(model) == f"policy:path={model}"
    assert agent_spec("minimax:depth=2") == "minimax:depth=2"
    assert agent_spec("no_such_agent") == "no_such_agent"  # a name, not a path: the registry says


# ---------------------------------------------------------------------------- agents and the core


def test_network_agents_answer_an_empty_batch_and_lookahead_refuses_a_bool_ply():
    import numpy as np

    from mancala_envs.agents import make_agent

    game = get_game("songo_ewondo")
    for spec in ("policy", "az:sims=0", "az"):
        out = make_agent(spec).act_batch(game, game.initial_states(0))
        assert out.shape == (0,) and out.dtype == np.int64, spec
        assert make_agent(spec).act_batch(game, game.initial_states(2)).shape == (2,)
    with pytest.raises(ValueError, match="1, 2 or 3 plies"):
        game.lookahead_batch(game.initial_states(1), plies=True)


def test_tablebase_default_build_refuses_a_layer_larger_than_the_memory(tmp_path, monkeypatch):
    """The kernel kills a build that runs out of memory without a word; the default build now
    refuses up front, naming the low-memory build, which still builds the same table."""
    game, out = get_game("sadeqa_ii"), tmp_path / "tb"
    need = builder.default_build_bytes(game, 6)
    monkeypatch.setattr(builder, "available_memory", lambda: need - 1)
    with pytest.raises(ValueError, match=r"layer of 6 seeds needs about .*--low-memory"):
        tablebase.build(game, 6, out)
    assert not out.exists()
    small = tablebase.build(game, 6, out, low_memory=True)
    monkeypatch.setattr(builder, "available_memory", lambda: need)
    assert small.fingerprint() == tablebase.build(game, 6, tmp_path / "default").fingerprint()
