"""agents/alphazero/value_minimax.py against a plain recursive minimax written here; training/distill_az.py:
its targets, a short run that learns its labels, the same run after a Ctrl-C and a resume, the run
folder and bad arguments."""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import numpy as np
import pytest
import torch
from conftest import interrupt_training
from golden_search import random_position
from tiny_models import distill_args, tiny_teacher

from mancala_envs import get_game
from mancala_envs.agents.alphazero.network import build_network, load_network, network_config, save_network
from mancala_envs.agents.alphazero.value_minimax import minimax_values, move_values
from mancala_envs.agents.registry import make_agent
from mancala_envs.training.distill_az import main as distill_main
from mancala_envs.training.distill_az import targets

GAME = get_game("en_dodoi", holes_per_row=6)


def stub_value(states: np.ndarray, movers: np.ndarray) -> np.ndarray:
    """A fixed value for the mover: a smooth function of the board and the captures."""
    board, captured = (
        states[:, GAME.layout.board].astype(float),
        states[:, GAME.layout.captured].astype(float),
    )
    mine = np.where(movers == 0, captured[:, 0], captured[:, 1]) - np.where(
        movers == 0, captured[:, 1], captured[:, 0]
    )
    return np.tanh(0.1 * mine + 0.01 * (board * np.arange(board.shape[1])).sum(1) / 10 - 0.2)


def plain_value(state, depth: int) -> float:
    """Player 0's value of ``state`` by minimax to ``depth`` plies over :func:`stub_value`."""
    if state.is_over:
        return 0.0 if state.winner in (-1, None) else 1.0 if state.winner == 0 else -1.0
    p = state.to_move
    if depth == 0:
        v = float(stub_value(state.array[None], np.array([p]))[0])
        return v if p == 0 else -v
    children = [plain_value(GAME.apply(state, a), depth - 1) for a in GAME.legal_actions(state)]
    return max(children) if p == 0 else min(children)


def test_minimax_values_match_a_plain_recursive_minimax():
    states = [random_position(GAME, k, 300 + k) for k in range(0, 80, 4)]
    states = [s for s in states if not s.is_over][:12]
    batch = np.stack([s.array for s in states])
    for depth in (0, 1, 2, 3):
        got = minimax_values(GAME, batch, depth, stub_value)
        assert np.allclose(got, [plain_value(s, depth) for s in states]), depth
    moves = move_values(GAME, batch, 3, stub_value)
    for s, row in zip(states, moves, strict=True):
        legal = set(GAME.legal_actions(s))
        sign = 1 if s.to_move == 0 else -1
        for a in range(GAME.num_actions):
            if a in legal:
                assert row[a] == pytest.approx(sign * plain_value(GAME.apply(s, a), 2))
            else:
                assert np.isnan(row[a])
    with pytest.raises(ValueError, match="depth"):
        move_values(GAME, batch, 0, stub_value)
    over = states[0]
    while not over.is_over:
        over = GAME.apply(over, GAME.legal_actions(over)[0])
    with pytest.raises(ValueError, match="needs running states"):
        move_values(GAME, np.stack([batch[0], over.array]), 2, stub_value)


def test_targets_are_uniform_over_the_best_moves():
    values = np.array([[0.5, np.nan, 0.5, -1.0], [np.nan, -0.2, -0.3, np.nan]], dtype=np.float32)
    legal, policy, value = targets(values)
    assert legal.tolist() == [[True, False, True, True], [False, True, True, False]]
    assert policy.tolist() == [[0.5, 0.0, 0.5, 0.0], [0.0, 1.0, 0.0, 0.0]]
    assert value.tolist() == pytest.approx([0.5, -0.2])


def test_a_short_run_learns_its_labels_and_resumes_to_the_same_network(tmp_path):
    teacher = tiny_teacher(tmp_path)
    whole = tmp_path / "whole"
    assert distill_main(distill_args(teacher, whole, "--epochs", "4")) == 0
    for name in (
        "config.json",
        "command.txt",
        "data.npz",
        "az.json",
        "checkpoint.pt",
        "state.json",
        "report.md",
    ):
        assert (whole / name).is_file(), name
    net, config = load_network(whole / "az.json")
    assert config["network"]["third"] == 4 and config["trained"]["updates"] == 4 * (5000 // 128)
    assert config["search"]["sims"] == 8 and "minimax to 3 plies" in config["trained"]["expert"]
    with np.load(whole / "data.npz") as data:
        states, values = data["states"], data["values"]
    legal, policy, _ = targets(values[:1000])
    start, _ = load_network(teacher)

    def agreement(model, plies: int) -> float:
        with torch.no_grad():
            logits, _ = model(torch.from_numpy(GAME.lookahead_batch(states[:1000], plies).astype(np.float32)))
        moves = np.argmax(np.where(legal, logits.numpy(), -np.inf), axis=1)
        return float((policy[np.arange(1000), moves] > 0).mean())

    assert agreement(net, 3) >= agreement(start, 2) + 0.05, (agreement(start, 2), agreement(net, 3))
    assert make_agent(f"az:path={whole / 'az.json'},sims=4").act(GAME, GAME.initial_state()) in range(6)
    # the same run stopped by Ctrl-C in its second epoch, then resumed, ends with the same weights
    part = tmp_path / "part"
    args = distill_args(teacher, part, "--epochs", "4", "--save-every", "1")
    env = {**os.environ, "OMP_NUM_THREADS": "1"}

    def one_epoch_saved() -> bool:
        state = part / "state.json"
        return state.is_file() and json.loads(state.read_text())["updates"] >= 5000 // 128

    interrupt_training("mancala_envs.training.distill_az", args, one_epoch_saved, env)
    stopped = json.loads((part / "state.json").read_text())["updates"]
    assert 5000 // 128 <= stopped < 4 * (5000 // 128)  # stopped before the end
    assert distill_main(["--resume", str(part)]) == 0
    resumed = torch.load(part / "az.pt", weights_only=True)
    final = torch.load(whole / "az.pt", weights_only=True)
    assert all(torch.equal(resumed[k], final[k]) for k in final)
    assert evaluated_updates(part) == evaluated_updates(whole) == [k * (5000 // 128) for k in range(5)]


def evaluated_updates(run: Path) -> list[int]:
    """The updates at which the run's eval.csv has evaluations."""
    with open(run / "eval.csv", encoding="utf-8") as fh:
        return sorted({int(row["updates"]) for row in csv.DictReader(fh)})


def test_a_resume_evaluates_an_epoch_left_unevaluated_and_needs_the_checkpoint(tmp_path, capsys):
    """A run stopped between its last update and that epoch's evaluation evaluates it on --resume;
    a run folder without its checkpoint is refused."""
    run = tmp_path / "run"
    assert distill_main(distill_args(tiny_teacher(tmp_path), run, "--epochs", "1")) == 0
    state = json.loads((run / "state.json").read_text())
    state["evals"] = [e for e in state["evals"] if e["updates"] == 0]  # as if stopped before it
    (run / "state.json").write_text(json.dumps(state))
    assert distill_main(["--resume", str(run)]) == 0
    assert "epoch 1: held-out agreement" in capsys.readouterr().out
    assert evaluated_updates(run) == [0, 5000 // 128]
    (run / "checkpoint.pt").unlink()
    assert distill_main(["--resume", str(run)]) == 2
    assert "not its checkpoint.pt" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--depth", "0"], "--depth"),
        (["--holdout", "5900"], "must leave a --batch-size"),
        (["--replies", "0"], "needs the reply encoder"),
        (["--teacher", "/nonexistent.json"], "--teacher /nonexistent.json: not an az model"),
        (["--hidden", "16"], "--init-from"),
    ],
)
def test_bad_arguments_exit_2_naming_them(flags, message, tmp_path, capsys):
    teacher = tiny_teacher(tmp_path)
    assert distill_main([*distill_args(teacher, tmp_path / "x"), *flags]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "x" / "config.json").exists()


def test_a_teacher_of_another_game_is_refused_also_through_the_cli(tmp_path, capsys):
    from mancala_envs.cli.main import main as cli_main

    other = get_game("sadeqa_ii")
    config = network_config(other, [32, 32], 8, 10.0, lookahead=8)
    save_network(build_network(config), tmp_path / "other.json", config)
    assert cli_main(["distill-az", *distill_args(tmp_path / "other.json", tmp_path / "x")]) == 2
    assert "a model of another game (sadeqa_ii)" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()
