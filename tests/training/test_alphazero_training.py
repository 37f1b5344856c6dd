"""training/train_alphazero.py: a short run that learns, determinism, the run folder, resume,
Ctrl-C and bad arguments."""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import numpy as np
import pytest
import torch
from conftest import interrupt_training
from strategies import running, walked_positions

from mancala_envs import get_game
from mancala_envs.agents.alphazero.agent import AZAgent
from mancala_envs.agents.alphazero.network import build_network, load_network
from mancala_envs.agents.registry import make_agent
from mancala_envs.evaluation.arena import play_match
from mancala_envs.training.train_alphazero import main as train_main

TINY = [
    "--game", "en_dodoi", "--holes-per-row", "6", "--games", "32", "--sims", "8", "--hidden", "32", "32",
    "--batch-size", "128", "--min-replay", "256", "--eval-every", "100000000", "--eval-games", "2",
    "--final-eval-games", "2", "--eval-sims", "2", "--eval-opponents", "random",
    "--eval-net-opponents", "random", "--train-openings", "50",
]  # fmt: skip


def metrics(run: Path) -> list[dict[str, str]]:
    with open(run / "metrics.csv", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_short_run_improves_over_random(tmp_path):
    """40k self-play positions (about 20 s on a free core): the same 8-simulation search scores far
    better against random with the trained network than with the untrained one it started from."""
    run = tmp_path / "learn"
    argv = [*TINY, "--games", "64", "--batch-size", "256", "--min-replay", "1000"]
    assert train_main([*argv, "--total-positions", "40000", "--out", str(run)]) == 0
    game = get_game("en_dodoi", holes_per_row=6)
    _, config = load_network(run / "az.json")
    assert config["trained"]["positions"] >= 40000 and config["trained"]["updates"] > 100
    torch.manual_seed(0)  # the run's seed: the network it started from
    untrained = AZAgent(network=build_network(config).eval(), config=config, sims=8)
    trained = make_agent(f"az:path={run / 'az.json'},sims=8")
    before = play_match(game, untrained, "random", 200, seed=7).score
    after = play_match(game, trained, "random", 200, seed=7).score
    assert after >= 0.8 and after >= before + 0.1, (before, after)
    report = json.loads((run / "report.json").read_text())
    assert report  # the final evaluation wrote its report


def test_the_same_seed_gives_the_same_run(tmp_path):
    def run(name: str, seed: int) -> tuple[list[dict[str, str]], dict[str, torch.Tensor]]:
        out = tmp_path / name
        argv = [*TINY, "--total-positions", "2560", "--seed", str(seed), "--out", str(out)]
        assert train_main(argv) == 0
        weights = torch.load(out / "az.pt", weights_only=True)
        return metrics(out), weights

    (m1, w1), (m2, w2), (m3, _) = run("a", 0), run("b", 0), run("c", 1)
    first = next(i for i, r in enumerate(m1) if r["loss_policy"])
    assert [r["loss_policy"] for r in m1] == [r["loss_policy"] for r in m2]
    assert [r["loss_value"] for r in m1] == [r["loss_value"] for r in m2]
    assert all(torch.equal(w1[k], w2[k]) for k in w1)
    assert (
        m1[first]["loss_policy"] != m3[first]["loss_policy"]
        or m1[first]["loss_value"] != m3[first]["loss_value"]
    )


def test_the_model_records_the_revision_its_run_started_with(tmp_path, monkeypatch):
    """A commit made while a run trains does not change the revision its ``az.json`` records: the
    one in ``git_revision.txt``, read when the session starts."""
    import mancala_envs.training.run as run_module
    import mancala_envs.training.train_alphazero as script

    revisions = iter(f"rev-{k}" for k in range(100))

    def next_revision() -> str:  # every read of the checkout's revision finds a newer commit
        return next(revisions)

    monkeypatch.setattr(run_module, "git_revision", next_revision)
    monkeypatch.setattr(script, "git_revision", next_revision, raising=False)
    run = tmp_path / "committed-meanwhile"
    assert train_main([*TINY, "--total-positions", "1024", "--eval-every", "512", "--out", str(run)]) == 0
    started = (run / "git_revision.txt").read_text().strip()
    assert json.loads((run / "az.json").read_text())["trained"]["git"] == started == "rev-0"


def test_run_folder_resume_and_refusals(tmp_path, capsys):
    run = tmp_path / "resumed"
    assert train_main([*TINY, "--total-positions", "1024", "--eval-every", "512", "--out", str(run)]) == 0
    for name in ("config.json", "command.txt", "git_revision.txt", "az.json", "az.pt", "checkpoint.pt"):
        assert (run / name).is_file(), name
    for name in ("replay.npz", "state.json", "eval.csv", "metrics.csv", "learning_curve.png", "report.md"):
        assert (run / name).is_file(), name
    first = json.loads((run / "state.json").read_text())
    assert first["positions"] == 1024 and [e["positions"] for e in first["evals"]][::2] == [0, 512, 1024]
    # an existing run is never overwritten; a resume takes only the budget flags
    assert train_main([*TINY, "--out", str(run)]) == 2
    assert "--resume" in capsys.readouterr().err
    assert train_main(["--resume", str(run), "--sims", "4"]) == 2
    assert "only" in capsys.readouterr().err
    assert train_main(["--resume", str(run), "--total-positions", "2048"]) == 0
    assert "resuming" in capsys.readouterr().out
    state = json.loads((run / "state.json").read_text())
    assert state["positions"] == 2048 and state["updates"] > first["updates"]
    assert sorted({e["positions"] for e in state["evals"]}) == [0, 512, 1024, 1536, 2048]
    positions = [int(r["positions"]) for r in metrics(run)]
    assert positions == sorted(positions) and positions[-1] == 2048
    assert (run / "logs" / "session1").is_dir()
    assert len((run / "command.txt").read_text().splitlines()) == 2
    assert json.loads((run / "az.json").read_text())["trained"]["positions"] == 2048


def test_ctrl_c_leaves_a_usable_checkpoint(tmp_path):
    run = tmp_path / "interrupted"
    args = [*TINY, "--total-positions", "100000000", "--out", str(run)]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    interrupt_training(
        "mancala_envs.training.train_alphazero",
        args,
        lambda: (run / "metrics.csv").exists() and metrics(run),
        env,
    )
    state = json.loads((run / "state.json").read_text())
    saved = json.loads((run / "az.json").read_text())
    assert saved["trained"]["positions"] == state["positions"] >= 32 * 8
    make_agent(f"az:path={run / 'az.json'},sims=2")  # loads
    assert not [p for p in os.listdir(run) if ".tmp" in p]


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--games", "0"], "--games"),
        (["--eval-games", "3"], "--eval-games"),
        (["--opening-share", "1.5"], "--opening-share"),
        (["--eval-opponents", "nobody"], "unknown agent"),
        (["--device", "tpu"], "--device"),
        (["--lookahead", "-1"], "--lookahead must be >= 0"),
        (["--replies", "-1"], "--replies must be >= 0"),
        (["--tablebase", "/nonexistent/table"], "--tablebase /nonexistent/table: not a table"),
    ],
)
def test_bad_arguments_exit_2_naming_them(flags, message, tmp_path, capsys):
    assert train_main([*TINY, *flags, "--out", str(tmp_path / "x")]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "x" / "metrics.csv").exists()


def test_replay_buffer_round_trip(tmp_path):
    from mancala_envs.training.train_alphazero import Replay

    game = get_game("sadeqa_ii")
    replay = Replay(game, 5)
    rng = np.random.default_rng(0)
    for k in (3, 4):
        obs = rng.random((k, game.observation_size)).astype(np.float32)
        replay.add(obs, obs[:, : game.num_actions] > 0.5, obs[:, : game.num_actions], obs[:, 0])
    assert replay.size == 5 and replay.next == 2
    (tmp_path / "r.npz").write_bytes(replay.to_bytes())
    again = Replay(game, 5)
    again.load(tmp_path / "r.npz")
    for f in Replay.FIELDS:
        np.testing.assert_array_equal(getattr(again, f), getattr(replay, f))
    (tmp_path / "bad.npz").write_bytes(b"nonsense")
    with pytest.raises(ValueError, match="replay"):
        again.load(tmp_path / "bad.npz")


def test_cli_runs_the_same_script(tmp_path, capsys):
    from mancala_envs.cli.main import main as cli_main

    assert cli_main(["train-az", *TINY, "--games", "0", "--out", str(tmp_path / "x")]) == 2
    assert "--games" in capsys.readouterr().err


def test_lookahead_run_trains_and_resumes_a_lookahead_network(tmp_path):
    """``--lookahead W``: the buffer holds lookahead rows, the saved model says so and plays; a
    resumed run keeps the architecture; a buffer of raw-count rows is refused by it."""
    from mancala_envs.training.train_alphazero import Replay

    run = tmp_path / "la"
    argv = [*TINY, "--lookahead", "8", "--total-positions", "1280", "--out", str(run)]
    assert train_main(argv) == 0
    game = get_game("en_dodoi", holes_per_row=6)
    net, config = load_network(run / "az.json")
    assert config["observation"] == "lookahead" and net.lookahead == 8
    with np.load(run / "replay.npz") as data:
        assert data["obs"].shape[1] == game.lookahead_size
    assert play_match(game, make_agent(f"az:path={run / 'az.json'},sims=0"), "random", 4, seed=1).games == 4
    assert train_main(["--resume", str(run), "--total-positions", "2560"]) == 0
    _, again = load_network(run / "az.json")
    assert again["network"]["lookahead"] == 8 and again["trained"]["positions"] >= 2560
    plain = Replay(game, 10)
    with pytest.raises(ValueError, match="replay"):
        plain.load(run / "replay.npz")


def test_runs_from_before_lookahead_resume_with_raw_counts(tmp_path):
    """A run folder whose config.json has no ``lookahead`` (written before the flag existed)
    resumes with the raw-count network it was trained with, not the new default."""
    run = tmp_path / "old"
    assert train_main([*TINY, "--lookahead", "0", "--total-positions", "1280", "--out", str(run)]) == 0
    config = json.loads((run / "config.json").read_text())
    del config["lookahead"]
    (run / "config.json").write_text(json.dumps(config))
    assert train_main(["--resume", str(run), "--total-positions", "2560"]) == 0
    net, saved = load_network(run / "az.json")
    assert net.lookahead == 0 and saved["observation"] == "counts"
    assert saved["trained"]["positions"] >= 2560


def test_init_from_starts_a_new_run_from_a_model(tmp_path, capsys):
    """``--init-from``: the new run's network starts as the model's (no update yet: the saved
    weights are the model's); the file is recorded; a model of another shape is refused first."""
    source = tmp_path / "source"
    assert train_main([*TINY, "--total-positions", "1280", "--out", str(source)]) == 0
    assert json.loads((source / "az.json").read_text())["trained"]["updates"] > 0
    run = tmp_path / "child"  # another seed: its own initial weights differ from the source's
    argv = [*TINY, "--seed", "1", "--total-positions", "256", "--min-replay", "100000", "--out", str(run)]
    assert train_main([*argv, "--init-from", str(source / "az.json")]) == 0
    assert "starting the network from" in capsys.readouterr().out
    source_weights = torch.load(source / "az.pt", weights_only=True)
    same = lambda a, b: all(torch.equal(a[k], b[k]) for k in a)  # noqa: E731
    assert same(source_weights, torch.load(run / "az.pt", weights_only=True))
    assert json.loads((run / "config.json").read_text())["init_from"] == str(source / "az.json")
    trained, start = (json.loads(f.read_text())["trained"] for f in (run / "az.json", source / "az.json"))
    assert trained["init_from"] == str(source / "az.json") and trained["init_trained"] == start
    assert trained["init_sha256"] == json.loads((source / "az.json").read_text())["sha256"]
    # a resumed child continues from its own checkpoint, not from the source again
    trained = tmp_path / "trained"
    argv = [*TINY, "--seed", "1", "--total-positions", "1280", "--out", str(trained)]
    assert train_main([*argv, "--init-from", str(source / "az.json")]) == 0
    own = torch.load(trained / "az.pt", weights_only=True)
    assert not same(source_weights, own)
    assert train_main(["--resume", str(trained), "--total-positions", "1280"]) == 0
    assert "resuming" in capsys.readouterr().out
    assert same(own, torch.load(trained / "az.pt", weights_only=True))
    other = [*TINY, "--hidden", "16", "--init-from", str(source / "az.json"), "--out", str(tmp_path / "x")]
    assert train_main(other) == 2
    assert "network differ" in capsys.readouterr().err and not (tmp_path / "x").exists()
    assert train_main([*TINY, "--init-from", str(tmp_path / "none.json"), "--out", str(tmp_path / "y")]) == 2
    assert "not an az model" in capsys.readouterr().err


def test_a_two_ply_run_starts_from_a_one_ply_model(tmp_path, capsys):
    """``--replies R --init-from ONE_PLY``: every layer but the reply encoder comes from the model
    (no update yet), the buffer holds two-ply rows, the saved model says so and plays; ``--replies``
    without ``--lookahead`` is refused."""
    source = tmp_path / "source"
    assert train_main([*TINY, "--total-positions", "1280", "--out", str(source)]) == 0
    run = tmp_path / "two"
    argv = [*TINY, "--replies", "4", "--total-positions", "256", "--min-replay", "100000", "--out", str(run)]
    assert train_main([*argv, "--init-from", str(source / "az.json")]) == 0
    before, after = (torch.load(r / "az.pt", weights_only=True) for r in (source, run))
    assert set(after) - set(before) == {k for k in after if k.startswith("reply_")} != set()
    assert all(torch.equal(before[k], after[k]) for k in before)
    game = get_game("en_dodoi", holes_per_row=6)
    with np.load(run / "replay.npz") as data:
        assert data["obs"].shape[1] == game.lookahead_width(2)
    net, config = load_network(run / "az.json")
    assert net.replies == 4 and config["network"]["replies"] == 4
    assert train_main(["--resume", str(run), "--total-positions", "512"]) == 0
    assert json.loads((run / "az.json").read_text())["trained"]["positions"] >= 512
    agent = make_agent(f"az:path={run / 'az.json'},sims=4")
    assert play_match(game, agent, "random", 2, seed=0).games == 2
    capsys.readouterr()
    bad = [*TINY, "--lookahead", "0", "--replies", "4", "--out", str(tmp_path / "bad")]
    assert train_main(bad) == 2
    assert "--replies needs" in capsys.readouterr().err and not (tmp_path / "bad").exists()


def ends_next(game, state) -> bool:
    """Some move of ``state`` ends the game."""
    return any(game.apply(state, a).is_over for a in game.legal_actions(state))


def test_no_settle_decided_plays_decided_games_out(tmp_path):
    """With the shortcut, self-play ends a game as soon as one player holds more than half the
    seeds; ``--no-settle-decided`` plays it on, and the model tells ``az`` to search that way."""
    from types import SimpleNamespace

    from mancala_envs.core.engine import decided_winner
    from mancala_envs.training.train_alphazero import Replay, SelfPlay

    game = get_game("songo_ewondo")
    decided = lambda s: decided_winner(s.array, game.rules) >= 0  # noqa: E731
    starts = walked_positions(game, 8, 5, until=decided, keep=lambda s: running(s) and not ends_next(game, s))
    finished = {}
    for settle in (True, False):
        a = SimpleNamespace(
            games=8, sims=4, max_considered=4, c_visit=50.0, c_scale=0.1, gumbel_scale=0.0,
            opening_share=1.0, lookahead=0, replies=0, settle_decided=settle,
        )  # fmt: skip
        uniform = lambda obs: (np.zeros((len(obs), game.num_actions)), np.zeros(len(obs)))  # noqa: E731
        selfplay = SelfPlay(a, game, uniform, np.random.default_rng(0), [])
        assert selfplay.search.settle_decided is settle
        selfplay.states[:] = np.stack([s.array for s in starts])
        replay = Replay(game, 100)
        selfplay.step(replay)
        finished[settle] = (selfplay.finished_games, replay.size)
    assert finished[True] == (8, 8) and finished[False] == (0, 0)
    run = tmp_path / "out"
    argv = [*TINY, "--no-settle-decided", "--total-positions", "256", "--out", str(run)]
    assert train_main(argv) == 0
    agent = make_agent(f"az:path={run / 'az.json'},sims=4")
    six = get_game("en_dodoi", holes_per_row=6)
    agent.act(six, six.initial_state())
    assert [s.settle_decided for s in agent._searches.values()] == [False]


def test_tablebase_value_targets_are_the_exact_values_of_covered_positions(tmp_path):
    """With a table, every self-play position it covers gets the table's value for its mover as
    value target (checked against the table's own probe of the position the replay row shows);
    the run records it in its model."""
    from types import SimpleNamespace

    from mancala_envs import tablebase
    from mancala_envs.training.train_alphazero import Replay, SelfPlay

    game = get_game("en_dodoi", holes_per_row=6)
    table = tablebase.build(game, 8, tmp_path / "table")
    # positions the table covers (seeds on the board only ever fall)
    starts = walked_positions(game, 16, 2, until=table.covers, keep=table.covers)
    a = SimpleNamespace(
        games=16, sims=4, max_considered=4, c_visit=50.0, c_scale=0.1, gumbel_scale=1.0,
        opening_share=1.0, lookahead=0, replies=0, settle_decided=False,
    )  # fmt: skip
    uniform = lambda obs: (np.zeros((len(obs), game.num_actions)), np.zeros(len(obs)))  # noqa: E731
    values = {}
    for name, tb in (("exact", table), ("results", None)):
        selfplay = SelfPlay(a, game, uniform, np.random.default_rng(0), starts, tb)
        selfplay.states[:] = np.stack([s.array for s in starts])
        replay = Replay(game, 10_000)
        while selfplay.finished_games < 16:
            selfplay.step(replay)
        values[name], rows = replay.value[: replay.size].copy(), replay.obs[: replay.size].copy()
        if tb is not None:
            obs = rows
    assert np.array_equal(rows, obs)  # the table changes the targets, not the games
    n = 2 * game.holes_per_row
    assert len(obs) > 16 and (obs[:, :n].sum(1) <= 8).all()  # every position of these games is covered
    # a row is the mover's view: the same position with the mover as player 0
    probed = [table.outcome(game.state_from(v[:n].astype(int), v[n : n + 2].astype(int), 0)) for v in obs]
    assert np.array_equal(values["exact"], np.array(probed, np.float32))
    assert not np.array_equal(values["exact"], values["results"])  # results are not exact values
    run = tmp_path / "run"
    argv = [*TINY, "--total-positions", "256", "--tablebase", str(tmp_path / "table"), "--out", str(run)]
    assert train_main(argv) == 0
    assert "exact where the table" in json.loads((run / "az.json").read_text())["trained"]["value_targets"]


WIDE = [
    "--game", "en_dodoi", "--network", "conv1d", "--lookahead", "0", "--channels", "8", "--blocks", "1",
    "--value-hidden", "8", "--games", "8", "--sims", "4", "--batch-size", "32", "--min-replay", "64",
    "--eval-every", "100000000", "--eval-games", "2", "--final-eval-games", "2", "--eval-sims", "2",
    "--eval-opponents", "random", "--eval-net-opponents", "random", "--train-openings", "10",
]  # fmt: skip


def test_one_network_learns_every_width_together(tmp_path, capsys):
    """``--widths 6 7``: each width plays its own games into its own buffer, every update learns
    from both, the evaluations are per width, the run resumes, and the model plays both widths and
    refuses another."""
    run = tmp_path / "wide"
    assert train_main([*WIDE, "--widths", "6", "7", "--total-positions", "1024", "--out", str(run)]) == 0
    assert "en_dodoi_6, en_dodoi_7" in capsys.readouterr().out
    first = json.loads((run / "state.json").read_text())
    assert first["updates"] > 0
    assert train_main(["--resume", str(run), "--total-positions", "2048"]) == 0
    state = json.loads((run / "state.json").read_text())
    assert state["positions"] == 2048 and state["updates"] > first["updates"]
    for n in (6, 7):
        with np.load(run / f"replay_en_dodoi_{n}.npz") as replay:  # the mover's view of that width
            assert len(replay["value"]) > 0 and replay["obs"].shape[1] == 2 * n + 2
    with open(run / "eval.csv", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert {r["agent"] for r in rows if r["positions"] == "2048"} == {
        f"learner:sims={s},holes={n}" for s in (2, 0) for n in (6, 7)
    }
    config = json.loads((run / "az.json").read_text())
    assert config["widths"] == [6, 7] and config["network"]["kind"] == "conv1d"
    assert config["params"]["holes_per_row"] == 6
    for n in (6, 7):
        game = get_game("en_dodoi", holes_per_row=n)
        assert play_match(game, f"az:path={run / 'az.json'},sims=4", "random", 2, seed=0).games == 2
    eight = get_game("en_dodoi", holes_per_row=8)
    with pytest.raises(ValueError, match=r"En Dodoi \(6, 7 holes\), not En Dodoi \(8 holes\)"):
        make_agent(f"az:path={run / 'az.json'}").act(eight, eight.initial_state())
    # per-width fine-tuning: a run of one width starts from the model of both
    tuned = tmp_path / "tuned"
    argv = [*WIDE, "--holes-per-row", "7", "--total-positions", "256", "--init-from", str(run / "az.json")]
    assert train_main([*argv, "--out", str(tuned)]) == 0
    assert "starting the network from" in capsys.readouterr().out
    assert "widths" not in json.loads((tuned / "az.json").read_text())
    assert train_main([*argv, "--channels", "16", "--out", str(tmp_path / "other")]) == 2
    assert "network differ" in capsys.readouterr().err


def test_every_width_takes_its_own_table(tmp_path, capsys):
    from mancala_envs import tablebase

    for n in (6, 7):
        tablebase.build(get_game("en_dodoi", holes_per_row=n), 4, tmp_path / f"en_dodoi_{n}")
    run = tmp_path / "run"
    tables = str(tmp_path / "{variant}")
    argv = [*WIDE, "--widths", "6", "7", "--total-positions", "128", "--tablebase", tables, "--out", str(run)]
    assert train_main(argv) == 0
    out = capsys.readouterr().out
    assert "value targets of en_dodoi_6" in out and "value targets of en_dodoi_7" in out
    one = [*WIDE, "--widths", "6", "7", "--tablebase", str(tmp_path / "en_dodoi_6"), "--out", str(run) + "2"]
    assert train_main(one) == 2
    assert "{variant}" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--widths", "6", "7"], "--widths needs the width-independent network"),
        (["--network", "conv1d"], "give --lookahead 0"),
        (["--network", "conv1d", "--lookahead", "0", "--kernel", "4"], "--kernel must be odd"),
        (["--network", "conv1d", "--lookahead", "0", "--widths", "6", "6"], "distinct"),
        (["--network", "conv1d", "--lookahead", "0", "--widths", "7", "8"], "hold --holes-per-row"),
        (["--network", "conv1d", "--lookahead", "0", "--widths", "6", "11"], "holes_per_row"),
        (["--network", "conv1d", "--lookahead", "0", "--channels", "0"], "--channels must be >= 1"),
    ],
)
def test_bad_width_arguments_exit_2_naming_them(flags, message, tmp_path, capsys):
    assert train_main([*TINY, *flags, "--out", str(tmp_path / "x")]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "x").exists()
