"""The documentation site (``docs/``: Sphinx, MyST Markdown, furo; ``make docs``).

- ``test_docs_build``: the whole site builds with warnings as errors (``-W``), as ``make docs`` does.
- ``test_docs_code_block_runs[PAGE]``: every ```` ```python ```` block of every page runs, the
  blocks of one page in order in one namespace, in a fresh process (a page may register a game or
  write files; it runs in a temporary folder). A block whose fence reads ```` ```python notest ````
  is shown but not run: the convention for a sketch that cannot run (docs/development.md).
- The environment pages' tables are the envs' docstrings: their spaces and argument tables are
  checked against the envs here.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import re
import subprocess
import sys
from pathlib import Path

import pytest
from variants import GAME_NAMES

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"

# Pages whose python blocks this test does not run, and why.
NOT_RUN = {
    "works-with.md": "tests/envs/test_integrations.py runs its blocks, one library section at a time",
    "RULES.md": "the core API's specification: its block is a sketch with placeholders (board=[...])",
    "TABLEBASE.md": "the tablebase API's specification: its block is a sketch with placeholders (K, path)",
}
SKIPPED_FOLDERS = ("_build", "api/_generated", "notebooks", "jupyter_execute", "_templates")
# An optional library a block imports -> the extra that installs it (the block is skipped without it).
EXTRA = {
    "minari": "dataset",
    "torch": "agents",
    "stable_baselines3": "sb3",
    "sb3_contrib": "sb3",
    "tensorboard": "train",
    "matplotlib": "train",
    "ray": "rllib",
    "torchrl": "integrations",
    "tensordict": "integrations",
    "tianshou": "integrations",
    "supersuit": "dev",
}
# A fenced block (``` or ~~~, indented under a list item or not) and its info string.
FENCE = re.compile(
    r"^(?P<indent> *)(?P<fence>`{3,}|~{3,})(?P<info>[^\n`]*)\n(?P<body>.*?)^(?P=indent)(?P=fence)[ \t]*$",
    re.M | re.S,
)


def pages() -> list[str]:
    """Every Markdown page of the site with a python block to run (paths relative to docs/), found
    anew at each collection (pages are added all the time)."""
    found = []
    for path in sorted(DOCS.rglob("*.md")):
        rel = path.relative_to(DOCS).as_posix()
        if any(rel == f or rel.startswith(f + "/") for f in SKIPPED_FOLDERS):
            continue
        if rel in NOT_RUN or python_blocks(path.read_text(encoding="utf-8")):
            found.append(rel)
    return found


def python_blocks(text: str) -> list[tuple[int, str]]:
    """The ```python blocks of a Markdown page to run: (line number, code), in order. A fence whose
    info string is ``python notest`` is not run; ``{code-block}`` directives and other languages are
    not either."""
    blocks = []
    for match in FENCE.finditer(text):
        words = match["info"].split()
        if words[:1] == ["python"] and "notest" not in words[1:]:
            line = text.count("\n", 0, match.start()) + 2
            body = "\n".join(row[len(match["indent"]) :] for row in match["body"].splitlines())
            blocks.append((line, body))
    return blocks


def test_fence_convention():
    page = "```python\na = 1\n```\n\n```python notest\nraise SystemExit\n```\n\n```bash\nls\n```\n"
    page += "- a list item:\n\n  ```python\n  b = a + 1\n  ```\n"
    assert python_blocks(page) == [(2, "a = 1"), (15, "b = a + 1")]


# -------------------------------------------------------------------------------------------- the build


@pytest.mark.early  # the slowest test of the suite: started first, so that it is not the last one left
@pytest.mark.slow
def test_docs_build(tmp_path):
    """``sphinx -W``: the site builds without a warning (docstring markup, links, toctrees, notebooks)."""
    pytest.importorskip("sphinx", reason="needs Sphinx: pip install -e '.[docs]'")
    for name in ("myst_nb", "furo", "sphinx_copybutton"):
        pytest.importorskip(name, reason=f"needs {name}: pip install -e '.[docs]'")
    command = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-j", "1", "-q", "-b", "html",
               "-d", str(tmp_path / "doctrees"), str(DOCS), str(tmp_path / "html")]  # fmt: skip
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, (done.stdout[-3000:] + done.stderr[-6000:]) or f"exit {done.returncode}"
    html = tmp_path / "html"
    for page in ("index", "environments/aec", "api/index", "notebooks/index", "changelog"):
        assert (html / f"{page}.html").is_file(), page
    assert list((html / "notebooks").glob("0*.html")), "the notebooks were not rendered"
    assert "SingleAgentEnv" in (html / "environments" / "gymnasium.html").read_text()


# ------------------------------------------------------------------------------------ the code blocks


def require_imports(code: str) -> None:
    """Skip unless every optional library ``code`` imports is installed."""
    for node in ast.walk(ast.parse(code)):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module]
        for name in names:
            root = name.partition(".")[0]
            if root in EXTRA and importlib.util.find_spec(root) is None:
                pytest.skip(f"needs {root}: pip install -e '.[{EXTRA[root]}]'")


@pytest.mark.parametrize("page", pages())
def test_docs_code_block_runs(page, tmp_path):
    """The page's python blocks, in order, in one namespace, in a fresh interpreter."""
    if page in NOT_RUN:
        pytest.skip(NOT_RUN[page])
    blocks = python_blocks((DOCS / page).read_text(encoding="utf-8"))
    code = "\n".join(body for _, body in blocks)
    require_imports(code)
    # each block compiled under its page and line, so that a traceback names the failing block
    runner = tmp_path / "run_page.py"
    runner.write_text(
        f"namespace = {{'__name__': '__main__'}}\nfor line, body in {blocks!r}:\n"
        f"    exec(compile('\\n' * (line - 1) + body, {'docs/' + page!r}, 'exec'), namespace)\n"
    )
    done = subprocess.run([sys.executable, str(runner)], cwd=tmp_path, capture_output=True, text=True,
                          timeout=900)  # fmt: skip
    assert done.returncode == 0, f"docs/{page}:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"


# --------------------------------------------------------------------- the env tables (docstrings)


def table_rows(doc: str, first: str | None = None) -> list[list[str]]:
    """The rows of the reST simple tables in ``doc`` (continuation lines joined): each row's cells,
    split at the column boundaries of the table's border. With ``first``, only the table whose
    header's first cell is ``first``."""
    rows: list[list[str]] = []
    lines = [*inspect.cleandoc(doc).splitlines(), ""]
    is_border = re.compile(r" *=+( +=+)+ *").fullmatch
    i = 0
    while i < len(lines):
        if not is_border(lines[i]):
            i += 1
            continue
        spans = [m.span() for m in re.finditer(r"=+", lines[i])]
        table, i = [], i + 1
        while not (is_border(lines[i]) and not lines[i + 1].strip()):  # the bottom border
            if not is_border(lines[i]):  # (else the header's lower border)
                cells = [
                    lines[i][a : b if k < len(spans) - 1 else None].strip() for k, (a, b) in enumerate(spans)
                ]
                if table and not cells[0]:  # a continuation line
                    cells = [f"{old} {new}".strip() for old, new in zip(table.pop(), cells, strict=True)]
                table.append(cells)
            i += 1
        i += 1
        if first is None or (table and table[0][0] == first):
            rows += table[1:] if first else table
    return rows


def literals(cell: str) -> list[str]:
    return re.findall(r"``(.+?)``", cell)


@pytest.mark.parametrize("game", GAME_NAMES)
def test_game_module_tables_match_the_env(game):
    module = importlib.import_module(f"mancala_envs.{game}_v0")
    table = {row[0]: row[1] for row in table_rows(module.__doc__) if len(row) == 2}
    env = module.env()
    n = env.game.holes_per_row
    assert literals(table["Action shape"])[0] == f"Discrete({n})" == repr(env.action_space("player_0"))
    space = env.observation_space("player_0")
    shapes = literals(table["Observation shape"])
    assert shapes[1:4:2] == [str(space["observation"].shape), str(space["action_mask"].shape)]
    assert table["Agents"] == f"``agents = {env.possible_agents!r}``".replace("'", '"')
    assert table["Number of agents"] == str(len(env.possible_agents))
    assert f"from mancala_envs import {game}_v0" in table["Import"]
    info = importlib.import_module("mancala_envs.rulesets").game_info(game)
    assert f'"{info.env_id}"' in table["Registered ids"] and info.gym_id in table["Gymnasium id"]


def test_single_agent_spaces_table_matches_the_envs():
    import gymnasium

    from mancala_envs.envs import single

    rows = table_rows(single.__doc__, first="game")
    assert len(rows) == 3
    for _, gym_id, action, observation in rows:
        env = gymnasium.make(literals(gym_id)[0])
        assert literals(action)[0] == repr(env.action_space)
        assert literals(observation)[0] == str(env.observation_space["observation"].shape)
        env.close()


def env_classes():
    from mancala_envs.envs.aec import MancalaEnv
    from mancala_envs.envs.gym_vector import MancalaVectorEnv
    from mancala_envs.envs.single import SingleAgentEnv

    classes = [MancalaEnv, SingleAgentEnv, MancalaVectorEnv]
    if importlib.util.find_spec("stable_baselines3") is not None:
        from mancala_envs.envs.vector import MancalaVecEnv

        classes.append(MancalaVecEnv)
    return classes


@pytest.mark.parametrize("cls", env_classes(), ids=lambda c: c.__name__)
def test_argument_tables_are_the_signatures(cls):
    """Each env class's argument table lists its constructor's arguments, in order, with their
    defaults (``—``: none)."""
    rows = table_rows(cls.__doc__, first="argument")
    parameters = [p for name, p in inspect.signature(cls.__init__).parameters.items() if name != "self"]
    names = [("**" if p.kind is p.VAR_KEYWORD else "") + p.name for p in parameters]
    if names[-1] == "**unknown":  # MancalaEnv takes any keyword to refuse it with UnknownArgumentError
        names.pop()
        parameters.pop()
    assert [literals(row[0])[0] for row in rows] == names
    for row, parameter in zip(rows, parameters, strict=True):
        if parameter.default is inspect.Parameter.empty:
            assert row[1] == "—", parameter.name
        else:
            assert ast.literal_eval(literals(row[1])[0]) == parameter.default, parameter.name


def test_parallel_table_is_the_signature():
    from mancala_envs.envs import parallel

    rows = {literals(row[0])[0]: row[1] for row in table_rows(parallel.__doc__, first="argument")}
    default = inspect.signature(parallel.MancalaParallelEnv.__init__).parameters["waiting_noop"].default
    assert ast.literal_eval(literals(rows["waiting_noop"])[0]) is default
    assert "max_cycles" in rows and "game" in rows
