"""Proofs of a position's value (TABLEBASE.md §5): the solver and the checker end to end on
reduced positions, their values against a larger table's, and the checker against tampered
proofs (a missing reply, a wrong leaf, a wrong child, a win proof that cycles)."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest
from solve_cases import CASES, build_tables, positions
from strategies import random_move, walk

from mancala_envs import get_game, tablebase
from mancala_envs.cli.solve import main as solve_main
from mancala_envs.tablebase.proof import (
    ProofError,
    check_proof,
    header,
    position_key,
    read_header,
    read_nodes,
    write_proof,
)
from mancala_envs.tablebase.solve import solve


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    return build_tables(tmp_path_factory.mktemp("tables"))


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_solved_values_are_the_larger_tables_and_their_proofs_check(tables, tmp_path, case):
    name, _, _, _, seeds = case
    game, small, big = tables[name]
    decided = 0
    for k, state in enumerate(positions(game, small, seeds, 4, seed=k_seed(name))):
        solution = solve(game, small, state, max_nodes=100_000)
        truth = big.outcome(state)
        low, high = solution.bounds
        assert low <= truth <= high, (name, k)  # every bound proven is true
        if solution.value is None:
            continue
        decided += 1
        assert solution.value == truth
        claims = sorted(p.claim for p in solution.proofs)
        assert claims == {1: [">=1"], -1: ["<=-1"], 0: ["<=0", ">=0"]}[truth]
        for proof in solution.proofs:
            path = tmp_path / f"{name}-{k}-{proof.claim}.jsonl.gz"
            write_proof(path, proof.header, proof.nodes)
            verdict = check_proof(path, small)
            assert verdict.claim == proof.claim and verdict.root == state
            assert verdict.nodes == len(proof.nodes)
    assert decided >= 2, f"only {decided} of 4 {name} positions decided within the node budget"


def k_seed(name: str) -> int:
    return {"sadeqa_ii": 1, "en_dodoi": 2, "songo_ewondo": 3}[name]


# ---------------------------------------------------------------- tampered proofs


@pytest.fixture(scope="module")
def sadeqa_proof(tables, tmp_path_factory):
    """A checked >=1 or <=-1 proof with an AND node of several replies and a node reference."""
    game, small, _ = tables["sadeqa_ii"]
    folder = tmp_path_factory.mktemp("proofs")
    for k, state in enumerate(positions(game, small, (11, 13), 40, seed=7)):
        solution = solve(game, small, state, max_nodes=200_000)
        if solution.value not in (1, -1):
            continue
        (proof,) = solution.proofs
        ids = {n["id"] for n in proof.nodes}
        refs = [n for n in proof.nodes if any(c in ids for _, c in n["moves"])]
        if refs and any(len(n["moves"]) > 1 for n in proof.nodes):
            path = folder / f"proof-{k}.jsonl"
            write_proof(path, proof.header, proof.nodes)
            check_proof(path, small)
            return game, small, path
    pytest.fail("no decided Sadeqa II position with a branching proof among 40")


def tamper(path, tmp_path, change):
    """A copy of the proof at ``path`` with ``change(head, nodes)`` applied."""
    head = read_header(path)
    nodes = list(read_nodes(path))
    change(head, nodes)
    out = tmp_path / "tampered.jsonl"
    write_proof(out, head, nodes)
    return out


def test_a_missing_reply_is_refused(sadeqa_proof, tmp_path):
    _game, tb, path = sadeqa_proof

    def drop_reply(head, nodes):
        node = next(n for n in nodes if len(n["moves"]) > 1)
        node["moves"].pop()

    with pytest.raises(ProofError, match="missing"):
        check_proof(tamper(path, tmp_path, drop_reply), tb)


def test_a_wrong_leaf_is_refused(sadeqa_proof, tmp_path):
    _game, tb, path = sadeqa_proof

    def table_to_end(head, nodes):
        node = next(n for n in nodes if any(c == "table" for _, c in n["moves"]))
        move = next(m for m in node["moves"] if m[1] == "table")
        move[1] = "end"

    with pytest.raises(ProofError, match="does not end"):
        check_proof(tamper(path, tmp_path, table_to_end), tb)

    def flip_claim(head, nodes):  # the same tree claimed for the other side: its leaves break it
        new = "<=-1" if head["claim"] == ">=1" else ">=1"
        head["claim"] = new
        for n in nodes:
            n["claim"] = new

    with pytest.raises(ProofError):
        check_proof(tamper(path, tmp_path, flip_claim), tb)


def test_a_wrong_child_or_move_is_refused(sadeqa_proof, tmp_path):
    game, tb, path = sadeqa_proof

    def other_child(head, nodes):
        ids = [n["id"] for n in nodes]
        node = next(n for n in nodes if any(c in ids for _, c in n["moves"]))
        move = next(m for m in node["moves"] if m[1] in ids)
        move[1] = head["root"]  # the root is not the position after that move

    with pytest.raises(ProofError, match="not the position after it"):
        check_proof(tamper(path, tmp_path, other_child), tb)

    def illegal(head, nodes):
        node = nodes[0]
        state = game.state_from_dict(node["state"])
        bad = next(a for a in range(game.num_actions) if not game.legal_mask(state)[a])
        node["moves"].append([bad, "end"])

    with pytest.raises(ProofError, match="not legal"):
        check_proof(tamper(path, tmp_path, illegal), tb)

    def edited_board(head, nodes):
        nodes[-1]["state"]["board"][0] += 1

    with pytest.raises(ProofError):
        check_proof(tamper(path, tmp_path, edited_board), tb)


def test_bad_files_are_refused(sadeqa_proof, tmp_path):
    game, tb, path = sadeqa_proof
    garbage = tmp_path / "garbage.jsonl.gz"
    garbage.write_bytes(b"not gzip")
    with pytest.raises(ProofError):
        check_proof(garbage, tb)
    lines = path.read_text().splitlines()
    truncated = tmp_path / "truncated.jsonl"
    truncated.write_text("\n".join([*lines[:-1], lines[-1][:10]]) + "\n")
    with pytest.raises(ProofError, match="not valid JSON"):
        check_proof(truncated, tb)
    small = tablebase.build(game, 4, tmp_path / "k4")
    with pytest.raises(ProofError, match="max_seeds"):
        check_proof(path, small)


class FakeTable:
    """A duck-typed table that covers every position but ``uncovered`` and calls each a win for
    ``winner``: the checker's cycle rule tested apart from the table."""

    def __init__(self, game, uncovered, winner):
        self.game, self.max_seeds = game, 99
        self.uncovered, self.winner = uncovered, winner

    def covers(self, state):
        return position_key(state) not in self.uncovered

    def outcome(self, state):
        return 1 if state.to_move == self.winner else -1


def test_a_win_proof_that_cycles_is_refused_and_a_draw_proof_may(tmp_path):
    """A real cycle of En Dodoi positions (found by a seeded random walk), written as a proof
    that follows it forever: fine for ``>=0`` (never-ending play is a draw), refused for ``>=1``."""
    game = get_game("en_dodoi", holes_per_row=6)
    rng = np.random.default_rng(2)
    cycle = None
    for _ in range(5000):
        s = walk(game, rng, until=lambda s: s.seeds_on_board <= 7)
        seen, line = {}, []
        while not s.is_over and len(line) < 60 and cycle is None:
            key = position_key(s)
            if key in seen:
                cycle = line[seen[key] :]
            seen[key] = len(line)
            a = random_move(game, s, rng)
            line.append((s, a))
            s = game.apply(s, a)
        if cycle is not None:
            break
    assert cycle is not None
    player = cycle[0][0].to_move
    keys = {position_key(s): i for i, (s, _) in enumerate(cycle)}
    table = FakeTable(game, set(keys), winner=player)
    for claim in (">=0", ">=1"):
        nodes = []
        for i, (s, a) in enumerate(cycle):
            nxt = (i + 1) % len(cycle)
            if s.to_move == player:  # the claim's side: the cycle's move only
                moves = [[a, nxt]]
            else:  # every reply: the cycle's, and the others to the (fake) table's wins for P
                moves = [[b, nxt if b == a else "table"] for b in game.legal_actions(s)]
            nodes.append({"id": i, "state": s.to_dict(), "claim": claim, "moves": moves})
        path = tmp_path / f"cycle{claim}.jsonl"
        write_proof(path, header(game, claim, 0, game.total_seeds), nodes)
        if claim == ">=0":
            assert check_proof(path, table).claim == ">=0"
        else:
            with pytest.raises(ProofError, match="cycle"):
                check_proof(path, table)


# ---------------------------------------------------------------- the command


def test_mancala_solve_and_check_end_to_end(tables, tmp_path, capsys):
    """``mancala solve --position`` on a reduced Sadeqa II position writes proofs and
    solution.json; ``mancala solve --check`` accepts them and refuses a tampered one."""
    game, small, big = tables["sadeqa_ii"]
    state = positions(game, small, (11, 12), 1, seed=11)[0]
    out = tmp_path / "solved"
    args = [
        "sadeqa_ii",
        "--table",
        str(small.path),
        "--out",
        str(out),
        "--position",
        json.dumps(state.to_dict()),
    ]
    assert solve_main([*args, "--max-nodes", "300000"]) == 0
    said = capsys.readouterr().out.splitlines()[0]  # issue 43: it said "from the initial position"
    assert said.startswith("mancala solve: sadeqa_ii from the given position (--position), table")
    from mancala_envs.infra.results import read_result

    result = read_result(out / "solution.json")
    assert result["value"] == big.outcome(state) and result["table"]["max_seeds"] == small.max_seeds
    first = result["first_moves"]
    for entry in first["moves"]:  # the value after each first choice, checked against the big table
        after = state
        for a in entry["moves"]:
            after = game.apply(after, a)
        if entry["value_for_chooser"] is not None and not after.is_over:
            sign = 1 if after.to_move == first["player"] else -1
            assert entry["value_for_chooser"] == sign * big.outcome(after)
    for proof in result["proofs"]:
        path = out / proof["file"]
        with gzip.open(path, "rt") as fh:
            assert json.loads(fh.readline())["claim"] == proof["claim"]
        assert solve_main(["--check", str(path), "--table", str(small.path)]) == 0
        assert "proof holds" in capsys.readouterr().out
        bad = tamper(path, tmp_path, lambda head, nodes: nodes[0]["moves"].pop())
        assert solve_main(["--check", str(bad), "--table", str(small.path)]) == 1
        assert "does not hold" in capsys.readouterr().err
    assert solve_main(["sadeqa_ii", "--table", str(tmp_path / "nothing")]) == 2
    assert "mancala tablebase build" in capsys.readouterr().err


def test_the_shipped_proofs_are_the_ones_their_solutions_list():
    """results/solve: each solution.json (checksummed) lists proof files that are there (for an
    unfinished solve, one per bound it proved), with the recorded SHA-256, and whose root is the
    game's initial position (checking them needs a table of 16 seeds or more: docs/solving.md)."""
    import hashlib
    from pathlib import Path

    from mancala_envs.infra.results import read_result

    root = Path(__file__).resolve().parents[2] / "results" / "solve"
    solutions = sorted(root.glob("*/solution.json"))
    assert solutions, "no solved games shipped"
    for path in solutions:
        result = read_result(path)
        game = get_game(result["game"], **result["params"])
        assert result["root"] == game.initial_state().to_dict()
        low, high = result["bounds"]
        if result["value"] is not None:
            assert low == high == result["value"] and result["proofs"], path
        else:  # an unfinished solve lists the proofs of its bounds only
            assert low < high and len(result["proofs"]) == (low > -1) + (high < 1), path
        for proof in result["proofs"]:
            file = path.parent / proof["file"]
            assert hashlib.sha256(file.read_bytes()).hexdigest() == proof["sha256"], file
            head = read_header(file)
            assert (
                head["claim"] == proof["claim"] and head["table"]["max_seeds"] == result["table"]["max_seeds"]
            )
            first = next(iter(read_nodes(file)))
            assert first["id"] == head["root"] and first["state"] == result["root"]


def test_bad_solve_input_is_refused_with_a_message(tables, capsys):
    game, small, _ = tables["sadeqa_ii"]
    table = ["--table", str(small.path)]
    assert solve_main(table) == 2  # neither a game nor --check
    assert "name a game" in capsys.readouterr().err
    assert solve_main(["sadeqa_ii", *table, "--position", "{not json"]) == 2
    assert "--position" in capsys.readouterr().err
    assert solve_main(["sadeqa_ii", *table, "--position", "[1, 2]"]) == 2
    assert "JSON object" in capsys.readouterr().err
    other = get_game("songo_ewondo").initial_state().to_dict()
    assert solve_main(["sadeqa_ii", *table, "--position", json.dumps(other)]) == 2
    assert capsys.readouterr().err.startswith("mancala solve: error:")
    with pytest.raises(ValueError, match="max_depth"):
        solve(game, small, max_depth=-1)
    with pytest.raises(ValueError, match="over"):
        finished = game.state_from(board=[0] * 12, captured=[20, 16], to_move=0)
        solve(game, small, finished)


# ---------------------------------------------------------------- issue 43: a fuzz of the proof header

DEEP = 100_000


def raw_proof(path, head_line: str, node_lines: list[str]):
    """A proof file written as given, header line first (gzip for a ``.gz`` name)."""
    text = "\n".join([head_line, *node_lines]) + "\n"
    if path.suffix == ".gz":
        with gzip.open(path, "wt", encoding="utf-8") as fh:
            fh.write(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "table, says",
    [
        ({"max_seeds": -7}, "table.max_seeds must be an integer in 0..36"),
        ({"max_seeds": True}, "table.max_seeds must be an integer"),
        ({"max_seeds": 1.5}, "table.max_seeds must be an integer"),
        ({"max_seeds": 37}, "table.max_seeds must be an integer in 0..36"),
        ("x", "table must be"),
        ({"max_seeds": 10, "extra": 1}, "table must be"),
        (None, "table must be"),
    ],
)
def test_a_bad_header_table_is_refused_in_one_line(sadeqa_proof, tmp_path, capsys, table, says):
    """Issue 43: ``--check`` reported ``max_seeds`` -7 or ``true`` as the table of a holding proof,
    and ``"table": "x"`` was an AttributeError traceback."""
    _, tb, path = sadeqa_proof
    bad = tamper(path, tmp_path, lambda head, nodes: head.update(table=table))
    assert solve_main(["--check", str(bad), "--table", str(tb.path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mancala solve: error: ") and err.count("\n") == 1 and says in err
    with pytest.raises(ProofError, match=says):
        check_proof(bad, tb)


@pytest.mark.parametrize(
    "change, says",
    [
        (lambda head: head.update(root="0"), "root must be a node id"),
        (lambda head: head.update(params={"holes_per_row": "6"}), "params must be integers"),
        (lambda head: head.update(params={"holes": 6}), "names no game"),
        (lambda head: head.update(surprise=1), "unknown header field 'surprise'"),
        (lambda head: head.update(claim=">=2"), "claim must be one of"),
    ],
)
def test_other_bad_header_fields_are_refused_naming_them(sadeqa_proof, tmp_path, capsys, change, says):
    _, tb, path = sadeqa_proof
    bad = tamper(path, tmp_path, lambda head, nodes: change(head))
    assert solve_main(["--check", str(bad), "--table", str(tb.path)]) == 2
    assert says in capsys.readouterr().err


def test_a_header_that_understates_its_table_does_not_hold(sadeqa_proof, tmp_path):
    """``max_seeds`` 0 in the header of a proof with table leaves: the table it names covers none."""
    _, tb, path = sadeqa_proof
    assert any(child == "table" for node in read_nodes(path) for _, child in node["moves"])
    bad = tamper(path, tmp_path, lambda head, nodes: head.update(table={"max_seeds": 0}))  # no fingerprint
    with pytest.raises(ProofError, match="the table does not cover"):
        check_proof(bad, tb)


@pytest.mark.parametrize("where", ["header", "node"])
def test_deep_nesting_is_refused_before_parsing(sadeqa_proof, tmp_path, capsys, where):
    """Issue 43: a header or node nested 100,000 deep was a RecursionError traceback."""
    _, tb, path = sadeqa_proof
    deep = '{"a":' * DEEP + "1" + "}" * DEEP
    lines = path.read_text().splitlines()
    if where == "header":
        lines[0] = deep
    else:
        lines[1] = deep
    bad = raw_proof(tmp_path / "deep.jsonl", lines[0], lines[1:])
    code = solve_main(["--check", str(bad), "--table", str(tb.path)])
    err = capsys.readouterr().err
    assert code == (2 if where == "header" else 1) and err.count("\n") == 1
    assert f"line {1 if where == 'header' else 2}: nested more than" in err


@pytest.mark.parametrize("where", ["header", "node"])
def test_a_huge_line_is_refused_without_reading_it_whole(sadeqa_proof, tmp_path, capsys, where):
    """Issue 43: a gzip of one 1.5 GB line drove memory to 3 GB before the error; lines are read
    at most MAX_LINE characters at a time (here a line of 8 MiB, a few kilobytes compressed)."""
    from mancala_envs.tablebase.proof import MAX_LINE

    _, tb, path = sadeqa_proof
    huge = '{"a":"' + "x" * (8 * MAX_LINE) + '"}'
    lines = path.read_text().splitlines()
    lines[0 if where == "header" else 1] = huge
    bad = raw_proof(tmp_path / "huge.jsonl.gz", lines[0], lines[1:])
    assert bad.stat().st_size < 100_000
    code = solve_main(["--check", str(bad), "--table", str(tb.path)])
    err = capsys.readouterr().err
    assert code == (2 if where == "header" else 1) and err.count("\n") == 1
    assert f"longer than {MAX_LINE:,} characters" in err


# ---------------------------------------------------------------- issue 43: which table, which solution


@pytest.fixture(scope="module")
def solved(tables, tmp_path_factory):
    """``mancala solve --position`` on a reduced Sadeqa II position with the 8-seed table: its
    output folder (proofs, first-moves/, solution.json)."""
    game, small, _ = tables["sadeqa_ii"]
    state = positions(game, small, (11, 12), 1, seed=11)[0]
    out = tmp_path_factory.mktemp("solved") / "out"
    argv = ["sadeqa_ii", "--table", str(small.path), "--out", str(out), "--max-nodes", "300000",
            "--position", json.dumps(state.to_dict())]  # fmt: skip
    assert solve_main(argv) == 0
    return out


def test_a_proof_names_its_table_and_refuses_an_edited_one(tables, solved, tmp_path, capsys):
    """Issue 43: a table whose values were edited and whose CRCs were recomputed checked a proof
    the genuine table refuses; the proof now records its table's fingerprint."""
    import shutil

    from mancala_envs.tablebase import store

    game, small, big = tables["sadeqa_ii"]
    proof = sorted(solved.glob("proof-*.jsonl.gz"))[0]
    recorded = read_header(proof)["table"]
    assert recorded == {"max_seeds": 8, "fingerprint": small.fingerprint()}
    assert big.fingerprint(8) == small.fingerprint()  # a larger table of the game serves as well
    assert solve_main(["--check", str(proof), "--table", str(big.path)]) == 0
    assert f"fingerprint {small.fingerprint()[:16]}" in capsys.readouterr().out
    edited = tmp_path / "edited"
    shutil.copytree(small.path, edited)
    head = store.read_header(edited)
    values = np.memmap(edited / store.VALUES, dtype=np.int8, mode="r+")
    values[-1] = values[-1] + 1  # a value of layer 8, then its checksum made to match
    values.flush()
    positions_8 = head["layers"][8]["positions"]
    head["layers"][8]["crc32"][store.VALUES] = store.crc32(np.asarray(values[-2 * positions_8 :]))
    store.write_header(edited, head)
    assert tablebase.load(edited, game, verify=True).max_seeds == 8  # its checksums hold
    assert solve_main(["--check", str(proof), "--table", str(edited)]) == 1
    err = capsys.readouterr().err
    assert "the proof does not hold: the proof rests on a table whose layers 0..8" in err
    assert recorded["fingerprint"] in err and str(edited) in err


def edit_solution(path, change) -> None:
    """``change(result)`` applied to a solution.json, its own checksum recomputed (as an editor could)."""
    from mancala_envs.infra.results import read_result, write_result

    result = read_result(path)
    change(result)
    write_result(path, result)


def test_check_compares_the_proof_with_its_solution(tables, solved, tmp_path, capsys):
    """Issue 43: solution.json could be edited to say the opposite of its proof (its sha256
    recomputed) and nothing compared them."""
    import shutil

    _, small, _ = tables["sadeqa_ii"]
    out = tmp_path / "out"
    shutil.copytree(solved, out)
    proof = sorted(out.glob("proof-*.jsonl.gz"))[0]
    check = ["--check", str(proof), "--table", str(small.path)]
    assert solve_main(check) == 0
    assert "solution.json agrees" in capsys.readouterr().out

    def flip(result):  # the value of the player to move turned around, statement and all
        value = -1 if result["value"] == 1 else 1
        result.update(value=value, bounds=[value, value], statement=f"player_{result['player']} flipped")

    edit_solution(out / "solution.json", flip)
    assert solve_main(check) == 1
    assert "disagrees with it: its bounds" in capsys.readouterr().err
    shutil.copy(solved / "solution.json", out / "solution.json")
    edit_solution(out / "solution.json", lambda r: r.update(statement=r["statement"].replace("wins", "loses")
                                                                    .replace("draws", "loses")))  # fmt: skip
    assert solve_main(check) == 1
    assert "its statement" in capsys.readouterr().err
    shutil.copy(solved / "solution.json", out / "solution.json")
    edit_solution(out / "solution.json", lambda r: r.update(proofs=[]))
    assert solve_main(check) == 1
    assert f"it does not list {proof.name}" in capsys.readouterr().err
    firsts = sorted((solved / "first-moves").glob("*.jsonl.gz"))
    if firsts:  # a first move's value, for the player choosing it
        shutil.copy(solved / "solution.json", out / "solution.json")

        def flip_first(result):
            for move in result["first_moves"]["moves"]:
                if any(p["file"] == firsts[0].name for p in move.get("proofs", [])):
                    move["value_for_chooser"] = -move["value_for_chooser"] if move["value_for_chooser"] else 1

        edit_solution(out / "solution.json", flip_first)
        assert (
            solve_main(["--check", str(out / "first-moves" / firsts[0].name), "--table", str(small.path)])
            == 1
        )
        assert "its value after the moves" in capsys.readouterr().err


def test_a_shipped_solve_is_checked_by_its_name(tmp_path, capsys, monkeypatch):
    """Issue 43 item 18: ``--check VARIANT`` finds the shipped proof (package data, so a pip
    install has it) and, without the table it rests on, says which one, its size and how to build it."""
    from pathlib import Path

    from mancala_envs.cli.solve import proof_to_check, shipped_solves

    assert {"sadeqa_ii", "en_dodoi_6"} <= set(shipped_solves())
    proof = proof_to_check(Path("sadeqa_ii"))
    assert proof.is_file() and proof.name == "proof-ge1.jsonl.gz"
    assert read_header(proof)["claim"] == ">=1"
    monkeypatch.chdir(tmp_path)  # no file of that name here: the shipped solve is meant
    assert solve_main(["--check", "sadeqa_ii", "--table", str(tmp_path / "none")]) == 2
    err = capsys.readouterr().err
    assert "K = 16: 60,843,510 positions, 116 MiB on disk" in err
    assert "mancala tablebase build sadeqa_ii --max-seeds 16" in err
    unproven = [name for name in shipped_solves() if "not proven" in shipped_statement(name)]
    assert unproven  # the unfinished solves ship their evidence, without a proof
    for name in unproven:
        assert solve_main(["--check", name]) == 2
        assert f"the shipped solve {name} proved nothing (not proven" in capsys.readouterr().err


def shipped_statement(name: str) -> str:
    from mancala_envs.infra.results import read_result
    from mancala_envs.tablebase.shipped import SOLUTION, shipped_folder

    return read_result(shipped_folder(name) / SOLUTION)["statement"]


def test_first_moves_are_valued_for_the_player_choosing(tables):
    """``tablebase.first_moves`` (issue 44: out of the command line): each move of the first real
    choice, valued for the player choosing: the game's end, the table, or a search of its own."""
    from mancala_envs.tablebase.first_moves import first_choice, first_moves

    game, small, big = tables["sadeqa_ii"]
    state = positions(game, small, (11, 12), 1, seed=11)[0]
    forced, choice = first_choice(game, state)
    assert not choice.is_over and len(game.legal_actions(choice)) > 1
    moves = list(first_moves(game, small, choice, forced, max_nodes=300_000))
    assert [m.moves for m in moves] == [[*forced, a] for a in game.legal_actions(choice)]
    for move in moves:
        after = game.apply(choice, move.moves[-1])
        sign = 1 if after.to_move == choice.to_move else -1  # the table's values are the mover's
        if after.is_over:
            assert move.leaf == "end" and move.value is not None
        else:
            assert (move.leaf == "table") == small.covers(after)
            assert move.value is None or move.value == sign * big.outcome(after)
        assert (move.solution is None) == (move.leaf is not None)
    assert any(m.solution is not None and m.value is not None for m in moves)  # one search at least
