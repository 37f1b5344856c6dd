"""Never-ending play in the tablebase: Songo's 6-seed layer is the smallest where it decides
values (``A != B``, TABLEBASE.md §2), so the least and greatest solutions differ there and the
table must match the brute force (tests/tablebase_reference.py) on both."""

from __future__ import annotations

import numpy as np
from tablebase_reference import Reference, all_keys

from mancala_envs import get_game, tablebase


def test_least_and_greatest_solutions_equal_the_brute_force(tmp_path):
    game = get_game("songo_ewondo")
    tb = tablebase.build(game, max_seeds=6, path=tmp_path)
    ref = Reference(game, all_keys(game, 6))
    split = [key for key in ref.moves if ref.a[key] != ref.b[key]]
    assert split, "no position where never-ending play decides the value"
    rng = np.random.default_rng(0)
    others = [key for key in ref.moves if sum(key[0]) == 6]
    sample = split + [others[i] for i in rng.choice(len(others), size=3000, replace=False)]
    for key in sample:
        state = ref.state(key)
        assert tb.bounds(state) == (ref.a[key], ref.b[key]), key
        # with a lead between -B and -A the game is a draw: the mover can neither force a win
        # nor be forced to lose, however long the play
        for d in range(-int(ref.b[key]) - 2, -int(ref.a[key]) + 3):
            if (game.total_seeds - 6 - d) % 2 == 0 and abs(d) <= game.total_seeds - 6:
                assert tb.outcome(ref.state(key, d)) == ref.outcome(key, d)
                np.testing.assert_array_equal(tb.best_actions(ref.state(key, d)), ref.best_mask(key, d))
