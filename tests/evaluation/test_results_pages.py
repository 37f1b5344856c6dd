"""The results pages and the README's headline table are rendered from the result files in results/,
and a table measured with a model that changed since is marked stale by the renderer."""

import importlib.util
import json
from pathlib import Path

import pytest

from mancala_envs.infra.results import provenance, read_result, write_result

ROOT = Path(__file__).parents[2]
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
    (models / "az_x.json").write_text(json.dumps({"sha256": "aaa"}))
    (models / "az_x.json").rename(models / "az_sadeqa_ii.json")  # the same weights, the variant's name
    assert "Stale" not in render_results.render_all(tmp_path / "results", models)["optimality"]
    (models / "az_sadeqa_ii.json").rename(models / "az_archived.json")  # kept, but not shipped for it
    assert "**Stale:**" in render_results.render_all(tmp_path / "results", models)["optimality"]
    (models / "az_archived.json").unlink()  # or removed
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


def strength_file(
    results: Path, name: str, params: dict, rows: list[dict], file: str = "", date: str = ""
) -> None:
    payload = {
        "game": name,
        "params": {"max_plies": 1000, **params},
        "seed": 2024,
        "games": 400,
        "az_forward_default": "numba",  # as strength_alphazero.py writes it
        "rows": rows,
        "provenance": provenance("python benchmarks/strength_alphazero.py ...", {}),
    }
    if date:
        payload["provenance"]["date"] = date
    path = results / "strength" / (file or f"{name}{params.get('holes_per_row', '')}.json")
    path.parent.mkdir(parents=True, exist_ok=True)
    write_result(path, payload)


def strength_row(agent: str, opponent: str, score: float, **extra) -> dict:
    return {
        "agent": agent,
        "opponent": opponent,
        "pairs": 200,
        "wins": int(400 * score),
        "draws": 0,
        "losses": 400 - int(400 * score),
        "truncated": 0,
        "score": score,
        "ci95": [score - 0.05, score + 0.05],
        "agent_ms_per_move": 50.0,
        "opponent_ms_per_move": 31.0,
        **extra,
    }


def test_equal_time_rows_reach_the_readme_for_the_default_variants_only(tmp_path):
    """A row whose opponent had the agent's measured time is the README's equal-time row (any
    budget); a network row states its input cost; En Dodoi's other widths stay on the page."""
    equal = {"budget_ms": 51.6, "calibration_games": 8}
    strength_file(
        tmp_path / "results",
        "sadeqa_ii",
        {},
        [
            strength_row("az", "minimax:time=0.05162", 0.468, equal_time=equal),
            strength_row(
                "az:sims=0", "minimax:time=0.002", 0.3, equal_time=equal, engine_moves_per_evaluation=6
            ),
        ],
    )
    strength_file(
        tmp_path / "results",
        "en_dodoi",
        {"holes_per_row": 6},
        [strength_row("az", "minimax:time=0.04", 0.611, equal_time=equal)],
    )
    pages = render_results.render_all(tmp_path / "results", tmp_path)
    readme = pages["README"]
    assert "[`az` vs `minimax` at equal time per move](docs/results/strength.md) | 0.468" in readme
    assert "[`az:sims=0` vs `minimax` at equal time per move](docs/results/strength.md) | 0.300" in readme
    assert "0.611" not in readme and "6 holes" not in readme  # the README shows the default variants
    assert "## En Dodoi (6 holes)" in pages["strength"] and "0.611" in pages["strength"]
    assert "`az:sims=0` (6 engine moves per evaluation)" in pages["strength"]
    assert "`minimax:time=0.05162` (the agent's time per move)" in pages["strength"]


def test_a_time_matched_row_is_chosen_and_an_unmatched_one_is_marked(tmp_path):
    """The summary and the README take the equal-time row whose two times per move agree within 10%
    (``strength_alphazero.py --match-rounds``) before a row whose times differ, even one with more
    pairs, in a newer file read after it; a row whose times differ says so, and its verdict on the
    target is left open where the difference could change it."""
    unequal = {"budget_ms": 51.6, "calibration_games": 8}  # 50 against 31 ms: 61% apart
    results = tmp_path / "results"
    late = strength_row("az", "minimax:time=0.05162", 0.71, equal_time=unequal, pairs=250)
    strength_file(results, "sadeqa_ii", {}, [late], file="sadeqa_ii-z.json", date="2099-01-01T00:00:00+00:00")
    matched = {**unequal, "tolerance": 0.1, "matched": True, "replaced": [{"budget_ms": 40.0}]}
    row = strength_row("az", "minimax:time=0.0497", 0.58, equal_time=matched, opponent_ms_per_move=47.0)
    strength_file(results, "sadeqa_ii", {}, [row], file="sadeqa_ii-a.json", date="2000-01-01T00:00:00+00:00")
    pages = render_results.render_all(results, tmp_path)
    summary = next(x for x in pages["strength"].splitlines() if x.startswith("| Sadeqa II | `az` |"))
    assert "| 0.580 |" in summary and summary.endswith("| 50.0 / 47.0 |")
    assert "[`az` vs `minimax` at equal time per move](docs/results/strength.md) | 0.580" in pages["README"]
    verdict = "- `az` at equal time per move, at least 0.60 over 200 pairs: reached in no variant; missed in"
    assert f"{verdict} Sadeqa II." in pages["strength"]
    assert (
        "`minimax:time=0.0497` (the agent's time per move, budget scaled to it over 2 matches)"
        in pages["strength"]
    )
    (results / "strength" / "sadeqa_ii-a.json").unlink()  # only the unequal row is left
    pages = render_results.render_all(results, tmp_path)
    summary = next(x for x in pages["strength"].splitlines() if x.startswith("| Sadeqa II | `az` |"))
    assert "| 0.710 |" in summary and summary.endswith("| 50.0 / 31.0 (times differ by 61.3%) |")
    assert "open in Sadeqa II, where unequal times could change the verdict" in pages["strength"]


@pytest.mark.parametrize(
    ("score", "agent_ms", "verdict"),
    [
        (0.5, 50.0, "missed in"),  # missed with more time: missed all the more
        (0.7, 20.0, "reached in Sadeqa II"),  # reached with less time: reached all the more
        (0.5, 20.0, "open in"),  # missed with less time: more might have reached it
        (0.7, 50.0, "open in"),  # reached with more time
        (0.7, 33.0, "reached in Sadeqa II"),  # within 10%: judged
    ],
)
def test_unequal_times_leave_open_only_the_verdicts_they_could_change(tmp_path, score, agent_ms, verdict):
    equal = {"budget_ms": 31.0, "calibration_games": 8}
    row = strength_row("az", "minimax:time=0.031", score, equal_time=equal, agent_ms_per_move=agent_ms)
    strength_file(tmp_path / "results", "sadeqa_ii", {}, [row])
    page = render_results.render_all(tmp_path / "results", tmp_path)["strength"]
    line = next(x for x in page.splitlines() if x.startswith("- `az` at equal time per move"))
    assert verdict in line and "Sadeqa II" in line


def test_the_models_page_describes_every_shipped_model():
    """Every shipped model file has its row: its variant, how it was trained and what its input
    reads, from the file itself."""
    from mancala_envs.agents.alphazero.network import engine_moves_per_evaluation, lookahead_plies
    from mancala_envs.agents.model_files import MODELS_DIR

    page = render_results.page_models(MODELS_DIR)
    for path in sorted(MODELS_DIR.glob("*.json")):
        config = json.loads(path.read_text())
        line = next(x for x in page.splitlines() if f"| `{path.stem}` |" in x)
        assert config["trained"]["command"] in line
        if config["format"] == "mancala_envs.az":
            plies = lookahead_plies(config)
            assert f"| {plies}-ply lookahead | {engine_moves_per_evaluation(config):,} |" in line
            assert "self-play" in line or "distillation" in line
            earlier = config["trained"].get("init_trained")
            if earlier:  # trained on from an earlier model: both runs' positions
                before = f"{earlier['positions']:,} positions ({earlier['minutes']:.0f} min)"
                assert f"{before}, then {config['trained']['positions']:,} positions" in line
        else:
            assert "MaskablePPO" in line and "| the board | 0 |" in line


def test_strength_script_gives_equal_time_opponents_the_measured_budget(tmp_path):
    """``strength_alphazero.py --equal-time``: each named opponent plays with the agent's mean time
    per move from the calibration games as its budget, recorded beside the row."""
    import subprocess
    import sys

    out = tmp_path / "strength.json"
    command = [sys.executable, str(ROOT / "benchmarks" / "strength_alphazero.py"), "--game", "sadeqa_ii"]
    command += ["--agents", "greedy", "--opponents", "random", "--equal-time", "minimax", "mcts"]
    command += ["--games", "2", "--calibration-games", "2", "--match-rounds", "1", "--out", str(out)]
    subprocess.run(command, check=True, capture_output=True, cwd=tmp_path, timeout=300)
    rows = read_result(out)["rows"]
    assert [r["opponent"].split(":")[0] for r in rows] == ["minimax", "mcts", "random"]
    for r in rows[:2]:
        budget = r["equal_time"]["budget_ms"] / 1000
        assert r["opponent"].endswith(f":time={budget:.4g}") and budget > 0
        assert r["equal_time"]["calibration_games"] == 2 and r["pairs"] == 1
        assert "replaced" not in r["equal_time"]  # --match-rounds 1: the one-match protocol
    assert "equal_time" not in rows[2] and "engine_moves_per_evaluation" not in rows[2]


def test_an_equal_time_match_whose_times_differ_is_played_again_with_the_budget_scaled(tmp_path):
    """``--match-rounds 3``: a match whose two times per move differ by more than the tolerance is
    replaced by one whose budget is the last one's times agent / opponent (at most 4x up or down);
    each replaced match is recorded, and ``matched`` says whether the last one agrees. Greedy's
    microseconds against a minimax given them as its budget differ far beyond 1% at first (a search
    runs at least one ply)."""
    import subprocess
    import sys

    out = tmp_path / "strength.json"
    command = [sys.executable, str(ROOT / "benchmarks" / "strength_alphazero.py"), "--game", "sadeqa_ii"]
    command += ["--agents", "greedy", "--opponents", "--equal-time", "minimax", "--games", "2"]
    command += [
        "--calibration-games",
        "2",
        "--match-rounds",
        "3",
        "--time-tolerance",
        "0.01",
        "--out",
        str(out),
    ]
    subprocess.run(command, check=True, capture_output=True, cwd=tmp_path, timeout=300)
    (row,) = read_result(out)["rows"]
    timed = row["equal_time"]
    last = abs(row["agent_ms_per_move"] / row["opponent_ms_per_move"] - 1)
    assert timed["tolerance"] == 0.01 and timed["matched"] == (last <= 0.01)
    assert timed["replaced"] and (timed["matched"] or len(timed["replaced"]) == 2)
    budgets = [m["budget_ms"] for m in timed["replaced"]] + [timed["budget_ms"]]
    for match, after in zip(timed["replaced"], budgets[1:], strict=True):
        ratio = match["agent_ms_per_move"] / match["opponent_ms_per_move"]
        assert abs(ratio - 1) > 0.01
        assert after == pytest.approx(match["budget_ms"] * min(max(ratio, 0.25), 4.0))  # scaled, at most 4x
    assert row["opponent"] == f"minimax:time={timed['budget_ms'] / 1000:.4g}"
    for bad in (["--match-rounds", "0"], ["--time-tolerance", "0"], ["--time-tolerance", "1.5"]):
        rejected = subprocess.run([*command[:-2], *bad], capture_output=True, cwd=tmp_path)
        assert rejected.returncode != 0
        assert b"--match-rounds must be >= 1 and --time-tolerance in (0, 1)" in rejected.stderr


def test_a_held_out_suite_shares_no_opening_with_the_default_one_and_the_strength_script_plays_it(tmp_path):
    """``held_out_openings.py`` writes openings none of which is in the default suite of
    ``--exclude-pairs`` openings (its own seed refused), and ``strength_alphazero.py --openings
    FILE`` plays them and records the suite, so the summary leaves the file out."""
    import subprocess
    import sys

    from mancala_envs import get_game
    from mancala_envs.evaluation.openings import load_openings, position_key, random_openings

    game, suite = get_game("sadeqa_ii"), tmp_path / "held.jsonl"
    script = [sys.executable, str(ROOT / "benchmarks" / "held_out_openings.py"), "--game", "sadeqa_ii"]
    subprocess.run(
        [*script, "--pairs", "20", "--exclude-pairs", "60", "--out", str(suite)], check=True, timeout=300
    )
    held = {position_key(s) for s in load_openings(suite, game)}
    assert len(held) == 20 and not held & {position_key(s) for s in random_openings(game, 60)}
    refused = subprocess.run(
        [*script, "--seed", "0", "--out", str(tmp_path / "x.jsonl")], capture_output=True
    )
    assert refused.returncode != 0 and b"draws the default suite itself" in refused.stderr
    out = tmp_path / "strength.json"
    command = [sys.executable, str(ROOT / "benchmarks" / "strength_alphazero.py"), "--game", "sadeqa_ii"]
    command += ["--agents", "greedy", "--opponents", "random", "--games", "4", "--openings", str(suite)]
    subprocess.run([*command, "--out", str(out)], check=True, capture_output=True, cwd=tmp_path, timeout=300)
    payload = read_result(out)
    assert payload["openings"] == str(suite) and not render_results.reported(payload)


def test_build_files_of_one_benchmark_get_headings_naming_their_tables():
    columns = ["table", "build", "K", "positions"]
    one = {
        "title": "Builds, one at a time",
        "columns": columns,
        "rows": [["Sadeqa II", "low-memory", 24, "2"]],
    }
    two = {
        "title": "Builds, one at a time",
        "columns": columns,
        "rows": [["Sadeqa II", "default", 18, "1"], ["Sadeqa II", "low-memory", 18, "1"]],
    }
    assert render_results.build_heading(one) == "Sadeqa II, K = 24 (low-memory build)"
    assert render_results.build_heading(two) == "Sadeqa II, K = 18 (default and low-memory builds)"
    no_build = {
        "title": "T",
        "columns": ["table", "K"],
        "rows": [["Songo Ewondo", 16], ["En Dodoi (8 holes)", 14]],
    }
    assert (
        render_results.build_heading(no_build)
        == "Songo Ewondo, K = 16; En Dodoi (8 holes), K = 14 (default build)"
    )
    assert (
        render_results.build_heading({"title": "Ray build", "columns": ["setup", "time"], "rows": []})
        == "Ray build"
    )


def test_strength_summary_takes_each_match_from_its_largest_file_and_judges_the_target():
    def row(agent, opponent, pairs, score, equal=False):
        r = {
            "agent": agent,
            "opponent": opponent,
            "pairs": pairs,
            "score": score,
            "ci95": [score - 0.05, score + 0.05],
            "agent_ms_per_move": 20.0,
            "opponent_ms_per_move": 18.5,  # within the 10% tolerance of equal time
            "engine_moves_per_evaluation": 6,
        }
        return r | ({"equal_time": {"budget_ms": 20.0, "calibration_games": 8}} if equal else {})

    six = {"game": "en_dodoi", "params": {"holes_per_row": 6}, "provenance": {}}
    files = [
        ("a.json", six | {"rows": [row("az", "minimax:depth=8", 20, 0.9)]}),
        (
            "b.json",
            six
            | {
                "rows": [
                    row("az", "minimax:time=0.02", 200, 0.65, equal=True),
                    row("az", "minimax:depth=8", 200, 0.55),
                    row("az:forward=torch", "minimax:depth=12", 100, 0.50),  # either pass at a depth
                    row("az:forward=torch", "minimax:time=0.002", 200, 0.70, equal=True),
                ]
            },
        ),
        (
            "c.json",
            {
                "game": "sadeqa_ii",
                "provenance": {},
                "rows": [row("az", "minimax:time=0.05", 40, 0.7, equal=True)],
            },
        ),
    ]
    text = "\n".join(render_results.strength_summary(files))
    rows = [line for line in text.splitlines() if line.startswith("| En Dodoi (6 holes)")]
    assert [r.split(" | ")[1:5] for r in rows] == [
        ["`az` (6 engine moves per evaluation)", "at equal time per move", "200", "0.650"],
        ["`az:forward=torch` (6 engine moves per evaluation)", "at equal time per move", "200", "0.700"],
        ["`az` (6 engine moves per evaluation)", "`minimax:depth=8`", "200", "0.550"],  # not the 20-pair file
        ["`az:forward=torch` (6 engine moves per evaluation)", "`minimax:depth=12`", "100", "0.500"],
    ]
    assert text.index("| Sadeqa II") < text.index("| En Dodoi (6 holes)")  # the registry's order
    assert (
        "- `az` at equal time per move, at least 0.60 over 200 pairs: reached in En Dodoi (6 holes); "
        "not yet measured over 200 pairs in Sadeqa II." in text
    )
    assert "- `az:forward=torch` at equal time per move, at least 0.60 over 200 pairs: reached in" in text
    assert (
        "- `az` (either forward pass) against `minimax:depth=12`, at least 0.55 over 100 pairs: "
        "reached in no variant; "
        "missed in En Dodoi (6 holes)." in text
    )
    assert "`minimax:depth=8`," not in text  # no target at depth 8
    assert (
        render_results.strength_summary([("d.json", six | {"rows": [row("az", "greedy", 200, 0.9)]})]) == []
    )
    old_model = {"models": {"az": {"file": "mancala_envs/models/az_en_dodoi_6.json", "sha256": "0" * 64}}}
    stale_rows = [row("az", "minimax:depth=12", 150, 0.4), row("az", "minimax:depth=10", 150, 0.45)]
    stale = six | {"provenance": old_model, "rows": stale_rows}
    text = "\n".join(render_results.strength_summary([*files, ("e.json", stale)]))
    # the shipped model's row before a stale one with more pairs; a stale row where there is no other
    assert "| `minimax:depth=12` | 100 | 0.500 |" in text and "| 150 | 0.400" not in text
    assert "| `minimax:depth=10` | 150 | 0.450 (stale) |" in text
    assert text.count("(stale)") == 1
    trial = six | {"seed": 7, "rows": [row("az", "minimax:depth=12", 400, 0.9)]}  # another arena seed
    held_out = six | {"openings": "heldout.jsonl", "rows": [row("az", "minimax:depth=12", 400, 0.9)]}
    for other in (trial, held_out):
        text = "\n".join(render_results.strength_summary([*files, ("f.json", other)]))
        assert "| 400 |" not in text and "| `minimax:depth=12` | 100 | 0.500 |" in text


def test_every_results_page_with_data_opens_with_its_figure():
    """Each page that has a chart opens with it (under its title), drawn from the same files as its
    tables; the committed figure is that drawing; the other pages have none."""
    from mancala_envs.evaluation.figures import figure_is_current

    pages, charts = render_results.render_site()
    loaded = render_results.load_all()
    assert {name for name in render_results.CHARTS if loaded[name]} == set(charts)
    assert {"balance", "optimality", "strength", "policies", "ratings"} <= set(charts)
    for name, text in pages.items():
        image = f"](figures/{name}.png)"
        if name in charts:
            title, image_line = text.splitlines()[2], text.splitlines()[4]
            assert title.startswith("# ") and image_line == f"![{charts[name].title}{image}"
            assert figure_is_current(charts[name], render_results.PAGES / "figures" / f"{name}.png")
        else:
            assert image not in text
    balance = charts["balance"]
    assert (
        balance.categories[0] == "Songo Ewondo"
        and balance.series[0].values[0] == loaded["balance"][0][1]["score"]
    )
    assert render_results.render_site(ROOT / "no-such-results")[1] == {}  # no data, no figure


def test_a_figure_is_drawn_the_same_every_time_without_a_timestamp():
    from mancala_envs.evaluation import figures

    chart = render_results.chart_balance(render_results.load_all()["balance"], ROOT)
    png = figures.draw(chart)
    assert png == figures.draw(chart)
    path = ROOT / "docs" / "results" / "figures" / "balance.png"
    assert set(figures.png_text(path)) == {figures.SOURCE_KEY, figures.RENDERER_KEY}


def add_text_chunk(path: Path) -> None:
    """A hand edit that keeps the figure's own text chunks: one more before IEND."""
    import struct
    import zlib

    data = path.read_bytes()
    body = b"Comment\0edited"
    chunk = struct.pack(">I", len(body)) + b"tEXt" + body + struct.pack(">I", zlib.crc32(b"tEXt" + body))
    path.write_bytes(data[:-12] + chunk + data[-12:])


def test_check_names_a_missing_edited_stale_or_orphan_figure(tmp_path, monkeypatch):
    from mancala_envs.evaluation import figures

    results, pages, models = tmp_path / "results", tmp_path / "pages", tmp_path / "models"
    models.mkdir()
    readme = tmp_path / "README.md"
    readme.write_text(f"{render_results.START}\n{render_results.END}\n")
    optimality_file(results, "aaa")

    def check():
        return {
            p.relative_to(tmp_path).as_posix()
            for p in render_results.sync(True, results, pages, readme, models)
        }

    render_results.sync(False, results, pages, readme, models)
    figure = pages / "figures" / "optimality.png"
    assert figure.exists() and check() == set()
    assert "![Share of optimal moves" in (pages / "optimality.md").read_text()
    figure.unlink()
    assert check() == {"pages/figures/optimality.png"}
    render_results.sync(False, results, pages, readme, models)
    add_text_chunk(figure)
    assert check() == {"pages/figures/optimality.png"}
    render_results.sync(False, results, pages, readme, models)
    monkeypatch.setattr(figures, "renderer", lambda: "another matplotlib")
    add_text_chunk(figure)
    assert check() == set()  # drawn by another matplotlib: its digest is what counts
    payload = read_result(results / "optimality" / "sadeqa_ii.json")
    payload["rows"][0]["rate"] = 0.8
    write_result(results / "optimality" / "sadeqa_ii.json", payload)
    stale = {"pages/figures/optimality.png", "pages/optimality.md", "README.md"}
    assert check() == stale  # the figure is stale on any machine
    monkeypatch.undo()
    render_results.sync(False, results, pages, readme, models)
    (pages / "figures" / "solved.png").write_bytes(figure.read_bytes())
    assert check() == {"pages/figures/solved.png"}  # a page without a chart
    render_results.sync(False, results, pages, readme, models)
    assert not (pages / "figures" / "solved.png").exists() and check() == set()


def test_a_policy_below_greedy_or_depth_two_is_labelled_a_short_budget_baseline(tmp_path):
    def ratings(**elo):
        return {"game": "sadeqa_ii", "params": {}, "provenance": {}, "ratings": [
            {"agent": a.replace("_", ":").replace("depth:", "depth="), "elo": e} for a, e in elo.items()
        ]}  # fmt: skip

    (tmp_path / "sadeqa_ii.json").write_text(json.dumps({"trained": {"steps": 1234}}))
    label = render_results.policy_label(ratings(policy=300, greedy=400, minimax_depth_2=250), tmp_path)
    assert "below `greedy` here" in label and "short-budget baseline" in label and "1,234 steps" in label
    both = render_results.policy_label(ratings(policy=300, greedy=400, minimax_depth_2=500), tmp_path)
    assert "below `greedy` and `minimax:depth=2`" in both
    assert render_results.policy_label(ratings(policy=600, greedy=400, minimax_depth_2=500), tmp_path) == ""
    assert render_results.policy_label(ratings(greedy=400, minimax_depth_2=500), tmp_path) == ""
    assert "a MaskablePPO run)" in render_results.policy_label(ratings(policy=1, greedy=2), tmp_path / "none")


def test_strength_files_from_torchs_default_are_shown_by_todays_names(tmp_path):
    """A strength file without ``az_forward_default`` was measured when ``az`` meant torch's forward
    pass: its rows are shown as ``az:...,forward=torch`` and its ``forward=numba`` rows by the
    default's name; a file that records the default is shown as written; other agents never change."""
    old = {"provenance": {}}
    label = render_results.current_label
    assert label("az", old) == "az:forward=torch"
    assert label("az:sims=0", old) == "az:sims=0,forward=torch"
    assert label("az:forward=numba", old) == "az"
    assert label("az:sims=16,forward=numba", old) == "az:sims=16"
    assert label("az:forward=torch", old) == "az:forward=torch"
    assert (
        label("az-jax:path=m.json", old) == "az-jax:path=m.json"
        and label("minimax:depth=4", old) == "minimax:depth=4"
    )
    new = {"az_forward_default": "numba"}
    assert label("az", new) == "az" and label("az:sims=0", new) == "az:sims=0"
    assert label("az:forward=numba", new) == "az" and label("az:forward=torch", new) == "az:forward=torch"
    assert label("az:forward=torch,sims=0", new) == "az:sims=0,forward=torch"  # the agent's order
    assert label("az:sims=0, forward=numba", old) == "az:sims=0"
    assert label("az:time=0.5,path=C:/m.json", old) == "az:path=C:/m.json,time=0.5,forward=torch"
    results = tmp_path / "results"
    payload = {"game": "sadeqa_ii", "params": {}, "rows": [{"agent": "az", "opponent": "greedy"}]}
    write_result(results / "strength" / "old.json", {**payload, "provenance": {}})
    write_result(
        results / "strength" / "new.json", {**payload, "provenance": {}, "az_forward_default": "numba"}
    )
    shown = {Path(f).name: p["rows"][0]["agent"] for f, p in render_results.load_all(results)["strength"]}
    assert shown == {"old.json": "az:forward=torch", "new.json": "az"}
