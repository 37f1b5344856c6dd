"""The README's Python examples run as written and its Quickstart holds exactly two commands."""

import re
from pathlib import Path

import pytest

README = (Path(__file__).parents[1] / "README.md").read_text()
PYTHON_BLOCKS = re.findall(r"```python\n(.*?)```", README, flags=re.S)


def test_quickstart_has_two_commands():
    block = re.search(r"## Quickstart.*?```bash\n(.*?)```", README, flags=re.S).group(1)
    commands = [line for line in block.splitlines() if line.strip() and not line.strip().startswith("#")]
    assert len(commands) == 2


@pytest.mark.parametrize("code", PYTHON_BLOCKS, ids=[f"block{i}" for i in range(len(PYTHON_BLOCKS))])
def test_readme_python_example_runs(code):
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)
