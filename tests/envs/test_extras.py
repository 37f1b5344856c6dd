"""The core install needs no extra: with torch, Stable-Baselines3, sb3-contrib and matplotlib
blocked, every env imports and runs, and what needs an extra fails with one message naming it."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

BLOCKED = ("torch", "stable_baselines3", "sb3_contrib", "matplotlib", "jax", "pgx")

# Run first in the child: any import of a blocked package (or one of its modules) fails as if it
# were not installed.
PRELUDE = f"""
import importlib.abc, sys

BLOCKED = {BLOCKED!r}
for name in list(sys.modules):
    assert name.partition(".")[0] not in BLOCKED, name


class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {{name!r}} (blocked by the test)", name=name)
        return None


sys.meta_path.insert(0, Block())
"""

ENV_MODULES = [
    "mancala_envs",
    "mancala_envs.aec",
    "mancala_envs.wrappers",
    "mancala_envs.songo_ewondo_v0",
    "mancala_envs.sadeqa_ii_v0",
    "mancala_envs.en_dodoi_v0",
    "mancala_envs.vector",  # the old path: MancalaVecEnv is read on first use
    "mancala_envs.envs",
    "mancala_envs.envs.aec",
    "mancala_envs.envs.parallel",
    "mancala_envs.envs.single",
    "mancala_envs.envs.vector_kernel",
    "mancala_envs.envs.vector_driver",
    "mancala_envs.envs.gym_vector",
]


def run_blocked(body: str, cwd: Path) -> dict:
    """Run ``body`` after :data:`PRELUDE` in a fresh interpreter in ``cwd``; it prints one JSON
    line last."""
    code = PRELUDE + textwrap.dedent(body)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, cwd=cwd)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_envs_and_search_agents_need_no_extra(tmp_path):
    out = run_blocked(
        f"""
        import importlib, json
        import numpy as np

        for name in {ENV_MODULES!r}:
            importlib.import_module(name)
        loaded = sorted(m for m in {BLOCKED!r} if m in sys.modules)

        import gymnasium
        import mancala_envs
        from mancala_envs.agents import make_agent
        from mancala_envs.envs.gym_vector import MancalaVectorEnv

        env = gymnasium.make("mancala_envs/SongoEwondo-v0", opponent="greedy")
        obs, info = env.reset(seed=0)
        mask = obs["action_mask"] if isinstance(obs, dict) else info["action_mask"]
        obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(mask)[0]))

        envs = gymnasium.make_vec(
            "mancala_envs/SongoEwondo-v0", num_envs=4, opponent="random", seed=1, max_plies=30
        )
        obs, infos = envs.reset(seed=1)
        rng, ended = np.random.default_rng(0), 0
        for _ in range(40):
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in infos["action_mask"]])
            obs, rewards, terminated, truncated, infos = envs.step(actions)
            ended += int((terminated | truncated).sum())
        envs.close()

        game = mancala_envs.get_game("sadeqa_ii")
        move = make_agent("minimax:depth=2").act(game, game.initial_state())
        print(json.dumps({{
            "loaded": loaded,
            "vector_env": isinstance(envs, MancalaVectorEnv),
            "obs_shape": list(obs.shape),
            "ended": ended,
            "move": move,
            "still_loaded": sorted(m for m in {BLOCKED!r} if m in sys.modules),
        }}))
        """,
        tmp_path,
    )
    assert out["loaded"] == [] and out["still_loaded"] == []
    assert out["vector_env"] and out["obs_shape"] == [4, 16]
    assert out["ended"] >= 4  # every game ended (30 plies at most) and restarted within 40 steps
    assert out["move"] == 5  # SQ4: the opening hole is the only legal first move


def test_what_needs_an_extra_names_it(tmp_path):
    out = run_blocked(
        """
        import importlib, json, pathlib
        import mancala_envs, mancala_envs.envs, mancala_envs.vector
        from mancala_envs.agents import make_agent
        from mancala_envs.infra.extras import MissingExtraError

        game = mancala_envs.get_game("songo_ewondo")
        errors = {}

        def record(key, fn):
            try:
                fn()
            except MissingExtraError as e:
                errors[key] = str(e)
            else:
                errors[key] = None

        for spec in ("az", "az:sims=0", "policy"):
            agent = make_agent(spec)  # building the agent needs nothing; playing needs its network
            record(spec, lambda: agent.act(game, game.initial_state()))
        record("sb3 face", lambda: importlib.import_module("mancala_envs.envs.vector"))
        record("old sb3 path", lambda: mancala_envs.vector.MancalaVecEnv)
        record("envs attribute", lambda: mancala_envs.envs.MancalaVecEnv)
        pathlib.Path("model.zip").write_bytes(b"PK")  # opened only once torch and sb3-contrib are there
        record("zip", lambda: make_agent("policy:path=model.zip,trusted=true"))  # loads at once

        from mancala_envs.evaluation.evaluate import plot_curve
        from mancala_envs.evaluation.ratings import compute_ratings
        from mancala_envs.evaluation.arena import play_match

        record("curve", lambda: plot_curve([], "curve.png"))
        result = play_match(game, "random", "greedy", 2, seed=0)
        ratings = compute_ratings(result.records, n_bootstrap=0)
        record("ratings", lambda: ratings.plot("ratings.png"))
        print(json.dumps(errors))
        """,
        tmp_path,
    )
    for key in ("az", "az:sims=0", "policy"):
        assert out[key] is not None and "pip install '.[agents]'" in out[key], key
        assert "torch" in out[key]
    for key in ("sb3 face", "old sb3 path", "envs attribute"):
        assert out[key] is not None and "pip install '.[sb3]'" in out[key], key
    for key in ("curve", "ratings"):
        assert out[key] is not None and "pip install '.[train]'" in out[key], key
        assert "matplotlib" in out[key]
    assert out["zip"] is not None and "pip install '.[agents]'" in out["zip"]
    assert not (tmp_path / "curve.png").exists() and not (tmp_path / "ratings.png").exists()


def test_the_jax_core_and_agent_name_their_extra(tmp_path):
    """Without JAX, ``mancala_envs.jax`` and the az-jax agent fail with one message naming
    ``[jax]``."""
    out = run_blocked(
        """
        import json
        from mancala_envs.agents import make_agent

        messages = {}
        try:
            import mancala_envs.jax
        except ImportError as e:
            messages["module"] = str(e)
        try:
            make_agent("az-jax:path=model.json")
        except ImportError as e:
            messages["agent"] = str(e)
        print(json.dumps(messages))
        """,
        tmp_path,
    )
    assert set(out) == {"module", "agent"}
    assert all("pip install '.[jax]'" in text for text in out.values()), out


@pytest.mark.parametrize("module", ["torch", "stable_baselines3", "jax"])
def test_the_envs_do_not_import_the_frameworks_even_when_installed(module):
    """Installed or not, importing every env module leaves torch and SB3 unloaded."""
    pytest.importorskip(module)
    code = (
        f"import importlib, sys\nfor m in {ENV_MODULES!r}:\n    importlib.import_module(m)\n"
        "import mancala_envs.agents\n"
        f"print({module!r} in sys.modules)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == "False"
