"""The layer contracts of pyproject.toml ([tool.importlinter]), checked with import-linter on the
package as it installs: the repository's agents/, training/ and models/ folders become
subpackages of mancala_envs (setuptools package-dir), so the tree is assembled first."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

pytest.importorskip("importlinter", reason="import-linter is in the dev extra")

ROOT = Path(__file__).resolve().parents[1]


def _installed_tree(dest: Path) -> Path:
    """The import package as pyproject's package-dir lays it out, Python files only."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    package_dir = config["tool"]["setuptools"]["package-dir"]
    ignore = shutil.ignore_patterns("__pycache__", "*.pt", "*.png", "*.jsonl")
    for package, folder in sorted(package_dir.items(), key=lambda kv: kv[0].count(".")):
        shutil.copytree(ROOT / folder, dest.joinpath(*package.split(".")), ignore=ignore, dirs_exist_ok=True)
    return dest


def test_layers_import_only_downward_and_no_circles(tmp_path):
    tree = _installed_tree(tmp_path / "site")
    env = {**os.environ, "PYTHONPATH": str(tree)}
    command = "from importlinter.cli import lint_imports_command; lint_imports_command()"
    done = subprocess.run(
        [sys.executable, "-c", command, "--no-cache", str(ROOT / "pyproject.toml")],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "0 broken" in done.stdout and "BROKEN" not in done.stdout
    assert "Contracts: 3 kept" in done.stdout  # every contract was checked


def test_the_tree_under_test_is_the_package_that_installs(tmp_path):
    tree = _installed_tree(tmp_path / "site")
    found = sorted(p.name for p in tree.iterdir())
    assert found == ["mancala_envs"]
    for sub in ("agents", "training", "models", "core", "envs", "evaluation", "cli", "infra"):
        assert (tree / "mancala_envs" / sub / "__init__.py").is_file(), sub
