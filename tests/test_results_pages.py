"""The results pages and the README's headline table are rendered from the result files in results/,
and a table measured with a model that changed since is marked stale by the renderer."""

import importlib.util
import json
from pathlib import Path

import pytest

from mancala_envs.infra.results import provenance, read_result, write_result

ROOT = Path(__file__).parents[1]
spec = importlib.util.spec_from_file_location("render_results", ROOT / "docs" / "render_results.py")
render_results = importlib.util.module_from_spec(spec)
spec.loader.exec_module(render_results)


def test_committed_pages_match_the_result_files(capsys):
    status = render_results.main(["--check"])
    assert status == 0, capsys.readouterr().out


def test_every_result_file_is_checked_and_rendered():
    files = [p for p in (ROOT / "results").rglob("*.json")]
    assert files, "results/ holds no result file"
    loaded = render_results.load_all()
    rendered = {f for group in loaded.values() for f, _ in group}
    for path in files:
        read_result(path)  # provenance and checksum
        assert str(path.relative_to(ROOT)) in rendered, f"{path} is on no results page"


def optimality_file(results: Path, sha: str) -> Path:
    record = provenance(
        "mancala optimality sadeqa_ii az", {"az": {"file": "mancala_envs/models/az_x.json", "sha256": sha}}
    )
    row = {"agent": "az", "positions": 10, "optimal": 9, "rate": 0.9, "ci95": [0.6, 0.98], "blunders": {}}
    payload = {
        "game": "sadeqa_ii",
        "params": {"max_plies": 1000},
        "suite": {"file": "shipped", "positions": 10, "won": 10},
        "seed": 0,
        "rows": [row],
        "provenance": record,
    }
    path = results / "optimality" / "sadeqa_ii.json"
    path.parent.mkdir(parents=True)
    write_result(path, payload)
    return path


def test_a_changed_model_marks_its_table_stale(tmp_path):
    models = tmp_path / "models"
    models.mkdir()
    (models / "az_x.json").write_text(json.dumps({"sha256": "aaa"}))
    optimality_file(tmp_path / "results", "aaa")
    fresh = render_results.render_all(tmp_path / "results", models)
    assert "90.0%" in fresh["optimality"] and "Stale" not in fresh["optimality"]
    assert "(stale)" not in fresh["README"]
    (models / "az_x.json").write_text(json.dumps({"sha256": "bbb"}))  # the model was retrained
    stale = render_results.render_all(tmp_path / "results", models)
    assert "**Stale:** `az` (mancala_envs/models/az_x.json) changed" in stale["optimality"]
    assert "90.0% (stale)" in stale["README"]
    (models / "az_x.json").unlink()  # or removed
    assert "**Stale:**" in render_results.render_all(tmp_path / "results", models)["optimality"]


def test_a_tampered_result_file_is_refused(tmp_path):
    path = optimality_file(tmp_path / "results", "aaa")
    payload = json.loads(path.read_text())
    payload["rows"][0]["rate"] = 0.99
    path.write_text(json.dumps(payload))
    with pytest.raises(ValueError, match="checksum mismatch"):
        render_results.render_all(tmp_path / "results", tmp_path)
    path.write_text("{not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        read_result(path)


def test_a_result_file_needs_its_provenance(tmp_path):
    with pytest.raises(ValueError, match="provenance"):
        write_result(tmp_path / "x.json", {"rows": []})
    (tmp_path / "y.json").write_text(json.dumps({"rows": []}))
    with pytest.raises(ValueError, match="no provenance"):
        read_result(tmp_path / "y.json")


def test_the_readme_block_is_replaced_between_its_markers():
    text = f"intro\n{render_results.START}\nold\n{render_results.END}\nrest\n"
    assert render_results.render_readme(text, "new") == (
        f"intro\n{render_results.START}\nnew\n{render_results.END}\nrest\n"
    )
    with pytest.raises(ValueError, match="markers"):
        render_results.render_readme("no markers", "new")
