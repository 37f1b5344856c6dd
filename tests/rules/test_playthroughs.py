"""The golden text playthroughs in tests/playthroughs/ are what the rules play today: each one is
regenerated and compared line by line, the first differences shown as a diff
(``python tests/make_playthroughs.py`` rewrites them after a deliberate change)."""

import difflib

import pytest
from make_playthroughs import FOLDER, generate, playthrough

WANTED = generate()


def diff(want: str, got: str, name: str, lines: int = 60) -> str:
    """The first ``lines`` lines of the unified diff from the recorded text to the regenerated one."""
    out = difflib.unified_diff(
        want.splitlines(), got.splitlines(), f"recorded {name}", f"regenerated {name}", lineterm=""
    )
    return "\n".join(list(out)[:lines])


def test_every_variant_has_one_playthrough_and_nothing_else():
    assert sorted(p.name for p in FOLDER.glob("*.txt")) == sorted(WANTED)


@pytest.mark.parametrize("name", sorted(WANTED))
def test_playthrough_is_what_the_rules_play(name):
    recorded, regenerated = (FOLDER / name).read_text(encoding="utf-8"), WANTED[name]
    if recorded != regenerated:  # the diff alone, from the first line that differs
        pytest.fail(f"{name}: the game differs from its playthrough\n" + diff(recorded, regenerated, name))


def test_a_changed_move_shows_as_a_diff_at_its_ply():
    """Another seed is another game: the diff names the first ply that differs."""
    recorded = (FOLDER / "sadeqa_ii.txt").read_text(encoding="utf-8")
    other = playthrough("sadeqa_ii", {}, 1, 1)
    shown = diff(recorded, other, "sadeqa_ii.txt")
    assert shown.startswith("--- recorded sadeqa_ii.txt") and "-action: " in shown and "+action: " in shown
