"""Write ``docs/games/<game>.md``: a page per game with its board and every hand-traced rule case
of ``tests/data/rule_cases.json`` (the position, the move, the result) drawn by the package's own
renderer. Regenerate after a rule or renderer change (a test checks the pages are current)::

    python docs/make_game_pages.py
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

from mancala_envs import get_game
from mancala_envs.render import svg_board
from mancala_envs.rulesets import BUILTIN_GAMES, game_info

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "tests" / "data" / "rule_cases.json"


def rules_paragraph(module: str) -> str:
    """The rules summary of the env module's docstring (its second paragraph)."""
    doc = importlib.import_module(module).__doc__ or ""
    return doc.split("\n\n")[1].strip()


def case_state(case: dict):
    game = get_game(case["game"], **case["params"])
    extra = {"first_move_pending": case["first_move_pending"]} if "first_move_pending" in case else {}
    state = game.state_from(board=case["board"], captured=case["captured"], to_move=case["to_move"], **extra)
    return game, state


def page(name: str, cases: list[dict]) -> tuple[str, dict[str, str]]:
    """The Markdown of a game's page and its pictures (file name -> SVG)."""
    info = game_info(name)
    title, module = info.display_name, info.env_module
    game = get_game(name)
    pictures = {f"{name}-start.svg": svg_board(game, game.initial_state())}
    lines = [
        f"# {title}",
        "",
        "<!-- written by docs/make_game_pages.py; edit that script, not this file -->",
        "",
        f"Environment: `{module}` (the full rules: [RULES.md](../RULES.md)).",
        "",
        rules_paragraph(module),
        "",
        "The starting position (`player_0`'s row at the bottom, left to right as he sees it; the",
        "top row is `player_1`'s, numbered right to left as seen from across the board):",
        "",
        f"![start]({f'img/{name}-start.svg'})",
        "",
        "## Every rule, one hand-traced case each",
        "",
        "Each case is a position, the move played and the position after it, exactly as the test",
        "suite checks them (`tests/rules/test_rule_cases.py`). The mover's row is at the bottom.",
        "",
    ]
    for case in cases:
        game, state = case_state(case)
        after = game.apply(state, case["action"])
        before_file, after_file = f"{case['id']}-before.svg", f"{case['id']}-after.svg"
        pictures[before_file] = svg_board(game, state, bottom=state.to_move)
        pictures[after_file] = svg_board(game, after, bottom=state.to_move)
        params = ", ".join(f"{k}={v}" for k, v in case["params"].items())
        lines += [
            f"### {case['id']} — {case['rule']}",
            "",
            f"`player_{state.to_move}` to move{f' ({params})' if params else ''}; legal holes "
            f"{case['expect_legal']}; plays hole **{case['action']}**.",
            "",
            f"| before | after |\n|---|---|\n| ![before](img/{before_file}) | ![after](img/{after_file}) |",
            "",
        ]
        if case.get("trace"):
            lines += [f"Trace: {case['trace']}", ""]
    return "\n".join(lines), pictures


def render_all() -> dict[str, str]:
    """Every file of ``docs/games`` (relative path -> text)."""
    cases = json.loads(CASES.read_text())
    files: dict[str, str] = {}
    for name in (info.name for info in BUILTIN_GAMES):
        text, pictures = page(name, [c for c in cases if c["game"] == name])
        files[f"{name}.md"] = text
        files.update({f"img/{k}": v for k, v in pictures.items()})
    return files


def main(out: Path = ROOT / "docs" / "games") -> int:
    for rel, text in render_all().items():
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    print(f"wrote {len(render_all())} files under {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
