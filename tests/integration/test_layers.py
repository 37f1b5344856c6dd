"""The architecture's rules, checked on the package as it installs (the repository's agents/,
training/ and models/ folders become subpackages of mancala_envs: setuptools package-dir):

- the import-linter contracts of pyproject.toml ([tool.importlinter]): floors import only
  downward, peers of a floor are independent, no package's children import each other in a circle;
- no circle between any two modules of the import graph (the root and annotations included);
- no import of a project module by name (``importlib.import_module``, ``__import__``), which no
  linter sees.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import subprocess
import sys
import tomllib
from fnmatch import fnmatch
from pathlib import Path

import pytest

pytest.importorskip("importlinter", reason="import-linter is in the dev extra")

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("render_architecture", ROOT / "docs" / "render_architecture.py")
render_architecture = importlib.util.module_from_spec(spec)
spec.loader.exec_module(render_architecture)
installed_tree = render_architecture.installed_tree

SOURCES = ("mancala_envs", "agents", "training")  # the package's source folders in the repository
# Where a module is imported by a name known only at run time, and why that is no project module.
NAMED_LOADERS = {("mancala_envs/infra/extras.py", "require"): "optional third-party extras, named by callers"}


def lint_imports(tree: Path) -> subprocess.CompletedProcess:
    """import-linter on the package in ``tree``, with pyproject.toml's contracts."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    command = "from importlinter.cli import lint_imports_command; lint_imports_command()"
    return subprocess.run(
        [sys.executable, "-c", command, "--no-cache", str(ROOT / "pyproject.toml")],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_layers_import_only_downward_and_no_circles(tmp_path):
    done = lint_imports(installed_tree(tmp_path / "site"))
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "0 broken" in done.stdout and "BROKEN" not in done.stdout
    assert "Contracts: 2 kept" in done.stdout  # every contract was checked


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def test_the_contracts_refuse_an_upward_a_peer_and_an_annotation_import(tmp_path):
    tree = installed_tree(tmp_path / "site")
    package = tree / "mancala_envs"
    _append(package / "state.py", "\n\ndef _up():\n    from mancala_envs import game  # noqa: F401\n")
    _append(
        package / "jax" / "rules.py",
        "\n\ndef _peer():\n    from mancala_envs import tablebase  # noqa: F401\n",
    )
    _append(
        package / "render" / "pictures.py",
        "\nfrom typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from mancala_envs.state import State\n",
    )
    done = lint_imports(tree)
    assert done.returncode != 0 and "Contracts: 0 kept, 2 broken" in done.stdout, done.stdout[-4000:]
    for arrow in (
        "mancala_envs.state -> mancala_envs.game",
        "mancala_envs.jax.rules -> mancala_envs.tablebase",
        "mancala_envs.render.pictures -> mancala_envs.state",
    ):
        assert arrow in done.stdout, arrow


def find_circle(graph: dict[str, list[str]]) -> list[str] | None:
    """A circle of ``graph`` (module -> modules it imports) as its modules, the first repeated at
    the end, or None (a depth-first search); a module that imports itself is no circle between
    modules."""
    finished: set[str] = set()
    for start in sorted(graph):
        if start in finished:
            continue
        path = [start]
        todo = [iter(sorted(graph.get(start, ())))]
        while todo:
            child = next(todo[-1], None)
            if child is None:
                finished.add(path.pop())
                todo.pop()
            elif child in path and child != path[-1]:
                return [*path[path.index(child) :], child]
            elif child not in finished and child not in path:
                path.append(child)
                todo.append(iter(sorted(graph.get(child, ()))))
    return None


def test_find_circle_finds_one_and_ignores_self_imports():
    assert find_circle({"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}) == ["a", "b", "c", "a"]
    assert find_circle({"a": ["a", "b"], "b": ["c"], "c": []}) is None
    assert find_circle({"x": ["y"], "y": ["z"], "z": ["y"]}) == ["y", "z", "y"]


def declared_exceptions() -> list[tuple[str, str]]:
    """The arrows the acyclic contract ignores (pyproject.toml): the deprecated ``main`` shims and
    ``python -m`` entries of lower modules that hand their command line to ``cli`` (each an import
    inside a function or a ``__main__`` guard), and the one legacy-checkpoint arrow."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    acyclic = next(c for c in config if c["id"] == "acyclic")
    return [tuple(arrow.split(" -> ")) for arrow in acyclic.get("ignore_imports", [])]


def without_exceptions(graph: dict[str, list[str]]) -> dict[str, list[str]]:
    """``graph`` less the declared exceptions (``*`` stands for any module below)."""
    rules = declared_exceptions()
    return {
        m: [c for c in cs if not any(fnmatch(m, a) and fnmatch(c, b) for a, b in rules)]
        for m, cs in graph.items()
    }


def test_the_import_graph_has_no_circle(tmp_path):
    graph = render_architecture.import_graph(installed_tree(tmp_path / "site"))
    assert len(graph) > 100 and "mancala_envs.training.run" in graph  # the package as it installs
    assert len(declared_exceptions()) <= 8  # a short, reviewed list, not a way around the test
    graph = without_exceptions(graph)
    assert find_circle(graph) is None, " -> ".join(find_circle(graph))


def _imported_by_name(call: ast.Call) -> bool:
    """``importlib.import_module(...)``, ``import_module(...)`` or ``__import__(...)``."""
    f = call.func
    name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
    return name in ("import_module", "__import__")


def _project_name(node: ast.expr) -> bool:
    """A module name of this project, as a string constant (absolute, or relative to the caller)."""
    if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
        return False
    top = node.value.split(".")[0]
    return node.value.startswith(".") or top in ("mancala_envs", "agents", "training")


def imports_by_name(source: str, path: str) -> list[str]:
    """Where ``source`` (the file ``path``, relative to the repository) imports a project module by
    name: a string naming one, or a name known only at run time outside :data:`NAMED_LOADERS`;
    and where it calls ``require`` (the extras' loader) with anything but a third-party name."""
    found = []
    tree = ast.parse(source)
    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    owner = {id(c): f.name for f in functions for c in ast.walk(f)}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        where = f"{path}:{node.lineno}"
        arg = node.args[0]
        if _imported_by_name(node):
            constant = isinstance(arg, ast.Constant)
            if _project_name(arg) or (not constant and (path, owner.get(id(node))) not in NAMED_LOADERS):
                found.append(f"{where}: {ast.unparse(node)}")
        elif ast.unparse(node.func).split(".")[-1] == "require" and (
            not isinstance(arg, ast.Constant) or _project_name(arg)
        ):
            found.append(f"{where}: {ast.unparse(node)} (require takes a third-party module's name)")
    return found


def test_the_name_scan_finds_imports_by_name():
    source = (
        "import importlib\nfrom importlib import import_module\n"
        'importlib.import_module("mancala_envs.agents")\n'
        "import_module(PROVIDER)\n"
        '__import__("mancala_envs")\n'
        'importlib.import_module(".vector", __name__)\n'
        'importlib.import_module("json")\n'
        'require("torch", "agents", "x")\n'
        'require("mancala_envs.agents", "agents", "x")\n'
    )
    found = imports_by_name(source, "mancala_envs/x.py")
    assert [f.split(":")[1] for f in found] == ["3", "4", "5", "6", "9"], found
    assert not imports_by_name(
        "def require(m):\n    return importlib.import_module(m)\n", "mancala_envs/infra/extras.py"
    )


def test_no_module_imports_a_project_module_by_name():
    found = []
    for folder in SOURCES:
        for path in sorted((ROOT / folder).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            found += imports_by_name(path.read_text(encoding="utf-8"), relative)
    assert not found, "\n".join(found)


def test_the_tree_under_test_is_the_package_that_installs(tmp_path):
    tree = installed_tree(tmp_path / "site")
    found = sorted(p.name for p in tree.iterdir())
    assert found == ["mancala_envs"]
    for sub in ("agents", "training", "models", "core", "envs", "evaluation", "cli", "infra", "render"):
        assert (tree / "mancala_envs" / sub / "__init__.py").is_file(), sub
    listed = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"]
    )
    packages = {".".join(p.parent.relative_to(tree).parts) for p in tree.rglob("__init__.py")}
    assert not packages - listed, (
        f"pyproject.toml's packages lack {sorted(packages - listed)}: the wheel would leave them out"
    )
