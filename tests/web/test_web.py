"""The web app of ``mancala serve`` through its JSON API (Starlette's TestClient, no browser):
positions and agent moves against the library, every analysis column against the agents and the
tablebase, records and exports, and the boundary: malformed, oversized, fuzzed and path-traversal
requests are refused with a 4xx and a message, never a 500, and the server keeps serving.
The page itself is tested in a real browser by tests/web/test_web_browser.py."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import signal
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import covered_position, playout, random_move
from variants import NARROWEST, NARROWEST_IDS

pytest.importorskip("starlette", reason="the web app needs the web extra")
try:
    from starlette.testclient import TestClient
except (ImportError, RuntimeError):  # Starlette's TestClient needs httpx2 (the dev extra has it)
    pytest.skip("Starlette's TestClient needs httpx2", allow_module_level=True)
from PIL import Image

from mancala_envs import get_game, tablebase
from mancala_envs.agents.greedy import GreedyAgent
from mancala_envs.agents.minimax.agent import MinimaxAgent
from mancala_envs.cli.main import main as cli_main
from mancala_envs.evaluation.arena import play_game, replay
from mancala_envs.evaluation.openings import random_openings
from mancala_envs.tablebase import probe as tb_probe
from mancala_envs.tablebase import shipped
from mancala_envs.web import server as web_server
from mancala_envs.web import workers
from mancala_envs.web.app import SESSION_COOKIE, create_app
from mancala_envs.web.checks import MAX_BODY_BYTES, SUITE_OPENINGS, WEB_AGENTS, bounded_spec

TABLES = {"sadeqa_ii": 8, "en_dodoi": 7, "songo_ewondo": 6}


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tables")
    for name, params in NARROWEST:
        game = get_game(name, **params)
        tablebase.build(game, TABLES[name], folder / game.variant)
    return folder


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    folder = tmp_path_factory.mktemp("records")
    recs = [
        play_game(get_game(name, **params), "greedy", "random", seed=i)
        for i, (name, params) in enumerate(NARROWEST)
    ]
    (folder / "games.jsonl").write_text("".join(r.to_json() + "\n" for r in recs), encoding="utf-8")
    (folder / "sub").mkdir()
    (folder / "sub" / "bad.jsonl").write_text('{"not": "a record"}\n', encoding="utf-8")
    secret = folder.parent / "outside.jsonl"
    secret.write_text(recs[0].to_json() + "\n", encoding="utf-8")
    (folder / "link.jsonl").symlink_to(secret)  # a link out of the folder is not listed
    return folder, recs


@pytest.fixture(scope="module")
def client(tables, records):
    app = create_app(records=records[0], tables=tables, max_seconds=2.0, workers=2, warm=False)
    with TestClient(app, raise_server_exceptions=False) as c:
        c.get("/")  # the page sets the session cookie
        yield c


def body(name, params, moves=(), start=None, **extra):
    return {"game": name, "params": params, "start": start, "moves": list(moves), **extra}


def random_moves(game, seed, plies):
    """The position after a seeded random game of at most ``plies`` moves, and its moves."""
    states = playout(game, seed, plies)
    return states[-1], [s.last_action for s in states[1:]]


def error_of(response, status):
    assert response.status_code == status, response.text
    message = response.json()["error"]
    assert isinstance(message, str) and message
    return message


# ---------------------------------------------------------------- positions and moves


@pytest.mark.parametrize(("name", "params"), NARROWEST, ids=NARROWEST_IDS)
def test_positions_are_the_games_own(client, name, params):
    game = get_game(name, **params)
    for seed in range(3):
        state, moves = random_moves(game, seed, 12 + 7 * seed)
        view = client.post("/api/position", json=body(name, params, moves)).json()
        assert view["state"] == state.to_dict()
        assert view["moves"] == moves
        assert view["legal"] == ([] if state.is_over else game.legal_actions(state))
        assert view["status"] and view["over"] == state.is_over
        # the SVG's clickable pits are exactly the mover's legal holes
        legal_pits = sorted(int(h) for h in _pits(view["svg"], "legal"))
        assert legal_pits == view["legal"]


def _pits(svg, kind):
    import re

    return re.findall(rf'class="pit {kind}[^"]*" data-player="\d" data-hole="(\d+)"', svg)


def test_the_board_marks_the_last_move_and_its_captures(client):
    game = get_game("songo_ewondo")
    state, moves = game.initial_state(), []
    rng = np.random.default_rng(3)
    while True:  # play until a move captures
        after = game.apply(state, random_move(game, state, rng))
        moves.append(int(after.last_action))
        if after.captured.sum() > state.captured.sum() or after.is_over:
            break
        state = after
    view = client.post("/api/position", json=body("songo_ewondo", {}, moves)).json()
    gained = (after.captured - state.captured).tolist()
    assert view["captured_now"] == gained
    assert view["last_move"] == {"player": state.to_move, "hole": moves[-1]}
    assert f">+{max(gained)}</text>" in view["svg"]
    assert 'class="pit' in view["svg"] and " last" in view["svg"]


def test_starts_from_a_suite_opening_or_a_pasted_position(client):
    game = get_game("sadeqa_ii")
    suite = random_openings(game, SUITE_OPENINGS)
    view = client.post("/api/position", json=body("sadeqa_ii", {}, start={"opening": 7})).json()
    assert view["state"] == suite[7].to_dict()
    pasted = game.state_from(board=[0, 2, 0, 1, 0, 3, 1, 0, 0, 2, 0, 1], captured=[10, 16], to_move=1)
    view = client.post("/api/position", json=body("sadeqa_ii", {}, start={"state": pasted.to_dict()})).json()
    assert view["state"] == pasted.to_dict()
    message = error_of(
        client.post("/api/position", json=body("songo_ewondo", {}, start={"state": pasted.to_dict()})), 400
    )
    assert "sadeqa_ii" in message
    error_of(client.post("/api/position", json=body("sadeqa_ii", {}, start={"opening": SUITE_OPENINGS})), 400)


def test_agent_moves_are_the_agents_own(client):
    game = get_game("en_dodoi", holes_per_row=6)
    state, moves = random_moves(game, 5, 6)
    reply = client.post(
        "/api/move", json=body("en_dodoi", {"holes_per_row": 6}, moves, agent="greedy")
    ).json()
    assert reply["action"] == GreedyAgent().act(game, state)
    assert reply["state"] == game.apply(state, reply["action"]).to_dict()
    assert reply["moves"] == [*moves, reply["action"]]
    # a search agent without a time gets the server's cap, its depth pinned; same seed, same move
    first = client.post("/api/move", json=body("songo_ewondo", {}, agent="minimax", seed=4)).json()
    again = client.post("/api/move", json=body("songo_ewondo", {}, agent="minimax", seed=4)).json()
    assert first["agent"] == "minimax:depth=4,time=2" and first["action"] == again["action"]
    finished, moves = random_moves(game, 1, 1000)
    assert finished.is_over
    assert "over" in error_of(
        client.post("/api/move", json=body("en_dodoi", {"holes_per_row": 6}, moves, agent="greedy")), 400
    )


def test_a_solved_games_opening_shows_its_proven_values(client):
    """The initial position of each shipped solved game, its forced moves and its first choice
    carry the values its solution.json records, for the player to move, and a line that says
    them; /api/info marks the solved variants; any other position carries none."""
    solutions = {}
    for name in shipped.shipped_solves():
        data = json.loads((shipped.shipped_folder(name) / "solution.json").read_text(encoding="utf-8"))
        if data["value"] is not None:
            solutions.setdefault(data["variant"], data)
    assert {"sadeqa_ii", "en_dodoi_6"} <= set(solutions)
    info = {v["variant"]: v for v in client.get("/api/info").json()["variants"]}
    for variant, entry in info.items():
        assert (entry["solved"] is not None) == (variant in solutions), variant
    for variant, data in solutions.items():
        assert info[variant]["solved"]["value"] == data["value"]
        first = data["first_moves"]
        moves: list[int] = []
        for action in first["forced"]:  # a forced move keeps the position's value
            view = client.post("/api/position", json=body(data["game"], data["params"], moves)).json()
            sign = 1 if view["to_move"] == data["player"] else -1
            assert view["proven"]["value"] == sign * data["value"]
            assert view["proven"]["moves"] == {str(action): sign * data["value"]}
            moves.append(action)
        view = client.post("/api/position", json=body(data["game"], data["params"], moves)).json()
        words = {1: "wins", 0: "draws", -1: "loses", None: "unproven"}  # None: the search gave up
        assert view["proven"]["moves"] == {
            str(m["moves"][-1]): m["value_for_chooser"] for m in first["moves"]
        }
        assert set(view["proven"]["moves"]) == {str(a) for a in view["legal"]}
        for m in first["moves"]:
            assert f"hole {m['moves'][-1]} {words[m['value_for_chooser']]}" in view["proven"]["text"]
        assert f"player_{view['to_move']} to move {words[view['proven']['value']]}" in view["proven"]["text"]
        after = client.post(
            "/api/position", json=body(data["game"], data["params"], first["moves"][0]["moves"])
        )
        assert after.json()["proven"] is None
    unsolved = client.post("/api/position", json=body("songo_ewondo", {})).json()
    assert unsolved["proven"] is None


def test_specs_are_bounded_and_never_name_files():
    assert bounded_spec("minimax", 5, False) == "minimax:depth=4,time=5"
    assert bounded_spec("mcts:c=2", 5, False) == "mcts:c=2,sims=1000,time=5"
    assert bounded_spec("az:time=1", 5, False) == "az:time=1"
    assert bounded_spec("greedy", 5, False) == "greedy"
    for spec, words in [
        ("human", "cannot play"),
        ("rllib:path=x", "cannot play"),
        ("policy:path=/etc/passwd", "'path'"),
        ("az:path=../../x.json", "'path'"),
        ("perfect:max_seeds=30", "'max_seeds'"),
        ("policy:trusted=true", "'trusted'"),
        ("perfect:proof=/etc/passwd", "'proof'"),
        ("minimax:time=6", "cap"),
        ("minimax:time=nan", "cap"),
        ("perfect", "tablebase"),
        ("nobody", "unknown agent"),
        (17, "string"),
    ]:
        with pytest.raises(ValueError, match=words):
            bounded_spec(spec, 5, False)
    with pytest.raises(ValueError, match="depth"):
        bounded_spec("perfect:depth=9", 5, True)
    for depth in ("²", "٣", "0"):  # issue 43: '²'.isdigit() held, then int('²') failed
        with pytest.raises(ValueError, match=f"perfect depth must be in 1..6 here, not '{depth}'"):
            bounded_spec(f"perfect:depth={depth}", 5, True)


# ---------------------------------------------------------------- analysis


def analyse(client, name, params, moves=(), start=None, **extra):
    response = client.post("/api/analyse", json=body(name, params, moves, start, **extra))
    assert response.status_code == 200, response.text
    return response.json()


@pytest.mark.parametrize(("name", "params"), NARROWEST, ids=NARROWEST_IDS)
def test_exact_column_is_the_tables(client, tables, name, params):
    game = get_game(name, **params)
    tb = tablebase.load(tables / game.variant, game)
    for seed in range(3):
        state = covered_position(game, tb, seed)
        result = analyse(client, name, params, start={"state": state.to_dict()}, column="exact")
        probe = tb.probe(state)
        assert result["summary"]["outcome"] == {1: "win", 0: "draw", -1: "loss"}[probe.outcome]
        assert result["summary"]["value"] == probe.outcome
        for a in game.legal_actions(state):
            entry = result["moves"][str(a)]
            assert entry["outcome"] == entry["value"] == probe.move_outcomes[a]
            if name != "sadeqa_ii":  # margins: the probe's candidates for A and B of each move
                want = [
                    tablebase.table.as_bound(probe.moves[a, c])
                    for c in (tb_probe.M_CAND_A, tb_probe.M_CAND_B)
                ]
                assert entry["margin"] == [x if np.isfinite(x) else None for x in want]
        assert set(result["moves"]) == {str(a) for a in game.legal_actions(state)}


def test_exact_column_needs_a_table(tmp_path):
    with TestClient(create_app(tables=tmp_path, workers=1, warm=False), raise_server_exceptions=False) as c:
        message = error_of(c.post("/api/analyse", json=body("songo_ewondo", {}, column="exact")), 400)
        assert "no tablebase" in message and "mancala tablebase build" in message
        tablebase.build(get_game("songo_ewondo"), 4, tmp_path / "songo_ewondo")  # built while it runs
        assert c.post("/api/analyse", json=body("songo_ewondo", {}, column="exact")).status_code == 200


def test_minimax_column_gives_every_moves_exact_value(client):
    """The column is ``MinimaxAgent.move_values`` (checked against a plain negamax in
    tests/agents/test_alphabeta.py) at the depth asked, when the budget allows it."""
    game = get_game("songo_ewondo")
    state, moves = random_moves(game, 2, 10)
    result = analyse(client, "songo_ewondo", {}, moves, column="minimax", depth=3, seconds=2)
    assert result["summary"]["depth"] == 3
    values, depth = MinimaxAgent(depth=3).move_values(game, state)
    assert depth == 3
    assert {int(a): m["score"] for a, m in result["moves"].items()} == {
        a: int(values[a]) for a in game.legal_actions(state)
    }
    _, searched = MinimaxAgent(depth=3).search(game, state)  # the best move's value is the search's
    assert max(m["score"] for m in result["moves"].values()) == searched.max()


def test_network_column_priors_and_values(client):
    pytest.importorskip("torch", reason="the az and policy networks need torch")
    from mancala_envs.agents.registry import make_agent

    game = get_game("sadeqa_ii")
    state, moves = random_moves(game, 1, 8)
    for who in ("az", "policy"):
        result = analyse(client, "sadeqa_ii", {}, moves, column="network", agent=who)
        agent = make_agent(who)
        logits = agent.logits(game, agent.inputs(game, state.array[None]), game.legal_mask(state)[None])[0]
        prior = np.exp(logits - logits.max())
        prior /= prior.sum()
        legal = game.legal_actions(state)
        assert set(result["moves"]) == {str(a) for a in legal}
        assert [result["moves"][str(a)]["prior"] for a in legal] == pytest.approx(prior[legal].tolist())
        for a in legal:
            after = game.apply(state, a)
            if after.is_over:
                assert result["moves"][str(a)]["value"] == (
                    1.0 if after.winner == state.to_move else -1.0 if after.winner in (0, 1) else 0.0
                )
        assert result["summary"]["value"] is not None


@pytest.mark.parametrize("who", ["mcts", "az"])
def test_search_column_visits_and_q(client, who):
    if who == "az":
        pytest.importorskip("torch", reason="az needs torch")
    game = get_game("songo_ewondo")
    state, moves = random_moves(game, 4, 6)
    result = analyse(client, "songo_ewondo", {}, moves, column="search", agent=who, seconds=0.3)
    visits = [m["visits"] for m in result["moves"].values()]
    assert set(result["moves"]) == {str(a) for a in game.legal_actions(state)}
    assert sum(visits) > 0 and result["summary"]["simulations"] >= sum(visits) - 1
    assert all(-1.0 <= m["q"] <= 1.0 for m in result["moves"].values() if m["q"] is not None)
    # the board carries the column as labels under the mover's pits
    assert result["board"].count('class="label"') == len(result["moves"])


def one_move_from_the_end(game, outcome):
    """A running position of seeded random play with two or more legal moves, one of which ends
    the game at once with a win for the mover (``outcome`` 1), or all of which end it with his
    loss (``outcome`` -1): its exact value is ``outcome``, whatever a column searches."""
    from mancala_envs import outcome as outcome_of

    for seed in range(500):
        state, rng = game.initial_state(), np.random.default_rng(seed)
        while not state.is_over:
            legal = game.legal_actions(state)
            ends = [game.apply(state, a) for a in legal]
            results = [outcome_of(c.winner, state.to_move) if c.is_over else None for c in ends]
            if len(legal) > 1 and (1 in results if outcome == 1 else set(results) == {-1}):
                return state
            state = ends[rng.integers(len(legal))]
    raise AssertionError(f"no position one move from a {outcome:+d} found")


COLUMN_REQUESTS = [
    {"column": "network", "agent": "az"},
    {"column": "network", "agent": "policy"},
    {"column": "search", "agent": "az"},
    {"column": "search", "agent": "mcts"},
    {"column": "minimax", "depth": 4},
    {"column": "exact"},
]


@pytest.mark.parametrize("outcome", [1, -1])
def test_every_column_values_for_the_player_to_move(client, outcome):
    """One convention: every column's values are the mover's, in [-1, 1]. On a position whose exact
    value is known (one move from a win, or every move a loss), each column's best move and its
    value of the position have the exact value's sign."""
    pytest.importorskip("torch", reason="the az and policy networks need torch")
    game = get_game("en_dodoi", holes_per_row=6)
    state = one_move_from_the_end(game, outcome)
    start = {"state": state.to_dict()}
    for request in COLUMN_REQUESTS:
        result = analyse(client, "en_dodoi", {"holes_per_row": 6}, start=start, seconds=0.5, **request)
        key = "q" if request["column"] == "search" else "value"
        values = {int(a): m[key] for a, m in result["moves"].items() if m[key] is not None}
        summary = result["summary"]
        assert all(-1.0 <= v <= 1.0 for v in [*values.values(), summary["value"]]), (request, result)
        assert np.sign(summary["value"]) == outcome, (request, summary, values)
        assert np.sign(values[summary["best"]]) == outcome, (request, summary, values)
        if summary.get("head_value") is not None:
            assert -1.0 <= summary["head_value"] <= 1.0


def test_info_names_the_networks_loaded(tmp_path):
    """The page announces the first analysis of a network (it compiles) unless ``/api/info`` says
    the server has it loaded already: every network the warm-up ran when the workers warmed up
    (``mancala serve`` always does), none when they start cold."""
    pytest.importorskip("torch", reason="the networks need torch")
    from mancala_envs.web.service import Resources, networks_loaded

    with TestClient(create_app(tables=tmp_path, workers=1, warm=False), raise_server_exceptions=False) as c:
        c.get("/")
        assert c.get("/api/info").json()["networks_loaded"] == []
    resources = Resources(records=None, tables=tmp_path, max_seconds=2.0)
    assert networks_loaded(resources, warmed=True) == ["az", "policy"]


# ---------------------------------------------------------------- records and exports


def test_records_are_listed_from_the_folder_only(client, records):
    listing = client.get("/api/records").json()
    assert listing["folder"] == records[0].name  # the folder's name, not its path
    names = [f["name"] for f in listing["files"]]
    assert names == ["games.jsonl", "sub/bad.jsonl"]  # the link out of the folder is not listed
    assert len(listing["files"][0]["games"]) == len(records[1])
    assert "error" in listing["files"][1] and listing["files"][1]["games"] == []
    for index, rec in enumerate(records[1]):
        detail = client.get(f"/api/records/0/{index}").json()
        assert detail["moves"] == rec.moves and detail["agents"] == list(rec.agents)
        states = replay(rec)
        view = client.post(
            "/api/position", json=body(rec.game, rec.params, rec.moves, start=detail["start"])
        ).json()
        assert view["state"] == states[-1].to_dict() and view["over"]
    error_of(client.get("/api/records/0/99"), 404)
    error_of(client.get("/api/records/7/0"), 404)
    for path in (
        "/api/records/-1/0",
        "/api/records/..%2F..%2Foutside.jsonl/0",
        "/api/records/0/0/../../../x",
    ):
        assert client.get(path).status_code == 404


def test_a_tampered_record_is_refused_naming_its_line(tables, records, tmp_path):
    """Issue 43: /api/records served a record whose winner was flipped (``mancala replay`` refused it)."""
    lines = [r.to_dict() for r in records[1]]
    lines[1]["winner"] = {0: 1, 1: 0, -1: 0, None: 0}[lines[1]["winner"]]
    (tmp_path / "games.jsonl").write_text("".join(json.dumps(d) + "\n" for d in lines), encoding="utf-8")
    with TestClient(create_app(records=tmp_path, tables=tables), raise_server_exceptions=False) as c:
        c.get("/")
        [entry] = c.get("/api/records").json()["files"]
        assert entry["games"] == [] and "line 2: the replay does not end as the record says" in entry["error"]
        assert "line 2" in error_of(c.get("/api/records/0/0"), 400)


def test_the_record_list_is_read_again_only_when_a_file_changes(tables, tmp_path):
    """The list is a cheap route (the server's own process): each file is read once, and again
    when it changes (its size or modification time)."""
    game = get_game("sadeqa_ii")
    recs = [play_game(game, "greedy", "random", seed=s) for s in range(3)]
    path = tmp_path / "games.jsonl"
    path.write_text(recs[0].to_json() + "\n", encoding="utf-8")
    with TestClient(create_app(records=tmp_path, tables=tables, workers=1, warm=False)) as c:
        assert len(c.get("/api/records").json()["files"][0]["games"]) == 1
        resources = c.app.state.resources
        assert len(resources.listed) == 1
        c.get("/api/records")
        assert len(resources.listed) == 1  # not read again
        path.write_text("".join(r.to_json() + "\n" for r in recs), encoding="utf-8")
        assert len(c.get("/api/records").json()["files"][0]["games"]) == 3
        assert c.get("/api/records/0/2").json()["moves"] == recs[2].moves  # the detail, from a worker


def test_no_records_folder_lists_nothing(tables):
    with TestClient(create_app(tables=tables, workers=1, warm=False)) as c:
        assert c.get("/api/records").json() == {"folder": None, "files": []}
        titles = [v["title"] for v in c.get("/api/info").json()["variants"]]
    assert titles[:3] == ["Songo Ewondo", "Sadeqa II", "En Dodoi (6 holes)"]


def test_exports_svg_and_gif(client):
    game = get_game("sadeqa_ii")
    _state, moves = random_moves(game, 0, 9)
    svg = client.post("/api/export", json=body("sadeqa_ii", {}, moves, format="svg"))
    assert svg.headers["content-type"].startswith("image/svg+xml") and svg.text.startswith("<svg")
    assert "attachment" in svg.headers["content-disposition"]
    gif = client.post("/api/export", json=body("sadeqa_ii", {}, moves, format="gif"))
    assert gif.headers["content-type"] == "image/gif"
    assert Image.open(io.BytesIO(gif.content)).n_frames == len(moves) + 1
    error_of(client.post("/api/export", json=body("sadeqa_ii", {}, moves, format="pdf")), 400)


# ---------------------------------------------------------------- the boundary


BAD_REQUESTS = [
    ("/api/position", b"not json", 400),
    ("/api/position", b"[1, 2]", 400),
    ("/api/position", b"[" * 50_000, 400),  # nesting past the parser's recursion limit
    ("/api/position", b'{"game": "songo_ewondo", "moves": [' + b"1," * 40_000 + b"1]}", 413),
    ("/api/position", json.dumps(body("songo_ewondo", {}, [3] * 3000)).encode(), 400),  # over MAX_MOVES
    ("/api/position", json.dumps(body("songo_ewondo", {}, [10**30])).encode(), 400),
    ("/api/position", json.dumps(body("songo_ewondo", {}, ["3"])).encode(), 400),
    ("/api/position", json.dumps(body("songo_ewondo", {}, [True])).encode(), 400),
    ("/api/position", json.dumps(body("songo_ewondo", {"holes_per_row": 9})).encode(), 400),
    ("/api/position", json.dumps(body("en_dodoi", {"holes_per_row": 99})).encode(), 400),
    ("/api/position", json.dumps({**body("songo_ewondo", {}), "path": "/etc/passwd"}).encode(), 400),
    ("/api/position", json.dumps(body("songo_ewondo", {}, start={"state": {"board": "x"}})).encode(), 400),
    ("/api/move", json.dumps(body("songo_ewondo", {}, agent="policy:path=/etc/passwd")).encode(), 400),
    ("/api/move", json.dumps(body("songo_ewondo", {}, agent="perfect:max_seeds=40")).encode(), 400),
    ("/api/move", json.dumps(body("songo_ewondo", {}, agent="mcts:time=1e9")).encode(), 400),
    ("/api/move", json.dumps(body("songo_ewondo", {}, agent="greedy", seed=-1)).encode(), 400),
    ("/api/analyse", json.dumps(body("songo_ewondo", {}, column="everything")).encode(), 400),
    ("/api/analyse", json.dumps(body("songo_ewondo", {}, column="minimax", depth=10**6)).encode(), 400),
    ("/api/analyse", json.dumps(body("songo_ewondo", {}, column="minimax", seconds=1e9)).encode(), 400),
    ("/api/analyse", b'{"game": "songo_ewondo", "column": "minimax", "seconds": NaN}', 400),
    ("/api/analyse", json.dumps(body("songo_ewondo", {}, column="network", agent="rllib")).encode(), 400),
    ("/api/export", json.dumps(body("songo_ewondo", {}, format="../../x")).encode(), 400),
]


@pytest.mark.parametrize(("path", "content", "status"), BAD_REQUESTS)
def test_bad_requests_are_refused_with_a_message(client, path, content, status):
    response = client.post(path, content=content, headers={"content-type": "application/json"})
    error_of(response, status)
    assert client.get("/api/info").status_code == 200  # and the server keeps serving


def test_oversized_bodies_are_refused_before_they_are_read(client):
    big = b" " * (MAX_BODY_BYTES + 1)
    error_of(client.post("/api/position", content=big), 413)
    streamed = (b" " * 4096 for _ in range(MAX_BODY_BYTES // 4096 + 2))  # no content-length
    error_of(client.post("/api/position", content=streamed), 413)


@pytest.mark.parametrize(
    "path",
    [
        "/static/../app.py",
        "/static/%2e%2e/app.py",
        "/static/..%2fapp.py",
        "/static/%2e%2e/%2e%2e/%2e%2e/pyproject.toml",
        "/static//etc/passwd",
        "/..%2f..%2f..%2fetc/passwd",
    ],
)
def test_no_path_from_a_request_reaches_the_file_system(client, path):
    response = client.get(path)
    assert response.status_code == 404
    assert "import" not in response.text and "root:" not in response.text


def test_wrong_methods_and_routes(client):
    assert client.get("/api/position").status_code == 405
    error_of(client.get("/api/nothing"), 404)


def test_one_computation_at_a_time_per_session(client):
    sid = client.cookies.get(SESSION_COOKIE)
    assert sid
    lock = client.app.state.resources.sessions.setdefault(sid, __import__("threading").Lock())
    move = body("songo_ewondo", {}, agent="greedy")
    with lock:
        message = error_of(client.post("/api/move", json=move), 429)
        assert "already running" in message
        assert client.post("/api/position", json=body("songo_ewondo", {})).status_code == 200  # a cheap read
    assert client.post("/api/move", json=move).status_code == 200


def test_the_warm_up_does_every_kind_of_work_the_server_serves(tables):
    """Issue 43: the first az search of a server spent its 0.5 s budget (and 30 s more) compiling;
    the warm-up ran only minimax and mcts. It now runs, per game, each agent's move and each
    analysis column (the table's where there is one), every one of them without an error."""
    pytest.importorskip("torch", reason="the networks need torch")
    from mancala_envs.web.service import WORK, Resources, warm_up_requests

    resources = Resources(records=None, tables=tables, max_seconds=2.0)
    requests = warm_up_requests(resources)
    for name, params in NARROWEST:
        done = [(kind, b) for kind, b in requests if b["game"] == name and b["params"] == params]
        agents = {b["agent"].split(":")[0] for kind, b in done if kind == "move"}
        columns = {(b["column"], b.get("agent")) for kind, b in done if kind == "analyse"}
        assert agents == set(WEB_AGENTS)
        assert columns == {("network", "az"), ("network", "policy"), ("search", "az")} | {
            ("search", "mcts"),
            ("minimax", None),
            ("exact", None),
        }
    refused = []
    for kind, request in requests:
        try:
            WORK[kind](resources, request)
        except ValueError as e:  # what the server refuses (400) is skipped by the warm-up
            refused.append((request["game"], request["params"], request.get("agent"), str(e)))
    # only the shipped policy's missing widths: it plays En Dodoi at 6 holes a row only
    assert all(game == "en_dodoi" and params != {"holes_per_row": 6} for game, params, *_ in refused)
    assert {who for *_, who, _ in refused} <= {"policy"}, refused


def _post_in_thread(client, path, payload, cookie, replies):
    """Post in a thread (``replies`` gets the response): a request that stays in flight."""

    def post():
        replies.append(client.post(path, json=payload, headers={"cookie": f"{SESSION_COOKIE}={cookie}"}))

    thread = threading.Thread(target=post, daemon=True)
    thread.start()
    return thread


def test_computations_run_in_a_bounded_pool_and_cheap_routes_never_wait(tables, records):
    """Issue 43: 20 analyses from 20 sessions starved the server (the last answered after 170 s, a
    position after 52 s). Now one worker computes, one request waits, the next gets 503 with
    Retry-After, and positions, the page and the records answer meanwhile; a stop ends the running
    analysis at once (503) instead of waiting it out."""
    app = create_app(records=records[0], tables=tables, max_seconds=30.0, workers=1, queue=1, warm=False)
    long = body("sadeqa_ii", {}, column="minimax", depth=60, seconds=30)  # 30 s unless stopped
    with TestClient(app, raise_server_exceptions=False) as c:
        pool, replies = app.state.pool, []
        threads = [_post_in_thread(c, "/api/analyse", long, f"page{i}", replies) for i in range(2)]
        for _ in range(600):  # both in the pool: one running, one queued
            if pool.pending == 2:
                break
            threading.Event().wait(0.05)
        assert pool.pending == 2 and not replies
        third = c.post("/api/analyse", json=long, headers={"cookie": f"{SESSION_COOKIE}=page2"})
        assert "busy" in error_of(third, 503) and int(third.headers["Retry-After"]) >= 1
        assert c.post("/api/position", json=body("sadeqa_ii", {})).status_code == 200
        assert c.get("/").status_code == 200 and c.get("/api/records").status_code == 200
        assert all(t.is_alive() for t in threads) and not replies  # still computing
        pool.kill()  # what a stop does: the computations end now, their requests answered
        for t in threads:
            t.join(20)
        assert [error_of(r, 503) for r in replies] == ["the server is stopping"] * 2


def test_a_huge_number_is_named_not_called_bad_json(client):
    content = b'{"game": "songo_ewondo", "moves": [' + b"7" * 5000 + b"]}"
    message = error_of(client.post("/api/position", content=content), 400)
    assert "5000 digits" in message and "not a valid JSON" not in message


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(10**25, 10**40)  # over the 30 digits a request may hold (issue 43: 5,000 digits)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
request_bodies = st.fixed_dictionaries(
    {},
    optional={
        "game": st.sampled_from(["songo_ewondo", "sadeqa_ii", "en_dodoi", "x"]) | json_values,
        "params": st.fixed_dictionaries({}, optional={"holes_per_row": st.integers(-2, 12)}) | json_values,
        "start": st.none() | st.fixed_dictionaries({"opening": st.integers(-5, 120)}) | json_values,
        "moves": st.lists(st.integers(-2, 11), max_size=30) | json_values,
        "bottom": st.integers(-1, 2) | json_values,
        "column": st.sampled_from(["network", "search", "minimax", "exact", "?"]),
        "agent": st.sampled_from(["greedy", "random", "minimax:depth=2", "human", "az:path=x"]) | json_values,
        "depth": st.integers(-1, 3) | json_values,
        "seconds": st.floats(0.01, 0.2) | json_values,
        "format": st.sampled_from(["svg", "gif", "png"]),
    },
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    path=st.sampled_from(["/api/position", "/api/move", "/api/analyse", "/api/export"]),
    payload=request_bodies,
)
def test_fuzzed_requests_never_crash_the_server(client, path, payload):
    response = client.post(path, json=payload)
    assert response.status_code in (200, 400), response.text
    if response.status_code == 400:
        assert response.json()["error"]


def test_caches_stay_bounded_whatever_the_requests(client):
    """Issue 43: every ``max_plies`` is another game, and each used to keep its opening suite (and
    each network agent its checked configs) for ever: 2,000 requests grew the server by 88 MB."""
    from mancala_envs.web import checks

    for max_plies in range(100, 100 + 3 * checks.SUITES_KEPT):
        request = body("songo_ewondo", {"max_plies": max_plies}, start={"opening": 3})
        assert client.post("/api/position", json=request).status_code == 200
    assert len(checks._SUITES) <= checks.SUITES_KEPT


@pytest.mark.parametrize("who", ["az:sims=0", "policy"])
def test_network_agents_remember_a_bounded_number_of_checked_games(who):
    pytest.importorskip("torch", reason="the networks need torch")
    from mancala_envs.agents.base import CHECKED_KEPT
    from mancala_envs.agents.registry import make_agent

    agent = make_agent(who)
    for max_plies in range(100, 100 + 2 * CHECKED_KEPT):
        game = get_game("sadeqa_ii", max_plies=max_plies)
        agent.act(game, game.initial_state())
    assert 0 < len(agent._checked) <= CHECKED_KEPT


# ---------------------------------------------------------------- the command


def test_serve_binds_loopback_and_warns_otherwise(monkeypatch, capsys, tmp_path):
    ran = []
    # uvicorn's Config sets up the process's logging, which breaks pytest's capture: not run here
    monkeypatch.setattr(web_server, "run_server", lambda app, sock: ran.append(sock.getsockname()))
    # the workers start (and warm up) before the address is printed: the first search is warm
    monkeypatch.setattr(workers.Pool, "start", lambda pool: print("workers ready"))
    assert web_server.main(["--port", "0", "--tables", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    host, port = ran[0][:2]
    assert host == "127.0.0.1" and not err
    assert out.startswith(f"workers ready\nmancala serve: http://127.0.0.1:{port}/")
    assert web_server.main(["--host", "0.0.0.0", "--port", "0", "--tables", str(tmp_path)]) == 0
    assert "warning" in capsys.readouterr().err
    assert web_server.is_loopback("::1") and web_server.is_loopback("localhost")
    assert not web_server.is_loopback("0.0.0.0") and not web_server.is_loopback("example.org")
    with pytest.raises(ValueError, match="port"):
        web_server.main(["--port", "70000"])
    with pytest.raises(ValueError, match="records"):
        web_server.main(["--records", str(tmp_path / "missing")])


def test_serve_refuses_a_bad_host_at_once_in_one_line(monkeypatch, capsys, tmp_path):
    """Issue 43: ``--host 999.1.1.1`` printed the 'listening on' warning, then a bare socket error."""
    monkeypatch.setattr(workers.Pool, "start", lambda pool: pytest.fail("no worker for a bad host"))
    assert cli_main(["serve", "--host", "999.1.1.1", "--tables", str(tmp_path)]) == 2
    out, err = capsys.readouterr()
    assert not out and err.count("\n") == 1 and "999.1.1.1" in err and "warning" not in err


def _start_serve(*argv, sigint=signal.SIG_DFL):
    """``mancala serve --workers 1 ARGV`` in a session of its own (its workers with it), started
    with SIGINT's disposition ``sigint`` (``SIG_IGN``: as a script's background job starts it)."""
    return subprocess.Popen(
        [sys.executable, "-m", "mancala_envs.cli.main", "serve", "--workers", "1", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, sigint),
    )


@contextlib.contextmanager
def _serving(*argv, sigint=signal.SIG_DFL):
    """``(process, url)`` of a running ``mancala serve``; whatever the test did, the server and its
    workers are gone after."""
    proc = _start_serve(*argv, sigint=sigint)
    try:
        line = proc.stdout.readline()  # printed once the worker has warmed up
        match = re.match(r"mancala serve: (http://\S+/)", line)
        assert match, f"no address: {line!r}"
        yield proc, match.group(1)
    finally:
        _end_group(proc)


def _end_group(proc):
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=60)


def _post_url(url, payload, replies):
    headers = {"content-type": "application/json", "cookie": f"{SESSION_COOKIE}=stop-test"}
    request = urllib.request.Request(url, data=json.dumps(payload).encode(), headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=120) as r:
            replies.append((r.status, r.read()))
    except urllib.error.HTTPError as e:
        replies.append((e.code, e.read()))


@pytest.mark.parametrize(("signals", "status", "line"), [
    ((signal.SIGINT,), 130, "mancala: interrupted"),
    ((signal.SIGINT, signal.SIGINT), 130, "mancala: interrupted"),
    ((signal.SIGTERM,), 143, "mancala: interrupted by SIGTERM"),
])  # fmt: skip
def test_a_stop_ends_a_running_analysis_at_once_with_one_line(tmp_path, signals, status, line):
    """Issue 43: a stop waited for the running analysis (27 s), and a second Ctrl-C printed four
    tracebacks and answered the client 500. Now the analysis (60 s asked) is ended, its client gets
    503, and the command ends with one line and 128 + the signal."""
    with _serving("--max-seconds", "60", "--tables", str(tmp_path)) as (proc, url):
        replies: list = []
        analysis = body("sadeqa_ii", {}, column="minimax", depth=60, seconds=60)
        busy: list = []
        for _ in range(100):  # until the analysis holds the page's session: an export then gets 429
            if not busy or replies:  # (re)send the analysis; the export may have come first
                replies.clear()
                client = threading.Thread(target=_post_url, args=(url + "api/analyse", analysis, replies))
                client.start()
            threading.Event().wait(0.2)
            _post_url(url + "api/export", body("sadeqa_ii", {}, format="svg"), busy)
            if busy[-1][0] == 429:
                break
        assert busy[-1][0] == 429 and not replies
        for sig in signals:
            proc.send_signal(sig)
        out, err = proc.communicate(timeout=50)  # well before the analysis would have ended
        client.join(50)
    assert proc.returncode == status, err
    assert err.strip() == line and not out
    assert replies and replies[0][0] == 503 and b"stopping" in replies[0][1]


def test_a_server_started_with_ctrl_c_ignored_still_ends_with_the_line_and_status(tmp_path):
    """A script's background job starts with SIGINT ignored; uvicorn stops on it anyway, and the
    command then said nothing and exited 0. Now it ends as a stop does: one line, status 130."""
    with _serving("--tables", str(tmp_path), sigint=signal.SIG_IGN) as (proc, url):
        with urllib.request.urlopen(url, timeout=60) as page:
            assert page.status == 200
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=50)
    assert proc.returncode == 130 and err.strip() == "mancala: interrupted" and not out


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads the workers in /proc (Linux)")
def test_ctrl_c_while_the_workers_start_ends_the_server_with_one_line(tmp_path):
    """A terminal's Ctrl-C reaches the whole process group. The workers must never take it, not even
    while they import (before their initializer ignores it): they are born with SIGINT blocked (as
    multiprocessing's resource tracker is), so the server alone ends, with one line."""
    proc = _start_serve("--workers", "2", "--tables", str(tmp_path))  # (the last --workers counts)
    blocked = {}
    try:
        children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
        for _ in range(6000):  # until both workers are spawned
            for pid in children.read_text().split() if children.is_file() else []:
                with contextlib.suppress(OSError):  # (a process may have ended meanwhile)
                    if "spawn_main" in Path(f"/proc/{pid}/cmdline").read_text():
                        status = Path(f"/proc/{pid}/status").read_text()
                        mask = int(re.search(r"SigBlk:\s*([0-9a-f]+)", status).group(1), 16)
                        blocked.setdefault(pid, bool(mask & (1 << (signal.SIGINT - 1))))
            if proc.poll() is not None or len(blocked) == 2:
                break
            threading.Event().wait(0.01)
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        _end_group(proc)
    assert len(blocked) == 2 and all(blocked.values()), blocked
    assert proc.returncode == 130 and err.strip() == "mancala: interrupted" and not out, err
