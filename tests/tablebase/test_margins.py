"""Exact margins (TABLEBASE.md §2; proof format version 2 in docs/solving.md): ``solve_margin``
finds a position's margin with a ``margin>=m`` and a ``margin<=m`` proof that the checker
accepts, equal to a larger table's ``d + A = d + B``; a margin proof that claims one seed more,
a version 1 file with a margin claim and a bound beyond the game's seeds are refused; the claims
read a table's bounds from P's side."""

from __future__ import annotations

import pytest
from strategies import running, walked_positions

from mancala_envs import get_game, tablebase
from mancala_envs.tablebase.claims import (
    is_claim,
    parse_margin,
    satisfies,
    served,
    strict,
    table_margins,
)
from mancala_envs.tablebase.proof import ProofError, check_proof, read_header, read_nodes, write_proof
from mancala_envs.tablebase.solve import solve, solve_margin

# game, params, K of the search's table, K of the reference table, seeds of the positions solved
CASES = [("en_dodoi", {"holes_per_row": 6}, 6, 10, (9, 10)), ("sadeqa_ii", {}, 8, 12, (11, 12))]


@pytest.fixture(scope="module", params=CASES, ids=[c[0] for c in CASES])
def solved(request, tmp_path_factory):
    """Per game: its tables and the margin solutions of four positions outside the small one."""
    name, params, small_k, big_k, (lo, hi) = request.param
    game = get_game(name, **params)
    folder = tmp_path_factory.mktemp(name)
    small = tablebase.build(game, small_k, folder / f"k{small_k}")
    big = tablebase.build(game, big_k, folder / f"k{big_k}")
    states = walked_positions(
        game, 4, 5, until=lambda s: s.seeds_on_board <= hi,
        keep=lambda s: running(s) and lo <= s.seeds_on_board and not small.covers(s),
    )  # fmt: skip
    solutions = []
    for state in states:
        value = solve(game, small, state, max_nodes=100_000).value
        solutions.append((state, solve_margin(game, small, state, guess=value or 0, max_nodes=300_000)))
    return game, small, big, solutions, folder


def test_margins_are_the_larger_tables_and_their_proofs_check(solved):
    game, small, big, solutions, folder = solved
    decided = 0
    for k, (state, solution) in enumerate(solutions):
        low, high = table_margins(game, big, state, state.to_move)  # the truth: d + A, d + B
        assert solution.bounds[0] <= low and high <= solution.bounds[1]  # what is proven is true
        if solution.margin is None:
            continue
        decided += 1
        assert solution.margin == low == high
        assert sorted(p.claim for p in solution.proofs) == sorted(
            [f"margin<={solution.margin}", f"margin>={solution.margin}"]
        )
        for proof in solution.proofs:
            path = folder / f"{k}-{proof.claim}.jsonl.gz"
            write_proof(path, proof.header, proof.nodes)
            assert read_header(path)["version"] == 2
            verdict = check_proof(path, small)
            assert (verdict.claim, verdict.root, verdict.nodes) == (proof.claim, state, len(proof.nodes))
    assert decided >= 3, f"only {decided} of 4 positions got an exact margin within the node budget"


def first_proof(solved, op: str):
    _game, small, _, solutions, folder = solved
    for k, (_, solution) in enumerate(solutions):
        for proof in solution.proofs:
            if proof.claim.startswith(f"margin{op}"):
                path = folder / f"tamper-{k}-{proof.claim}.jsonl"
                write_proof(path, proof.header, proof.nodes)
                return small, path
    pytest.fail(f"no margin{op} proof among the solutions")


@pytest.mark.parametrize("op", [">=", "<="])
def test_a_margin_proof_claiming_one_seed_more_is_refused(solved, tmp_path, op):
    """The same tree claiming a bound one seed tighter than it proves: a leaf breaks it."""
    table, path = first_proof(solved, op)
    head, nodes = read_header(path), list(read_nodes(path))
    _, bound = parse_margin(head["claim"])
    tighter = f"margin{op}{bound + 1 if op == '>=' else bound - 1}"
    for item in (head, *nodes):
        item["claim"] = tighter
    out = tmp_path / "tighter.jsonl"
    write_proof(out, head, nodes)
    with pytest.raises(ProofError, match=r"breaks margin|ends against the claim margin"):
        check_proof(out, table)


def test_margin_claims_need_version_2_and_a_bound_within_the_seeds(solved, tmp_path):
    table, path = first_proof(solved, ">=")
    head, nodes = read_header(path), list(read_nodes(path))
    out = tmp_path / "v1.jsonl"
    write_proof(out, {**head, "version": 1}, nodes)
    with pytest.raises(ProofError, match="claim must be one of >=1, >=0, <=0, <=-1, got 'margin>="):
        check_proof(out, table)
    far = f"margin>={table.game.total_seeds + 1}"
    write_proof(out, {**head, "claim": far}, [{**n, "claim": far} for n in nodes])
    with pytest.raises(ProofError, match="a margin bound is at most the game's"):
        check_proof(out, table)


def test_claims_read_the_table_from_the_root_players_side(solved):
    game, small, _, _, _ = solved

    def forced(s):  # a running position of the table whose mover can force an end
        return running(s) and small.covers(s) and small.bounds(s)[0] > -float("inf")

    [state] = walked_positions(game, 1, 9, until=forced, keep=forced)
    a, b = small.bounds(state)
    mover = table_margins(game, small, state, state.to_move)
    other = table_margins(game, small, state, 1 - state.to_move)
    assert mover == (-other[1], -other[0])  # what one forces, the other is held to
    assert mover[0] - a == mover[1] - b  # both shifted by the mover's captured lead (0: Sadeqa II)
    assert satisfies(f"margin>={int(mover[0])}", mover) and not satisfies(
        f"margin>={int(mover[0]) + 1}", mover
    )
    assert (served("margin>=3", 0), served("margin<=3", 0), strict("margin<=-2"), strict(">=0")) == (
        0, 1, True, False,
    )  # fmt: skip
    assert is_claim("margin>=-4", 2) and not is_claim("margin>=-4", 1) and not is_claim("margin>4", 2)


def test_mancala_solve_margin_writes_checked_proofs_its_solution_lists(solved, tmp_path, capsys):
    """``mancala solve --margin`` on a reduced position: solution.json's ``margin`` is the larger
    table's, its two proofs are written beside the others and ``--check`` accepts each against
    the solution; an edited margin in solution.json is a disagreement."""
    import json

    from mancala_envs.cli.solve import main as solve_main
    from mancala_envs.infra.results import read_result, write_result

    game, small, big, solutions, _ = solved
    state = next(s for s, solution in solutions if solution.margin is not None)
    out = tmp_path / "solved"
    argv = [game.name, *(f"--{k.replace('_', '-')}={v}" for k, v in game.variant_params.items())]
    argv += ["--table", str(small.path), "--out", str(out), "--position", json.dumps(state.to_dict())]
    assert solve_main([*argv, "--margin", "--no-first-moves", "--max-nodes", "300000"]) == 0
    result = read_result(out / "solution.json")
    truth = int(table_margins(game, big, state, state.to_move)[0])
    assert result["margin"]["margin"] == truth and result["margin"]["bounds"] == [truth, truth]
    assert f"margin is {truth:+d} with perfect play" in capsys.readouterr().out
    files = [p["file"] for p in result["margin"]["proofs"]]
    assert sorted(files) == sorted([f"proof-margin-ge{truth}.jsonl.gz", f"proof-margin-le{truth}.jsonl.gz"])
    for name in files:
        assert solve_main(["--check", str(out / name), "--table", str(small.path)]) == 0
        assert "solution.json agrees" in capsys.readouterr().out
    write_result(
        out / "solution.json", {**result, "margin": {**result["margin"], "bounds": [truth + 1, truth + 1]}}
    )
    assert solve_main(["--check", str(out / files[0]), "--table", str(small.path)]) == 1
    assert "disagrees" in capsys.readouterr().err


@pytest.mark.parametrize("method", ["id", "pn"])
def test_a_margin_search_keeps_no_prover_of_a_claim_it_has_proven(solved, method):
    """A proven claim is never tried again, so its search and its tables are freed at once; the
    claims still open keep theirs (their numbers resume on the next try)."""
    from mancala_envs.tablebase.prover import Budget
    from mancala_envs.tablebase.solve import MarginSearch

    game, small, _, solutions, _ = solved
    state, solution = next((s, sol) for s, sol in solutions if sol.margin is not None)
    search = MarginSearch(game, small, state, solution.margin, Budget(300_000, None), None, method)
    for depth in range(40):
        while search.step(depth):
            pass
        if search.margin is not None:
            break
    assert search.margin == solution.margin and search.proven
    assert not set(search.proven) & set(search.provers)
    import gc

    gc.collect()  # and nothing else holds one: the budget watches its searches' memory weakly
    alive = [ref for ref in search.budget.growth if ref() is not None]
    assert len(alive) == (len(search.provers) if method == "pn" else 0)
