"""The ``mancala`` command: help, one-line errors, play, tournament (with resume), replay."""

from __future__ import annotations

import csv
import io
import itertools
import json
import subprocess
import sys
from pathlib import Path

import pytest

from mancala_envs import get_game
from mancala_envs.agents.base import RandomAgent
from mancala_envs.cli.main import board_text, main
from mancala_envs.evaluation.arena import load_records, play_game, replay


def error_line(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith("mancala: error: ")
    return err


@pytest.mark.parametrize("argv", [["--help"], ["play", "--help"], ["tournament", "--help"], ["replay", "-h"]])
def test_help_everywhere(argv, capsys):
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: mancala")
    if argv == ["--help"]:
        assert all(c in out for c in ("play", "tournament", "replay", "train", "evaluate", "train-rllib"))


@pytest.mark.parametrize(
    "argv, says",
    [
        (["play", "chess"], "invalid choice: 'chess'"),
        (["play", "en_dodoi", "--holes-per-row", "5"], "holes_per_row must be in 6..10"),
        (["play", "sadeqa_ii", "--holes-per-row", "7"], "unknown parameter(s) holes_per_row"),
        (["play", "en_dodoi", "--max-plies", "x"], "invalid int value: 'x'"),
        (["tournament", "en_dodoi", "--out", "x"], "required: --agents"),
        (["replay", "no/such/file.jsonl"], "no game records at no/such/file.jsonl"),
        (["frobnicate"], "invalid choice: 'frobnicate'"),
    ],
)
def test_bad_arguments_get_one_line(argv, says, capsys):
    assert main(argv) == 2
    assert says in error_line(capsys)


@pytest.fixture
def record_file(tmp_path) -> Path:
    game = get_game("en_dodoi", holes_per_row=6, max_plies=200)
    path = tmp_path / "games.jsonl"
    with open(path, "w") as fh:
        for seed in range(3):
            fh.write(play_game(game, RandomAgent(), RandomAgent(), seed=seed).to_json() + "\n")
    return path


def test_replay_prints_every_state(record_file, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))  # not a terminal: --step does not wait
    assert main(["replay", str(record_file), "--game", "2", "--step"]) == 0
    out = capsys.readouterr().out
    rec = load_records(record_file)[2]
    assert out.startswith("game 2 of 3: en_dodoi")
    assert out.count("\nply ") == rec.plies == len(rec.moves)
    for ply, move in enumerate(rec.moves, start=1):
        assert f"ply {ply}: player" in out and f"plays hole {move}\n" in out
    game = get_game(rec.game, **rec.params)
    pos = 0
    states = replay(rec)
    for ply, state in enumerate(states):  # every board, in order, with the captures of its move
        pos = out.index(board_text(game, state, previous=states[ply - 1] if ply else None), pos) + 1
    assert ("wins" in out) or ("draw" in out) or ("truncated" in out)
    captures = sum(int((b.captured != a.captured).any()) for a, b in itertools.pairwise(states))
    assert out.count(" (+") >= captures > 0 and "[" in out


def test_replay_step_waits_for_enter_on_a_terminal(record_file, capsys, monkeypatch):
    class Tty(io.StringIO):
        def isatty(self):
            return True

    rec = load_records(record_file)[0]
    monkeypatch.setattr(sys, "stdin", Tty("\n" * rec.plies))
    assert main(["replay", str(record_file), "--step"]) == 0
    assert capsys.readouterr().out.count("-- Enter: next, b: back, q: quit --") == rec.plies
    # b goes back one move (the board of ply 0 shows twice), q quits at once
    monkeypatch.setattr(sys, "stdin", Tty("\nb\n\nq\n"))
    assert main(["replay", str(record_file), "--step"]) == 0
    out = capsys.readouterr().out
    assert out.count("-- Enter: next, b: back, q: quit --") == 4
    assert out.count("ply 1: player") == 2 and "ply 2: player" not in out and "game over" not in out


def test_replay_game_out_of_range(record_file, capsys):
    assert main(["replay", str(record_file), "--game", "3"]) == 2
    assert "holds games 0..2" in error_line(capsys)


def test_the_console_script_runs():
    script = Path(sys.executable).with_name("mancala")
    if not script.exists():
        pytest.skip("console script not installed: run .venv/bin/pip install -e . --no-deps")
    done = subprocess.run([str(script), "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "tournament" in done.stdout
    done = subprocess.run([str(script), "play", "nogame"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stderr.startswith("mancala: error:") and done.stderr.count("\n") == 1


# ---------------------------------------------------------------- with the agents registry


@pytest.fixture
def registry():
    return pytest.importorskip("mancala_envs.agents.registry")


def test_play_watches_a_game_and_saves_the_record(registry, tmp_path, capsys):
    out = tmp_path / "rec.jsonl"
    argv = ["play", "en_dodoi", "--holes-per-row", "6", "--p0", "random", "--p1", "greedy", "--seed", "3"]
    assert main([*argv, "--out", str(out)]) == 0
    text = capsys.readouterr().out
    [rec] = load_records(out)
    assert rec.agents == ("random", "greedy") and rec.params["holes_per_row"] == 6
    assert text.count("\nply ") == rec.plies
    assert len(replay(rec)) == rec.plies + 1
    assert main([*argv, "--out", str(out), "--quiet"]) == 0  # same seed: the same game, appended
    assert "\nply " not in capsys.readouterr().out
    first, second = load_records(out)
    assert first == second


def test_play_rejects_a_bad_agent_spec_in_one_line(registry, capsys):
    assert main(["play", "songo_ewondo", "--p0", "nosuchagent", "--p1", "random"]) == 2
    assert "nosuchagent" in error_line(capsys)


def test_tournament_writes_ratings_and_resumes(registry, tmp_path, capsys):
    out = tmp_path / "t"
    argv = ["tournament", "en_dodoi", "--holes-per-row", "6", "--agents", "random", "greedy"]
    argv += ["--games", "4", "--out", str(out), "--bootstrap", "50", "--no-progress", "--seed", "2"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "| rank | agent | Elo |" in text and "`random`" in text and "`greedy`" in text
    for name in ("games.jsonl", "results.csv", "tournament.json", "ratings.md", "ratings.csv", "ratings.png"):
        assert (out / name).stat().st_size > 0
    assert len(load_records(out)) == 4
    with open(out / "pairwise.csv") as fh:
        rows = {r["agent"]: r for r in csv.DictReader(fh)}
    assert float(rows["random"]["greedy"]) + float(rows["greedy"]["random"]) == pytest.approx(1.0)
    assert json.loads((out / "tournament.json").read_text())["agents"] == ["random", "greedy"]

    assert main(argv) == 2  # never overwrite
    assert "--resume" in error_line(capsys)
    games = (out / "games.jsonl").read_bytes()
    assert main([*argv, "--resume"]) == 0
    assert "| rank |" in capsys.readouterr().out
    assert (out / "games.jsonl").read_bytes() == games


def test_tournament_reuse_plays_only_the_fresh_agents_games(registry, tmp_path, capsys):
    argv = ["tournament", "en_dodoi", "--holes-per-row", "6", "--agents", "random", "greedy", "mcts:sims=20"]
    argv += ["--games", "4", "--bootstrap", "0", "--no-progress", "--seed", "2"]
    assert main([*argv, "--out", str(tmp_path / "old")]) == 0
    assert (
        main([*argv, "--out", str(tmp_path / "new"), "--reuse", str(tmp_path / "old"), "--fresh", "greedy"])
        == 0
    )
    assert (tmp_path / "new" / "games.jsonl").read_bytes() == (tmp_path / "old" / "games.jsonl").read_bytes()
    capsys.readouterr()
    assert (
        main([*argv, "--out", str(tmp_path / "x"), "--reuse", str(tmp_path / "old"), "--fresh", "minimax"])
        == 2
    )
    assert "not in this tournament" in error_line(capsys)


def test_tournament_odd_games_is_a_one_line_error(registry, tmp_path, capsys):
    argv = [
        "tournament",
        "sadeqa_ii",
        "--agents",
        "random",
        "greedy",
        "--games",
        "3",
        "--out",
        str(tmp_path / "t"),
    ]
    assert main(argv) == 2
    assert "positive even integer" in error_line(capsys)


def test_version(capsys):
    from mancala_envs import __version__

    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"mancala (mancala_envs) {__version__}"


def test_replay_writes_a_gif(record_file, tmp_path, capsys):
    from PIL import Image

    gif = tmp_path / "game.gif"
    assert main(["replay", str(record_file), "--game", "1", "--gif", str(gif)]) == 0
    assert f"wrote {gif}" in capsys.readouterr().out
    rec = load_records(record_file)[1]
    with Image.open(gif) as im:
        assert im.n_frames == rec.plies + 1


def test_q_quits_human_play(registry, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("q\n"))
    assert main(["play", "songo_ewondo", "--p0", "human", "--p1", "random"]) == 1
    out = capsys.readouterr().out
    assert "quit at ply 0; game abandoned" in out
    assert "you are player_0 (seat 0, moves first, your row is at the bottom)" in out


class _Interrupting(io.StringIO):
    def readline(self, *args):
        raise KeyboardInterrupt


@pytest.mark.parametrize(
    ("typed", "status"), [(io.StringIO("q\n"), 1), (io.StringIO(""), 1), (_Interrupting(), 130)]
)
def test_an_abandoned_game_writes_no_record(registry, tmp_path, monkeypatch, capsys, typed, status):
    """q, closed input and Ctrl-C: a non-zero exit, no --out file (nor its folder) when there was
    none, an existing one unchanged."""
    argv = ["play", "songo_ewondo", "--p0", "random", "--p1", "human", "--seed", "1"]
    new = tmp_path / "new" / "games.jsonl"
    monkeypatch.setattr(sys, "stdin", typed)
    assert main([*argv, "--out", str(new)]) == status
    out = capsys.readouterr().out
    assert "you are player_1 (seat 1, moves second, your row is at the bottom)" in out
    assert "record appended" not in out and not new.parent.exists()
    old = tmp_path / "old.jsonl"
    old.write_text("kept\n")
    typed.seek(0)
    assert main([*argv, "--out", str(old)]) == status
    assert old.read_text() == "kept\n"


def test_a_finished_human_game_appends_its_record(registry, tmp_path, monkeypatch, capsys):
    old = tmp_path / "games.jsonl"
    rec = play_game(get_game("songo_ewondo"), "random", "random", seed=5)
    old.write_text(rec.to_json() + "\n")
    monkeypatch.setattr(sys, "stdin", io.StringIO("0\n1\n2\n3\n4\n5\n6\n" * 50))  # retried until legal
    argv = ["play", "songo_ewondo", "--p0", "human", "--p1", "human", "--max-plies", "12", "--out", str(old)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "two humans: player_0 (seat 0) moves first, player_1 (seat 1) moves second" in out
    assert f"record appended to {old}" in out
    first, second = load_records(old)
    assert first == rec and second.agents == ("human", "human") and second.plies == 12


def test_play_refuses_an_out_folder_before_the_game(registry, tmp_path, capsys):
    argv = ["play", "songo_ewondo", "--p0", "random", "--p1", "random", "--quiet", "--out", str(tmp_path)]
    assert main(argv) == 2
    assert "Is a directory" in error_line(capsys)


def test_compile_note_only_when_the_cache_is_cold(monkeypatch, capsys):
    from mancala_envs.infra import compile_note

    class Tty(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.setattr(sys, "stderr", Tty())
    monkeypatch.setattr(compile_note, "_said", set())
    monkeypatch.setattr(compile_note, "cache_is_warm", lambda kernel_set: True)
    compile_note.announce_compilation("rules")
    assert sys.stderr.getvalue() == ""
    monkeypatch.setattr(compile_note, "cache_is_warm", lambda kernel_set: False)
    monkeypatch.setattr(compile_note, "_marking", True)
    compile_note.announce_compilation("rules")
    compile_note.announce_compilation("rules")  # once per process
    assert sys.stderr.getvalue() == "compiling kernels: rules (first run only)…\n"


def test_the_compile_note_is_per_kernel_set(monkeypatch, tmp_path):
    """A process that compiled the rules marks the rules only: a later first use of another set
    (a first `az` play) is announced; a set announced whose kernels never ran is not marked."""
    from mancala_envs import _numba_cache, get_game
    from mancala_envs.agents import make_agent
    from mancala_envs.infra import compile_note

    class Tty(io.StringIO):
        def isatty(self):
            return True

    exits = []
    monkeypatch.setattr(_numba_cache, "MARKERS", tmp_path)  # no process compiled anything yet
    monkeypatch.setattr(compile_note.atexit, "register", exits.append)
    monkeypatch.setitem(compile_note.KERNEL_SETS, "unused", ("no.such.module",))

    def new_process() -> io.StringIO:
        monkeypatch.setattr(compile_note, "_said", set())
        monkeypatch.setattr(compile_note, "_marking", False)
        exits.clear()
        monkeypatch.setattr(sys, "stderr", Tty())
        return sys.stderr

    err = new_process()
    compile_note.announce_compilation("rules", "unused")
    get_game("songo_ewondo").initial_state()  # the rules kernels run; "unused" never does
    assert err.getvalue() == compile_note.message(["rules", "unused"]) + "\n"
    assert len(exits) == 1
    exits[0]()  # a normal exit
    assert _numba_cache.cache_is_warm("rules") and not _numba_cache.cache_is_warm("unused")

    err = new_process()
    compile_note.announce_compilation("rules")
    assert err.getvalue() == ""  # compiled by the first process: nothing to say
    compile_note.announce_compilation(*compile_note.agent_kernels("az:sims=50"))
    assert err.getvalue() == compile_note.message(["az"]) + "\n"  # the rules alone were compiled
    make_agent("minimax:depth=2")
    assert err.getvalue().splitlines()[-1] == compile_note.message(["minimax"])
    compile_note.announce_compilation("unused")
    assert err.getvalue().splitlines()[-1] == compile_note.message(["unused"])


def test_every_training_and_evaluation_option_has_help():
    from mancala_envs.evaluation.evaluate import build_parser as evaluate_parser
    from mancala_envs.training.args import build_parser
    from mancala_envs.training.train_ppo import Args
    from mancala_envs.training.train_rllib import build_parser as rllib_parser

    for parser in (rllib_parser(), evaluate_parser(), build_parser(Args, "mancala train", "")):
        missing = [a.dest for a in parser._actions if a.help in (None, "") and a.dest != "help"]
        assert not missing, f"{parser.prog}: options without help: {missing}"
        assert "(default None)" not in parser.format_help() and "(8) (default" not in parser.format_help()
