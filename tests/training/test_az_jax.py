"""training/train_az_jax.py and the az-jax agent, tiny on the CPU: a run folder with its files,
resume, the same seed giving the same network, the model file's checks, and the trained network
playing in the project's arena through ``make_agent``."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

pytest.importorskip("jax")
pytest.importorskip("mctx")
pytest.importorskip("flax")

from variants import ALL, NARROWEST

import mancala_envs
from mancala_envs.agents import make_agent
from mancala_envs.evaluation.arena import play_match
from mancala_envs.training.train_az_jax import main as train_main

TINY = [
    "--game", "en_dodoi", "--holes-per-row", "6", "--games", "4", "--moves-per-iteration", "4",
    "--sims", "2", "--batch-size", "8", "--hidden", "16", "--layers", "1", "--eval-every", "1000",
    "--eval-games", "2", "--final-eval-games", "2", "--eval-opponents", "random",
]  # fmt: skip


def weights(run) -> str:
    return json.loads((run / "az_jax.json").read_text())["weights"]


def test_tiny_run_resume_and_the_agent(tmp_path, capsys):
    run = tmp_path / "run"
    assert train_main([*TINY, "--total-positions", "16", "--out", str(run)]) == 0
    for name in ("config.json", "command.txt", "git_revision.txt", "metrics.csv", "eval.csv",
                 "checkpoint.msgpack", "state.json", "az_jax.json", "report.md"):  # fmt: skip
        assert (run / name).is_file(), name
    metrics = (run / "metrics.csv").read_text().splitlines()
    assert len(metrics) == 1 + 1  # one iteration of 16 positions
    first = weights(run)
    assert train_main(["--resume", str(run), "--total-positions", "32"]) == 0
    assert json.loads((run / "state.json").read_text())["positions"] == 32
    assert weights(run) != first  # it learned on
    assert "resuming" in capsys.readouterr().out

    game = mancala_envs.get_game("en_dodoi", holes_per_row=6)
    for sims in (None, 0):
        spec = f"az-jax:path={run / 'az_jax.json'}" + ("" if sims is None else f",sims={sims}")
        agent = make_agent(spec)
        assert agent.name == spec
        result = play_match(game, agent, "random", 4, seed=0)
        assert result.games == 4
        action = agent.act(game, game.initial_state())
        assert game.legal_mask(game.initial_state())[action] == 1
    with pytest.raises(ValueError, match="plays en_dodoi_6, not songo_ewondo"):
        agent.act(
            mancala_envs.get_game("songo_ewondo"), mancala_envs.get_game("songo_ewondo").initial_state()
        )


def test_the_same_seed_gives_the_same_network(tmp_path):
    for name in ("a", "b"):
        assert train_main([*TINY, "--total-positions", "16", "--eval-opponents", "random",
                           "--final-eval-games", "2", "--out", str(tmp_path / name)]) == 0  # fmt: skip
    assert weights(tmp_path / "a") == weights(tmp_path / "b")


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--sims", "0"], "--sims must be a positive integer"),
        (["--device", "tpu9"], "--device must be auto, cpu or gpu"),
        (["--eval-games", "3"], "--eval-games must be a positive even number"),
        (["--eval-opponents", "nobody"], "unknown agent 'nobody'"),
    ],
)
def test_bad_arguments_exit_2_naming_them(flags, message, tmp_path, capsys):
    assert train_main([*TINY, *flags, "--out", str(tmp_path / "run")]) == 2
    assert message in capsys.readouterr().err


def test_model_file_checks(tmp_path):
    from mancala_envs.agents.alphazero_jax.model import AZNet, init_params, load_model, save_model
    from mancala_envs.jax import JaxEnv

    env = JaxEnv("sadeqa_ii")
    net = AZNet(num_actions=env.num_actions, hidden=8, layers=1)
    path = save_model(tmp_path / "m", net, init_params(net, env, 0), env, 4, {"positions": 0})
    loaded_net, params, loaded_env, config = load_model(path)
    assert (loaded_net.hidden, loaded_env.id, config["search"]["sims"]) == (8, "sadeqa_ii", 4)
    body = json.loads(path.read_text())
    for key, value in (("search", {"sims": 1}), ("network", {"hidden": 8, "layers": 1, "scale": 1000.0})):
        edited = tmp_path / f"edited-{key}.json"
        edited.write_text(json.dumps(body | {key: value}))
        with pytest.raises(ValueError, match="damaged or edited"):
            load_model(edited)
    with pytest.raises(ValueError, match="does not exist"):
        load_model(tmp_path / "missing.json")
    with pytest.raises(ValueError, match="az-jax needs path"):
        make_agent("az-jax")
    assert np.isfinite(np.asarray(net.apply(params, np.zeros((1, 16), np.float32))[0])).all()


# every variant with MANCALA_JAX_ALL_VARIANTS=1 (a compile of a minute each here); the suite takes
# one of each rule family (Songo Ewondo, and En Dodoi at 6 holes)
ALL_VARIANTS = os.environ.get("MANCALA_JAX_ALL_VARIANTS") == "1"
ITERATION_CONFIGS = ALL if ALL_VARIANTS else [v for v in NARROWEST if v[0] != "sadeqa_ii"]


@pytest.mark.parametrize(("name", "params"), ITERATION_CONFIGS)
def test_one_alphazero_iteration_on_every_variant(name, params):
    """The pgx-style AlphaZero loop (self-play with mctx over ``vmap(env.step)``, targets, an Adam
    step) runs on every variant: finite losses, weights that move."""
    import jax

    from mancala_envs.agents.alphazero_jax.model import AZNet, init_params
    from mancala_envs.jax import env_for
    from mancala_envs.training.train_az_jax import Loop, compiled_iteration

    env = env_for(mancala_envs.get_game(name, **params))
    net = AZNet(num_actions=env.num_actions, hidden=8, layers=1)
    optimizer, step = compiled_iteration(env, net, Loop(2, 4, 2, 4, 1e-2))
    params0 = init_params(net, env, 0)
    states = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(0), 2))
    (params1, _, states), (policy_loss, value_loss, _) = step((params0, optimizer.init(params0), states),
                                                              jax.random.PRNGKey(1))  # fmt: skip
    assert np.isfinite(float(policy_loss)) and np.isfinite(float(value_loss))
    moved = jax.tree.leaves(jax.tree.map(lambda a, b: bool((a != b).any()), params0, params1))
    assert any(moved) and int(states._ply.max()) == 4
