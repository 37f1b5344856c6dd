"""Move the test files of tests/ into folders by level, and fix the paths the move breaks.

``python tests/move_into_folders.py`` (from the repository root, in a git checkout) runs
``git mv tests/test_X.py tests/<folder>/test_X.py`` for each file of :data:`FOLDERS` still at
the top of tests/, then, in the moved files, the ``Path(__file__)`` expressions that reach the
repository root or ``tests/data`` one level deeper, and everywhere in the repository the
mentions ``tests/test_X.py`` of a moved file. It can be run again (after merging branches that
add or edit tests): what is already moved stays, a new ``tests/test_*.py`` that no folder names
is reported and left where it is. ``--keep-code`` leaves the mentions in the package's sources
(mancala_envs/, agents/, training/) alone. The helper modules (conftest, variants, strategies,
golden, ...), ``tests/data``, ``tests/fuzz`` and ``tests/playthroughs`` stay at the top: the
folders hold no ``__init__.py`` (the pgx wheel installs a top-level ``tests`` package), and
conftest.py puts tests/ on ``sys.path`` for every folder below it.

Run ``ruff check .`` after it: a mention made longer may need its line rewrapped. A
``Path(__file__)`` line that another branch adds to a file already moved is not fixed (only the
files moved in this run are): merge the other branches first, then run this.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# folder -> the test files it holds (names without .py; a name not in tests/ is skipped: the last
# ones of rules, envs, agents and integration are added by the other branches of issue 44)
FOLDERS = {
    "rules": """test_core_api test_core_properties test_rule_cases test_relay_sowing test_random_players
        test_lookahead test_jax_env test_golden test_playthroughs test_render_pictures""",
    "envs": """test_aec_env test_wrappers test_vector test_ecosystem test_integrations test_extras
        test_agent_resolver""",
    "agents": """test_agents test_alphabeta test_alphazero_agent test_alphazero_search test_forced_end
        test_perfect test_model_files test_alphabeta_golden""",
    "training": "test_training test_alphazero_training test_az_jax test_distill test_rllib",
    "evaluation": """test_arena test_evaluation_protocol test_ratings test_analysis test_dataset
        test_results_pages""",
    "tablebase": """test_tablebase test_tablebase_store test_tablebase_cli test_tablebase_cycles
        test_tablebase_lowmem test_tablebase_ray test_solve test_optimality""",
    "web": "test_web test_web_browser",
    "integration": """test_cli test_boundaries test_fourth_game test_hardening test_file_fuzz test_full_disk
        test_locks test_signals test_layers test_docs test_readme test_notebooks test_project_files
        test_wheel test_extras_alone test_cli_table test_variant test_architecture test_names""",
}
FOLDER_OF = {name + ".py": folder for folder, names in FOLDERS.items() for name in names.split()}

# Path(__file__)[.resolve()] followed by .parent.parent, .parents[N] or .parent / "data"
_DEPTH = re.compile(
    r'Path\(__file__\)(\.resolve\(\))?(\.parent\.parent|\.parents\[(\d+)\]|\.parent(?= / "data"))'
)
# a mention of a test file at the top of tests/ (not one already in a folder)
_MENTION = re.compile(r"(?<![\w/.])tests/(test_\w+\.py)")
SKIPPED = ("CHANGELOG.md", "docs/RULES.md", "docs/TABLEBASE.md")  # history, and the binding specs
CODE = ("mancala_envs/", "agents/", "training/")


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True, text=True).stdout


def deeper(match: re.Match) -> str:
    """The same expression one folder deeper: ``.parents[N + 1]``."""
    resolve, step, n = match.group(1) or "", match.group(2), match.group(3)
    if step == ".parent.parent":
        level = 2
    elif n is not None:
        level = int(n) + 1
    else:  # .parent / "data"
        level = 1
    return f"Path(__file__){resolve}.parents[{level}]"


def move() -> list[str]:
    """``git mv`` each listed file still at the top of tests/; returns the files moved."""
    moved = []
    for path in sorted((ROOT / "tests").glob("test_*.py")):
        folder = FOLDER_OF.get(path.name)
        if folder is None:
            print(f"not placed (add it to FOLDERS): tests/{path.name}", file=sys.stderr)
            continue
        (ROOT / "tests" / folder).mkdir(exist_ok=True)
        git("mv", f"tests/{path.name}", f"tests/{folder}/{path.name}")
        text = (ROOT / "tests" / folder / path.name).read_text(encoding="utf-8")
        (ROOT / "tests" / folder / path.name).write_text(_DEPTH.sub(deeper, text), encoding="utf-8")
        moved.append(path.name)
    return moved


def placed(match: re.Match) -> str:
    folder = FOLDER_OF.get(match.group(1))
    return f"tests/{folder}/{match.group(1)}" if folder else match.group(0)


def fix_mentions(keep_code: bool) -> None:
    """Point every mention of a placed test file at its folder (tracked text files)."""
    for name in git("ls-files").splitlines():
        if name in SKIPPED or (keep_code and name.startswith(CODE)) or name.startswith("shared/"):
            continue
        path = ROOT / name
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue
        new = _MENTION.sub(placed, text)
        if new != text:
            path.write_text(new, encoding="utf-8")
            print(f"paths fixed: {name}")


if __name__ == "__main__":
    if set(sys.argv[1:]) - {"--keep-code"}:
        sys.exit(__doc__)
    done = move()
    print(f"moved {len(done)} test files")
    fix_mentions(keep_code="--keep-code" in sys.argv[1:])
    print("now run: ruff check . (rewrap a line made too long), and pytest --collect-only -q")
