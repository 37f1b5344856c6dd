"""Proof-number search (``solve(..., method="pn")``, :mod:`mancala_envs.tablebase.pn`): the values
it proves are a larger table's, its proofs pass the checker, it agrees with iterative deepening,
and bad methods and claims are refused."""

from __future__ import annotations

import json

import pytest
from solve_cases import CASES, build_tables, positions

from mancala_envs.cli.solve import main as solve_main
from mancala_envs.infra.results import read_result, write_result
from mancala_envs.tablebase.claims import table_margins
from mancala_envs.tablebase.pn import PNProver
from mancala_envs.tablebase.proof import check_proof, write_proof
from mancala_envs.tablebase.prover import Budget
from mancala_envs.tablebase.solve import solve, solve_margin


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    return build_tables(tmp_path_factory.mktemp("pn-tables"))


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_pn_proves_the_larger_tables_values_with_proofs_that_check(tables, tmp_path, case):
    name, _, _, _, seeds = case
    game, small, big = tables[name]
    decided = 0
    for k, state in enumerate(positions(game, small, seeds, 6, seed=11)):
        truth = big.outcome(state)
        found = solve(game, small, state, max_nodes=200_000, method="pn")
        low, high = found.bounds
        assert low <= truth <= high, (name, k)
        if found.value is None:
            continue
        decided += 1
        assert found.value == truth, (name, k)
        claims = sorted(p.claim for p in found.proofs)
        assert claims == {1: [">=1"], -1: ["<=-1"], 0: ["<=0", ">=0"]}[truth]
        for proof in found.proofs:
            path = tmp_path / f"{name}-{k}-{proof.claim}.jsonl.gz"
            write_proof(path, proof.header, proof.nodes)
            verdict = check_proof(path, small)
            assert (verdict.claim, verdict.nodes) == (proof.claim, len(proof.nodes))
            assert proof.nodes[0]["state"] == state.to_dict()  # the root first
    assert decided >= 4, name


def test_pn_and_iterative_deepening_agree(tables):
    game, small, _ = tables["en_dodoi"]
    for state in positions(game, small, (9, 10), 5, seed=3):
        by_id = solve(game, small, state, max_nodes=200_000)
        by_pn = solve(game, small, state, max_nodes=200_000, method="pn")
        if by_id.value is not None and by_pn.value is not None:
            assert by_id.value == by_pn.value


def test_a_pn_proof_is_acyclic_and_its_depth_is_its_longest_line(tables):
    game, small, _ = tables["songo_ewondo"]
    state = positions(game, small, (6, 6), 1, seed=5)[0]
    found = solve(game, small, state, max_nodes=200_000, method="pn")
    assert found.value in (1, -1)
    (proof,) = found.proofs
    moves = {node["id"]: [c for _, c in node["moves"] if isinstance(c, int)] for node in proof.nodes}
    longest: dict[int, int] = {}

    def line(nid: int, seen: frozenset) -> int:
        assert nid not in seen  # a win proof never refers back up its line
        if nid not in longest:
            longest[nid] = max((line(c, seen | {nid}) + 1 for c in moves[nid]), default=0)
        return longest[nid]

    assert line(proof.nodes[0]["id"], frozenset()) == proof.depth


def test_pn_margins_are_the_larger_tables_and_those_of_iterative_deepening(tables):
    game, small, big = tables["en_dodoi"]
    exact = 0
    for state in positions(game, small, (9, 10), 4, seed=7):
        low, high = (
            int(m) if abs(m) != float("inf") else m for m in table_margins(game, big, state, state.to_move)
        )
        by_pn = solve_margin(game, small, state, max_nodes=100_000, method="pn")
        by_id = solve_margin(game, small, state, max_nodes=100_000)
        if low != high or by_pn.margin is None:
            continue
        exact += 1
        assert by_pn.margin == low
        assert by_id.margin in (None, low)
        assert sorted(p.claim for p in by_pn.proofs) == [f"margin<={low}", f"margin>={low}"]
    assert exact >= 2


def test_bad_methods_and_claims_are_refused(tables):
    game, small, _ = tables["en_dodoi"]
    state = positions(game, small, (9, 10), 1, seed=3)[0]
    with pytest.raises(ValueError, match="method must be one of id, pn"):
        solve(game, small, state, method="dfpn")
    with pytest.raises(ValueError, match="method must be one of id, pn"):
        solve_margin(game, small, state, method="bfs")
    with pytest.raises(ValueError, match="claims that need the game to end"):
        PNProver(game, small, state, ">=0", Budget(None, None))


def test_mancala_solve_method_pn_writes_checkable_proofs(tables, tmp_path, capsys):
    game, small, _ = tables["en_dodoi"]
    state = positions(game, small, (9, 10), 1, seed=3)[0]
    out = tmp_path / "solved"
    flags = ["--holes-per-row", str(game.holes_per_row), "--table", str(small.path), "--out", str(out)]
    position = json.dumps(state.to_dict())
    assert solve_main(["en_dodoi", *flags, "--position", position, "--method", "pn", "--no-first-moves"]) == 0
    result = json.loads((out / "solution.json").read_text())
    assert result["method"] == "pn" and "method" not in result["limits"]
    assert result["value"] == solve(game, small, state, method="pn").value
    for proof in result["proofs"]:
        assert solve_main(["--check", str(out / proof["file"]), "--table", str(small.path)]) == 0
    with pytest.raises(SystemExit) as stopped:
        solve_main(["en_dodoi", *flags, "--method", "nope"])
    assert stopped.value.code == 2
    assert "invalid choice: 'nope'" in capsys.readouterr().err


def test_a_refutation_proves_the_opposite_claim(tables, tmp_path):
    game, small, big = tables["en_dodoi"]
    checked = 0
    for k, state in enumerate(positions(game, small, (9, 10), 12, seed=21)):
        truth = big.outcome(state)
        for claim, opposite, holds in ((">=1", "<=0", truth <= 0), ("<=-1", ">=0", truth >= 0)):
            prover = PNProver(game, small, state, claim, Budget(300_000, None))
            assert (prover.prove() is None) == holds  # refuted exactly where the opposite holds
            assert prover.disproven == holds
            proof = prover.complement()
            if not holds:
                assert proof is None
                continue
            if proof is None:  # refuted through a repetition of the line only: no proof from it
                continue
            assert proof.claim == opposite and {n["claim"] for n in proof.nodes} == {opposite}
            path = tmp_path / f"{k}-{opposite}.jsonl.gz"
            write_proof(path, proof.header, proof.nodes)
            assert check_proof(path, small).claim == opposite
            checked += 1
    assert checked >= 6


def untimed(result):
    """``result`` without its timings (``seconds``, ``checked_seconds``), which differ run to run."""
    if isinstance(result, dict):
        return {k: untimed(v) for k, v in result.items() if not k.endswith("seconds")}
    return [untimed(v) for v in result] if isinstance(result, list) else result


def test_mancala_solve_resume_keeps_what_was_proven_and_searches_the_rest(tables, tmp_path, capsys):
    """``--resume`` keeps the root's value, its margin and each proven first move of the solve in
    ``--out`` (their proofs unchanged), searches only a first move left unproven, and refuses a
    folder without a solve, another position and a proof that changed."""
    game, small, _big = tables["en_dodoi"]
    state = positions(game, small, (9, 10), 1, seed=3)[0]
    out = tmp_path / "solved"
    flags = ["--holes-per-row", str(game.holes_per_row), "--table", str(small.path), "--out", str(out)]
    args = ["en_dodoi", *flags, "--position", json.dumps(state.to_dict()), "--method", "pn"]
    assert solve_main([*args, "--no-first-moves", "--margin"]) == 0
    first_run = json.loads((out / "solution.json").read_text())
    assert first_run["first_moves"] is None
    capsys.readouterr()
    assert solve_main([*args, "--resume", "--margin"]) == 0
    assert f"(kept from {out / 'solution.json'})" in capsys.readouterr().out
    second = json.loads((out / "solution.json").read_text())
    assert second["proofs"] == first_run["proofs"] and second["margin"] == first_run["margin"]
    assert second["resumed"] == [{k: first_run[k] for k in ("limits", "method", "provenance")}]
    searched = [m for m in second["first_moves"]["moves"] if "proofs" in m]
    assert searched and all(m["value_for_chooser"] is not None for m in second["first_moves"]["moves"])

    def unproven(result):  # as if the budget had run out on the first searched move
        move = next(m for m in result["first_moves"]["moves"] if m["moves"] == searched[0]["moves"])
        move.update(value_for_chooser=None, value=None, bounds=[-1, 1], proofs=[])

    result = read_result(out / "solution.json")
    unproven(result)
    write_result(out / "solution.json", result)
    for proof in searched[0]["proofs"]:
        (out / "first-moves" / proof["file"]).unlink()
    assert solve_main([*args, "--resume", "--no-first-moves"]) == 0  # nothing searched, nothing lost
    kept = read_result(out / "solution.json")
    assert kept["first_moves"] == result["first_moves"] and kept["margin"] == first_run["margin"]
    capsys.readouterr()
    assert solve_main([*args, "--resume"]) == 0
    shown = capsys.readouterr().out  # every first move: the kept ones say so
    assert shown.count("(kept)") == len(second["first_moves"]["moves"]) - 1 == shown.count("  after ") - 1
    third = json.loads((out / "solution.json").read_text())
    assert untimed(third["first_moves"]) == untimed(second["first_moves"])  # searched again: the same proofs
    assert len(third["resumed"]) == 3 and third["margin"] == first_run["margin"]
    for proof in searched[0]["proofs"]:
        check = ["--check", str(out / "first-moves" / proof["file"]), "--table", str(small.path)]
        assert solve_main(check) == 0
    capsys.readouterr()
    path = out / "first-moves" / searched[0]["proofs"][0]["file"]
    path.write_bytes(path.read_bytes() + b"\n")
    assert solve_main([*args, "--resume"]) == 2
    assert "is missing or changed" in capsys.readouterr().err
    other = positions(game, small, (9, 10), 2, seed=3)[1]
    moved = ["en_dodoi", *flags, "--position", json.dumps(other.to_dict()), "--resume"]
    assert solve_main(moved) == 2
    assert "solved another position" in capsys.readouterr().err
    assert solve_main([*args[:-6], "--out", str(tmp_path / "empty"), *args[-4:], "--resume"]) == 2
    assert "there is no solve to resume" in capsys.readouterr().err


def test_mancala_solve_resume_keeps_a_proven_bound_a_smaller_budget_does_not_reach(tables, tmp_path, capsys):
    """A margin left open at ``>= m`` and resumed with a budget too small to prove anything keeps
    ``>= m`` and its proof listed (the checker accepts it as the solve's); a solve that does not
    record its table's fingerprint is refused in one line."""
    game, small, _big = tables["en_dodoi"]
    state = positions(game, small, (9, 10), 1, seed=3)[0]
    out = tmp_path / "solved"
    flags = ["--holes-per-row", str(game.holes_per_row), "--table", str(small.path), "--out", str(out)]
    args = [
        "en_dodoi",
        *flags,
        "--position",
        json.dumps(state.to_dict()),
        "--method",
        "pn",
        "--no-first-moves",
    ]
    assert solve_main([*args, "--margin"]) == 0
    result = read_result(out / "solution.json")
    exact = result["margin"]["margin"]
    floor = next(p for p in result["margin"]["proofs"] if p["claim"] == f"margin>={exact}")
    result["margin"].update(margin=None, bounds=[exact, None], proofs=[floor], statement="open")
    write_result(out / "solution.json", result)  # as if the budget had run out above the floor
    assert solve_main([*args, "--margin", "--resume", "--max-nodes", "1"]) == 0
    resumed = read_result(out / "solution.json")["margin"]
    assert resumed["bounds"] == [exact, None] and resumed["proofs"] == [floor]
    assert resumed["stopped"] == "node budget of 1 spent"  # the margin left open says why
    assert resumed["statement"] == f"player_{state.to_move}'s margin is not proven: at least {exact:+d}"
    assert solve_main(["--check", str(out / floor["file"]), "--table", str(small.path)]) == 0
    assert solve_main([*args, "--margin", "--resume"]) == 0  # a budget that closes it
    result = read_result(out / "solution.json")
    assert result["margin"]["margin"] == exact and "stopped" not in result["margin"]
    del result["table"]["fingerprint"]
    write_result(out / "solution.json", result)
    capsys.readouterr()
    assert solve_main([*args, "--resume"]) == 2
    assert "does not record its table's fingerprint" in capsys.readouterr().err


def test_a_stopped_solve_keeps_every_search_that_ended(tables, tmp_path, capsys, monkeypatch):
    """Ctrl-C after the first of the first moves: ``solution.json`` lists that move with its proofs
    (the others not searched yet), and ``--resume`` ends the solve as an unstopped one would."""
    import mancala_envs.cli.solve as command

    game, small, _big = tables["en_dodoi"]
    state = positions(game, small, (9, 10), 1, seed=3)[0]
    flags = ["--holes-per-row", str(game.holes_per_row), "--table", str(small.path), "--method", "pn"]
    args = ["en_dodoi", *flags, "--position", json.dumps(state.to_dict())]
    assert solve_main([*args, "--out", str(tmp_path / "whole")]) == 0
    whole = read_result(tmp_path / "whole" / "solution.json")
    searches = command.first_moves

    def stopped_after_one(*a, **k):
        found = searches(*a, **k)
        yield next(found)
        raise KeyboardInterrupt

    monkeypatch.setattr(command, "first_moves", stopped_after_one)
    out = tmp_path / "stopped"
    assert solve_main([*args, "--out", str(out)]) == 130
    assert f"{out / 'solution.json'} holds every search that ended (--resume)" in capsys.readouterr().err
    kept = read_result(out / "solution.json")["first_moves"]["moves"]
    done = [m for m in kept if m["value_for_chooser"] is not None]
    assert len(done) == 1 and untimed(done[0]) in untimed(whole["first_moves"]["moves"])
    assert all(m["bounds"] == [-1, 1] and not m["proofs"] for m in kept if m["value_for_chooser"] is None)
    monkeypatch.setattr(command, "first_moves", searches)
    assert solve_main([*args, "--out", str(out), "--resume"]) == 0
    assert untimed(read_result(out / "solution.json")["first_moves"]) == untimed(whole["first_moves"])


def test_a_solve_stopped_before_any_search_ended_says_nothing_is_kept(tables, tmp_path, capsys, monkeypatch):
    """Ctrl-C during the root's search: no ``solution.json``, and the line does not claim one."""
    import mancala_envs.cli.solve as command

    game, small, _big = tables["en_dodoi"]

    def stopped(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(command, "solve", stopped)
    out = tmp_path / "stopped"
    flags = ["--holes-per-row", str(game.holes_per_row), "--table", str(small.path), "--out", str(out)]
    assert solve_main(["en_dodoi", *flags]) == 130
    err = capsys.readouterr().err
    assert "no search had ended, so there is nothing to resume" in err and "holds every" not in err
    assert not (out / "solution.json").exists()
    out.mkdir()
    (out / "solution.json").write_text("{}")  # an older solve's file is not this one's
    assert solve_main(["en_dodoi", *flags]) == 130
    assert "nothing to resume" in capsys.readouterr().err


def test_a_search_stops_cleanly_when_memory_runs_low(tables, tmp_path, capsys, monkeypatch):
    """Below ``MEMORY_RESERVE`` plus its tables' next growth of available memory a search stops as
    on a spent budget, its findings kept and the reason on its line and in the solution, before the
    kernel kills it."""
    import mancala_envs.tablebase.prover as prover

    game, small, _ = tables["en_dodoi"]
    monkeypatch.setattr(prover, "MEMORY_CHECK", 1024)
    monkeypatch.setattr(prover, "available_memory", lambda: prover.MEMORY_RESERVE - 1)
    found = solve(game, small, method="pn")  # the initial position: far from proven in 1,024 nodes
    assert (found.value, found.nodes_searched) == (None, 1024)
    assert found.stopped.startswith("memory: ") and "the search needs 1,0" in found.stopped
    monkeypatch.setattr(prover, "available_memory", lambda: prover.MEMORY_RESERVE + 1)  # not its growth
    assert solve(game, small, method="pn", max_nodes=3000).stopped.startswith("memory: ")
    monkeypatch.setattr(prover, "available_memory", lambda: 1 << 50)
    assert solve(game, small, method="pn", max_nodes=3000).stopped == "node budget of 3000 spent"
    monkeypatch.setattr(prover, "available_memory", lambda: prover.MEMORY_RESERVE - 1)
    out = tmp_path / "low"
    flags = ["--holes-per-row", str(game.holes_per_row), "--table", str(small.path), "--out", str(out)]
    assert solve_main(["en_dodoi", *flags, "--method", "pn", "--no-first-moves"]) == 0
    assert "nodes, " in (line := capsys.readouterr().out) and "; stopped: memory: " in line
    written = read_result(out / "solution.json")
    assert written["value"] is None and written["stopped"].startswith("memory: ")


@pytest.mark.parametrize("name", ["sadeqa_ii", "songo_ewondo", "en_dodoi"])
def test_the_search_keys_tell_positions_apart_as_position_key_does(name):
    """The compact keys of the search's tables (``node_key``) are equal exactly where
    ``position_key`` is: over every state of random games (their ply counts differ)."""
    import numpy as np

    from mancala_envs import get_game
    from mancala_envs.tablebase.pn import node_key
    from mancala_envs.tablebase.proof import position_key

    game, rng = get_game(name), np.random.default_rng(5)
    by_full: dict = {}
    for _ in range(30):
        state = game.initial_state()
        while not state.is_over and state.ply < 200:
            by_full.setdefault(position_key(state), set()).add(node_key(state))
            state = game.apply(state, int(rng.choice(game.legal_actions(state))))
    assert all(len(keys) == 1 for keys in by_full.values())
    assert len({k for keys in by_full.values() for k in keys}) == len(by_full)


def test_pn_refuses_a_game_whose_counts_do_not_fit_its_byte_keys():
    """The search keys a count in a byte: a game of more than 255 seeds is refused up front."""
    from types import SimpleNamespace

    with pytest.raises(ValueError, match="keeps a count in a byte, not 256 seeds"):
        PNProver(SimpleNamespace(total_seeds=256), None, None, ">=1", Budget(None, None))


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("claim", [">=1", "<=-1", "margin>=2", "margin<=0"])
def test_the_compiled_expansion_is_what_the_game_and_the_table_say(tables, case, claim):
    """Every child the search expands in one compiled call (``PNProver.children``) is the one
    ``Game.apply`` makes, classified as ``Prover.leaf`` and ``satisfies`` say (a truncated game, a
    finished game or a covered position that meets the claim or not), and an inner child carries
    ``node_key``, its legal move count and its mover: over every state of random games, with a
    ply limit short enough for truncated games to appear in every other game."""
    import numpy as np

    from mancala_envs import get_game
    from mancala_envs.tablebase import pn_expand as px
    from mancala_envs.tablebase.claims import satisfies
    from mancala_envs.tablebase.pn import node_key
    from mancala_envs.tablebase.prover import TRUNCATED

    name, params, _, _, _ = case
    _, small, _ = tables[name]
    rng, seen = np.random.default_rng(8), set()
    for g in range(12):
        game = get_game(name, **params, **({"max_plies": 20} if g % 2 else {}))
        state = game.initial_state()
        while not state.is_over:
            prover = PNProver(game, small, state, claim, Budget(None, None))
            kids = prover.children(np.array(state.array))
            assert [k[0] for k in kids] == game.legal_actions(state)
            for action, row, key, kind, moves, mover in kids:
                after = game.apply(state, action)
                assert row.tolist() == after.array.tolist()
                result = prover.leaf(after)
                if result is None:
                    assert (kind, key, moves, mover) == (
                        px.INNER, node_key(after), len(game.legal_actions(after)), after.to_move
                    )  # fmt: skip
                elif result == TRUNCATED:
                    assert kind == px.TRUNCATED_GAME
                else:
                    assert (kind in px.PROVES, kind in px.ENDS) == (satisfies(claim, result), after.is_over)
                seen.add(kind)
            state = game.apply(state, int(rng.choice(game.legal_actions(state))))
    assert {px.INNER, px.TRUNCATED_GAME} <= seen
    assert seen & {px.TABLE_PROVES, px.TABLE_FAILS} and seen & set(px.ENDS)


def test_the_search_tables_split_in_parts_act_as_one_dict():
    """``Shards`` (the search's tables) answers as one dict would, and its next growth is that of
    its largest part, a small share of the whole."""
    import sys

    import numpy as np

    from mancala_envs.tablebase.pn import SHARDS, Shards

    table, plain, rng = Shards(), {}, np.random.default_rng(4)
    for k in rng.integers(0, 5000, size=20_000):
        key, value = int(k).to_bytes(3, "little"), int(rng.integers(1 << 40))
        if rng.random() < 0.2:
            assert table.pop(key, None) == plain.pop(key, None)
        else:
            table[key] = plain[key] = value
    assert len(table) == len(plain) and all(table[k] == v and k in table for k, v in plain.items())
    assert table.get(b"absent") is None and b"absent" not in table
    assert table.next_growth() == 2 * max(sys.getsizeof(p) for p in table.parts)
    assert table.next_growth() < sys.getsizeof(plain) and len(table.parts) == SHARDS
