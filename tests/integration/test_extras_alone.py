"""Each extra alone (issue 43 item 21): a fresh virtual environment with the wheel and just that
extra runs what the docs say the extra is for.

Each case downloads its extra's packages (hundreds of MB with torch), so the suite skips it;
``MANCALA_EXTRAS_ALONE=train,jax pytest tests/integration/test_extras_alone.py`` runs the extras
named (``all``: every case). torch is installed first at the version the project pins (``TORCH``,
default ``torch==2.13.0``), so that no extra pulls a CUDA build.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WANTED = {x for x in os.environ.get("MANCALA_EXTRAS_ALONE", "").split(",") if x}
TORCH = os.environ.get("TORCH", "torch==2.13.0")

# extra -> (needs torch, what its docs say it is for: a command run in the fresh environment)
CASES = {
    "train": (True, [
        "-m", "mancala_envs.training.train_ppo", "--game", "sadeqa_ii", "--total-timesteps", "256",
        "--num-envs", "4", "--n-steps", "64", "--eval-freq", "256", "--eval-games", "2",
        "--final-eval-games", "2", "--out", "run",
    ]),
    "jax": (False, [
        "-c",
        "import jax, jax.numpy as jnp\n"
        "from mancala_envs.jax import make\n"
        "env = make('en_dodoi', holes_per_row=6)\n"
        "s = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(0), 4))\n"
        "step = jax.jit(jax.vmap(env.step))\n"
        "for _ in range(20):\n"
        "    s = step(s, jnp.argmax(s.legal_action_mask, axis=1))\n"
        "print(int(s._ply.max()))",
    ]),
    "agents": (True, ["-c", "import mancala_envs as m; from mancala_envs.agents import make_agent; g = "
                            "m.get_game('sadeqa_ii'); print(make_agent('az').act(g, g.initial_state()))"]),
}  # fmt: skip


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(out),
         str(ROOT)],
        check=True, timeout=600,
    )  # fmt: skip
    (found,) = out.glob("mancala_envs-*.whl")
    return found


@pytest.mark.parametrize("extra", sorted(CASES))
def test_an_extra_alone_runs_what_it_is_for(extra, wheel, tmp_path):
    if extra not in WANTED and "all" not in WANTED:
        pytest.skip(f"downloads the {extra} extra: MANCALA_EXTRAS_ALONE={extra} runs it")
    needs_torch, command = CASES[extra]
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    if needs_torch:
        subprocess.run([*pip, TORCH], check=True, timeout=1800, env=env)
    subprocess.run([*pip, f"{wheel}[{extra}]"], check=True, timeout=1800, env=env)
    run = subprocess.run([str(python), *command], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=1800)  # fmt: skip
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
