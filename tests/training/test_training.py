"""Training: the opponent pool in the vector env (one opponent per episode, the learner in both
seats, its own result as reward), tiny training runs in subprocesses (run folder, checkpoint that
loads as an agent, determinism, resume, Ctrl-C) and the evaluation against the arena."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import interrupt_training
from strategies import random_move

from mancala_envs import get_game, variants
from mancala_envs.agents.greedy import GreedyAgent
from mancala_envs.agents.registry import make_agent
from mancala_envs.envs.vector import MancalaVecEnv
from mancala_envs.evaluation import evaluate as ev
from mancala_envs.evaluation.arena import load_records, play_game, play_match
from mancala_envs.training.opponents import OpponentPool, parse_pool
from mancala_envs.training.train_ppo import CaptureShaping, resolve_args
from mancala_envs.training.train_ppo import main as train_main

ROOT = Path(__file__).resolve().parents[2]
# eval.csv of every trainer (PPO, AlphaZero-style, distillation): one header
EVAL_HEADER = (
    "step,timesteps,positions,updates,minutes,agent,opponent,pairs,games,distinct,"
    "wins,draws,losses,score,ci_low,ci_high"
)
TINY = [
    "--total-timesteps", "2048", "--num-envs", "8", "--n-steps", "128", "--batch-size", "256",
    "--n-epochs", "2", "--eval-freq", "1024", "--eval-games", "4", "--final-eval-games", "4",
    "--eval-opponents", "random", "greedy", "--pool", "random@1", "greedy@1", "minimax:depth=1@1",
    "--net-arch", "16", "--no-progress-bar", "--seed", "3",
]  # fmt: skip


def train(*args: str) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [sys.executable, "-m", "mancala_envs.training.train_ppo", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory) -> Path:
    run = tmp_path_factory.mktemp("runs") / "tiny"
    train(*TINY, "--out", str(run))
    return run


class Recorder(OpponentPool):
    """The pool, also recording what the env gives it."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.started: list[np.ndarray] = []
        self.moves: list[tuple[np.ndarray, np.ndarray]] = []

    def episodes_started(self, env_indices):
        self.started.append(np.array(env_indices))
        super().episodes_started(env_indices)

    def act_batch(self, game, states, env_indices=None):
        self.moves.append((states.copy(), self.env.seats[env_indices]))  # the learner's seats now
        return super().act_batch(game, states, env_indices)


def test_pool_opponent_per_episode_learner_both_seats_own_reward():
    game = get_game("songo_ewondo", max_plies=100)
    pool = Recorder(game, 8, {"random": 1.0, "greedy": 1.0, "minimax:depth=1": 1.0}, seed=5)
    env = pool.env = MancalaVecEnv(game, 8, opponent=pool, seed=5)
    env.reset()
    assert sorted(np.concatenate(pool.started).tolist()) == list(range(8))  # reset: every game once
    rng = np.random.default_rng(0)
    seats, ended, drawn, moves = [], 0, set(), 0
    to_move = game.layout.to_move
    for _ in range(250):
        pool.started.clear()
        before = pool.assignment.copy()
        masks = env.action_masks()
        seats.append(env.seats)
        _, rewards, dones, infos = env.step(np.argmax(masks * rng.random(masks.shape), axis=1))
        started = np.sort(np.concatenate(pool.started)) if pool.started else np.array([], dtype=int)
        # one new draw for each game whose episode ended, and only for those
        np.testing.assert_array_equal(started, np.flatnonzero(dones))
        np.testing.assert_array_equal(pool.finished_with[dones], before[dones])
        for i in np.flatnonzero(dones):
            ended += 1
            winner, seat = infos[i]["winner"], infos[i]["seat"]
            expected = 0.0 if winner not in (0, 1) else (1.0 if winner == seat else -1.0)
            assert rewards[i] == expected  # the learner's own result, in whichever seat
        drawn.update(pool.assignment.tolist())
        moves += sum(len(m[0]) for m in pool.moves)
        for states, learner_seats in pool.moves:  # the opponent moves in the other seat only
            assert (states[:, to_move] == 1 - learner_seats).all()
        pool.moves.clear()
    seats = np.array(seats)
    assert ended > 20 and drawn == {0, 1, 2} and moves > 500
    assert 0.3 < seats.mean() < 0.7  # the learner holds both seats


def test_pool_probabilities_snapshots_and_parsing():
    game = get_game("songo_ewondo")
    pool = OpponentPool(game, 4, parse_pool(["random@1", "greedy@3"]), snapshot_weight=4.0, max_snapshots=2)
    np.testing.assert_allclose(pool.probabilities, [0.25, 0.75])
    from sb3_contrib import MaskablePPO

    model = MaskablePPO("MlpPolicy", MancalaVecEnv(game, 2), n_steps=8, batch_size=8, seed=0)
    for k in range(3):
        pool.add_snapshot(model.policy, f"snapshot_{k}")
    assert pool.snapshot_order() == ["snapshot_1", "snapshot_2"]  # the oldest was replaced
    np.testing.assert_allclose(pool.probabilities, [0.125, 0.375, 0.25, 0.25])
    pool.episodes_started(np.arange(4))
    counts = np.bincount([pool.rng.choice(4, p=pool.probabilities) for _ in range(2000)], minlength=4)
    assert (np.abs(counts / 2000 - pool.probabilities) < 0.05).all()
    for bad in (["greedy"], ["greedy@x"], ["greedy@-1"], ["greedy@1", "greedy@2"]):
        with pytest.raises(ValueError, match="pool entry"):
            parse_pool(bad)


def test_pool_baselines_play_batched_greedy_moves():
    """The pool's greedy member is the agent's compiled batch: the one-ply best, computed here from
    the public API (captures do not score in Sadeqa II: own row minus the opponent's)."""
    game = get_game("sadeqa_ii")
    pool = OpponentPool(game, 1, {"greedy": 1.0}, seed=0)
    greedy = pool.baselines[0]
    assert isinstance(greedy, GreedyAgent)
    states = np.array([s.array for s in _positions(game, 40)])
    actions = greedy.act_batch(game, states)
    for row, a in zip(states, actions, strict=True):
        s = game.state_from_array(row)
        keys = {}
        for m in game.legal_actions(s):
            after = game.apply(s, m)
            own = int(after.board[s.to_move * 6 : s.to_move * 6 + 6].sum())
            keys[m] = (after.done and after.winner == s.to_move, 2 * own - int(after.board.sum()))
        assert keys[int(a)] == max(keys.values())


def _positions(game, n):
    rng, out, s = np.random.default_rng(0), [], game.initial_state()
    while len(out) < n:
        if s.is_over:
            s = game.initial_state()
        out.append(s)
        s = game.apply(s, random_move(game, s, rng))
    return out


def test_tiny_run_writes_its_folder_and_a_loadable_checkpoint(tiny_run):
    for name in ("config.json", "command.txt", "git_revision.txt", "model.zip", "policy.json", "policy.pt",
                 "state.json", "eval.csv", "report.md", "report.json", "learning_curve.png"):  # fmt: skip
        assert (tiny_run / name).is_file(), name
    assert list((tiny_run / "logs" / "session0").glob("events.out.tfevents*"))
    config = json.loads((tiny_run / "config.json").read_text())
    assert config["total_timesteps"] == 2048 and config["game"] == "songo_ewondo"
    assert config["device"] == "cpu"  # the device actually used
    assert json.loads((tiny_run / "state.json").read_text())["num_timesteps"] >= 2048
    evals = (tiny_run / "eval.csv").read_text().splitlines()
    assert len(evals) == 1 + 2 * 2  # header, then 2 evaluations x 2 opponents, the last at the final step
    assert evals[0] == EVAL_HEADER
    assert {int(row.split(",")[0]) for row in evals[1:]} == {1024, 2048}
    rows = list(csv.DictReader(evals))
    assert all(r["timesteps"] == r["step"] and r["agent"] == "learner" for r in rows)
    assert all(r["positions"] == r["updates"] == r["minutes"] == "" for r in rows)  # not PPO's counters
    agent = make_agent(f"policy:path={tiny_run / 'policy.json'}")
    game = get_game("songo_ewondo", max_plies=120)
    record = play_game(game, agent, "random", seed=1)  # an illegal move would raise
    assert record.plies > 0


def test_report_matches_the_arena(tiny_run, tmp_path):
    """The final report is play_match of the saved model with the run's evaluation seed, and
    ``mancala evaluate`` of the run folder gives the same games."""
    report = json.loads((tiny_run / "report.json").read_text())
    game = get_game("songo_ewondo")
    assert ev.main([str(tiny_run), "--opponents", "random", "greedy", "--games", "4", "--seed", "2024",
                    "--out", str(tmp_path), "--no-progress"]) == 0  # fmt: skip
    again = json.loads((tmp_path / "report.json").read_text())["results"]
    assert [r["opponent"] for r in report["results"]] == ["random", "greedy"]
    for row, other in zip(report["results"], again, strict=True):
        res = play_match(game, f"policy:path={tiny_run / 'policy.json'}", row["opponent"], 4, seed=2024)
        assert (row["wins"], row["draws"], row["losses"]) == (res.wins, res.draws, res.losses)
        assert (other["wins"], other["draws"], other["losses"]) == (res.wins, res.draws, res.losses)


def test_same_seed_same_curve_and_resume(tiny_run, tmp_path, capsys):
    again = tmp_path / "again"
    train(*TINY, "--out", str(again))
    assert (again / "eval.csv").read_text() == (tiny_run / "eval.csv").read_text()
    assert (again / "report.json").read_text() == (tiny_run / "report.json").read_text()
    # an existing run is never overwritten
    assert train_main([*TINY, "--out", str(again)]) == 2
    assert "--resume" in capsys.readouterr().err
    # resume continues the run from its checkpoint to the new total
    proc = train("--resume", str(again), "--total-timesteps", "4096", "--no-progress-bar")
    assert "resuming" in proc.stdout
    state = json.loads((again / "state.json").read_text())
    assert state["num_timesteps"] >= 4096
    assert sorted({e["timesteps"] for e in state["evals"]}) == [1024, 2048, 3072, 4096]
    assert (again / "logs" / "session1").is_dir()
    assert len((again / "command.txt").read_text().splitlines()) == 2


def test_ctrl_c_leaves_a_usable_checkpoint(tmp_path):
    run = tmp_path / "interrupted"
    args = [*TINY, "--total-timesteps", "10000000", "--out", str(run)]
    interrupt_training("mancala_envs.training.train_ppo", args, (run / "state.json").exists)
    state = json.loads((run / "state.json").read_text())
    policy = json.loads((run / "policy.json").read_text())
    assert policy["trained"]["steps"] == state["num_timesteps"] >= 1024
    make_agent(f"policy:path={run / 'policy.json'}")  # loads
    assert not [p for p in os.listdir(run) if p.endswith((".tmp", ".tmp.zip"))]


def test_evaluate_command_matches_the_arena(tmp_path, capsys):
    argv = [
        "greedy",
        "--game",
        "en_dodoi",
        "--holes-per-row",
        "6",
        "--opponents",
        "random",
        "minimax:depth=1",
    ]
    argv += ["--games", "6", "--seed", "9", "--out", str(tmp_path), "--no-progress"]
    assert ev.main(argv) == 0
    assert "| greedy | random | 3 | 6 |" in capsys.readouterr().out  # 3 opening pairs, 6 games
    report = json.loads((tmp_path / "report.json").read_text())
    game = get_game("en_dodoi", holes_per_row=6)
    for row, opp in zip(report["results"], ["random", "minimax:depth=1"], strict=True):
        res = play_match(game, "greedy", opp, 6, seed=9)
        assert row["opponent"] == opp
        assert (row["games"], row["wins"], row["draws"], row["losses"]) == (
            6,
            res.wins,
            res.draws,
            res.losses,
        )
        assert row["score"] == res.score and tuple(row["ci95"]) == res.confidence_interval()
        assert row["pairs"] == 3 and row["distinct"] == res.distinct
    assert (tmp_path / "games.jsonl").read_text().count("\n") == 12  # every game it scored, replayable
    for rec in load_records(tmp_path / "games.jsonl", verify=True):
        assert rec.start is not None  # from the default opening suite
    assert (tmp_path / "report.md").read_text().count("| greedy |") == 2


def test_bad_arguments_are_refused(tmp_path):
    with pytest.raises(SystemExit):  # argparse's own one-line error (a choice)
        resolve_args(["--game", "oware"])
    with pytest.raises(ValueError, match="even"):
        resolve_args(["--eval-games", "3"])
    with pytest.raises(ValueError, match="unknown agent"):
        resolve_args(["--eval-opponents", "alphazero"])
    with pytest.raises(ValueError, match=r"config\.json"):
        resolve_args(["--resume", str(tmp_path)])
    args = resolve_args(["--game", "en_dodoi", "--learning-rate", "0.001"])
    assert args.learning_rate == 0.001 and args.game == "en_dodoi" and args.n_epochs >= 1
    with pytest.raises(ValueError, match=r"holes_per_row must be in 6\.\.10 for en_dodoi, got 5"):
        resolve_args(["--game", "en_dodoi", "--holes-per-row", "5"])
    with pytest.raises(ValueError, match=r"unknown parameter\(s\) holes_per_row for sadeqa_ii"):
        resolve_args(["--game", "sadeqa_ii", "--holes-per-row", "7"])


def test_game_parameters_are_one_field_and_old_run_configs_resume(tmp_path):
    """The declared parameters' flags land in ``game_params``; a run folder written before that
    field (``"holes_per_row": 7`` at the top of its config.json) resumes as the same game."""
    from dataclasses import asdict

    from mancala_envs.training.args import make_game

    args = resolve_args(["--game", "en_dodoi", "--holes-per-row", "7"])
    assert args.game_params == {"holes_per_row": 7} and make_game(args) == get_game(
        "en_dodoi", holes_per_row=7
    )
    assert resolve_args(["--game", "en_dodoi"]).game_params == {}  # the game's own width (8)
    old = {k: v for k, v in asdict(args).items() if k not in ("game_params", "resume")}
    (tmp_path / "config.json").write_text(json.dumps({**old, "holes_per_row": 7, "out": str(tmp_path)}))
    resumed = resolve_args(["--resume", str(tmp_path)])
    assert resumed.game_params == {"holes_per_row": 7} and make_game(resumed) == make_game(args)
    with pytest.raises(ValueError, match=r"only \[.*\] may be given, not \['holes_per_row'\]"):
        resolve_args(["--resume", str(tmp_path), "--holes-per-row", "6"])  # a resume is the same game


def test_capture_shaping_sums_to_the_result():
    """With gamma = 1 the shaping terms of an episode cancel: its rewards add up to the result."""
    game = get_game("songo_ewondo", max_plies=150)
    env = CaptureShaping(MancalaVecEnv(game, 6, seed=4), weight=2.0, gamma=1.0)
    env.reset()
    rng, totals, checked, shaped = np.random.default_rng(1), np.zeros(6), 0, False
    while checked < 20:
        masks = env.venv.action_masks()
        _, rewards, dones, infos = env.step(np.argmax(masks * rng.random(masks.shape), axis=1))
        totals += rewards
        shaped |= bool((rewards[~dones] != 0).any())
        for i in np.flatnonzero(dones):
            winner, seat = infos[i]["winner"], infos[i]["seat"]
            result = 0.0 if winner not in (0, 1) else (1.0 if winner == seat else -1.0)
            assert totals[i] == pytest.approx(result, abs=1e-5)
            totals[i], checked = 0.0, checked + 1
    assert shaped  # captures did change rewards during the episodes


def test_git_revision_is_unknown_without_git(monkeypatch):
    from mancala_envs.training.run import git_revision

    assert git_revision() != ""
    monkeypatch.setenv("PATH", "")  # no git to run
    assert git_revision() == "unknown"


def test_git_revision_is_dirty_for_code_changes_not_for_result_files(tmp_path, monkeypatch):
    """A result file written beside a run (a solve updating its solution.json) is no change of the
    code: the revision stays clean; a changed source file makes it ``+dirty``."""
    import mancala_envs.infra.results as results

    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(tmp_path)]
    (tmp_path / "results").mkdir()
    (tmp_path / "code.py").write_text("x = 1\n")
    (tmp_path / "results" / "r.json").write_text("{}\n")
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "c"], check=True)
    head = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    monkeypatch.setattr(results, "PROJECT_ROOT", tmp_path)
    (tmp_path / "results" / "r.json").write_text('{"a": 1}\n')
    assert results.git_revision() == head
    (tmp_path / "code.py").write_text("x = 2\n")
    assert results.git_revision() == f"{head}+dirty"


@pytest.mark.parametrize("variant", variants(), ids=lambda g: g.variant)
def test_shipped_model_plays_its_game(variant):
    """``make_agent("policy")`` loads models/<variant>.json (+ .pt) and plays legal moves (a whole
    game), in every variant."""
    name = variant.variant
    assert (ROOT / "models" / f"{name}.json").is_file() and (ROOT / "models" / f"{name}.pt").is_file()
    game = get_game(
        variant.name, max_plies=200, **{k: v for k, v in variant.params.items() if k != "max_plies"}
    )
    record = play_game(game, make_agent("policy"), "random", seed=3)
    assert record.plies > 0 and len(record.moves) == record.plies


def test_default_run_folder_is_never_an_existing_run(tmp_path, monkeypatch):
    from mancala_envs.training.run import default_run_folder

    monkeypatch.chdir(tmp_path)
    first = default_run_folder("runs/en_dodoi6-seed4")
    assert first == Path("runs/en_dodoi6-seed4")
    for folder in (first, Path("runs/en_dodoi6-seed4-2")):
        folder.mkdir(parents=True)
        (folder / "config.json").write_text("{}")
    assert default_run_folder("runs/en_dodoi6-seed4") == Path("runs/en_dodoi6-seed4-3")


def test_cuda_without_a_gpu_is_an_error(tmp_path, capsys):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    assert train_main([*TINY, "--device", "cuda", "--out", str(tmp_path / "r")]) == 2
    assert "no CUDA device is available" in capsys.readouterr().err
    assert not (tmp_path / "r" / "config.json").exists()  # nothing recorded as if it had run


def test_eval_optimality_logs_the_learners_rate_on_the_shipped_suite(tmp_path):
    """``--eval-optimality``: each evaluation scores the learner on the game's shipped suite; the
    last one is mancala_envs.evaluation.optimality of the saved policy (a run's own max_plies does not
    matter)."""
    from mancala_envs.evaluation.optimality import optimality
    from mancala_envs.tablebase.optimality_suite import load_suite

    run = tmp_path / "optimality"
    train(*TINY, "--game", "sadeqa_ii", "--max-plies", "60", "--eval-optimality", "--out", str(run))
    rows = list(csv.DictReader((run / "optimality.csv").open()))
    assert [int(r["timesteps"]) for r in rows] == [1024, 2048]
    game = get_game("sadeqa_ii")
    suite = load_suite(game)
    for r in rows:
        blunders = int(r["win_to_draw"]) + int(r["win_to_loss"]) + int(r["draw_to_loss"])
        assert int(r["positions"]) == len(suite) == int(r["optimal"]) + blunders
        assert 0.0 <= float(r["ci_low"]) <= float(r["rate"]) <= float(r["ci_high"]) <= 1.0
        assert float(r["rate"]) == pytest.approx(int(r["optimal"]) / len(suite))
    saved = optimality(game, make_agent(f"policy:path={run / 'policy.json'}"), suite, seed=2024)
    assert int(rows[-1]["optimal"]) == saved.optimal
    logged = list(csv.DictReader((run / "logs" / "session0" / "progress.csv").open()))
    tensorboard = [float(r["eval/optimality"]) for r in logged if r.get("eval/optimality")]
    assert tensorboard == [pytest.approx(float(r["rate"])) for r in rows]
    assert json.loads((run / "state.json").read_text())["optimality"][-1]["optimal"] == saved.optimal
    resolve_args(["--game", "en_dodoi", "--holes-per-row", "6", "--eval-optimality"])  # every width has one


def test_every_trainer_writes_the_same_eval_csv_header(tiny_run, tmp_path):
    """PPO, AlphaZero-style self-play and distillation write one eval.csv schema: ``step`` is each
    one's progress (timesteps, self-play positions, updates), a counter it does not keep is empty."""
    import torch

    from mancala_envs.agents.alphazero.network import build_network, network_config, save_network
    from mancala_envs.training.distill_az import main as distill_main
    from mancala_envs.training.run import EVAL_COLUMNS
    from mancala_envs.training.train_alphazero import main as az_main

    assert ",".join(EVAL_COLUMNS) == EVAL_HEADER
    tiny_eval = [
        "--eval-games", "2", "--final-eval-games", "2", "--eval-sims", "2", "--eval-opponents", "random",
        "--eval-net-opponents", "random", "--train-openings", "50", "--game", "en_dodoi",
        "--holes-per-row", "6", "--hidden", "16", "16",
    ]  # fmt: skip
    az = tmp_path / "az"
    az_argv = ["--games", "16", "--sims", "4", "--total-positions", "128", "--min-replay", "64"]
    assert az_main([*tiny_eval, *az_argv, "--batch-size", "64", "--out", str(az)]) == 0
    game = get_game("en_dodoi", holes_per_row=6)
    torch.manual_seed(0)
    config = network_config(game, [16, 16], 8, 10.0, lookahead=8, replies=4)
    config["search"] = {
        "sims": 4,
        "max_considered": 4,
        "c_visit": 50.0,
        "c_scale": 0.1,
        "settle_decided": True,
    }
    save_network(build_network(config), tmp_path / "teacher.json", config)
    distilled = tmp_path / "distill"
    distill_argv = [
        "--teacher", str(tmp_path / "teacher.json"), "--one-hot-max", "8", "--lookahead", "8",
        "--replies", "4", "--third", "0", "--positions", "400", "--holdout", "50", "--games", "16",
        "--batch-size", "64", "--depth", "1", "--epochs", "1", "--out", str(distilled),
    ]  # fmt: skip
    assert distill_main([*tiny_eval, *distill_argv]) == 0
    headers = {}
    for name, run in (("ppo", tiny_run), ("az", az), ("distill", distilled)):
        text = (run / "eval.csv").read_text(encoding="utf-8")
        headers[name] = text.splitlines()[0]
        rows = list(csv.DictReader(text.splitlines()))
        assert rows and all(r["step"] and r["agent"] and r["score"] for r in rows), name
    assert headers == {"ppo": EVAL_HEADER, "az": EVAL_HEADER, "distill": EVAL_HEADER}
    az_rows = list(csv.DictReader((az / "eval.csv").open(encoding="utf-8")))
    assert all(r["step"] == r["positions"] and r["timesteps"] == "" and r["minutes"] for r in az_rows)
    distill_rows = list(csv.DictReader((distilled / "eval.csv").open(encoding="utf-8")))
    assert all(r["step"] == r["updates"] and r["positions"] == "400" for r in distill_rows)


@pytest.mark.parametrize("script", ["train_ppo", "train_alphazero", "distill_az", "run"])
def test_a_training_script_is_short_module_level_steps(script):
    """CleanRL-readable (issue 44): every function of the script fits a screen (under 80 lines)
    and none defines a function inside it: the loop's steps are module-level, taking what they
    need."""
    import ast

    tree = ast.parse((ROOT / "training" / f"{script}.py").read_text(encoding="utf-8"))
    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    long = [(f.name, f.end_lineno - f.lineno + 1) for f in functions if f.end_lineno - f.lineno + 1 >= 80]
    assert not long, long
    nested = [
        (f.name, inner.name)
        for f in functions
        for inner in ast.walk(f)
        if inner is not f and isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef)
    ]
    assert not nested, nested


def test_a_checkpoint_round_trips_and_a_damaged_one_is_refused(tmp_path):
    """``checkpoint.pt`` (training.run): the state dicts of the parts given, loaded back into new
    ones; the weights of another network or a damaged file refuse the resume naming the file."""
    import torch

    from mancala_envs.training.run import Run
    from mancala_envs.training.train_alphazero import Args

    run = Run(Args(out=str(tmp_path / "r"), device="cpu"), "x", progress="positions", step="positions")
    try:
        torch.manual_seed(0)
        net = torch.nn.Linear(3, 2)
        optimizer = torch.optim.AdamW(net.parameters())
        net(torch.ones(1, 3)).sum().backward()
        optimizer.step()
        run.write_checkpoint(net=net, optimizer=optimizer)
        again = torch.nn.Linear(3, 2)
        again_optimizer = torch.optim.AdamW(again.parameters())
        run.read_checkpoint(net=again, optimizer=again_optimizer)
        assert torch.equal(again.weight, net.weight) and torch.equal(again.bias, net.bias)
        assert again_optimizer.state_dict()["state"][0]["step"] == 1
        with pytest.raises(ValueError, match=r"checkpoint\.pt: cannot resume from it \(RuntimeError\)"):
            run.read_checkpoint(net=torch.nn.Linear(4, 2))  # another network's shape
        (run.path / "checkpoint.pt").write_bytes(b"not a checkpoint")
        with pytest.raises(ValueError, match=r"checkpoint\.pt: cannot resume from it"):
            run.read_checkpoint(net=again)
    finally:
        run.close()
