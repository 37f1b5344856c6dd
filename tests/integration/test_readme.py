"""The README's Python examples run as written and its Quickstart holds exactly two commands."""

import re
from pathlib import Path

import pytest

README = (Path(__file__).parents[2] / "README.md").read_text()
PYTHON_BLOCKS = re.findall(r"```python\n(.*?)```", README, flags=re.S)


def test_quickstart_has_two_commands():
    block = re.search(r"## Quickstart.*?```bash\n(.*?)```", README, flags=re.S).group(1)
    commands = [line for line in block.splitlines() if line.strip() and not line.strip().startswith("#")]
    assert len(commands) == 2


@pytest.mark.parametrize("code", PYTHON_BLOCKS, ids=[f"block{i}" for i in range(len(PYTHON_BLOCKS))])
def test_readme_python_example_runs(code):
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)


ROOT = Path(__file__).parents[2]
INSTALL_PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
# `pip install mancala_envs` or `pip install "mancala_envs[extra]"`: a name the index does not have
FROM_THE_INDEX = re.compile(r"pip install\s+[\"']?mancala_envs(\[[^\]]*\])?[\"']?(?!\s*@)(\s|$|`)")


def test_install_lines_work_without_the_package_index():
    """Issue 43 item 11: the package is not on the index; every install line a page shows installs
    from a checkout, an archive or a git URL."""
    wrong = [
        f"{page.relative_to(ROOT)}:{n}: {line.strip()}"
        for page in INSTALL_PAGES
        for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1)
        if FROM_THE_INDEX.search(line)
    ]
    assert wrong == []


@pytest.mark.parametrize("page", ["README.md", "docs/getting-started.md"])
def test_the_torch_extras_show_the_cpu_install(page):
    """Issue 43 item 12: next to the torch extras, the size of torch's CUDA build and the CPU-only
    install line."""
    install = (ROOT / page).read_text(encoding="utf-8").split("## Install", 1)[1].split("\n## ", 1)[0]
    assert '".[agents]"' in install and "3 GB" in install
    assert "pip install torch --index-url https://download.pytorch.org/whl/cpu" in install


def test_readme_first_example_plays_the_same_game_every_run(monkeypatch):
    """Issue 43: ``reset(seed=42)`` then ``action_space(agent).sample(mask)`` played 120, 123 and
    75 steps on three runs; ``reset(seed)`` now seeds the action spaces too."""
    from mancala_envs.envs.aec import MancalaEnv

    code = PYTHON_BLOCKS[0]
    assert "reset(seed=42)" in code and ".sample(mask)" in code
    played: list = []
    step = MancalaEnv.step
    monkeypatch.setattr(MancalaEnv, "step", lambda self, action: (played.append(action), step(self, action)))
    games = []
    for _ in range(3):
        played.clear()
        exec(compile(code, "README.md", "exec"), {})
        games.append(list(played))
    assert len(games[0]) > 10 and games[0] == games[1] == games[2]
