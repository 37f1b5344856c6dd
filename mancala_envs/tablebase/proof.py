"""Proofs of a position's value (TABLEBASE.md §5): the file format and the checker.

A proof shows that the player ``P`` to move at its root can force a bound on his result: ``>=1``
(a won end), ``>=0`` (never a loss), ``<=0`` (never a win) or ``<=-1`` (the opponent forces P's lost
end); in a version 2 file also on his margin: ``margin>=m`` / ``margin<=m`` (P, or his opponent,
forces the game to end with P's margin at least / at most ``m``; :mod:`.claims`). Every node of
one proof makes the root's claim. At a node whose mover the claim serves (P
for ``>=``, the opponent for ``<=``) one legal move is listed, elsewhere every legal move; each
move leads to ``"end"`` (it ends the game), ``"table"`` (the table covers the position after it)
or a node id. A reference names a node of the **same position**: board, captured seeds, player to
move and Sadeqa II's opening flags (the ply count aside: never-ending play is a draw, §1). For
``>=1``, ``<=-1`` and the margin claims the references form no cycle (the game must end); for
``>=0`` and ``<=0`` they may (a game that never ends is a draw).

The checker (:func:`check_proof`) reads only the file, :meth:`Game.state_from_dict`,
:meth:`Game.legal_mask`, :meth:`Game.apply` and a table's ``covers`` / ``outcome`` (``bounds`` for a
margin claim).
"""

from __future__ import annotations

import gzip
import io
import json
import os
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from mancala_envs.game import Game, get_game, outcome
from mancala_envs.infra.config_files import is_sha256
from mancala_envs.state import State
from mancala_envs.tablebase.claims import (
    OUTCOME_CLAIMS,
    is_claim,
    leaf_result,
    parse_margin,
    satisfies,
    served,
    shown,
    strict,
)

FORMAT, VERSION = "mancala_envs.proof", 2  # the newest version; a file of version 1 is still read
VERSIONS = (1, 2)  # 2 adds the margin claims; an outcome proof is written as version 1, unchanged
CLAIMS = OUTCOME_CLAIMS  # the claims of version 1
LEAVES = ("end", "table")
MAX_LINE = 1 << 20  # characters of one line: a node takes well under a kilobyte
MAX_NESTING = 16  # brackets deep: a node line nests 4 deep
MAX_BRACKETS = 256  # a line with fewer brackets parses safely as it is (no deeper than the parser's limit)
HEADER_KEYS = frozenset({"format", "version", "game", "params", "claim", "root", "table"})
TABLE_KEYS = frozenset({"max_seeds", "fingerprint"})


def position_key(state: State) -> tuple:
    """What makes two states the same position for a reference (the ply count aside)."""
    return (state.board.tobytes(), state.captured.tobytes(), state.to_move, state.first_move_pending)


def end_result(state: State, player: int) -> int:
    """Deprecated: ``outcome(state.winner, player)`` (:func:`mancala_envs.outcome`)."""
    warnings.warn(
        "mancala_envs.tablebase.proof.end_result is deprecated: use outcome(state.winner, player)",
        DeprecationWarning,
        stacklevel=2,
    )
    return outcome(state.winner, player)


class ProofError(ValueError):
    """A proof file that does not prove its claim; the message names the node and the problem."""


@dataclass(frozen=True)
class Verdict:
    """What a checked proof establishes."""

    game: Game
    root: State
    claim: str
    nodes: int
    max_seeds: int
    fingerprint: str | None = None  # of the table the proof rests on; None in a proof from before them

    @property
    def from_initial_position(self) -> bool:
        return position_key(self.root) == position_key(self.game.initial_state())


# ---------------------------------------------------------------- the file


def open_text(path: str | os.PathLike, mode: str, compressed: bool | None = None) -> TextIO:
    """A proof file, gzip-compressed when its name ends in ``.gz`` (or ``compressed`` says so;
    written with no time stamp, so that a proof written again is byte-identical)."""
    path = Path(path)
    if path.suffix == ".gz" if compressed is None else compressed:
        if mode == "w":  # no time stamp in the gzip header: the same proof is the same bytes
            return io.TextIOWrapper(gzip.GzipFile(path, "wb", mtime=0), encoding="utf-8")
        return gzip.open(path, mode + "t", encoding="utf-8")  # type: ignore[return-value]
    return open(path, mode, encoding="utf-8")


def header(
    game: Game, claim: str, root: int, max_seeds: int, fingerprint: str | None = None
) -> dict[str, Any]:
    """A proof's header line; ``fingerprint``: that of the table's layers ``0..max_seeds``
    (:meth:`~mancala_envs.tablebase.Tablebase.fingerprint`), the table the proof rests on."""
    table: dict[str, Any] = {"max_seeds": int(max_seeds)}
    if fingerprint is not None:
        table["fingerprint"] = fingerprint
    return {
        "format": FORMAT,
        "version": 1 if claim in OUTCOME_CLAIMS else 2,
        "game": game.name,
        "params": game.variant_params,
        "claim": claim,
        "root": root,
        "table": table,
    }


def write_proof(path: str | os.PathLike, head: dict[str, Any], nodes: Iterable[dict[str, Any]]) -> None:
    """The header line, then one line per node (written to a temporary file, then renamed); a
    failed write (a full disk) removes the temporary file and raises ``OSError`` naming ``path``."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    try:
        with open_text(tmp, "w", compressed=path.suffix == ".gz") as fh:
            fh.write(json.dumps(head) + "\n")
            for node in nodes:
                fh.write(json.dumps(node, separators=(",", ":")) + "\n")
        os.replace(tmp, path)
    except BaseException as e:  # a full disk, an interrupt: no partial file, and the error names the proof
        tmp.unlink(missing_ok=True)
        if isinstance(e, OSError):
            raise OSError(e.errno, e.strerror or str(e), os.fspath(path)) from None
        raise


def nesting(line: str) -> int:
    """How deep the brackets of a JSON line nest (those inside strings aside)."""
    depth = deepest = 0
    in_string = escaped = False
    for char in line:
        if in_string:
            escaped, in_string = (False, True) if escaped else (char == "\\", char != '"')
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def parse_line(path: str | os.PathLike, number: int, line: str) -> Any:
    """One line of a proof file as JSON: ``ProofError`` naming the line when it is longer than
    :data:`MAX_LINE` (checked as it is read, so a gigabyte line is never held) or nests deeper than
    :data:`MAX_NESTING` (measured before parsing when it holds over :data:`MAX_BRACKETS` brackets: no
    ``RecursionError``), or is not JSON."""
    if len(line) > MAX_LINE:
        raise ProofError(f"{path}, line {number}: longer than {MAX_LINE:,} characters; not a proof line")
    if line.count("[") + line.count("{") > MAX_BRACKETS and nesting(line) > MAX_NESTING:
        raise ProofError(f"{path}, line {number}: nested more than {MAX_NESTING} deep; not a proof line")
    try:
        return json.loads(line)
    except (ValueError, RecursionError):
        raise ProofError(f"{path}, line {number}: not valid JSON") from None


def read_header(path: str | os.PathLike) -> dict[str, Any]:
    """The header line of a proof file (``ProofError`` when it is not one)."""
    try:
        with open_text(path, "r") as fh:
            line = fh.readline(MAX_LINE + 1)
    except (ValueError, OSError, EOFError) as e:  # gzip raises OSError / EOFError for a bad file
        raise ProofError(f"{path}: no proof header ({e})") from None
    head = parse_line(path, 1, line)
    if not isinstance(head, dict) or head.get("format") != FORMAT or head.get("version") not in VERSIONS:
        raise ProofError(f"{path}: not a {FORMAT} file of version {' or '.join(map(str, VERSIONS))}")
    return head


def proof_game(path: str | os.PathLike, head: dict[str, Any]) -> tuple[Game, int]:
    """The game of a proof header and the ``max_seeds`` of the table it rests on, every field
    checked (``ProofError`` naming the field): no unknown key, ``claim`` one of :data:`CLAIMS`
    (version 2: or a margin claim ``margin>=m`` / ``margin<=m``, ``|m|`` at most the game's seeds),
    ``root`` an integer, ``params`` integers, ``table`` ``{"max_seeds": K}`` with ``K`` an integer in
    ``0..`` the game's seeds."""
    unknown = sorted(set(head) - HEADER_KEYS)
    if unknown:
        raise ProofError(f"{path}: unknown header field {unknown[0]!r}")
    if not is_claim(head.get("claim"), head.get("version", 1)):
        margins = " or margin>=M / margin<=M" if head.get("version", 1) >= 2 else ""
        raise ProofError(
            f"{path}: claim must be one of {', '.join(CLAIMS)}{margins}, got {head.get('claim')!r}"
        )
    root, params, table = head.get("root"), head.get("params"), head.get("table")
    if not isinstance(root, int) or isinstance(root, bool):
        raise ProofError(f"{path}: root must be a node id (an integer), got {root!r}")
    if not isinstance(head.get("game"), str) or not isinstance(params, dict):
        raise ProofError(f"{path}: the header must name a game and its params")
    if any(not isinstance(v, int) or isinstance(v, bool) for v in params.values()):
        raise ProofError(f"{path}: params must be integers, got {params!r}")
    try:
        game = get_game(head["game"], **params)
    except (TypeError, ValueError) as e:
        raise ProofError(f"{path}: the header names no game of this library ({e})") from None
    if not isinstance(table, dict) or "max_seeds" not in table or not set(table) <= TABLE_KEYS:
        raise ProofError(f'{path}: table must be {{"max_seeds": K, "fingerprint": F}}, got {table!r}')
    if "fingerprint" in table and not is_sha256(table["fingerprint"]):
        raise ProofError(
            f"{path}: table.fingerprint must be 64 lowercase hex digits, got {table['fingerprint']!r}"
        )
    need = table["max_seeds"]
    if not isinstance(need, int) or isinstance(need, bool) or not 0 <= need <= game.total_seeds:
        raise ProofError(
            f"{path}: table.max_seeds must be an integer in 0..{game.total_seeds} (the game's seeds), "
            f"got {need!r}"
        )
    margin = parse_margin(head["claim"])
    if margin is not None and abs(margin[1]) > game.total_seeds:
        raise ProofError(
            f"{path}: a margin bound is at most the game's {game.total_seeds} seeds, got {margin[1]}"
        )
    return game, need


def read_nodes(path: str | os.PathLike) -> Iterator[dict[str, Any]]:
    """The node lines of a proof file, after its header (``ProofError`` for a bad line)."""
    try:
        with open_text(path, "r") as fh:
            fh.readline(MAX_LINE + 1)
            number = 1
            while line := fh.readline(MAX_LINE + 1):
                number += 1
                node = parse_line(path, number, line)
                if not isinstance(node, dict):
                    raise ProofError(f"{path}, line {number}: a node is a JSON object")
                yield node
    except (OSError, EOFError) as e:
        raise ProofError(f"{path}: unreadable ({e})") from None


# ---------------------------------------------------------------- the checker


def check_proof(path: str | os.PathLike, table) -> Verdict:
    """Check the proof at ``path`` with ``table`` (a :class:`~mancala_envs.tablebase.Tablebase`
    of the proof's game with at least its ``max_seeds``); returns the :class:`Verdict`, or raises
    :class:`ProofError` naming the first problem found."""
    head = read_header(path)
    game, need = proof_game(path, head)
    claim = head["claim"]
    if (table.game.name, table.game.holes_per_row) != (game.name, game.holes_per_row):
        raise ProofError(f"the table is for {table.game!r}, the proof for {game!r}")
    if table.max_seeds < need:
        raise ProofError(f"the proof needs a table of max_seeds >= {need!r}; this one has {table.max_seeds}")
    check_fingerprint(head["table"], table)
    nodes: dict[Any, tuple[State, list]] = {}
    for node in read_nodes(path):
        nid = node.get("id")
        if not isinstance(nid, int) or isinstance(nid, bool) or nid in nodes:
            raise ProofError(f"node id {nid!r} is not an integer or is listed twice")
        if node.get("claim") != claim:
            raise ProofError(f"node {nid}: claim {node.get('claim')!r}, the proof's is {claim!r}")
        moves = node.get("moves")
        if not isinstance(moves, list) or not moves:
            raise ProofError(f"node {nid}: no moves listed")
        try:
            state = game.state_from_dict(node.get("state"))
        except (TypeError, ValueError) as e:
            raise ProofError(f"node {nid}: bad state: {e}") from None
        nodes[nid] = (state, moves)
    root = head.get("root")
    if root not in nodes:
        raise ProofError(f"the root node {root!r} is not listed")
    player = nodes[root][0].to_move
    edges: dict[Any, list] = {}
    within = HeaderTable(table, need)  # a table leaf must lie within the table the header names
    for nid, (state, moves) in nodes.items():
        edges[nid] = check_node(game, within, claim, player, nid, state, moves, nodes)
    if strict(claim):
        check_no_cycle(edges, claim)
    return Verdict(game, nodes[root][0], claim, len(nodes), int(need), head["table"].get("fingerprint"))


def check_fingerprint(recorded: dict[str, Any], table) -> None:
    """``ProofError`` naming the table the proof needs when ``table``'s layers ``0..max_seeds``
    are not those of the table the proof was made with (``recorded``: the header's ``table``; a
    proof from before fingerprints records none, and a table without a header has none)."""
    if "fingerprint" not in recorded or not hasattr(table, "fingerprint"):
        return
    need, want = recorded["max_seeds"], recorded["fingerprint"]
    have = table.fingerprint(need)
    if have != want:
        raise ProofError(
            f"the proof rests on a table whose layers 0..{need} have the fingerprint {want}; those of the "
            f"table at {getattr(table, 'path', table)} have {have}: another table (edited values?); check "
            "the proof with the table it was made with"
        )


@dataclass(frozen=True)
class HeaderTable:
    """``table`` as far as the proof header says it goes: it covers what ``table`` covers with at
    most ``max_seeds`` seeds on the board, so a header that understates its table is refused."""

    table: Any
    max_seeds: int

    def covers(self, state: State) -> bool:
        return int(state.board.sum()) <= self.max_seeds and self.table.covers(state)

    def outcome(self, state: State) -> int:
        return self.table.outcome(state)

    def bounds(self, state: State) -> tuple[float, float]:
        return self.table.bounds(state)


def check_node(game: Game, table, claim: str, player: int, nid, state: State, moves: list, nodes) -> list:
    """One node's moves and leaves; returns the node ids it refers to."""
    if state.is_over:
        raise ProofError(f"node {nid}: the game is over there (a finished game is an 'end' leaf)")
    legal = {int(a) for a in game.legal_mask(state).nonzero()[0]}
    actions = []
    for item in moves:
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], int)):
            raise ProofError(f"node {nid}: a move is [ACTION, CHILD], got {item!r}")
        actions.append(item[0])
    if len(set(actions)) != len(actions):
        raise ProofError(f"node {nid}: a move is listed twice")
    if not set(actions) <= legal:
        raise ProofError(f"node {nid}: move(s) {sorted(set(actions) - legal)} are not legal")
    if state.to_move == served(claim, player):
        if len(actions) != 1:
            raise ProofError(f"node {nid}: the claim's own side moves: list one move, not {len(actions)}")
    elif set(actions) != legal:
        raise ProofError(f"node {nid}: reply(ies) {sorted(legal - set(actions))} are missing")
    refs = []
    for action, child in moves:
        after = game.apply(state, action)
        if after.truncated:  # the ply count is no part of a position (§1): a proof never relies on it
            raise ProofError(f"node {nid}, move {action}: the game is truncated there (max_plies)")
        if child == "end":
            if not after.done:
                raise ProofError(f"node {nid}, move {action}: the game does not end")
            if not satisfies(claim, leaf_result(game, table, claim, after, player)):
                raise ProofError(f"node {nid}, move {action}: the game ends against the claim {claim}")
        elif child == "table":
            if after.is_over or not table.covers(after):
                raise ProofError(f"node {nid}, move {action}: the table does not cover the position after it")
            value = leaf_result(game, table, claim, after, player)
            if not satisfies(claim, value):
                raise ProofError(
                    f"node {nid}, move {action}: the table's value {shown(value)} breaks {claim}"
                )
        elif child in nodes and not isinstance(child, bool):
            if position_key(nodes[child][0]) != position_key(after) or after.is_over:
                raise ProofError(f"node {nid}, move {action}: node {child} is not the position after it")
            refs.append(child)
        else:
            raise ProofError(f"node {nid}, move {action}: child {child!r} is no node, 'end' or 'table'")
    return refs


def check_no_cycle(edges: dict[Any, list], claim: str) -> None:
    """``ProofError`` when the references of a ``>=1`` / ``<=-1`` / margin proof form a cycle."""
    colour: dict[Any, int] = {}  # 1 on the stack, 2 done
    for start in edges:
        if start in colour:
            continue
        stack = [(start, iter(edges[start]))]
        colour[start] = 1
        while stack:
            nid, children = stack[-1]
            child = next(children, None)
            if child is None:
                colour[nid] = 2
                stack.pop()
            elif colour.get(child) == 1:
                raise ProofError(f"the references cycle through node {child}: a {claim} proof must end")
            elif child not in colour:
                colour[child] = 1
                stack.append((child, iter(edges[child])))
