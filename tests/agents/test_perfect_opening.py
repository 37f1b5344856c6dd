"""The ``perfect`` agent from a solved position (issue 46, item 5): the proven winner follows the
proof's strategy, then the table, and wins every game against ``minimax:depth=12``, ``mcts`` and
``az`` with seeded opponents, never needing its search; the losing side keeps the margin smallest;
a proof that does not agree with the table is refused (named) or left out with a warning (shipped);
the shipped solves' proven values of the opening.

The proofs are made in the test by :func:`mancala_envs.tablebase.solve.solve` on small tables: a
toy game registered here is solved from its initial position (no ``az`` model exists for it), and
Sadeqa II and En Dodoi 6 (which have ``az`` models) from seeded mid-game positions. The shipped
proofs from the initial positions, which need large tables (16 seeds for Sadeqa II, 60.8 M
positions; 18 for En Dodoi 6), are played in
:func:`test_the_shipped_proof_wins_from_the_initial_position` when ``MANCALA_SOLVED_TABLES`` names
a folder of such tables, one per variant (as ``mancala serve --tables`` reads them)."""

from __future__ import annotations

import gzip
import json
import os
import warnings
from pathlib import Path

import numpy as np
import pytest
from strategies import running, walked_positions

from mancala_envs import GameInfo, Ruleset, get_game, register_game, tablebase, unregister_game, variants
from mancala_envs.agents.perfect import PerfectAgent
from mancala_envs.agents.registry import make_agent
from mancala_envs.evaluation.arena import play_game
from mancala_envs.rulesets import CAPTURE_OPPOSITE_EITHER_SIDE, RESULT_BY_CAPTURES, SOW_RELAY
from mancala_envs.tablebase import shipped
from mancala_envs.tablebase.proof import served, write_proof
from mancala_envs.tablebase.solve import solve

TOY = Ruleset(
    name="opening_toy",
    holes_per_row=5,
    seeds_per_hole=2,
    sowing=SOW_RELAY,
    direction=+1,
    capture=CAPTURE_OPPOSITE_EITHER_SIDE,
    result=RESULT_BY_CAPTURES,
    end_board_to_last_mover=True,
)
TOY_INFO = GameInfo(TOY, "Opening Toy", parameters={"holes_per_row": range(4, 7)}, opening_plies=(2, 4))
GAMES_EACH = 3  # seeded games against each opponent
# real variants with an az model: K of a table that builds in seconds, seeds of the start position
MIDGAME = {"sadeqa_ii": ({}, 10, 14), "en_dodoi": ({"holes_per_row": 6}, 8, 12)}
SOLVED_TABLES = os.environ.get("MANCALA_SOLVED_TABLES")  # a folder of tables, one per variant


@pytest.fixture(scope="module")
def toy():
    register_game(TOY_INFO)
    yield get_game("opening_toy")
    unregister_game("opening_toy")


def solved(game, tb, start, folder: Path, min_nodes: int = 1):
    """The proof of ``start``'s value (a won or lost one) written to ``folder``, the seat of the
    proven winner and ``start``; None when ``start`` is a draw or its proof has fewer than
    ``min_nodes``."""
    solution = solve(game, tb, start)
    if solution.value not in (1, -1) or len(solution.proofs[0].nodes) < min_nodes:
        return None
    proof = solution.proofs[0]
    path = folder / f"proof-{start.ply}.jsonl.gz"
    write_proof(path, proof.header, proof.nodes)
    return path, served(proof.claim, start.to_move), start


def play(game, perfect, winner, opponent, seed, start=None):
    """One game, ``perfect`` in seat ``winner``; its result and where each of its moves came from."""
    sources = []
    mover = {"seat": None}

    def on_move(state, action):
        if action is not None and mover["seat"] == winner:
            sources.append(perfect.last_source)
        mover["seat"] = None if state.is_over else state.to_move

    opponent = make_agent(opponent, seed=seed)
    agents = (perfect, opponent) if winner == 0 else (opponent, perfect)
    record = play_game(game, *agents, seed=seed, start=start, on_move=on_move)
    return record, sources


def assert_wins_every_game(game, tb, proof, winner, opponents, start=None):
    for opponent in opponents:
        for seed in range(GAMES_EACH):
            perfect = PerfectAgent(path=tb.path, proof=proof, seed=seed)
            record, sources = play(game, perfect, winner, opponent, seed, start)
            assert record.winner == winner, (game.variant, opponent, seed)
            assert "proof" in sources and set(sources) <= {"proof", "table"}, sources  # no search


def test_the_proven_winner_of_a_solved_opening_wins_every_game(toy, tmp_path):
    """From the toy game's initial position: against minimax:depth=12 and mcts (no az model
    exists for a game registered in a test; the az games are in the next test)."""
    tb = tablebase.build(toy, 12, tmp_path / "table")
    found = solved(toy, tb, toy.initial_state(), tmp_path)
    assert found is not None, "the toy game's initial position should be won or lost, not drawn"
    proof, winner, _ = found
    assert_wins_every_game(toy, tb, proof, winner, ["minimax:depth=12", "mcts"])


@pytest.mark.parametrize("name", sorted(MIDGAME))
def test_the_proven_winner_of_a_solved_position_wins_every_game(name, tmp_path):
    """Sadeqa II and En Dodoi 6, from a seeded mid-game position solved down to a small table:
    against az (the shipped model), minimax:depth=12 and mcts."""
    params, k, seeds = MIDGAME[name]
    game = get_game(name, **params)
    tb = tablebase.build(game, k, tmp_path / "table")
    starts = walked_positions(
        game, 40, 11, until=lambda s: s.seeds_on_board <= seeds,
        keep=lambda s: running(s) and not tb.covers(s) and s.seeds_on_board >= seeds - 1,
    )  # fmt: skip
    found = next(filter(None, (solved(game, tb, s, tmp_path, min_nodes=8) for s in starts)), None)
    assert found is not None, "no won position with a proof of 8 nodes among the walked ones"
    proof, winner, start = found
    assert_wins_every_game(game, tb, proof, winner, ["az", "minimax:depth=12", "mcts"], start)


def exact(game, tb, state, action):
    """``(outcome, margin)`` of ``action`` for the mover, from the public API: the final result,
    or the table's outcome and bound (``d + A`` in a win, ``d + B`` in a loss) of the position after
    it, turned to the mover's side."""
    me, child = state.to_move, game.apply(state, action)
    if child.is_over:
        lead = int(child.captured[me]) - int(child.captured[1 - me])
        return (0, 0) if child.winner == -1 else (1 if child.winner == me else -1, lead)
    result = tb.outcome(child)
    a, b = tb.bounds(child)
    margin = 0 if result == 0 else tb.lead(child) + int(a if result == 1 else b)
    sign = 1 if child.to_move == me else -1
    return sign * result, sign * margin


@pytest.mark.parametrize("outcome", [-1, 1], ids=["lost", "won"])
def test_the_search_keeps_a_lost_margin_smallest_and_a_won_one_largest(outcome, tmp_path):
    """One ply above the table, every move settled by the table or the end and all with the same
    outcome, margins differing: the depth-1 search plays a move of the best margin."""
    game = get_game("en_dodoi", holes_per_row=6)
    tb = tablebase.build(game, 6, tmp_path / "table")
    agent = PerfectAgent(path=tmp_path / "table", depth=1, proof="off")
    rng = np.random.default_rng(3)
    n, k, checked = game.holes_per_row, tb.max_seeds + 1, 0
    for _ in range(20_000):
        board = np.bincount(rng.integers(0, 2 * n, size=k), minlength=2 * n)
        rest = game.total_seeds - k
        d = rest % 2 + 2 * int(rng.integers(-3, 4))  # captured seeds add up to ``rest``
        captured = [(rest + d) // 2, (rest - d) // 2]
        state = game.state_from(board=board.tolist(), captured=captured, to_move=0)
        if state.is_over or tb.covers(state):
            continue
        moves = game.legal_actions(state)
        if any(not game.apply(state, a).is_over and not tb.covers(game.apply(state, a)) for a in moves):
            continue
        values = {a: exact(game, tb, state, a) for a in moves}
        margins = {m for o, m in values.values()}
        if {o for o, _ in values.values()} != {outcome} or len(margins) < 2:
            continue
        checked += 1
        move = agent.act(game, state)
        assert agent.last_source == "search"
        assert values[move][1] == max(margins), (values, move)
        if checked == 10:
            break
    assert checked >= 3


def test_a_proof_that_does_not_agree_with_the_table_is_refused_or_left_out(toy, tmp_path):
    tb = tablebase.build(toy, 12, tmp_path / "big")
    proof, _, _ = solved(toy, tb, toy.initial_state(), tmp_path)
    small = tablebase.build(toy, 8, tmp_path / "small")
    with pytest.raises(
        ValueError, match=r"rests on a table of max_seeds 12; the table at .* has max_seeds 8"
    ):
        PerfectAgent(path=small.path, proof=proof).act(toy, toy.initial_state())
    with gzip.open(proof, "rt") as fh:
        lines = fh.read().splitlines()
    head = json.loads(lines[0])
    head["table"]["fingerprint"] = "0" * 64  # another table's
    other = tmp_path / "other.jsonl.gz"
    with gzip.open(other, "wt") as fh:
        fh.write("\n".join([json.dumps(head), *lines[1:]]) + "\n")
    with pytest.raises(ValueError, match="fingerprint"):
        PerfectAgent(path=tb.path, proof=other).act(toy, toy.initial_state())
    with pytest.raises(ValueError, match="proof must be a proof file"):
        make_agent(f"perfect:proof={tmp_path / 'none'}")
    # the shipped Sadeqa II proofs need 16 seeds: with a table of 8 they are left out, saying so
    game = get_game("sadeqa_ii")
    tablebase.build(game, 8, tmp_path / "sadeqa")
    agent = make_agent(f"perfect:path={tmp_path / 'sadeqa'},depth=1")
    with pytest.warns(UserWarning, match="the opening is played by search: .*max_seeds 16"):
        agent.act(game, game.initial_state())
    assert agent.last_source == "search" and agent.proof_notes["sadeqa_ii"]
    named = make_agent(f"perfect:path={tmp_path / 'sadeqa'},proof={shipped.shipped_folder('sadeqa_ii')}")
    with pytest.raises(ValueError, match=r"cannot follow the proof: .*max_seeds 16"):  # a named solve folder
        named.act(game, game.initial_state())
    for bad in ("", str(tmp_path)):  # the working folder, a folder without a solution.json
        with pytest.raises(ValueError, match="proof must be a proof file"):
            PerfectAgent(proof=bad)
    assert make_agent(f"perfect:proof={proof}").name == f"perfect:proof={proof}"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # proof=off: no proof, no warning
        make_agent(f"perfect:path={tmp_path / 'sadeqa'},depth=1,proof=off").act(game, game.initial_state())


def test_the_shipped_solves_say_the_proven_values_of_the_opening():
    """From each shipped solution.json: the initial position's value, the forced moves' and the
    first choice's, for the player to move; None off the opening line and for unsolved variants."""
    for folder in [shipped.shipped_folder(name) for name in shipped.shipped_solves()]:
        solution = json.loads((folder / shipped.SOLUTION).read_text())
        game = get_game(solution["game"], **solution["params"])
        if solution["value"] is None:
            assert shipped.proven_opening(game) is None
            continue
        state = game.initial_state()
        values = shipped.proven_values(game, state)
        assert values["value"] == solution["value"] and solution["table"]["max_seeds"] in values["tables"]
        first = solution["first_moves"]
        for action in first["forced"]:
            forced = shipped.proven_values(game, state)
            assert forced["value"] == (1 if state.to_move == solution["player"] else -1) * solution["value"]
            assert forced["moves"] == {action: forced["value"]}
            state = game.apply(state, action)
        at_choice = shipped.proven_values(game, state)
        assert at_choice["value"] == (1 if state.to_move == solution["player"] else -1) * solution["value"]
        assert at_choice["moves"] == {m["moves"][-1]: m["value_for_chooser"] for m in first["moves"]}
        proven = [v for v in at_choice["moves"].values() if v is not None]  # None: the search gave up
        assert max(proven) == at_choice["value"]  # the best move keeps the value
        assert all(v <= at_choice["value"] for v in proven)
        after = game.apply(state, next(iter(at_choice["moves"])))
        assert after.is_over or shipped.proven_values(game, after) is None
    unsolved = [g for g in variants() if g.variant not in shipped.solved_variants()]
    assert unsolved and all(shipped.proven_opening(g) is None for g in unsolved)


@pytest.mark.slow
@pytest.mark.parametrize("variant", sorted(shipped.solved_variants()))
def test_the_shipped_proof_wins_from_the_initial_position(variant):
    """The shipped proofs of each solved variant, followed from the initial position by the proven
    winner against az, minimax:depth=12 and mcts, seeded; needs the variant's table (as large as
    its proof's, e.g. 16 seeds for Sadeqa II) in ``$MANCALA_SOLVED_TABLES/<variant>``."""
    path = Path(SOLVED_TABLES or ".") / variant
    if not SOLVED_TABLES or not path.is_dir():
        pytest.skip(
            f"set MANCALA_SOLVED_TABLES to a folder holding a {variant} table as large as its proof's"
        )
    game = next(g for g in variants() if g.variant == variant)
    opening = shipped.proven_opening(game)
    if opening["value"] == 0:
        pytest.skip(f"{variant} is a draw: no proven winner")
    tb = tablebase.load(path, game)
    agent = PerfectAgent(path=path)
    assert agent.strategies(game, tb), agent.proof_notes  # the table agrees with the proofs
    winner = opening["player"] if opening["value"] == 1 else 1 - opening["player"]
    assert_wins_every_game(game, tb, None, winner, ["az", "minimax:depth=12", "mcts"])
