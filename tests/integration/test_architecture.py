"""docs/architecture.md's diagram is drawn from the code (docs/render_architecture.py): the floors
of pyproject's layers contract, what each holds and imports by the import graph; the page cannot
drift from the code."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("grimp", reason="grimp comes with import-linter, in the dev extra")

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("render_architecture", ROOT / "docs" / "render_architecture.py")
render_architecture = importlib.util.module_from_spec(spec)
spec.loader.exec_module(render_architecture)


@pytest.fixture(scope="module")
def graph(tmp_path_factory) -> dict[str, list[str]]:
    return render_architecture.import_graph(
        render_architecture.installed_tree(tmp_path_factory.mktemp("site"))
    )


def test_the_page_matches_the_code(capsys):
    status = render_architecture.main(["--check"])
    assert status == 0, capsys.readouterr().out


def test_every_module_of_the_package_is_on_the_page(graph):
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    drawn = render_architecture.diagram(graph)
    assert drawn in page
    for module in graph:  # each module is named: its floor, or the package holding it
        parts = module.split(".")
        assert f"mancala_envs.{parts[1]}" in drawn if len(parts) > 1 else "mancala_envs" in drawn
        if len(parts) > 2:
            assert parts[2] in drawn, module
    for name in ("mancala_envs.web", "mancala_envs.songo_ewondo_v0", "mancala_envs.jax"):
        assert f" {name} " in drawn


def test_the_diagram_follows_the_graph(graph):
    edited = {module: list(imported) for module, imported in graph.items()}
    edited["mancala_envs.rulesets"] = [*edited["mancala_envs.rulesets"], "mancala_envs.infra.files"]
    edited["mancala_envs.envs.brand_new"] = []
    before, after = render_architecture.diagram(graph), render_architecture.diagram(edited)
    rulesets = after.split(" mancala_envs.rulesets ")[1].split("──")[0]
    assert (
        "imports  infra" in rulesets
        and "imports" not in before.split(" mancala_envs.rulesets ")[1].split("──")[0]
    )
    assert "brand_new" in after and "brand_new" not in before


def test_a_floor_without_a_caption_or_an_unplaced_module_is_an_error(graph, monkeypatch):
    captions = dict(render_architecture.CAPTIONS)
    del captions["jax"]
    monkeypatch.setattr(render_architecture, "CAPTIONS", captions)
    with pytest.raises(ValueError, match="jax"):
        render_architecture.diagram(graph)
    monkeypatch.undo()
    unplaced = {**graph, "mancala_envs.stray": ["mancala_envs.game"]}
    with pytest.raises(ValueError, match="stray"):
        render_architecture.diagram(unplaced)


def test_a_page_without_its_markers_is_refused():
    with pytest.raises(ValueError, match="markers"):
        render_architecture.render_page("# Architecture\n", "```text\n```")
