"""Every hand-traced position of rule_cases.json (a copy of ../shared, kept in sync) through the
public core API of RULES.md §5."""

import json
import re
from pathlib import Path

import pytest

import mancala_envs

CASES = json.loads((Path(__file__).parents[1] / "data" / "rule_cases.json").read_text())
SPEC = (Path(__file__).parents[2] / "docs" / "RULES.md").read_text(encoding="utf-8")
# The games RULES.md specifies (a section "## N. Title (`name`)" each) and their numbered rules.
SPEC_RULES = {
    m[1]: re.findall(r"^- \*\*([A-Z]{2}\d+)\b", m[2], re.MULTILINE)
    for m in re.finditer(r"^## \d+\. [^\n]+ \(`(\w+)`\)$(.*?)(?=^## |\Z)", SPEC, re.MULTILINE | re.DOTALL)
}


def test_all_cases_present():
    """The data file's cases cover the spec: every game of RULES.md, each of its numbered rules
    cited by at least one of its cases; no id twice; every game a registered one."""
    assert len(SPEC_RULES) >= 3 and all(len(rules) >= 3 for rules in SPEC_RULES.values())  # parsed
    assert len({c["id"] for c in CASES}) == len(CASES)
    assert {c["game"] for c in CASES} == set(SPEC_RULES) <= set(mancala_envs.GAMES)
    for game, rules in SPEC_RULES.items():
        cited = {r for c in CASES if c["game"] == game for r in re.findall(r"\b[A-Z]{2}\d+\b", c["rule"])}
        assert set(rules) <= cited, f"{game}: no case cites {sorted(set(rules) - cited)}"


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_rule_case(case):
    game = mancala_envs.get_game(case["game"], **case["params"])
    extra = {"first_move_pending": case["first_move_pending"]} if "first_move_pending" in case else {}
    state = game.state_from(board=case["board"], captured=case["captured"], to_move=case["to_move"], **extra)
    assert not state.is_over
    assert game.legal_actions(state) == case["expect_legal"], case["rule"]
    mask = game.legal_mask(state)
    assert mask.dtype.name == "int8" and mask.tolist() == [
        int(a in case["expect_legal"]) for a in range(game.num_actions)
    ]

    after = game.apply(state, case["action"])
    assert after.board.tolist() == case["expect_board"], case["rule"]
    assert after.captured.tolist() == case["expect_captured"], case["rule"]
    assert after.to_move == case["expect_to_move"]
    assert after.done == case["expect_done"]
    assert after.ply == 1 and not after.truncated
    if "expect_winner" in case:
        assert after.winner == case["expect_winner"]
    elif not case["expect_done"]:
        assert after.winner is None
    if "expect_first_move_pending" in case:
        assert list(after.first_move_pending) == case["expect_first_move_pending"]
    # the input state is untouched
    assert state.board.tolist() == case["board"] and state.captured.tolist() == case["captured"]


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_rule_case_illegal_actions_raise(case):
    game = mancala_envs.get_game(case["game"], **case["params"])
    extra = {"first_move_pending": case["first_move_pending"]} if "first_move_pending" in case else {}
    state = game.state_from(board=case["board"], captured=case["captured"], to_move=case["to_move"], **extra)
    for action in set(range(game.num_actions)) - set(case["expect_legal"]):
        with pytest.raises(mancala_envs.IllegalMoveError):
            game.apply(state, action)
