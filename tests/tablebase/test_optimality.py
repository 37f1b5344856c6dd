"""Optimality suites (mancala_envs.tablebase.optimality_suite) and the optimality metric
(mancala_envs.evaluation.optimality)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from mancala_envs import Game, get_game, tablebase, variants
from mancala_envs.agents.base import Agent
from mancala_envs.agents.perfect import PerfectAgent
from mancala_envs.cli.main import main as mancala
from mancala_envs.evaluation.optimality import BLUNDER_KINDS, optimality
from mancala_envs.evaluation.suite_sampling import make_suite
from mancala_envs.tablebase.optimality_suite import informative, load_suite, read_suite, write_suite


@pytest.fixture(scope="module")
def songo(tmp_path_factory):
    path = tmp_path_factory.mktemp("songo") / "table"
    tb = tablebase.build(get_game("songo_ewondo"), max_seeds=8, path=path)
    return tb, make_suite(tb, 40, seed=1, max_games=60, agents=("random", "greedy"))


class LowestAgent(Agent):
    name = "lowest"

    def act(self, game, state):
        return int(np.flatnonzero(game.legal_mask(state))[0])


class BlunderAgent(Agent):
    """Always a move that changes the outcome (every suite position has one)."""

    name = "blunder"

    def __init__(self, tb):
        super().__init__()
        self.tb = tb

    def act(self, game, state):
        best = self.tb.best_actions(state)
        return int(np.flatnonzero(game.legal_mask(state) & (best == 0))[0])


def test_suite_positions_are_informative_distinct_and_exact(songo):
    tb, suite = songo
    assert len(suite) == 40
    keys = {(*e.state.board, *e.state.captured, e.state.to_move) for e in suite}
    assert len(keys) == len(suite)
    for e in suite:
        assert tb.covers(e.state) and informative(e)
        assert e.outcome == tb.outcome(e.state) != -1  # a lost position is never informative
        np.testing.assert_array_equal(e.best, tb.best_actions(e.state))
        np.testing.assert_array_equal(e.move_outcomes, tb.move_outcomes(e.state))
    draws = sum(e.outcome == 0 for e in suite)
    assert draws in (20, len(suite) - sum(e.outcome == 1 for e in suite))


def test_suite_round_trip_and_bad_files(songo, tmp_path):
    tb, suite = songo
    write_suite(suite, tmp_path / "s.jsonl")
    again = read_suite(tmp_path / "s.jsonl", tb.game)
    assert [e.state for e in again] == [e.state for e in suite]
    assert all(
        np.array_equal(a.best, b.best) and a.bounds == b.bounds for a, b in zip(again, suite, strict=True)
    )
    with pytest.raises(ValueError, match="sadeqa_ii expected"):
        read_suite(tmp_path / "s.jsonl", get_game("sadeqa_ii"))
    (tmp_path / "bad.jsonl").write_text('{"state": 3}\n')
    with pytest.raises(ValueError, match="line 1: not a suite position"):
        read_suite(tmp_path / "bad.jsonl")
    with pytest.raises(ValueError, match="positions must be"):
        make_suite(tb, 2)


def test_optimality_counts(songo):
    tb, suite = songo
    game = tb.game
    perfect = optimality(game, PerfectAgent(max_seeds=tb.max_seeds, path=tb.path), suite)
    assert perfect.optimal == len(suite) and sum(perfect.blunders.values()) == 0
    bad = optimality(game, BlunderAgent(tb), suite)
    assert bad.optimal == 0 and sum(bad.blunders.values()) == len(suite)
    lowest = optimality(game, LowestAgent(), suite)
    expected = {k: 0 for k in BLUNDER_KINDS}
    word = {1: "win", 0: "draw", -1: "loss"}
    hits = 0
    for e in suite:
        m = int(np.flatnonzero(e.move_outcomes != -2)[0])
        if e.move_outcomes[m] == e.outcome:
            hits += 1
        else:
            expected[f"{word[e.outcome]}->{word[int(e.move_outcomes[m])]}"] += 1
    assert lowest.optimal == hits and lowest.blunders == expected
    lo, hi = lowest.interval
    assert 0 <= lo <= lowest.rate <= hi <= 1
    with pytest.raises(ValueError, match="empty"):
        optimality(game, "random", [])


def test_cli(songo, tmp_path, capsys):
    tb, suite = songo
    out = tmp_path / "cli.jsonl"
    args = [
        "tablebase",
        "suite",
        "songo_ewondo",
        "--positions",
        "3",
        "--path",
        str(tb.path),
        "--out",
        str(out),
    ]
    assert mancala([*args, "--max-games", "40", "--agents", "random;greedy"]) == 0
    assert len(read_suite(out)) == 3
    write_suite(suite, tmp_path / "s.jsonl")
    assert (
        mancala(["optimality", "songo_ewondo", "greedy", "random", "--suite", str(tmp_path / "s.jsonl")]) == 0
    )
    text = capsys.readouterr().out
    assert "40 positions" in text and "greedy" in text and "random" in text and "win->draw" in text


@pytest.mark.parametrize("game", variants(), ids=lambda g: g.variant)
def test_shipped_suites(game, tmp_path):
    """Every variant (En Dodoi at every width) ships a suite; its small-seed positions match a
    table built here."""
    suite = load_suite(game)
    assert len(suite) >= 1000
    assert len({(*e.state.board, *e.state.captured, e.state.to_move) for e in suite}) == len(suite)
    for e in suite:
        assert e.state.seeds_on_board <= e.max_seeds and not e.state.is_over and informative(e)
        legal = e.move_outcomes != -2
        np.testing.assert_array_equal(legal, game.legal_mask(e.state) == 1)
        np.testing.assert_array_equal(e.best, (legal & (e.move_outcomes == e.outcome)).astype(np.int8))
    tb = tablebase.build(game, max_seeds=7, path=tmp_path)
    small = [e for e in suite if tb.covers(e.state)]
    for e in small:
        assert tb.outcome(e.state) == e.outcome
        np.testing.assert_array_equal(tb.move_outcomes(e.state), e.move_outcomes)


def test_no_suite_ships_for_a_game_of_ones_own():
    rules = get_game("sadeqa_ii").ruleset
    with pytest.raises(ValueError, match="no optimality suite ships for my_sadeqa"):
        load_suite(Game(dataclasses.replace(rules, name="my_sadeqa")))


# ---------------------------------------------------------------- issue 43: suites carry a digest


def swapped(entry):
    """The entry with every outcome negated (a consistent edit: each line stays well formed)."""
    d = entry.to_dict()
    moves = [m if m == -2 else -m for m in d["move_outcomes"]]
    outcome = max(m for m in moves if m != -2)
    return {**d, "outcome": outcome, "move_outcomes": moves, "best": [int(m == outcome) for m in moves],
            "bounds": ["-inf", "inf"]}  # fmt: skip


def test_an_edited_suite_is_refused_and_duplicates_and_emptiness_are_named(tmp_path, capsys):
    """Issue 43: swapping the outcomes on every line of a suite took minimax:depth=2 from 75.0 % to
    27.5 %; 40 repeated lines took it to 87.5 %; an empty suite did not name its file."""
    import json
    import warnings

    from mancala_envs.infra.config_files import UncheckedFileWarning

    game = get_game("sadeqa_ii")
    suite = load_suite(game)[:40]
    path = tmp_path / "s.jsonl"
    write_suite(suite, path)
    header, *lines = path.read_text().splitlines()
    edited = [json.dumps(swapped(e), separators=(",", ":")) for e in suite]
    path.write_text("\n".join([header, *edited]) + "\n")
    with pytest.raises(ValueError, match=r"s\.jsonl: the suite was changed after it was written"):
        read_suite(path, game)
    argv = ["optimality", "sadeqa_ii", "minimax:depth=2", "--suite", str(path)]
    assert mancala(argv) == 2 and "changed after it was written" in capsys.readouterr().err
    path.write_text("\n".join(edited) + "\n")  # without a header: read, with a warning, as written
    with pytest.warns(UncheckedFileWarning, match="records no digest"):
        assert [e.outcome for e in read_suite(path, game)] == [swapped(e)["outcome"] for e in suite]
    write_suite([*suite, suite[3]], path)
    with pytest.raises(ValueError, match=r"line 42: the position of line 5 again"):
        read_suite(path, game)
    path.write_text("\n".join([*lines, lines[3]]) + "\n")  # nor without a header
    with warnings.catch_warnings(), pytest.raises(ValueError, match=r"line 41: the position of line 4 again"):
        warnings.simplefilter("ignore", UncheckedFileWarning)
        read_suite(path, game)
    write_suite([], path)
    with pytest.raises(ValueError, match=r"s\.jsonl: the suite is empty"):
        read_suite(path, game)
