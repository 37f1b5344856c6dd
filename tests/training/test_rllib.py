"""RLlib route: the env adapter, one tiny PPO iteration per game on a local Ray instance, the
checkpoint as an arena agent, frozen snapshots and resume. Skipped without the ``rllib`` extra."""

from __future__ import annotations

import json

import numpy as np
import pytest
from strategies import random_legal
from variants import GAME_NAMES

ray = pytest.importorskip("ray", reason="needs the rllib extra: pip install -e '.[rllib]'")
pytest.importorskip("ray.rllib")

from mancala_envs import get_game  # noqa: E402
from mancala_envs.agents import make_agent  # noqa: E402
from mancala_envs.agents.policies.rllib import load_module  # noqa: E402
from mancala_envs.evaluation.arena import play_match, replay  # noqa: E402
from mancala_envs.training.train_rllib import RLlibMancalaEnv, main  # noqa: E402

pytestmark = [
    pytest.mark.rllib,
    pytest.mark.xdist_group("rllib"),  # one Ray instance per run with pytest -n N --dist loadgroup
    pytest.mark.filterwarnings("ignore:.*Overriding environment rllib-multi-agent-env"),
]

GAMES = GAME_NAMES  # each game at its default parameters
TINY = [
    "--num-env-runners", "0", "--train-batch-size", "128", "--minibatch-size", "64", "--num-epochs", "1",
    "--hidden", "16", "--frozen", "2", "--snapshot-every", "1",
    "--eval-games", "2", "--eval-opponents", "random",
]  # fmt: skip


@pytest.fixture(scope="module")
def local_ray():
    """One small local Ray instance for the module (train-rllib reuses it and leaves it running)."""
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_env_observes_only_the_mover_and_hides_baselines() -> None:
    env = RLlibMancalaEnv(
        {"game": "sadeqa_ii", "opponents": {"greedy": 0.5, "self": 0.5}, "frozen": 0, "seed": 3}
    )
    rng = np.random.default_rng(0)
    seen_baseline = seen_self = False
    for _ in range(8):
        obs, _ = env.reset()
        ids = {a for a in env._ids.values() if a is not None}
        seen_baseline |= len(ids) == 1
        seen_self |= len(ids) == 2
        while True:
            ((agent, o),) = obs.items()
            assert set(o) == {"observations", "action_mask"} and agent in ids
            assert env.observation_spaces[agent].contains(o)
            action = random_legal(rng, o["action_mask"])
            obs, rewards, term, trunc, _ = env.step({agent: action})
            if term["__all__"] or trunc["__all__"]:
                break
        assert set(obs) == ids == set(rewards)  # every RLlib-played seat gets its last observation
        assert all(not o["action_mask"].any() for o in obs.values())
        assert all(r in (-1.0, 0.0, 1.0) for r in rewards.values())
    assert seen_baseline and seen_self


def test_env_truncation_ends_the_episode_for_both_seats() -> None:
    env = RLlibMancalaEnv(
        {"game": "songo_ewondo", "game_params": {"max_plies": 4}, "opponents": {"self": 1.0}}
    )
    obs, _ = env.reset(seed=0)
    for _ in range(4):
        ((agent, o),) = obs.items()
        obs, rewards, term, trunc, _ = env.step({agent: int(np.flatnonzero(o["action_mask"])[0])})
    assert trunc["__all__"] and not term["__all__"]
    assert set(rewards) == {"main@0", "main@1"} and set(rewards.values()) == {0.0}


@pytest.mark.parametrize("game_name", GAMES)
def test_one_iteration_checkpoint_plays_legal_moves(local_ray, tmp_path, game_name: str) -> None:
    out = tmp_path / "run"
    assert main(["--game", game_name, "--iterations", "1", "--out", str(out), *TINY]) == 0
    assert (out / "checkpoint" / "learner_group").is_dir()
    progress = [json.loads(line) for line in (out / "progress.jsonl").read_text().splitlines()]
    assert [row["iteration"] for row in progress] == [1] and progress[0]["env_steps"] >= 128
    evaluation = [json.loads(line) for line in (out / "eval.jsonl").read_text().splitlines()]
    assert [(r["opponent"], r["wins"] + r["draws"] + r["losses"]) for r in evaluation] == [("random", 2)]

    game = get_game(game_name)
    agent = make_agent(f"rllib:path={out}", seed=1)
    match = play_match(game, agent, "random", 2, seed=5)  # the arena raises on an illegal move
    assert match.games == 2 and all(len(replay(r, game)) == len(r.moves) + 1 for r in match.records)
    for record in play_match(game, "random", "random", 2, seed=2).records:  # positions from both seats
        for state in replay(record, game)[:-1]:
            assert agent.act(game, state) in game.legal_actions(state)


def test_snapshots_and_resume(local_ray, tmp_path) -> None:
    out = tmp_path / "run"
    args = ["--game", "sadeqa_ii", "--out", str(out), *TINY]
    assert main([*args, "--iterations", "1"]) == 0
    assert main([*args, "--iterations", "2"]) == 2  # the folder holds a run: --resume is required
    with (out / "progress.jsonl").open("a") as fh:  # an iteration trained after the checkpoint, then lost
        fh.write(json.dumps({"iteration": 2, "env_steps": 0}) + "\n")
    assert main([*args, "--iterations", "2", "--resume"]) == 0
    progress = [json.loads(line) for line in (out / "progress.jsonl").read_text().splitlines()]
    assert [(r["iteration"], r["snapshot"]) for r in progress] == [(1, "frozen_0"), (2, "frozen_1")]
    assert progress[1]["env_steps_lifetime"] > progress[0]["env_steps_lifetime"]  # counters restored

    def weights(module: str) -> list[np.ndarray]:
        return [t.detach().numpy().copy() for t in load_module(out, module).state_dict().values()]

    main_w, older, latest = weights("main"), weights("frozen_0"), weights("frozen_1")
    assert all(np.array_equal(a, b) for a, b in zip(main_w, latest, strict=True))  # just snapshotted
    assert not all(np.array_equal(a, b) for a, b in zip(main_w, older, strict=True))  # one update behind
    assert main([*args, "--iterations", "2", "--resume", "--hidden", "32"]) == 2  # another network


def test_bad_options_are_rejected(tmp_path, capsys) -> None:
    assert main(["--game", "sadeqa_ii", "--iterations", "1", "--out", str(tmp_path), "--resume"]) == 2
    assert "no run to resume" in capsys.readouterr().err
    run = ["--game", "sadeqa_ii", "--iterations", "1", "--out", str(tmp_path / "x")]
    assert main([*run, "--opponent", "1", "nobody"]) == 2
    assert "unknown agent 'nobody'" in capsys.readouterr().err
    with pytest.raises(ValueError, match="not an RLlib checkpoint"):
        make_agent(f"rllib:path={tmp_path}")
