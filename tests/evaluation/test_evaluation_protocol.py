"""Evaluation you can trust (issue 10): opening suites, paired seats, distinct games, intervals over
pairs, rating reports that state their prior and their limits, and plain commands that are sound."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from mancala_envs import GAMES, get_game
from mancala_envs.cli.main import main as cli_main
from mancala_envs.evaluation.arena import load_records, play_match, replay, round_robin
from mancala_envs.evaluation.arena.matches import wilson_interval
from mancala_envs.evaluation.evaluate import main as evaluate_main
from mancala_envs.evaluation.openings import (
    DEFAULT_PLIES,
    load_openings,
    random_openings,
    resolve_openings,
    save_openings,
)
from mancala_envs.evaluation.ratings import compute_ratings


@pytest.mark.parametrize("name", GAMES)
def test_random_openings_are_distinct_running_and_seeded(name, tmp_path):
    game = get_game(name)
    suite = random_openings(game, 30, seed=3)
    lo, hi = DEFAULT_PLIES[name]
    assert len(suite) == 30 and all(not s.is_over and lo <= s.ply <= hi for s in suite)
    keys = {(s.board.tobytes(), s.captured.tobytes(), s.to_move, s.first_move_pending) for s in suite}
    assert len(keys) == 30
    assert [s.to_dict() for s in random_openings(game, 30, seed=3)] == [s.to_dict() for s in suite]
    assert [s.to_dict() for s in random_openings(game, 30, seed=4)] != [s.to_dict() for s in suite]
    path = tmp_path / "suite.jsonl"
    save_openings(path, suite)
    assert load_openings(path, game) == suite
    # every opening is reachable: replaying its plies is not needed, but its state is one the rules allow
    for s in suite:
        assert game.state_from_array(s.array) == s


def test_openings_errors(tmp_path):
    sadeqa = get_game("sadeqa_ii")
    with pytest.raises(ValueError, match=r"distinct.*use more plies"):
        random_openings(sadeqa, 5, plies=2)  # SQ4 forces both first moves: one position only
    with pytest.raises(ValueError, match="use fewer plies or a larger max_plies"):
        random_openings(get_game("songo_ewondo", max_plies=3), 2, plies=4)  # every walk ends the game
    with pytest.raises(ValueError, match="plies"):
        random_openings(sadeqa, 5, plies=(6, 2))
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"format": 1}\n')
    with pytest.raises(ValueError, match="line 1"):
        load_openings(bad, sadeqa)
    other = tmp_path / "other.jsonl"
    save_openings(other, random_openings(get_game("songo_ewondo"), 2))
    with pytest.raises(ValueError, match="not a sadeqa_ii opening"):
        load_openings(other, sadeqa)


def test_an_edited_or_repeated_opening_suite_is_refused(tmp_path):
    """Issue 43: an opening's ``to_move``, ``ply`` or ``max_plies`` flipped was played as written, and
    one opening repeated 6 times was reported as '4 pairs, 8 distinct'."""
    import warnings

    from mancala_envs.infra.config_files import UncheckedFileWarning

    game = get_game("sadeqa_ii")
    suite = random_openings(game, 4, seed=2)
    path = tmp_path / "o.jsonl"
    save_openings(path, suite)
    header, *lines = path.read_text().splitlines()
    for key, value in (("to_move", 1 - suite[1].to_move), ("ply", suite[1].ply + 1)):
        edited = {**json.loads(lines[1]), key: value}
        path.write_text("\n".join([header, lines[0], json.dumps(edited), *lines[2:]]) + "\n")
        with pytest.raises(ValueError, match=r"o\.jsonl: the suite was changed after it was written"):
            load_openings(path, game)
    save_openings(path, [suite[0], *[suite[1]] * 6])
    with pytest.raises(ValueError, match=r"o\.jsonl, line 4: the opening of line 3 again"):
        load_openings(path, game)
    with pytest.raises(ValueError, match="the opening of line 3 again"):
        play_match(game, "greedy", "random", 8, openings=path)
    path.write_text("".join(line + "\n" for line in lines))  # a suite without a header: checked per line
    with pytest.warns(UncheckedFileWarning, match=r"o\.jsonl records no digest"):
        assert load_openings(path, game) == suite
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        save_openings(path, suite)
        assert load_openings(path, game) == suite


def test_each_opening_is_played_twice_with_the_seats_swapped():
    game = get_game("en_dodoi", holes_per_row=6)
    res = play_match(game, "greedy", "minimax:depth=1", 20, seed=5)
    assert res.games == 20 and res.pairs == 10
    for k in range(10):
        first, second = res.records[2 * k], res.records[2 * k + 1]
        assert first.start == second.start and first.start is not None
        assert first.agents == ("greedy", "minimax:depth=1") and second.agents == (
            "minimax:depth=1",
            "greedy",
        )
        assert len(replay(first, game)) == len(first.moves) + 1
    # the interval is Wilson's over the pair means (the pairs are the independent units)
    seat_a = [r.agents.index("greedy") for r in res.records]
    scores = (
        np.array([r.score_of(s) for r, s in zip(res.records, seat_a, strict=True)]).reshape(10, 2).mean(1)
    )
    assert res.pair_scores == pytest.approx(scores.tolist())
    assert res.confidence_interval() == pytest.approx(wilson_interval(scores.sum(), 10))
    assert res.score == pytest.approx(scores.mean())


def test_deterministic_agents_repeat_from_one_start_and_the_report_says_so():
    """Without a suite two deterministic agents play one game over and over (SQ4 forces the
    opening of Sadeqa II); with the default suite nearly every game is distinct."""
    game = get_game("sadeqa_ii")
    bare = play_match(game, "minimax:depth=2", "greedy", 20, seed=1, openings="none")
    assert bare.distinct <= 4 and "only" in bare.caveat() and "distinct" in bare.summary()
    sound = play_match(game, "minimax:depth=2", "greedy", 40, seed=1)
    assert sound.distinct >= 38 and sound.caveat() == ""


def test_a_short_suite_is_cycled_and_the_repeats_are_counted():
    game = get_game("sadeqa_ii")
    suite = random_openings(game, 3, seed=0)
    res = play_match(game, "minimax:depth=2", "minimax:depth=1", 12, seed=0, openings=suite)
    assert res.pairs == 6 and res.distinct <= 6 and res.caveat()


def test_plain_evaluate_is_sound_and_writes_its_games(tmp_path, capsys):
    out = tmp_path / "eval"
    argv = ["greedy", "--game", "sadeqa_ii", "--opponents", "minimax:depth=2", "--games", "40",
            "--out", str(out), "--no-progress"]  # fmt: skip
    assert evaluate_main(argv) == 0
    row = json.loads((out / "report.json").read_text())["results"][0]
    assert row["games"] == 40 and row["pairs"] == 20 and row["distinct"] >= 38 and not row["caveat"]
    records = load_records(out / "games.jsonl", verify=True)
    assert len(records) == 40 and all(r.start is not None for r in records)
    capsys.readouterr()
    assert evaluate_main(["greedy", "--game", "sadeqa_ii", "--opponents", "minimax:depth=2", "--games", "10",
                          "--openings", "none", "--no-progress"]) == 0  # fmt: skip
    captured = capsys.readouterr()
    assert "games repeat" in captured.err and "⚠" in captured.out


def test_tournament_over_openings_resumes_with_the_same_suite(tmp_path):
    game = get_game("en_dodoi", holes_per_row=6, max_plies=150)
    agents = ["random", "greedy", "minimax:depth=1"]
    full = round_robin(game, agents, 6, seed=2, out_dir=tmp_path / "a", progress=False)
    assert (tmp_path / "a" / "openings.jsonl").is_file()
    assert all(r.start is not None for r in full.records)
    starts = {json.dumps(r.start, sort_keys=True) for r in full.records}
    assert len(starts) == 3  # games_per_pair / 2 openings, shared by every pair
    m = full.match("greedy", "random")
    assert m.pairs == 3 and m.games == 6


def test_ratings_state_their_prior_warn_on_small_samples_and_show_na_without_bootstrap():
    game = get_game("en_dodoi", holes_per_row=6, max_plies=150)
    recs = play_match(game, "greedy", "random", 10, seed=0).records
    r = compute_ratings(recs, n_bootstrap=0)
    md = r.to_markdown()
    assert "prior: 1 virtual game" in md and "n/a" in md and "[0, 0]" not in md
    assert "Warning" in md and "only 10 times" in md
    boot = compute_ratings(recs, n_bootstrap=50, seed=1)
    assert "cluster-bootstrap intervals over opening pairs" in boot.to_markdown()
    assert math.isfinite(boot.low[boot.agents.index("greedy")])
    for bad in (-5, 1.5, True):
        with pytest.raises(ValueError, match="bootstrap"):
            compute_ratings(recs, n_bootstrap=bad)


def test_bad_bootstrap_fails_before_any_game(tmp_path, capsys):
    out = tmp_path / "t"
    code = cli_main(["tournament", "sadeqa_ii", "--agents", "random", "greedy", "--games", "4",
                     "--out", str(out), "--bootstrap", "-5"])  # fmt: skip
    assert code == 2 and "bootstrap" in capsys.readouterr().err and not out.exists()


def test_default_suite_for_a_match_has_as_many_openings_as_pairs():
    game = get_game("songo_ewondo")
    assert len(resolve_openings(game, "default", 25)) == 25
    assert resolve_openings(game, "none", 25) is None


def test_suite_balance_is_the_movers_mean_score():
    from mancala_envs.evaluation.arena import play_game
    from mancala_envs.evaluation.balance import suite_balance

    game = get_game("songo_ewondo")
    mean, games, (lo, hi) = suite_balance(game, "greedy", n=12, seed=3)
    openings = random_openings(game, 12)
    expect = [
        play_game(game, "greedy", "greedy", seed=3 + k, start=s).score_of(s.to_move)
        for k, s in enumerate(openings)
    ]
    assert games == 12 and mean == pytest.approx(np.mean(expect)) and lo <= mean <= hi


def test_ctrl_c_while_the_report_is_written_says_where_the_finished_games_are(tmp_path, capsys, monkeypatch):
    """A stop after the last game (while the report is printed) keeps every game: the line says where."""
    import mancala_envs.cli.evaluate as command

    def stopped(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(command, "report", stopped)
    out = tmp_path / "e"
    argv = ["greedy", "--game", "sadeqa_ii", "--opponents", "random", "--games", "4", "--out", str(out),
            "--no-progress"]  # fmt: skip
    assert evaluate_main(argv) == 130
    assert f"interrupted; the finished games are in {out / 'games.jsonl'}" in capsys.readouterr().err
    assert len(load_records(out / "games.jsonl", verify=True)) == 4
