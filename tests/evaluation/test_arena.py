"""The arena: game records and replays, seat-balanced matches, resumable round robins."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mancala_envs import GAMES, IllegalMoveError, get_game
from mancala_envs.agents.base import RandomAgent
from mancala_envs.evaluation.arena import (
    GameRecord,
    load_records,
    play_game,
    play_match,
    replay,
    round_robin,
    schedule,
    wilson_interval,
)
from mancala_envs.evaluation.arena.records import TornLineWarning


class LowestAgent:
    """Always the lowest legal hole (deterministic, a second distinct name for tournaments)."""

    def __init__(self, seed: int = 0):
        self.name = "lowest"

    def act(self, game, state) -> int:
        return game.legal_actions(state)[0]


class RandomAgentNamed(RandomAgent):
    def __init__(self, name: str, seed: int = 0):
        super().__init__(seed)
        self.name = name


class BadAgent:
    name = "bad"

    def act(self, game, state) -> int:
        return game.num_actions  # never a hole


def small_game(name: str = "en_dodoi"):
    return get_game(name, max_plies=120, **({"holes_per_row": 6} if name == "en_dodoi" else {}))


# ---------------------------------------------------------------- records and replay


@pytest.mark.parametrize("name", GAMES)
def test_record_json_replay_round_trip(name):
    game = get_game(name)
    rec = play_game(game, RandomAgent(), RandomAgent(), seed=11)
    assert rec.game == name and rec.params == game.params and rec.plies == len(rec.moves)
    back = GameRecord.from_dict(json.loads(rec.to_json()))
    assert back == rec
    states = replay(json.loads(rec.to_json()))
    assert len(states) == rec.plies + 1
    assert states[0] == game.initial_state(rec.first_player)
    for before, move, after in zip(states[:-1], rec.moves, states[1:], strict=True):
        assert game.apply(before, move) == after
    end = states[-1]
    assert end.is_over and end.winner == rec.winner and tuple(end.captured.tolist()) == rec.captured


def test_replay_rejects_an_illegal_or_inconsistent_record():
    game = small_game()
    rec = play_game(game, RandomAgent(), RandomAgent(), seed=5)
    states = replay(rec)
    ply = next(p for p, s in enumerate(states[:-1]) if len(game.legal_actions(s)) < game.num_actions)
    illegal = next(a for a in range(game.num_actions) if a not in game.legal_actions(states[ply]))
    bad = rec.to_dict()
    bad["moves"][ply] = illegal
    with pytest.raises(IllegalMoveError, match=f"recorded move {ply}"):
        replay(bad)
    wrong = rec.to_dict()
    wrong["winner"] = 1 - rec.winner if rec.winner in (0, 1) else 0
    with pytest.raises(ValueError, match="the record says"):
        replay(wrong)
    with pytest.raises(ValueError, match="not a game record"):
        replay({"game": "en_dodoi"})


def test_play_game_is_deterministic_and_reseeds_agent_objects():
    game = small_game()
    a, b = RandomAgent(1), RandomAgent(2)
    first = play_game(game, a, b, seed=7)
    again = play_game(game, a, b, seed=7)  # the same objects, already used: re-seeded from the game seed
    assert first == again
    assert first.agent_seeds[0] != first.agent_seeds[1]
    others = {tuple(play_game(game, a, b, seed=s).moves) for s in range(8, 12)}
    assert len(others) > 1 and tuple(first.moves) not in others


def test_play_game_reports_the_agent_that_played_an_illegal_move():
    with pytest.raises(IllegalMoveError, match=r"agent 'bad' \(seat 1\)"):
        play_game(small_game(), RandomAgent(), BadAgent(), seed=0)


def test_on_move_sees_every_state():
    game = small_game("songo_ewondo")
    seen = []
    rec = play_game(game, RandomAgent(), LowestAgent(), seed=3, on_move=lambda s, a: seen.append((s, a)))
    assert [a for _, a in seen] == [None, *rec.moves]
    assert [s for s, _ in seen] == replay(rec)


# ---------------------------------------------------------------- matches


def test_play_match_balances_seats_and_tallies_from_a_point_of_view():
    game = small_game()
    res = play_match(game, LowestAgent(), RandomAgent(), n_games=10, seed=4)
    assert res.games == 10 and len(res.records) == 10
    assert [r.agents.index("lowest") for r in res.records] == [0, 1] * 5
    points = sum(r.score_of(r.agents.index("lowest")) for r in res.records)
    assert res.score == pytest.approx(points / 10)
    assert res.wins == sum(r.winner_name == "lowest" for r in res.records)
    assert res.losses == sum(r.winner_name == "random" for r in res.records)
    lo, hi = res.confidence_interval()
    assert 0 <= lo <= res.score <= hi <= 1
    assert play_match(game, LowestAgent(), RandomAgent(), n_games=10, seed=4).records == res.records


def test_self_play_match_uses_seat_bookkeeping():
    res = play_match(small_game("sadeqa_ii"), RandomAgent(), RandomAgent(), n_games=6, seed=0)
    assert res.wins + res.draws + res.losses == 6
    expected = sum(r.score_of(k % 2) for k, r in enumerate(res.records))
    assert res.score == pytest.approx(expected / 6)
    assert [r.seat_of("random") for r in res.records] == [0, 1] * 3
    mixed = play_match(small_game(), LowestAgent(), RandomAgent(), n_games=2, seed=0).records
    assert [(r.seat_of("lowest"), r.seat_of("random")) for r in mixed] == [(0, 1), (1, 0)]


@pytest.mark.parametrize("n", [0, 3, -2, 2.0, True])
def test_play_match_needs_a_positive_even_number_of_games(n):
    with pytest.raises(ValueError, match="positive even integer"):
        play_match(small_game(), RandomAgent(), LowestAgent(), n_games=n)


def test_play_match_takes_a_callable_and_names_bad_players_and_games():
    """The arena goes through the one adapter (``as_agent``): a callable plays, named after its
    function; anything else, and a game name in place of a Game, is a ValueError."""

    def lowest(obs: dict) -> int:
        return int(np.flatnonzero(obs["action_mask"])[0])

    game = small_game()
    res = play_match(game, lowest, LowestAgent(), n_games=4, seed=3)
    assert res.a == "callable:lowest" and res.wins + res.draws + res.losses == 4
    same = play_match(game, LowestAgent(), LowestAgent(), n_games=4, seed=3)
    assert [r.moves for r in res.records] == [r.moves for r in same.records]  # it played lowest
    with pytest.raises(ValueError, match="an agent or a callable"):
        play_match(game, 3, "random", n_games=2)
    with pytest.raises(ValueError, match="must be a Game"):
        play_match("songo_ewondo", "random", "random", n_games=2)
    with pytest.raises(ValueError, match="must be a Game"):
        play_game("songo_ewondo", "random", "random")


def test_wilson_interval_textbook_value():
    lo, hi = wilson_interval(5, 10)
    assert (round(lo, 4), round(hi, 4)) == (0.2366, 0.7634)
    lo, hi = wilson_interval(10, 10)
    assert hi == 1.0 and 0.69 < lo < 0.73


# ---------------------------------------------------------------- round robin


AGENTS = [RandomAgent(), LowestAgent()]


def run(out: Path, **kw):
    return round_robin(small_game(), kw.pop("agents", AGENTS), 4, seed=9, out_dir=out, progress=False, **kw)


class Stop(Exception):
    """Stands for an interruption (Ctrl-C, a killed process) after some games."""


def stop_after(n: int):
    played = []

    def callback(rec):
        played.append(rec)
        if len(played) == n:
            raise Stop

    return callback


def lines(path: Path) -> list[str]:
    return path.read_text().splitlines()


def test_round_robin_writes_every_game_as_it_goes(tmp_path):
    out = tmp_path / "t"
    counts = []

    def check(rec):
        counts.append((len(lines(out / "games.jsonl")), len(lines(out / "results.csv")) - 1))
        assert json.loads(lines(out / "games.jsonl")[-1])["seed"] == rec.seed

    result = run(out, on_game=check)
    assert counts == [(k, k) for k in range(1, 5)]
    config = json.loads((out / "tournament.json").read_text())
    assert config["agents"] == ["random", "lowest"] and config["games_per_pair"] == 4
    assert config["params"] == small_game().params
    records = load_records(out / "games.jsonl")
    assert records == result.records
    assert [r.meta["game_id"] for r in records] == [0, 1, 2, 3]
    assert [r.agents[0] for r in records] == ["random", "lowest"] * 2
    for r in records:
        replay(r)
    header, *rows = lines(out / "results.csv")
    assert header.split(",")[:3] == ["game_id", "pair", "index"]
    assert [row.split(",")[4:6] for row in rows] == [list(r.agents) for r in records]
    assert result.match("random", "lowest").games == 4


def test_schedule_interleaves_pairs():
    assert schedule(3, 2) == [(0, 1, 0), (0, 2, 0), (1, 2, 0), (0, 1, 1), (0, 2, 1), (1, 2, 1)]


def test_interrupted_tournament_resumes_to_the_same_result(tmp_path):
    agents = [RandomAgent(), LowestAgent(), RandomAgentNamed("random2")]
    whole = run(tmp_path / "whole", agents=agents)

    part = tmp_path / "part"
    with pytest.raises(Stop):
        run(part, agents=agents, on_game=stop_after(5))
    assert len(lines(part / "games.jsonl")) == 5 and len(lines(part / "results.csv")) == 6
    resumed_calls = []
    resumed = run(part, agents=agents, resume=True, on_game=resumed_calls.append)
    assert len(resumed_calls) == 12 - 5
    assert resumed.records == whole.records
    for name in ("games.jsonl", "results.csv", "tournament.json"):
        assert (part / name).read_bytes() == (tmp_path / "whole" / name).read_bytes()


def test_reuse_copies_the_other_pairs_and_plays_the_fresh_agents(tmp_path, monkeypatch):
    """Re-rating one agent: the games without it are copied from the old tournament, its own are
    played, and the result equals a full run (deterministic agents, seeded games)."""
    import mancala_envs.evaluation.arena.tournaments as tournaments

    agents = [RandomAgent(), LowestAgent(), RandomAgentNamed("random2")]
    whole = run(tmp_path / "whole", agents=agents)
    played = []
    real = tournaments.play_game
    monkeypatch.setattr(tournaments, "play_game", lambda *a, **k: played.append(a[1:3]) or real(*a, **k))
    again = run(tmp_path / "again", agents=agents, reuse=tmp_path / "whole", fresh=["random2"])
    assert again.records == whole.records
    assert len(played) == 8 and all("random2" in {p.name for p in pair} for pair in played)
    for name in ("games.jsonl", "results.csv", "tournament.json"):
        assert (tmp_path / "again" / name).read_bytes() == (tmp_path / "whole" / name).read_bytes()


def test_reuse_refuses_another_tournament_unknown_agents_and_changed_records(tmp_path):
    agents = [RandomAgent(), LowestAgent(), RandomAgentNamed("random2")]
    run(tmp_path / "whole", agents=agents)
    with pytest.raises(ValueError, match="not in this tournament"):
        run(tmp_path / "a", agents=agents, reuse=tmp_path / "whole", fresh=["greedy"])
    with pytest.raises(ValueError, match="different tournament"):
        round_robin(
            small_game(), agents, 4, seed=10, out_dir=tmp_path / "b", progress=False,
            reuse=tmp_path / "whole", fresh=["random2"],
        )  # fmt: skip
    with pytest.raises(ValueError, match="holds no"):
        run(tmp_path / "c", agents=agents, reuse=tmp_path / "nothing", fresh=["random2"])
    games = tmp_path / "whole" / "games.jsonl"
    rows = [json.loads(x) for x in lines(games)]
    rows[0]["seed"] += 1
    games.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(ValueError, match="line 1"):
        run(tmp_path / "d", agents=agents, reuse=tmp_path / "whole", fresh=["random2"])


KILLED_RUN = """
import os, signal, sys
sys.path.insert(0, {tests!r})
from test_arena import run, AGENTS
from pathlib import Path
played = []
def die(rec):
    played.append(rec)
    if len(played) == 3:
        os.kill(os.getpid(), signal.SIGKILL)
run(Path({out!r}), on_game=die)
"""


def test_a_killed_process_keeps_its_games_and_resumes(tmp_path):
    whole = run(tmp_path / "whole")
    out = tmp_path / "killed"
    code = KILLED_RUN.format(tests=str(Path(__file__).parent), out=str(out))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120)
    assert done.returncode == -signal.SIGKILL, done.stderr
    assert len(load_records(out)) == 3
    assert run(out, resume=True).records == whole.records
    assert (out / "results.csv").read_bytes() == (tmp_path / "whole" / "results.csv").read_bytes()


def test_a_torn_last_line_is_dropped_on_resume(tmp_path):
    whole = run(tmp_path / "whole")
    out = tmp_path / "torn"
    with pytest.raises(Stop):
        run(out, on_game=stop_after(1))
    games = out / "games.jsonl"
    full = games.read_text()
    with open(games, "a") as fh:  # a write cut short, then a stale results row
        fh.write(whole.records[1].to_json()[:40])
    with open(out / "results.csv", "a") as fh:
        fh.write("1,0-1,1,123,lowest,random,0,lowest,17,")
    with pytest.warns(TornLineWarning, match="incomplete last line"):
        assert len(load_records(games)) == 1
    with pytest.warns(TornLineWarning, match="dropped an incomplete last line"):
        resumed = run(out, resume=True)
    assert games.read_text().startswith(full)
    assert resumed.records == whole.records
    assert games.read_bytes() == (tmp_path / "whole" / "games.jsonl").read_bytes()
    assert (out / "results.csv").read_bytes() == (tmp_path / "whole" / "results.csv").read_bytes()


def test_a_garbled_last_line_with_newline_is_also_dropped(tmp_path):
    whole = run(tmp_path / "whole")
    out = tmp_path / "t"
    run(out)
    text = (out / "games.jsonl").read_text().splitlines(keepends=True)
    (out / "games.jsonl").write_text("".join(text[:2]) + text[2][:30] + "\n")
    with pytest.warns(UserWarning):
        assert run(out, resume=True).records == whole.records


def test_damage_before_the_last_line_is_an_error(tmp_path):
    out = tmp_path / "t"
    run(out)
    text = (out / "games.jsonl").read_text().splitlines(keepends=True)
    (out / "games.jsonl").write_text("{oops\n" + "".join(text[1:]))
    with pytest.raises(ValueError, match="line 1: not valid JSON"):
        run(out, resume=True)


def test_never_overwrites_and_resumes_only_the_same_tournament(tmp_path):
    out = tmp_path / "t"
    run(out)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    with pytest.raises(ValueError, match="not empty; refusing to overwrite"):
        run(out)
    with pytest.raises(ValueError, match="seed: 9 there, 10 now"):
        round_robin(small_game(), AGENTS, 4, seed=10, out_dir=out, resume=True, progress=False)
    with pytest.raises(ValueError, match="games_per_pair"):
        round_robin(small_game(), AGENTS, 6, seed=9, out_dir=out, resume=True, progress=False)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    with pytest.raises(ValueError, match=r"holds no tournament\.json"):
        run(other, resume=True)
    assert (other / "notes.txt").read_text() == "mine" and len(list(other.iterdir())) == 1
    assert len(run(tmp_path / "fresh", resume=True).records) == 4  # resume of nothing starts afresh


def test_round_robin_argument_errors(tmp_path):
    with pytest.raises(ValueError, match="unique"):
        run(tmp_path / "a", agents=[RandomAgent(), RandomAgent()])
    with pytest.raises(ValueError, match="at least two"):
        run(tmp_path / "b", agents=[RandomAgent()])
    with pytest.raises(ValueError, match="positive even"):
        round_robin(small_game(), AGENTS, 3, seed=0, out_dir=tmp_path / "c", progress=False)
    assert not (tmp_path / "c").exists()


def test_round_robin_from_specs(tmp_path):
    pytest.importorskip("mancala_envs.agents.registry")
    result = round_robin(
        small_game(), ["random", "greedy"], 2, seed=1, out_dir=tmp_path / "s", progress=False
    )
    assert [r.agents for r in result.records] == [("random", "greedy"), ("greedy", "random")]
    again = round_robin(
        small_game(), ["random", "greedy"], 2, seed=1, out_dir=tmp_path / "s2", progress=False
    )
    assert again.records == result.records
    spelled = round_robin(
        small_game(), ["random", "minimax: depth=1"], 2, seed=0, out_dir=tmp_path / "n", progress=False
    )
    assert spelled.agents == ["random", "minimax:depth=1"]  # the names the agents report
    assert spelled.match("minimax:depth=1", "random").games == 2


def test_random_games_are_not_all_alike():
    """Guards the tests above against a degenerate game where every record would be equal."""
    game = small_game()
    ends = {
        (r.winner, r.plies) for r in (play_game(game, RandomAgent(), RandomAgent(), seed=s) for s in range(6))
    }
    assert len(ends) > 1


# ---------------------------------------------------------------- issue 43: records are replayed

TAMPERINGS = {
    "winner flipped": lambda d: {**d, "winner": 1 - d["winner"]},
    "first move illegal": lambda d: {**d, "moves": [99, *d["moves"][1:]]},
    "plies changed": lambda d: {**d, "plies": d["plies"] + 2},
    "captured changed": lambda d: {**d, "captured": [d["captured"][0] + 1, d["captured"][1] - 1]},
}


@pytest.mark.parametrize("change", TAMPERINGS)
def test_every_reader_refuses_a_tampered_record_naming_its_line(tmp_path, change):
    """Issue 43: load_records (the default reader, behind /api/records) parsed such a record without
    replaying it, while ``mancala replay`` refused it."""
    game = get_game("sadeqa_ii", max_plies=200)
    recs = [play_game(game, "greedy", "random", seed=s) for s in range(3)]
    recs = [r for r in recs if r.winner in (0, 1)]
    lines = [r.to_dict() for r in recs]
    lines[1] = TAMPERINGS[change](lines[1])
    path = tmp_path / "games.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in lines))
    refused = r"games.jsonl, line 2: .*(illegal|does not end as the record says)"
    with pytest.raises(ValueError, match=refused):
        load_records(path)
    assert len(load_records(path, verify=False)) == len(lines)  # parsing alone is still there


def test_a_spec_that_spells_out_a_default_plays_a_match_under_its_own_name():
    """``mcts:sims=20,c=1.4`` is the agent ``mcts:sims=20`` (c=1.4 is the default): the match is
    tallied under the name the games record (it raised ``tuple.index`` before)."""
    from mancala_envs.evaluation.arena import play_match

    game = get_game("sadeqa_ii")
    spelled = play_match(game, "mcts:sims=20,c=1.4", "random", 4, seed=3)
    plain = play_match(game, "mcts:sims=20", "random", 4, seed=3)
    assert (spelled.a, spelled.b, spelled.games) == ("mcts:sims=20", "random", 4)
    assert [r.moves for r in spelled.records] == [r.moves for r in plain.records]
    assert spelled.score == plain.score
