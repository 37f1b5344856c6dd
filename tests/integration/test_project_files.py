"""Project files a user and a citation manager look for: LICENSE, CITATION.cff, CHANGELOG.md."""

import re
import tomllib
from pathlib import Path

from variants import GAME_NAMES

import mancala_envs

ROOT = Path(__file__).parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def test_version_is_one_number_everywhere():
    version = PYPROJECT["version"]
    assert mancala_envs.__version__ == version
    assert re.search(rf"^version: {re.escape(version)}$", (ROOT / "CITATION.cff").read_text(), re.M)
    assert f"## {version} " in (ROOT / "CHANGELOG.md").read_text()


def test_license_is_the_one_pyproject_names():
    assert PYPROJECT["license"] == "MIT"  # an SPDX expression (PEP 639)
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License") and "WITHOUT WARRANTY OF ANY KIND" in text
    assert "license: MIT" in (ROOT / "CITATION.cff").read_text()


def test_citation_has_the_required_keys():
    text = (ROOT / "CITATION.cff").read_text()
    for key in ("cff-version", "message", "title", "authors", "version", "date-released"):
        assert re.search(rf"^{key}:", text, re.M), key


def test_changelog_names_every_env_version():
    text = (ROOT / "CHANGELOG.md").read_text()
    for module in ("songo_ewondo_v0", "sadeqa_ii_v0", "en_dodoi_v0"):
        assert module in text
        assert hasattr(__import__(f"mancala_envs.{module}").__dict__[module], "raw_env")


def test_game_pages_are_current():
    """docs/games is what docs/make_game_pages.py writes today (a page and pictures per game)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_game_pages", ROOT / "docs" / "make_game_pages.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    files = module.render_all()
    for game in GAME_NAMES:
        assert f"{game}.md" in files and f"img/{game}-start.svg" in files
    stale = [rel for rel, text in files.items() if (ROOT / "docs" / "games" / rel).read_text() != text]
    assert not stale, f"run python docs/make_game_pages.py ({len(stale)} files differ, e.g. {stale[:3]})"


def test_no_docs_page_title_is_the_start_of_another():
    """Each page's title says what the page is for: no title begins another page's title (as "Play
    and analyse" did "Play and analyse in the browser"), except a section index's title those of
    the pages of its section."""
    docs = Path(__file__).parents[2] / "docs"
    titles = {}
    for path in sorted(docs.rglob("*.md")):
        if "_build" not in path.parts:
            heading = next(
                (x for x in path.read_text(encoding="utf-8").splitlines() if x.startswith("# ")), None
            )
            if heading:
                titles[path] = heading[2:].strip().lower()
    clashes = [
        f"{a.relative_to(docs)} {ta!r} / {b.relative_to(docs)} {tb!r}"
        for a, ta in titles.items()
        for b, tb in titles.items()
        if a != b
        and tb.split()[: len(ta.split())] == ta.split()
        and not (a.name == "index.md" and a.parent in b.parents)
    ]
    assert not clashes, clashes
