"""``mancala dataset`` (:mod:`mancala_envs.evaluation.dataset`): games of an agent pair as a Minari
dataset, loaded back with Minari and checked step by step against a replay of each episode and a
fresh tablebase probe; bad arguments; the shipped example datasets (docs/examples/datasets) with a
ten-line behaviour-cloning loop; the command line end to end."""

from __future__ import annotations

import json
import math
import os
import signal
from pathlib import Path

import numpy as np
import pytest

from mancala_envs import get_game, tablebase
from mancala_envs.cli.main import main
from mancala_envs.envs.single import SingleAgentEnv
from mancala_envs.evaluation.dataset import INFO_FIELDS, load_dataset, write_dataset
from mancala_envs.game import outcome
from mancala_envs.infra import interrupts

minari = pytest.importorskip("minari", reason="needs Minari: pip install -e '.[dataset]'")

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "docs" / "examples" / "datasets"
# the example datasets' game variants -> (game, parameters)
EXAMPLE_GAMES = {"songo_ewondo": ("songo_ewondo", {}), "sadeqa_ii": ("sadeqa_ii", {}),
                 "en_dodoi_8": ("en_dodoi", {"holes_per_row": 8})}  # fmt: skip
GAME = "songo_ewondo"
PAIRS = 3
MAX_SEEDS = 6
DATASET_ID = "mancala/songo_ewondo/test-v0"


@pytest.fixture(scope="module")
def table_dir(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("tables") / GAME
    tablebase.build(get_game(GAME), MAX_SEEDS, path=path)
    return path


@pytest.fixture(scope="module")
def written(tmp_path_factory, table_dir):
    root = tmp_path_factory.mktemp("datasets")
    write_dataset(
        GAME, "greedy", "minimax:depth=2", root, DATASET_ID, openings=PAIRS, seed=3, tablebase=table_dir
    )
    return root


def test_minari_loads_it_and_every_step_checks_out(written, table_dir, monkeypatch):
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(written))
    dataset = minari.load_dataset(DATASET_ID)
    game, table = get_game(GAME), tablebase.load(table_dir, game=get_game(GAME))
    assert dataset.total_episodes == 2 * PAIRS
    assert dataset.observation_space.shape == (game.observation_size,)
    assert dataset.action_space.n == game.num_actions
    meta = dataset.storage.metadata
    assert meta["author"] and "greedy" in meta["description"] and meta["mancala"]["tablebase_max_seeds"] == 6
    covered = 0
    episode_meta = list(dataset.storage.get_episode_metadata(range(dataset.total_episodes)))
    for i, episode in enumerate(dataset.iterate_episodes()):
        seat, em = i % 2, episode_meta[i]
        assert (em["pair"], em["learner_seat"]) == (i // 2, seat)
        assert sorted(episode.infos) == sorted(INFO_FIELDS)
        n = len(episode)
        assert episode.observations.shape == (n + 1, game.observation_size)
        assert episode.infos["action_mask"].shape == (n + 1, game.num_actions)
        assert episode.infos["action_mask"].dtype == np.int8
        # replay the episode: the recorded seed and opening, the recorded learner actions
        env = SingleAgentEnv(game, opponent="minimax:depth=2", seat=seat, obs_format="flat")
        opening = game.state_from_dict(json.loads(em["opening"]))
        obs, _ = env.reset(seed=int(em["seed"]), options={"state": opening})
        for t in range(n + 1):
            state = env.state
            np.testing.assert_array_equal(episode.observations[t], obs)
            np.testing.assert_array_equal(episode.observations[t], game.observation(state, seat))
            value = episode.infos["exact_value"][t]
            if t == n:
                assert state.is_over and not episode.infos["action_mask"][t].any() and math.isnan(value)
                break
            assert state.to_move == seat
            np.testing.assert_array_equal(episode.infos["action_mask"][t], game.legal_mask(state))
            action = int(episode.actions[t])
            assert game.legal_mask(state)[action]
            if table.covers(state):
                covered += 1
                assert value in (-1.0, 0.0, 1.0) and value == table.probe(state).outcome
            else:
                assert math.isnan(value)
            obs, reward, terminated, truncated, _ = env.step(action)
            assert (reward, terminated, truncated) == (episode.rewards[t], episode.terminations[t],
                                                      episode.truncations[t])  # fmt: skip
        assert episode.terminations[-1] or episode.truncations[-1]
        assert episode.rewards[:-1].sum() == 0
        assert episode.rewards.sum() == outcome(env.state.winner, seat)  # the result, learner's view
    assert covered == meta["mancala"]["exact_values"] > 0


def test_the_same_arguments_write_the_same_games(written, table_dir):
    again = write_dataset(
        GAME, "greedy", "minimax:depth=2", written, "mancala/songo_ewondo/again-v0", openings=PAIRS, seed=3,
        tablebase=table_dir,
    )  # fmt: skip
    first = load_dataset(written, DATASET_ID)
    for a, b in zip(first.iterate_episodes(), again.iterate_episodes(), strict=True):
        np.testing.assert_array_equal(a.observations, b.observations)
        np.testing.assert_array_equal(a.actions, b.actions)
        np.testing.assert_array_equal(a.infos["exact_value"], b.infos["exact_value"])


def test_the_environment_is_recovered(written):
    dataset = load_dataset(written, DATASET_ID)
    env = dataset.recover_environment()
    obs, info = env.reset(seed=0)
    assert obs.shape == dataset.observation_space.shape and info["action_mask"].dtype == np.int8
    assert env.unwrapped.game == get_game(GAME)
    env.close()


@pytest.mark.parametrize(
    "change, says",
    [
        ({"learner": "nosuchagent"}, "nosuchagent"),
        ({"learner": "human"}, "unattended"),
        ({"opponent": 3}, "agent spec string"),
        ({"dataset_id": "no version"}, "dataset id"),
        ({"dataset_id": "mancala/name"}, "dataset id"),
        ({"dataset_id": DATASET_ID}, "already exists"),
        ({"openings": 0}, "at least 1"),
        ({"openings": True}, "openings must be"),
        ({"openings": "default"}, "openings must be"),
        ({"seed": -1}, "seed must be"),
        ({"game": "sadeqa_ii"}, "not of sadeqa_ii"),  # the table is Songo Ewondo's
        ({"max_seeds": -1}, "max_seeds"),
        ({"tablebase": 7}, "tablebase must be"),
    ],
)
def test_bad_arguments_raise_value_errors(written, table_dir, change, says):
    args = {"game": GAME, "learner": "greedy", "opponent": "random", "out_dir": written,
            "dataset_id": "mancala/songo_ewondo/bad-v0", "openings": 1, "tablebase": table_dir}  # fmt: skip
    args.update(change)
    with pytest.raises(ValueError, match=says):
        write_dataset(**args)
    assert not (written / "mancala/songo_ewondo/bad-v0").exists()


def test_a_file_is_no_datasets_root(tmp_path):
    (tmp_path / "file").write_text("")
    with pytest.raises(ValueError, match="is a file"):
        write_dataset(GAME, "greedy", "random", tmp_path / "file", "ns/name-v0", openings=1)


def behaviour_cloning_losses(dataset) -> tuple[float, float]:
    """The ten-line loop of docs/datasets.md: a linear policy, masked logits, a few Adam steps."""
    torch = pytest.importorskip("torch", reason="needs torch: pip install -e '.[agents]'")
    episodes = list(dataset.iterate_episodes())
    obs = torch.tensor(np.concatenate([e.observations[:-1] for e in episodes]))
    legal = torch.tensor(np.concatenate([e.infos["action_mask"][:-1] for e in episodes])).bool()
    actions = torch.tensor(np.concatenate([e.actions for e in episodes]))
    torch.manual_seed(0)
    policy = torch.nn.Linear(obs.shape[1], legal.shape[1])
    optimizer = torch.optim.Adam(policy.parameters(), lr=0.05)
    losses = []
    for _ in range(30):
        loss = torch.nn.functional.cross_entropy(policy(obs).masked_fill(~legal, -1e9), actions)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses[0], losses[-1]


@pytest.mark.parametrize("variant", EXAMPLE_GAMES)
def test_the_example_datasets_load_and_clone(variant, monkeypatch):
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(EXAMPLES))
    dataset = minari.load_dataset(f"mancala/{variant}/greedy-vs-minimax2-v0")
    name, params = EXAMPLE_GAMES[variant]
    game = get_game(name, **params)
    assert dataset.total_episodes == 32 and dataset.total_steps > 0
    assert dataset.observation_space.shape == (game.observation_size,)
    values = np.concatenate([e.infos["exact_value"] for e in dataset.iterate_episodes()])
    finite = values[np.isfinite(values)]
    assert finite.size and set(np.unique(finite)) <= {-1.0, 0.0, 1.0}
    first, last = behaviour_cloning_losses(dataset)
    assert last < first


def test_the_command_writes_a_dataset(tmp_path, table_dir, capsys):
    argv = ["dataset", "--game", GAME, "--learner", "greedy", "--opponent", "random", "--openings", "1",
            "--seed", "1", "--out", str(tmp_path), "--tablebase", str(table_dir),
            "--no-progress"]  # fmt: skip
    assert main(argv) == 0
    dataset_id = "mancala/songo_ewondo/greedy-vs-random-v0"  # the default id
    assert dataset_id in capsys.readouterr().out
    dataset = load_dataset(tmp_path, dataset_id)
    assert dataset.total_episodes == 2
    assert dataset.storage.metadata["mancala"]["opponent"] == "random"
    assert main(argv) == 2  # the same id again: one line, no traceback
    err = capsys.readouterr().err
    assert err.startswith("mancala: error: ") and "already exists" in err and err.count("\n") == 1


# ------------------------------------------------------------------ issue 43: openings, interrupts

# Sadeqa II, opening 499 of the 5000-pair default suite: player 0 to move, and its move from hole 0
# (greedy's: it captures) leaves player 1 no seed, which ends the game
ENDING_OPENING = {"format": 1, "game": "sadeqa_ii", "params": {"max_plies": 1000},
                  "board": [3, 1, 0, 1, 0, 0, 7, 0, 0, 0, 0, 0], "captured": [15, 9], "to_move": 0, "ply": 6,
                  "last_action": 2, "first_move_pending": [False, False], "done": False, "truncated": False,
                  "winner": None}  # fmt: skip


def test_an_opening_the_opponent_ends_is_skipped_and_counted(tmp_path, capsys):
    """Issue 43: `--openings 5000` crashed with 'the game ended before the learner's first move'."""
    game = get_game("sadeqa_ii")
    ending = game.state_from_dict(ENDING_OPENING)
    suite = [game.initial_state(), ending]
    dataset = write_dataset(game, "greedy", "greedy", tmp_path, "ns/skip-v0", openings=suite)
    meta = dataset.storage.metadata["mancala"]
    assert meta["skipped"] == [[1, 1]] and meta["pairs"] == 2  # the learner in seat 1 never moves
    episode_meta = list(dataset.storage.get_episode_metadata(range(dataset.total_episodes)))
    assert [(m["pair"], m["learner_seat"]) for m in episode_meta] == [(0, 0), (0, 1), (1, 0)]


def signal_inside(monkeypatch, module, name: str, sig: int, done: list[str]) -> None:
    """Replace ``module.name`` with a wrapper that sends ``sig`` to this process, then calls the
    original and appends ``name`` to ``done`` once it has returned (an interrupt that is not
    deferred raises before that, as it did inside a numba kernel or an h5py write)."""
    original = getattr(module, name)

    def wrapper(*args, **kwargs):
        os.kill(os.getpid(), sig)
        result = original(*args, **kwargs)
        done.append(name)
        return result

    monkeypatch.setattr(module, name, wrapper)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_during_the_games_stops_at_the_next_move(tmp_path, monkeypatch, capsys, sig):
    """Issue 43: a Ctrl-C mid-call (a numba kernel) could segfault; it now waits for the move to end,
    then the command ends in one line and 130 / 143, nothing written."""
    from mancala_envs.evaluation import dataset as module

    done: list[str] = []
    signal_inside(monkeypatch, module, "step_info", sig, done)
    argv = ["dataset", "--game", GAME, "--learner", "greedy", "--opponent", "random", "--openings", "2",
            "--out", str(tmp_path / "out"), "--no-progress"]  # fmt: skip
    assert main(argv) == 128 + sig
    assert done == ["step_info"]  # the call the signal came in finished; the next check stopped it
    err = capsys.readouterr().err.strip()
    stopped = interrupts.stopped(interrupts.Interrupted(sig))
    assert err == f"mancala dataset: {stopped}; no dataset was written"
    assert not (tmp_path / "out").exists()


def test_a_signal_during_the_write_lets_it_finish_then_removes_it(tmp_path, monkeypatch):
    done: list[str] = []
    signal_inside(monkeypatch, minari, "create_dataset_from_buffers", signal.SIGINT, done)
    with pytest.raises(KeyboardInterrupt):
        write_dataset(GAME, "greedy", "random", tmp_path / "out", "ns/stop-v0", openings=1)
    assert done == ["create_dataset_from_buffers"]  # h5py's write was not cut in the middle
    assert not (tmp_path / "out").exists()  # nor is a dataset, or the folders made for it, left
