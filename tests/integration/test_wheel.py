"""The wheel as a user gets it: built from the checkout's sources, installed into a fresh virtual
environment outside the checkout, and run from there (agents, ``mancala evaluate``, tiny
``mancala train`` and ``mancala train-az`` runs). One import package, ``mancala_envs``, with its
models, training configs and optimality suites as package data.

The sources are copied to a temporary folder first (what a clean checkout holds: no stale
``*.egg-info`` whose file list could add files, no ``build/`` left in the working tree). The new
environment sees this interpreter's third-party packages through a ``.pth`` line naming its
``site-packages`` (a plain path line does not run that folder's own ``.pth`` files, so the
editable install of the checkout stays out), and installs the wheel without dependencies.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import tomllib
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from mancala_envs import variants

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Installed:
    """A fresh virtual environment with the wheel installed, and how to run things in it."""

    wheel: Path
    build_log: str
    python: Path
    site_packages: Path
    work: Path  # an empty working folder outside the checkout
    env: dict[str, str]

    def run(self, args: list[str], timeout: float = 600) -> subprocess.CompletedProcess:
        """``args`` in the working folder with the environment's ``bin`` first on ``PATH``."""
        return subprocess.run(
            args, cwd=self.work, env=self.env, capture_output=True, text=True, timeout=timeout
        )

    def python_json(self, code: str) -> dict:
        """Run ``code`` with the environment's python; it prints one JSON line last."""
        proc = self.run([str(self.python), "-c", textwrap.dedent(code)])
        assert proc.returncode == 0, proc.stderr[-4000:]
        return json.loads(proc.stdout.strip().splitlines()[-1])


def _check_tools() -> None:
    for module in ("pip", "setuptools", "venv"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"building and installing the wheel needs {module}, which this interpreter lacks")
    setuptools = importlib.metadata.version("setuptools")
    if int(setuptools.split(".")[0]) < 77:
        pytest.skip(f"the build backend needs setuptools >= 77 (SPDX license strings), found {setuptools}")
    pip = importlib.metadata.version("pip")
    if tuple(int(x) for x in pip.split(".")[:2]) < (22, 3):
        pytest.skip(f"installing into another environment needs pip >= 22.3 (pip --python), found {pip}")


def _copy_sources(dest: Path) -> Path:
    """The files the build reads (pyproject.toml, its readme and license files, the folders of its
    packages), without caches or build leftovers."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    dest.mkdir()
    files = ["pyproject.toml", project["project"]["readme"], *project["project"].get("license-files", [])]
    for name in files:
        shutil.copy2(ROOT / name, dest / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "*.nbi", "*.nbc", "build", "dist")
    for folder in sorted(set(project["tool"]["setuptools"]["package-dir"].values())):
        shutil.copytree(ROOT / folder, dest / folder, ignore=ignore)
    return dest


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    _check_tools()
    tmp = tmp_path_factory.mktemp("wheel").resolve()
    assert ROOT not in tmp.parents, f"{tmp} must lie outside the checkout"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")}
    env |= {"PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INPUT": "1", "PYTHONNOUSERSITE": "1"}
    src = _copy_sources(tmp / "src")
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", "--no-build-isolation", "--no-index",
         "-w", str(tmp / "dist"), str(src)],
        cwd=tmp, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    (wheel,) = (tmp / "dist").glob("mancala_envs-*.whl")

    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300)
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    site_packages = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True, capture_output=True, text=True, env=env,
        ).stdout.strip()
    )  # fmt: skip
    # the dev environment's third-party packages, as a plain path: its .pth files (the editable
    # install of this checkout among them) are not run
    dev_dirs = [sysconfig.get_paths()["purelib"]]  # and any other site folder this interpreter reads
    dev_dirs += [p for p in sys.path if p.endswith(("site-packages", "dist-packages")) and p not in dev_dirs]
    (site_packages / "_dev_packages.pth").write_text("".join(f"{d}\n" for d in dev_dirs))
    install = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index",
         str(wheel)],
        cwd=tmp, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert install.returncode == 0, install.stdout[-3000:] + install.stderr[-3000:]

    work = tmp / "work"
    work.mkdir()
    env |= {
        "PATH": f"{python.parent}{os.pathsep}{env.get('PATH', '')}",
        "VIRTUAL_ENV": str(venv),
        "NUMBA_CACHE_DIR": str(tmp / "numba_cache"),
        "MPLBACKEND": "Agg",
        "OMP_NUM_THREADS": "1",
    }
    return Installed(wheel, build.stdout + build.stderr, python, site_packages, work, env)


def test_the_wheel_is_one_package_with_its_data(installed: Installed):
    with zipfile.ZipFile(installed.wheel) as z:
        names = set(z.namelist())
        (dist_info,) = {n.split("/")[0] for n in names if n.split("/")[0].endswith(".dist-info")}
        top_level = f"{dist_info}/top_level.txt"
        if top_level in names:
            assert z.read(top_level).decode().split() == ["mancala_envs"]
        record = z.read(f"{dist_info}/RECORD").decode().splitlines()
        metadata = z.read(f"{dist_info}/METADATA").decode()
    assert {n.split("/")[0] for n in names} == {"mancala_envs", dist_info}
    assert {row.split(",")[0].split("/")[0] for row in record} == {"mancala_envs", dist_info}
    for folder in ("agents", "training", "models"):  # installed inside the package only
        assert f"mancala_envs/{folder}/__init__.py" in names
    shipped = [p.name for p in sorted((ROOT / "models").iterdir()) if p.suffix in (".json", ".pt")]
    stems = [f"{prefix}{g.variant}" for g in variants() for prefix in ("", "az_")]
    assert {f"{stem}.{ext}" for stem in stems for ext in ("json", "pt")} <= set(shipped)
    assert not [n for n in names if "examples" in n or n.endswith(".hdf5")]  # docs' example datasets stay out
    wanted = [f"mancala_envs/models/{name}" for name in shipped]
    wanted += ["mancala_envs/training/configs.toml"]
    suites = sorted((ROOT / "mancala_envs" / "tablebase" / "shipped_suites").glob("*.jsonl"))
    assert suites
    wanted += [f"mancala_envs/tablebase/shipped_suites/{p.name}" for p in suites]
    wanted += [f"mancala_envs/web/static/{name}" for name in ("index.html", "app.js", "style.css")]
    solves = ROOT / "results" / "solve"  # the shipped proofs (issue 43 item 18)
    shipped_solves = [*solves.rglob("*.jsonl.gz"), *solves.glob("*/solution.json")]
    wanted += [f"mancala_envs/solutions/{p.relative_to(solves)}" for p in sorted(shipped_solves)]
    absent = [name for name in wanted if name not in names]
    assert not absent, (
        f"the wheel lacks {absent}: pyproject.toml's [tool.setuptools.package-data] must list them"
    )
    assert "License-Expression: MIT" in metadata
    license_warnings = [
        line
        for line in installed.build_log.splitlines()
        if "deprecat" in line.lower() and "licen" in line.lower()
    ]
    assert license_warnings == []
    assert "would be ignored" not in installed.build_log  # every data folder is declared (item 20)


def test_the_docs_config_reads_the_installed_package_from_the_checkout(installed: Installed):
    """Issue 43 item 15: Sphinx run in the checkout with a regular (not editable) install reads
    the installed package, whose agents the checkout's mancala_envs/ folder does not hold."""
    code = (
        "import sys; sys.path.insert(0, ''); ns = {'__file__': 'docs/conf.py'}\n"
        "exec(compile(open('docs/conf.py').read(), 'docs/conf.py', 'exec'), ns)\n"
        "import mancala_envs.agents; print(mancala_envs.agents.__file__)"
    )
    proc = subprocess.run([str(installed.python), "-c", code], cwd=ROOT, env=installed.env,
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert str(installed.site_packages) in proc.stdout


def test_the_environment_imports_the_installed_package_only(installed: Installed):
    out = installed.python_json(
        """
        import importlib.util, json, sys
        import mancala_envs
        import mancala_envs.agents, mancala_envs.training, mancala_envs.models

        print(json.dumps({
            "files": [m.__file__ for m in (mancala_envs, mancala_envs.agents, mancala_envs.training)],
            "models": list(mancala_envs.models.__path__),
            "old_names": [n for n in ("agents", "training", "models") if importlib.util.find_spec(n)],
        }))
        """
    )
    for path in [*out["files"], *out["models"]]:
        assert Path(path).is_relative_to(installed.site_packages), path
    assert out["old_names"] == []  # no top-level agents / training / models packages
    for name in ("agents", "training"):
        proc = installed.run([str(installed.python), "-c", f"import {name}"])
        assert proc.returncode != 0 and "ModuleNotFoundError" in proc.stderr
    # what the wheel put into site-packages: one import package, its dist-info, the test's .pth
    added = {
        p.name
        for p in installed.site_packages.iterdir()
        if p.name not in ("_dev_packages.pth", "__pycache__")
    }
    assert {n for n in added if not n.endswith(".dist-info")} == {"mancala_envs"}


def test_network_and_perfect_agents_play_every_variant(installed: Installed):
    """From a pip install: az, az:sims=0, policy and perfect:max_seeds=K (its table built on
    demand) play every variant, En Dodoi at every width."""
    tables = installed.work / "tables"
    out = installed.python_json(
        f"""
        import json
        import numpy as np
        from mancala_envs import variants
        from mancala_envs.agents import make_agent

        moves = {{}}
        for game in variants():
            name = game.variant
            rng = np.random.default_rng(0)
            state = game.initial_state()
            for _ in range(3):  # a position a few plies in
                state = game.apply(state, int(rng.choice(game.legal_actions(state))))
            for spec in ("az", "az:sims=0", "policy", "perfect:max_seeds=4"):
                agent = make_agent(spec + (f",path={tables}/{{name}}" if spec.startswith("perfect") else ""))
                move = agent.act(game, state)
                moves[f"{{name}} {{spec}}"] = [move, move in game.legal_actions(state)]
        print(json.dumps(moves))
        """
    )
    specs = ("az", "az:sims=0", "policy", "perfect:max_seeds=4")
    assert sorted(out) == sorted(f"{g.variant} {s}" for g in variants() for s in specs)
    assert all(legal for _, legal in out.values()), out


def test_mancala_serve_from_the_wheel(installed: Installed):
    """``mancala serve`` (the web extra) serves its page, its script and the API from the installed
    package, bound to the loopback address."""
    pytest.importorskip("uvicorn", reason="mancala serve needs the web extra")
    pytest.importorskip("starlette", reason="mancala serve needs the web extra")
    import urllib.request

    proc = subprocess.Popen(
        ["mancala", "serve", "--port", "0", "--tables", str(installed.work / "tables")],
        cwd=installed.work,
        env=installed.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline()
        assert line.startswith("mancala serve: http://127.0.0.1:"), (
            line,
            proc.stderr.read() if proc.poll() else "",
        )
        url = line.split()[2]
        page = urllib.request.urlopen(url, timeout=60).read().decode()
        script = urllib.request.urlopen(url + "static/app.js", timeout=60).read().decode()
        request = urllib.request.Request(
            url + "api/position",
            data=json.dumps({"game": "sadeqa_ii", "moves": [5]}).encode(),
            headers={"Content-Type": "application/json"},
        )
        view = json.loads(urllib.request.urlopen(request, timeout=60).read())
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    assert "<title>" in page and "/static/app.js" in page and "api/position" in script
    assert view["state"]["ply"] == 1 and view["svg"].startswith("<svg")


def test_mancala_evaluate_with_the_shipped_policy(installed: Installed):
    out = installed.work / "evaluate"
    proc = installed.run(
        ["mancala", "evaluate", "policy", "--game", "sadeqa_ii", "--opponents", "random", "--games", "2",
         "--openings", "none", "--no-progress", "--out", str(out)]
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-4000:]
    report = json.loads((out / "report.json").read_text())
    (row,) = report["results"]
    assert row["opponent"] == "random" and row["wins"] + row["draws"] + row["losses"] == 2


def test_tiny_mancala_train(installed: Installed):
    run = installed.work / "ppo"
    proc = installed.run(
        ["mancala", "train", "--game", "sadeqa_ii", "--total-timesteps", "256", "--num-envs", "4",
         "--n-steps", "64", "--batch-size", "64", "--n-epochs", "1", "--net-arch", "16",
         "--eval-freq", "256", "--eval-games", "2", "--final-eval-games", "2", "--eval-opponents", "random",
         "--pool", "random@1", "--train-openings", "20", "--device", "cpu", "--no-progress-bar",
         "--out", str(run)]
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    assert (run / "policy.json").is_file() and (run / "policy.pt").is_file()


def test_tiny_mancala_train_az(installed: Installed):
    run = installed.work / "az"
    proc = installed.run(
        ["mancala", "train-az", "--game", "en_dodoi", "--holes-per-row", "6", "--games", "8", "--sims", "2",
         "--max-considered", "2", "--hidden", "16", "--lookahead", "0", "--batch-size", "32",
         "--min-replay", "32", "--total-positions", "128", "--eval-every", "100000000", "--eval-games", "2",
         "--final-eval-games", "2", "--eval-sims", "2", "--eval-opponents", "random",
         "--eval-net-opponents", "random", "--train-openings", "20", "--device", "cpu", "--out", str(run)]
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    assert (run / "az.json").is_file()
