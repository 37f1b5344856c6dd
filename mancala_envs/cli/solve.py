"""``mancala solve``: prove a game's value from its initial position (TABLEBASE.md §5).

::

    mancala solve GAME [--holes-per-row N] [--table DIR] [--out DIR] [--max-depth D]
                  [--max-seconds S] [--max-nodes N] [--position JSON] [--no-first-moves] [--margin]
                  [--method id|pn] [--resume]
    mancala solve --check PROOF [--table DIR]

The first form searches forward from the initial position (or ``--position``) down to the table
(:func:`mancala_envs.tablebase.solve.solve`; ``--method pn``: the claims that need the game to end
by proof-number search, :mod:`mancala_envs.tablebase.pn`), writes the proof(s) as gzip-compressed
JSON lines (``proof-ge1.jsonl.gz`` …) and ``solution.json`` (value, bounds, table, nodes, time,
peak memory, each proof's size and checksum) to ``--out`` (default ``solve-VARIANT``), and, unless
``--no-first-moves``, the value after each move of the first real choice (forced moves followed;
:mod:`mancala_envs.tablebase.first_moves`), each with its own proof under ``first-moves/``; with
``--margin``, the root's exact margin (:func:`~mancala_envs.tablebase.solve.solve_margin`) and its
``margin>=m`` / ``margin<=m`` proofs (``proof-margin-ge3.jsonl.gz`` …, version 2 of §5); with
``--resume``, what the ``solution.json`` already in ``--out`` proved is kept and only the rest is
searched (:func:`resumable`). The second
form checks a proof with a table only (:func:`mancala_envs.tablebase.proof.check_proof`; a proof
records its table's fingerprint, and another table is refused), compares it with the
``solution.json`` beside it when there is one (:func:`disagreement`), and exits 0 when both hold, 1
when they do not.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import resource
import shlex
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from mancala_envs import Game, State
from mancala_envs.cli.parsing import command_args, standalone
from mancala_envs.infra import interrupts
from mancala_envs.infra.compile_note import announce_compilation
from mancala_envs.infra.errors import one_line
from mancala_envs.infra.results import provenance, read_result, write_result
from mancala_envs.tablebase import store
from mancala_envs.tablebase.claims import parse_margin
from mancala_envs.tablebase.first_moves import chooser_sign, first_choice, first_moves
from mancala_envs.tablebase.index import layer_offsets
from mancala_envs.tablebase.proof import (
    ProofError,
    Verdict,
    check_proof,
    position_key,
    proof_game,
    read_header,
    write_proof,
)
from mancala_envs.tablebase.shipped import SOLUTION, VALUE_WORDS, shipped_folder, shipped_solves
from mancala_envs.tablebase.solve import METHODS, MarginSolution, Solution, solve, solve_margin
from mancala_envs.tablebase.table import Tablebase, load
from mancala_envs.variant import add_game_arguments, game_flags, game_from_arguments

NAME = "solve"
PROG = f"mancala {NAME}"
FILE_CLAIMS = {">=1": "ge1", ">=0": "ge0", "<=0": "le0", "<=-1": "le-1"}


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        NAME,
        prog=PROG,
        help="prove a game's value from its initial position, or check a proof",
        description="Prove a game's value from its initial position by a forward search down to an "
        "endgame table, writing checkable proofs (docs/TABLEBASE.md, section 5); or check a proof.",
    )
    add_game_arguments(p, max_plies=False, required=False)
    p.add_argument("--table", type=Path, metavar="DIR", help="the table's folder (default: the cache's)")
    p.add_argument("--out", type=Path, metavar="DIR", help="output folder (default: solve-VARIANT)")
    p.add_argument("--max-depth", type=int, default=64, metavar="D", help="plies above the table (64)")
    p.add_argument("--max-seconds", type=float, default=None, metavar="S", help="time budget of each search")
    p.add_argument("--max-nodes", type=int, default=None, metavar="N", help="node budget of each search")
    p.add_argument(
        "--position",
        metavar="JSON",
        help="solve this position (State.to_dict() as JSON, or a file holding it), not the initial one",
    )
    p.add_argument("--no-first-moves", action="store_true", help="only the root position's value")
    p.add_argument(
        "--resume",
        action="store_true",
        help="keep what the solve in --out proved (same position and table; its proofs unchanged) "
        "and search only what it left unproven, with these limits (first moves and margin as asked)",
    )
    p.add_argument(
        "--method",
        choices=METHODS,
        default=METHODS[0],
        help="id: iterative deepening for every claim (the default); pn: proof-number search for the "
        "claims that need the game to end (>=1, <=-1, margins), no depth limit",
    )
    p.add_argument(
        "--margin",
        action="store_true",
        help="also the root's exact seed margin under perfect play, with a proof of each bound",
    )
    p.add_argument(
        "--check",
        type=Path,
        metavar="PROOF",
        help="check this proof file instead of solving, or a shipped solve's root proof by its name "
        f"({', '.join(shipped_solves()) or 'none shipped'})",
    )
    return p


def build_parser() -> argparse.ArgumentParser:
    """Deprecated: the parser is :func:`add_parser`'s."""
    warnings.warn(
        "mancala_envs.cli.solve.build_parser is deprecated: use add_parser", DeprecationWarning, stacklevel=2
    )
    return standalone(add_parser)


def open_table(game: Game, folder: Path | None, needed: int | None = None) -> Tablebase:
    """The table in ``folder`` (default: the cache's); ``ValueError`` saying how to build it (the
    ``needed`` K of a proof, with its positions and its size on disk, 2 bytes a position)."""
    path = folder if folder is not None else store.default_path(game)
    if not (path / store.HEADER).is_file():
        size = ""
        if needed is not None:
            positions = 2 * int(layer_offsets(needed, 2 * game.holes_per_row)[needed + 1])  # either mover
            size = f" (K = {needed}: {positions:,} positions, {2 * positions / 2**20:,.0f} MiB on disk)"
        flags = "".join(f" {flag}" for flag in game_flags(game))
        raise ValueError(
            f"no {game.variant} table at {path}{size}: build one with 'mancala tablebase build "
            f"{game.name}{flags} --max-seeds {needed if needed is not None else 'K'} --out {path}', "
            "or give --table DIR"
        )
    return load(path, game.with_max_plies())


def describe(value: int | None, bounds: tuple[int, int], player: int) -> str:
    if value is not None:
        return f"player_{player} {VALUE_WORDS[value]} with perfect play"
    low, high = bounds
    if low == -1 and high == 1:
        return "not proven (no bound)"
    return f"not proven: player_{player}'s result lies in [{low:+d}, {high:+d}]"


def claim_stem(claim: str) -> str:
    """A proof file's name part for ``claim``: ``ge1``, ``le-1``, ``margin-ge3``, ``margin-le-2``."""
    margin = parse_margin(claim)
    if margin is None:
        return FILE_CLAIMS[claim]
    return f"margin-{'ge' if margin[0] == '>=' else 'le'}{margin[1]}"


def save_proofs(
    solution: Solution | MarginSolution, folder: Path, stem: str, table: Tablebase
) -> list[dict[str, Any]]:
    """Write each proof of ``solution`` and check the file with the checker; returns their
    descriptions (``checked_seconds``: the time the check took)."""
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for proof in solution.proofs:
        path = folder / f"{stem}{claim_stem(proof.claim)}.jsonl.gz"
        write_proof(path, proof.header, proof.nodes)
        start = time.perf_counter()
        verdict = check_proof(path, table)  # a ProofError here is a bug of the solver: let it show
        if verdict.claim != proof.claim:
            raise ProofError(f"{path}: the checker read the claim {verdict.claim}, not {proof.claim}")
        out.append(
            {
                "file": path.name,
                "claim": proof.claim,
                "nodes": len(proof.nodes),
                "depth": proof.depth,
                "bytes": path.stat().st_size,
                "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
                "checked_seconds": round(time.perf_counter() - start, 3),
            }
        )
    return out


def work(entry: dict[str, Any]) -> str:
    """A search's work for its line, from its entry in ``solution.json``: nodes, seconds and, when
    a budget stopped it with its result still open, which."""
    stopped = f"; stopped: {entry['stopped']}" if entry.get("stopped") else ""
    return f"{entry['nodes_searched']:,} nodes, {entry['seconds']:.1f} s{stopped}"


def summary(solution: Solution) -> dict[str, Any]:
    stopped = {"stopped": solution.stopped} if solution.stopped else {}
    return {
        "value": solution.value,
        "bounds": list(solution.bounds),
        "nodes_searched": solution.nodes_searched,
        "seconds": round(solution.seconds, 3),
        "depth": solution.depth,
        **stopped,
    }


def position_arg(game: Game, text: str) -> State:
    """``--position``: JSON, or the name of a file holding it."""
    path = Path(text)
    raw = path.read_text(encoding="utf-8") if not text.lstrip().startswith("{") and path.is_file() else text
    try:
        data = json.loads(raw)
    except ValueError:
        raise ValueError("--position is neither a JSON state nor a file holding one") from None
    if not isinstance(data, dict):
        raise ValueError("--position must be a JSON object (State.to_dict())")
    return game.state_from_dict(data)


def _solve(args: argparse.Namespace) -> int:
    if args.game is None:
        raise ValueError("name a game to solve, or give --check PROOF")
    game = game_from_arguments(args)
    announce_compilation("rules", "tablebase")
    table = open_table(game, args.table)
    out = args.out if args.out is not None else Path(f"solve-{game.variant}")
    limits = {"max_depth": args.max_depth, "max_seconds": args.max_seconds, "max_nodes": args.max_nodes}
    limits["method"] = args.method
    root = game.initial_state() if args.position is None else position_arg(game, args.position)
    initial = position_key(root) == position_key(game.initial_state())
    where = "the initial position" if initial else "the given position (--position)"
    print(f"{PROG}: {game.variant} from {where}, table max_seeds={table.max_seeds} at {table.path}")
    previous = resumable(out, game, table, root) if args.resume else None
    if previous is not None:  # what a stop's line names: a solution.json of this solve
        args.kept = out / SOLUTION
    kept = previous or {}  # what an earlier solve proved stays unless searched again
    result: dict[str, Any] = {
        "game": game.name,
        "params": game.variant_params,
        "variant": game.variant,
        "root": root.to_dict(),
        "player": root.to_move,
        "table": {
            "max_seeds": table.max_seeds,
            "positions": table.covered_positions,
            "fingerprint": table.fingerprint(),
        },
        "limits": {k: v for k, v in limits.items() if k != "method"},
        "method": args.method,
        "provenance": provenance(shlex.join(["mancala", *args.argv])),
        **({"resumed": resumed_solves(previous)} if previous is not None else {}),
        "first_moves": kept.get("first_moves"),
        "peak_memory_mb": kept.get("peak_memory_mb", 0.0),  # of every run of this solve
        **({"margin": kept["margin"]} if kept.get("margin") is not None else {}),
    }
    result.update(root_report(game, table, root, out, limits, previous))
    write_solution(out, result)  # after every search that ends: a stop keeps what it proved
    args.kept = out / SOLUTION
    if not args.no_first_moves and result["value"] is not None:  # written after each move searched
        result["first_moves"] = first_move_report(
            game, table, root, out, limits, kept.get("first_moves"),
            on_move=lambda first: write_solution(out, {**result, "first_moves": first}),
        )  # fmt: skip
    if args.margin:
        result["margin"] = margin_report(game, table, root, result["value"], out, limits, kept.get("margin"))
        write_solution(out, result)
    print(f"{PROG}: proofs and solution.json in {out}")
    return 0


def root_report(
    game: Game, table: Tablebase, root: State, out: Path, limits: dict[str, Any], kept: dict[str, Any] | None
) -> dict[str, Any]:
    """The root's part of ``solution.json`` (statement, value, bounds, work, proofs); ``kept``: the
    solve being resumed, whose value is kept when proven and whose bounds are kept where the new
    search proves less."""
    if kept is not None and kept["value"] is not None:
        print(f"{PROG}: {kept['statement']} (kept from {out / SOLUTION})")
        return {
            k: kept[k]
            for k in ("statement", "value", "bounds", "nodes_searched", "seconds", "depth", "proofs")
        }
    progress = show_progress if sys.stdout.isatty() else None
    solution = solve(game, table, root, progress=progress, **limits)
    if sys.stdout.isatty():
        print()
    searched = {**summary(solution), "proofs": save_proofs(solution, out, "proof-", table)}
    searched["bounds"], searched["proofs"] = stronger_bounds(searched, kept)
    low, high = searched["bounds"]
    searched["value"] = low if low == high else None
    if searched["value"] is not None:  # decided with the earlier proofs: no budget stopped its value
        searched.pop("stopped", None)
    words = describe(searched["value"], (low, high), root.to_move)
    print(f"{PROG}: {words} ({work(searched)})")
    return {"statement": words, **searched}


def stronger_bounds(new: dict[str, Any], old: dict[str, Any] | None) -> tuple[list, list]:
    """The ``bounds`` and ``proofs`` of a claim searched again: each side (``>=`` below, ``<=``
    above; ``None`` unbounded) from the search that proved more, the new one on a tie."""
    if old is None or "bounds" not in old:
        return list(new["bounds"]), list(new["proofs"])
    bounds, proofs = [], []
    for side, sign in ((0, ">="), (1, "<=")):
        fresh, earlier = new["bounds"][side], old["bounds"][side]
        better = earlier is not None and (
            fresh is None or (earlier > fresh if side == 0 else earlier < fresh)
        )
        source = old if better else new
        bounds.append(source["bounds"][side])
        proofs += [p for p in source.get("proofs", []) if sign in p["claim"]]
    return bounds, proofs


def peak_memory_mb() -> float:
    """This process's peak resident memory so far, in MiB."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def write_solution(out: Path, result: dict[str, Any]) -> None:
    """``out/solution.json``: ``result`` with the peak memory so far (of every run of a resumed
    solve) and the commands that check its proofs."""
    proofs = [*result["proofs"], *(result.get("margin") or {}).get("proofs", [])]
    payload = {
        **result,
        "peak_memory_mb": max(peak_memory_mb(), result.get("peak_memory_mb", 0.0)),
        "check": [f"mancala solve --check {out / p['file']} --table DIR" for p in proofs],
    }
    write_result(out / SOLUTION, payload)


def show_progress(depth: int, claim: str, nodes: int) -> None:
    """A search's progress: one line, redrawn on a terminal."""
    print(f"\r  depth {depth:>3}  trying {claim:<4}  nodes {nodes:,}", end="", flush=True)


def margin_report(
    game: Game,
    table: Tablebase,
    root: State,
    value: int | None,
    out: Path,
    limits: dict[str, Any],
    kept: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The ``margin`` of ``solution.json``: the root mover's exact margin (None when the budget ran
    out first), the bounds proven, the search's work and the proofs, written beside the others.
    ``kept``: the margin of the solve being resumed, kept when exact, else the floor it proved is
    the search's first guess."""
    if kept is not None and kept.get("margin") is not None:
        print(f"{PROG}: {kept['statement']} (kept)")
        return kept
    floor = (kept or {}).get("bounds", [None, None])[0]
    solution = solve_margin(game, table, root, guess=floor if floor is not None else value or 0, **limits)
    searched = {
        "bounds": [int(b) if abs(b) != float("inf") else None for b in solution.bounds],
        "proofs": save_proofs(solution, out, "proof-", table),
    }
    (low, high), proofs = stronger_bounds(searched, kept)
    margin = low if low is not None and low == high else None
    words = margin_words(root.to_move, margin, low, high)
    report = {
        "margin": margin,
        "bounds": [low, high],
        "statement": words,
        "nodes_searched": solution.nodes_searched,
        "seconds": round(solution.seconds, 3),
        "depth": solution.depth,
        "proofs": proofs,
        **({"stopped": solution.stopped} if solution.stopped and margin is None else {}),
    }
    print(f"{PROG}: {words} ({work(report)})")
    return report


def margin_words(player: int, margin: int | None, low: int | None, high: int | None) -> str:
    """The margin's statement: exact, or the bounds proven."""
    if margin is not None:
        return f"player_{player}'s margin is {margin:+d} with perfect play"
    proven = [
        f"at least {low:+d}" if low is not None else "",
        f"at most {high:+d}" if high is not None else "",
    ]
    return f"player_{player}'s margin is not proven: {', '.join(filter(None, proven)) or 'no bound'}"


def first_move_report(
    game: Game,
    table: Tablebase,
    root: State,
    out: Path,
    limits: dict[str, Any],
    kept: dict[str, Any] | None = None,
    on_move: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """The ``first_moves`` of ``solution.json``: the value of each move of the first real choice
    (:func:`~mancala_envs.tablebase.first_moves.first_moves`), printed as found, the proofs of
    those searched written under ``OUT/first-moves/``. ``kept``: the first moves of the solve being
    resumed, whose proven values are kept (the others are searched again, the earlier bounds kept
    where the new search does not reach them). ``on_move(first_moves)`` after each search, the moves not
    searched yet listed as unproven."""
    forced, choice = first_choice(game, root)
    earlier = {m["moves"][-1]: m for m in (kept or {}).get("moves", [])}
    known = {a: m for a, m in earlier.items() if m["value_for_chooser"] is not None}
    found = dict(known)
    for m in known.values():
        print(f"  after {m['moves']}: player_{choice.to_move} {VALUE_WORDS[m['value_for_chooser']]} (kept)")
    for move in first_moves(game, table, choice, forced, skip=known, **limits):
        child: dict[str, Any]
        if move.solution is None:
            child = {"leaf": move.leaf}
        else:
            stem = "after-" + "-".join(map(str, move.moves)) + "-"
            proofs = save_proofs(move.solution, out / "first-moves", stem, table)
            child = {**summary(move.solution), "proofs": proofs}
        entry = {"moves": move.moves, "value_for_chooser": move.value, **child}
        found[move.moves[-1]] = merged_move(game, choice, entry, earlier.get(move.moves[-1]))
        print(f"  after {move.moves}: player_{choice.to_move} {VALUE_WORDS.get(move.value, 'is not proven')}")
        if on_move is not None:
            on_move(first_moves_listing(game, choice, forced, found, earlier))
    return first_moves_listing(game, choice, forced, found, earlier)


def merged_move(game: Game, choice: State, entry: dict[str, Any], earlier: dict[str, Any] | None) -> dict:
    """``entry`` (a first move searched) with each bound of the ``earlier`` entry it did not reach
    (:func:`stronger_bounds`); their value when the bounds meet."""
    if entry["value_for_chooser"] is not None or earlier is None or "bounds" not in earlier:
        return entry
    bounds, proofs = stronger_bounds(entry, earlier)
    value = bounds[0] if bounds[0] == bounds[1] else None
    sign = chooser_sign(choice, game.apply(choice, entry["moves"][-1]))
    chooser = None if value is None else sign * value
    merged = {**entry, "value_for_chooser": chooser, "value": value, "bounds": bounds, "proofs": proofs}
    if value is not None:  # decided with the earlier proofs: no budget stopped its value
        merged.pop("stopped", None)
    return merged


def first_moves_listing(
    game: Game, choice: State, forced: list, found: dict, earlier: dict
) -> dict[str, Any]:
    """The ``first_moves`` entry: each legal move's result, an earlier one, or (not searched yet)
    no bound."""
    unsearched = {"value_for_chooser": None, "value": None, "bounds": [-1, 1], "nodes_searched": 0,
                  "seconds": 0.0, "depth": -1, "proofs": []}  # fmt: skip
    moves = [
        found.get(a) or earlier.get(a) or {"moves": [*forced, a], **unsearched}
        for a in game.legal_actions(choice)
    ]
    return {"forced": forced, "player": choice.to_move, "moves": moves}


def resumable(out: Path, game: Game, table: Tablebase, root: State) -> dict[str, Any]:
    """``--resume``: the ``solution.json`` in ``out``, when it solved ``root`` of ``game`` on this
    very table and every proof it lists is there unchanged; ``ValueError`` naming what differs."""
    path = out / SOLUTION
    if not path.is_file():
        raise ValueError(f"--resume: there is no solve to resume in {out} (no {SOLUTION})")
    old = read_result(path)
    if old.get("variant") != game.variant:
        raise ValueError(f"--resume: {path} solved {old.get('variant')}, not {game.variant}")
    missing = [k for k in ("root", "proofs", "table") if k not in old]
    fingerprint = (old.get("table") or {}).get("fingerprint")
    if missing or not isinstance(fingerprint, str):
        what = ", ".join(missing) or "its table's fingerprint"
        raise ValueError(
            f"--resume: {path} does not record {what} (an older solve): solve again without --resume"
        )
    if position_key(game.state_from_dict(old["root"])) != position_key(root):
        raise ValueError(f"--resume: {path} solved another position")
    if fingerprint != table.fingerprint():
        raise ValueError(
            f"--resume: {path} rests on another table (max_seeds={old['table']['max_seeds']}, "
            f"fingerprint {fingerprint[:16]}), not the one at {table.path}"
        )
    margin_proofs = (old.get("margin") or {}).get("proofs", [])
    first = [p for m in (old.get("first_moves") or {}).get("moves", []) for p in m.get("proofs", [])]
    listed = [(out, p) for p in [*old["proofs"], *margin_proofs]] + [(out / "first-moves", p) for p in first]
    for folder, entry in listed:
        proof = folder / entry["file"]
        if not proof.is_file() or hashlib.sha256(proof.read_bytes()).hexdigest() != entry["sha256"]:
            raise ValueError(f"--resume: {proof}, listed in {path}, is missing or changed (its SHA-256)")
    return old


def resumed_solves(previous: dict[str, Any]) -> list[dict[str, Any]]:
    """The earlier runs of a resumed solve, newest first: each one's limits, method and provenance."""
    here = {k: previous.get(k) for k in ("limits", "method", "provenance")}
    return [here, *previous.get("resumed", [])]


def proof_to_check(named: Path) -> Path:
    """``named`` itself when it is a file; else the root proof of the shipped solve of that name."""
    if named.is_file() or str(named) not in shipped_solves():
        return named
    folder = shipped_folder(str(named))
    solution = read_result(folder / SOLUTION)
    if not solution["proofs"]:
        statement = solution["statement"]
        raise ValueError(f"the shipped solve {named} proved nothing ({statement}): no proof to check")
    return folder / solution["proofs"][0]["file"]


def _check(args: argparse.Namespace) -> int:
    args.check = proof_to_check(args.check)
    game, max_seeds = proof_game(args.check, read_header(args.check))
    table = open_table(game, args.table, max_seeds)
    try:
        verdict = check_proof(args.check, table)
    except ProofError as e:
        print(f"{PROG}: the proof does not hold: {one_line(e)}", file=sys.stderr)
        return 1
    solution = solution_beside(args.check)
    wrong = None if solution is None else disagreement(args.check, verdict, read_result(solution))
    if wrong is not None:
        print(f"{PROG}: the proof holds, but {solution} disagrees with it: {wrong}", file=sys.stderr)
        return 1
    where = "the initial position" if verdict.from_initial_position else "its root position"
    player = verdict.root.to_move
    table_words = f"table max_seeds={verdict.max_seeds}" + (
        f", fingerprint {verdict.fingerprint[:16]}" if verdict.fingerprint else " (no fingerprint recorded)"
    )
    print(
        f"{PROG}: proof holds: player_{player}'s result {verdict.claim} from {where} of {game.variant} "
        f"({verdict.nodes:,} nodes, {table_words})" + ("" if solution is None else f"; {solution} agrees")
    )
    return 0


def solution_beside(proof: Path) -> Path | None:
    """The ``solution.json`` of the solve that wrote ``proof``: in its folder, or the one above a
    ``first-moves/`` folder; None when there is none."""
    folder = proof.parent.parent if proof.parent.name == "first-moves" else proof.parent
    path = folder / "solution.json"
    return path if path.is_file() else None


def meets(claim: str, bounds: Sequence[int | None]) -> bool:
    """Whether result bounds ``[low, high]`` (for the proof's root player; margins for a margin
    claim, None where unproven) say what ``claim`` says."""
    low, high = bounds
    margin = parse_margin(claim)
    if margin is not None:
        op, bound = margin
        return low is not None and low >= bound if op == ">=" else high is not None and high <= bound
    return {">=1": low >= 1, ">=0": low >= 0, "<=0": high <= 0, "<=-1": high <= -1}[claim]


def listing(result: dict[str, Any], name: str) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """``(the proof's entry, the solve it belongs to)`` of the proof file ``name`` in a solution:
    the root's proofs, or those of a first move (whose solve holds ``value`` and ``bounds``)."""
    for entry in result.get("proofs", []):
        if entry.get("file") == name:
            return entry, result
    for entry in (result.get("margin") or {}).get("proofs", []):
        if entry.get("file") == name:
            return entry, {**result["margin"], "value": result["margin"].get("margin")}
    for move in (result.get("first_moves") or {}).get("moves", []):
        for entry in move.get("proofs", []):
            if entry.get("file") == name:
                return entry, move
    return None


def disagreement(proof: Path, verdict: Verdict, result: dict[str, Any]) -> str | None:
    """What a solution says against a checked proof: not listing it (or another file by that
    name: its SHA-256), another claim, or a value or bounds the claim contradicts; None if nothing."""
    found = listing(result, proof.name)
    if found is None:
        return f"it does not list {proof.name}"
    entry, solved = found
    if entry.get("sha256") != hashlib.sha256(proof.read_bytes()).hexdigest():
        return f"it records another {proof.name} (the SHA-256 differs)"
    if entry.get("claim") != verdict.claim:
        return f"it lists the proof as {entry.get('claim')!r}, the proof claims {verdict.claim}"
    value, bounds = solved.get("value"), solved.get("bounds")
    if not isinstance(bounds, list) or len(bounds) != 2 or not meets(verdict.claim, bounds):
        return f"its bounds {bounds!r} contradict the proof's {verdict.claim}"
    if value is not None and not bounds[0] == value == bounds[1]:
        return f"its value {value!r} is not its bounds {bounds!r}"
    if parse_margin(verdict.claim) is not None:  # the root's margin: its bounds and value are all
        return None
    player = verdict.root.to_move
    if solved is result and (result.get("player"), result.get("statement")) != (
        player,
        describe(value, tuple(bounds), player),
    ):
        return f"its statement {result.get('statement')!r} is not what its value says for player_{player}"
    if solved is not result and value is not None:  # a first move's value, for the player choosing it
        sign = 1 if player == (result.get("first_moves") or {}).get("player") else -1
        if solved.get("value_for_chooser") != sign * value:
            return f"its value after the moves {solved.get('moves')} is not the one its proof gives"
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """``mancala solve`` (``argv``: its arguments); returns the exit status."""
    return run(command_args(add_parser, NAME, list(sys.argv[1:] if argv is None else argv)))


def run(args: argparse.Namespace) -> int:
    try:
        with interrupts.sigterm_raises():
            return _check(args) if args.check is not None else _solve(args)
    except (ValueError, OSError) as e:
        print(f"{PROG}: error: {one_line(e)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as e:
        print(f"\n{PROG}: {interrupts.stopped(e)}{what_a_stop_kept(args)}", file=sys.stderr)
        return interrupts.exit_status(e)


def what_a_stop_kept(args: argparse.Namespace) -> str:
    """The end of a stopped solve's line: the file holding the searches that ended, if any."""
    if args.check is not None:
        return ""
    solution = getattr(args, "kept", None)  # set once out/solution.json holds this solve's searches
    if solution is None:
        return "; no search had ended, so there is nothing to resume"
    return f"; {solution} holds every search that ended (--resume)"
