"""Bradley–Terry ratings: recovery of known strengths, anchoring, regularisation, bootstrap, outputs."""

from __future__ import annotations

import csv
import math

import numpy as np
import pytest

from mancala_envs.evaluation.arena import GameRecord
from mancala_envs.evaluation.ratings import compute_ratings, fit_bradley_terry


def record(a: str, b: str, winner: int | None) -> GameRecord:
    return GameRecord("en_dodoi", {}, 0, (a, b), (0, 0), 0, [], winner, 1, (0, 0), winner is None)


def synthetic(true_elo: dict[str, float], games_per_pair: int, seed: int):
    """Games drawn from the Bradley–Terry model itself, seats alternating."""
    rng = np.random.default_rng(seed)
    names = list(true_elo)
    recs = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            p = 1 / (1 + 10 ** ((true_elo[b] - true_elo[a]) / 400))
            for k in range(games_per_pair):
                seats = (a, b) if k % 2 == 0 else (b, a)
                a_wins = rng.random() < p
                recs.append(record(*seats, seats.index(a) if a_wins else seats.index(b)))
    return recs


TRUE = {"greedy": 150.0, "random": 0.0, "minimax:depth=4": 600.0, "mcts:sims=100": 350.0}


def test_recovers_known_strengths_and_anchors_random():
    r = compute_ratings(synthetic(TRUE, 800, seed=1), n_bootstrap=200, seed=0)
    assert r.anchor == "random" and r.elo[r.agents.index("random")] == 0.0
    for name, elo in TRUE.items():
        k = r.agents.index(name)
        assert abs(r.elo[k] - elo) < 45, (name, r.elo[k])
        assert r.low[k] <= r.elo[k] <= r.high[k]
        if name != "random":
            assert 10 < r.high[k] - r.low[k] < 150
            assert r.low[k] - 45 < elo < r.high[k] + 45
    assert r.low[r.agents.index("random")] == r.high[r.agents.index("random")] == 0.0
    assert [r.agents[i] for i in r.order()] == ["minimax:depth=4", "mcts:sims=100", "greedy", "random"]
    assert (r.games == 3 * 800).all()


def test_two_agents_match_the_closed_form_including_the_prior():
    recs = [record("a", "b", 0)] * 15 + [record("b", "a", 1)] * 5 + [record("a", "b", 1)] * 4
    r = compute_ratings(recs, n_bootstrap=0)
    # a: 20 wins, 4 losses, plus one virtual draw (half a win each way)
    assert r.anchor == "a"  # no random agent: the first one is anchored
    assert r.elo[1] == pytest.approx(-400 * math.log10(20.5 / 4.5), abs=1e-6)
    assert r.score[0] == pytest.approx(20 / 24)


def test_a_perfect_record_gives_a_finite_rating_and_no_interval():
    r = compute_ratings([record("random", "x", 1), record("x", "random", 0)] * 10, n_bootstrap=50)
    gap = 400 * math.log10(20.5 / 0.5)
    x = r.agents.index("x")
    assert r.elo[x] == pytest.approx(gap, abs=1e-6)
    assert np.isnan(r.low[x]) and np.isnan(r.high[x])  # not the zero-width [gap, gap]
    assert r.interval_text(x) == "none (won every game)" and r.sweeps == (("x", "random"),)
    assert "`x` over `random`" in r.to_markdown()
    # one game lost breaks the sweep: an interval again, of positive width
    games = [record("random", "x", 1), record("x", "random", 0)] * 10 + [record("x", "random", 1)]
    r = compute_ratings(games)
    x = r.agents.index("x")
    assert r.sweeps == () and r.low[x] < r.elo[x] < r.high[x]


def test_draws_and_truncated_games_are_half_wins():
    recs = (
        [record("a", "b", -1)] * 6 + [record("b", "a", None)] * 4 + [record("a", "b", 0), record("b", "a", 0)]
    )
    r = compute_ratings(recs, n_bootstrap=0)
    assert r.elo == pytest.approx([0.0, 0.0], abs=1e-9)
    assert r.score == pytest.approx([0.5, 0.5])


def test_fit_is_invariant_to_agent_order_and_anchor_choice():
    recs = synthetic(TRUE, 60, seed=3)
    r1 = compute_ratings(recs, n_bootstrap=0)
    r2 = compute_ratings(recs, agents=sorted(TRUE), anchor="greedy", n_bootstrap=0)
    for name in TRUE:
        diff = r1.elo[r1.agents.index(name)] - r1.elo[r1.agents.index("greedy")]
        assert r2.elo[r2.agents.index(name)] == pytest.approx(diff, abs=1e-6)


def test_bootstrap_is_seeded():
    recs = synthetic(TRUE, 40, seed=4)
    a, b = (compute_ratings(recs, n_bootstrap=100, seed=5) for _ in range(2))
    c = compute_ratings(recs, n_bootstrap=100, seed=6)
    assert np.array_equal(a.low, b.low) and np.array_equal(a.high, b.high)
    assert not np.array_equal(a.low, c.low)


def test_errors():
    with pytest.raises(ValueError, match="connected"):
        fit_bradley_terry(np.zeros((3, 3)), np.array([[0, 2, 0], [2, 0, 0], [0, 0, 0]]))
    with pytest.raises(ValueError, match="anchor"):
        compute_ratings([record("a", "b", 0)], anchor="c", n_bootstrap=0)
    with pytest.raises(ValueError, match="not among"):
        compute_ratings([record("a", "c", 0)], agents=["a", "b"], n_bootstrap=0)
    with pytest.raises(ValueError, match="at least two"):
        compute_ratings([record("a", "a", 0)], n_bootstrap=0)


def test_outputs(tmp_path):
    r = compute_ratings(synthetic(TRUE, 40, seed=2), n_bootstrap=50)
    md = r.to_markdown()
    table = [line for line in md.splitlines() if line.startswith("| ") and "rank" not in line]
    assert [line.split("`")[1] for line in table] == [r.agents[i] for i in r.order()]
    assert "`random` anchored at 0" in md
    r.to_csv(tmp_path / "r.csv")
    with open(tmp_path / "r.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert [row["agent"] for row in rows] == [r.agents[i] for i in r.order()]
    assert float(rows[0]["elo"]) == pytest.approx(r.elo.max(), abs=0.05)
    r.plot(tmp_path / "r.png", title="test")
    assert (tmp_path / "r.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
