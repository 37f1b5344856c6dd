"""The research notebooks run top to bottom in quick mode (QUICK=1), and are committed stripped."""

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).parents[1] / "notebooks").glob("*.ipynb"))


def test_notebooks_exist():
    names = {p.name for p in NOTEBOOKS}
    assert "01_rules_and_game_statistics.ipynb" in names


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_is_stripped(path):
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, f"{path.name}: outputs committed"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs_in_quick_mode(path, monkeypatch, tmp_path):
    monkeypatch.setenv("QUICK", "1")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setenv("MANCALA_NOTEBOOK_OUT", str(tmp_path))
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb, timeout=900, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    )
    client.execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors
