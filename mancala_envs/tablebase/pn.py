"""Depth-first proof-number search (df-pn, Nagai 2002) for a claim that needs the game to end
(``>=1``, ``<=-1``, margin claims): ``solve(..., method="pn")``.

Iterative deepening (:class:`~.prover.Prover`) searches every line to the same depth; a proof of a
won game is usually narrow and deep (the winner's forcing lines), so a best-first search finds it
with far fewer nodes. Each position carries a *proof number* (how many leaves must still be proven
to prove the claim there, at least) and a *disproof number*; the search always descends to the
child that most cheaply changes its parent's numbers, within thresholds inherited from the parent
(the ``1 + epsilon`` thresholds of Pawlewicz and Lew, 2007). A transposition table keeps every
position's numbers; a proven position keeps the moves that prove it, and a disproven one is never
searched again.

A refutation is a proof too: where a claim that needs an end is refuted without a repetition of the
line, the refuting moves prove the opposite claim that does not (``>=1`` refuted: ``<=0``; ``<=-1``
refuted: ``>=0``), so a draw is proven by refuting both (:meth:`PNProver.complement`).

A position met again on the current line refutes the claim there (the claim needs the game to end):
such a *path-dependent* refutation is used by the node above it but never stored, so a position is
never wrongly recorded as disproven for every line (the graph-history interaction). Proven results
never depend on the line: a position is proven only from leaves and positions proven before it, so
the proof's references form no cycle; the checker verifies every proof anyway.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from mancala_envs.core.engine import new_work
from mancala_envs.core.fast import entry_point
from mancala_envs.game import Game
from mancala_envs.state import State
from mancala_envs.tablebase.claims import strict
from mancala_envs.tablebase.pn_expand import (
    ENDS,
    ILLEGAL,
    INNER,
    PROVES,
    TRUNCATED_GAME,
    claim_params,
    expand,
    key_length,
)
from mancala_envs.tablebase.prover import Budget, Proof, Prover

INF = 1 << 40  # a proof or disproof number that is never reached: proven (0, INF), disproven (INF, 0)
QUOTA = 20_000  # nodes of a try at depth 0; each depth doubles it (``prove``)
COMPLEMENT = {">=1": "<=0", "<=-1": ">=0"}  # what a refutation of the claim proves
EPSILON = 0.25  # a child's threshold is the second-best number times 1 + EPSILON
SHIFT, MASK = 41, (1 << 41) - 1  # a position's numbers in one int: proof << SHIFT | disproof (<= INF)
RECURSION = 20_000  # Python's frame limit while searching (a line is one frame a ply)
SHARDS = 64  # parts of each of the search's tables (a power of 2: Shards)


def node_key(state: State) -> bytes:
    """A position's key in the search's tables: what :func:`~.proof.position_key` holds (the ply
    count aside), a byte a count (every game has fewer than 256 seeds), about a third of its memory."""
    pending = state.first_move_pending
    flags = b"\x03" if pending is None else bytes([int(pending[0]), int(pending[1])])  # lengths differ
    counts = np.concatenate([state.board, state.captured]).astype(np.uint8)
    return counts.tobytes() + bytes([state.to_move]) + flags


class Shards:
    """A dict split into :data:`SHARDS` dicts by its keys' hash, so that a growth (a dict allocates
    arrays twice the size of its present ones before it frees those) takes a small part of the
    memory at once: a search of 100 M positions in one dict would need some 10 GB for a moment."""

    __slots__ = ("parts",)

    def __init__(self) -> None:
        self.parts: list[dict] = [{} for _ in range(SHARDS)]

    def get(self, key: bytes, default: Any = None) -> Any:
        return self.parts[hash(key) & (SHARDS - 1)].get(key, default)

    def __contains__(self, key: bytes) -> bool:
        return key in self.parts[hash(key) & (SHARDS - 1)]

    def __getitem__(self, key: bytes) -> Any:
        return self.parts[hash(key) & (SHARDS - 1)][key]

    def __setitem__(self, key: bytes, value: Any) -> None:
        self.parts[hash(key) & (SHARDS - 1)][key] = value

    def pop(self, key: bytes, default: Any = None) -> Any:
        return self.parts[hash(key) & (SHARDS - 1)].pop(key, default)

    def __len__(self) -> int:
        return sum(map(len, self.parts))

    def next_growth(self) -> int:
        """Bytes the next growth of its largest part may take at once (twice that part's arrays)."""
        return 2 * max(sys.getsizeof(part) for part in self.parts)


class Pause(Exception):
    """A try's node quota is spent (the numbers found so far are kept for the next try)."""


class PNProver(Prover):
    """df-pn for one claim about ``root`` (module docstring); the same proofs as :class:`Prover`."""

    def __init__(self, game: Game, table, root: State, claim: str, budget: Budget):
        if not strict(claim):
            raise ValueError(f"proof-number search proves claims that need the game to end, not {claim!r}")
        if game.total_seeds > 255:
            raise ValueError(f"proof-number search keeps a count in a byte, not {game.total_seeds} seeds")
        super().__init__(game, table, root, claim, budget)
        self.numbers = Shards()  # searched position -> proof << SHIFT | disproof
        self.won = Shards()  # proven position -> [[action, child key | "end" | "table"], ...]
        self.lost = Shards()  # refuted position (not by a repetition) -> its moves
        self.line: set[bytes] = set()
        self.disproven = False  # the root is refuted (a try ended without a proof, not for its quota)
        self.quota = self.spent = 0
        n, opening = game.holes_per_row, game.ruleset.has_opening_rule
        self.key_bytes = key_length(n, opening)
        self.root_row = np.array(root.array, dtype=np.int32)
        self.scratch = (
            game.rules,
            new_work(n),
            table.comp,
            table.offsets,
            table.values,
            claim_params(claim, self.player, table.max_seeds, opening),
            np.empty(n, dtype=np.int8),
        )
        self.out = np.empty((n, 3), dtype=np.int32)
        self.keys = np.zeros((n, self.key_bytes), dtype=np.uint8)
        rows = np.empty((n, game.state_size), dtype=np.int32)
        self.expand = entry_point(expand, self.root_row, *self.scratch, rows, self.out, self.keys)
        budget.watch(self.next_growth)

    def next_growth(self) -> int:
        """Bytes the next growth of one of the search's tables may take at once."""
        return max(t.next_growth() for t in (self.numbers, self.won, self.lost))

    def prove(self, depth: int | None = None) -> int | None:
        """The root's node id if the claim is proven within this try: ``QUOTA * 2**depth`` nodes
        (None: no limit), the search resuming from the numbers of the tries before. Not a depth
        limit: a proof may be of any depth. ``disproven`` tells a refuted root from a pause."""
        key = node_key(self.root)
        if key not in self.won and not self.disproven:
            self.quota = INF if depth is None else QUOTA << min(depth, 40)
            self.spent = 0
            limit = sys.getrecursionlimit()
            sys.setrecursionlimit(max(limit, RECURSION))
            try:
                _, disproof, _ = self.mid(self.root_row, key, self.root.to_move, INF - 1, INF - 1)
                self.disproven = disproof == 0
            except Pause:
                pass
            finally:
                sys.setrecursionlimit(limit)
        if key not in self.won:
            return None
        return self.collect(key)

    def children(self, row: np.ndarray) -> list[tuple[int, np.ndarray, bytes | None, int, int, int]]:
        """``(action, child row, key, kind, legal moves, mover)`` per legal move of the position
        ``row`` (:func:`~.pn_expand.expand`; key None for a leaf)."""
        rows = np.empty((self.keys.shape[0], row.shape[0]), dtype=np.int32)
        self.expand(row, *self.scratch, rows, self.out, self.keys)
        buf, size = self.keys.tobytes(), self.key_bytes
        kids = []
        for action, (kind, moves, mover) in enumerate(self.out.tolist()):
            if kind != ILLEGAL:
                key = buf[action * size : action * size + size] if kind == INNER else None
                kids.append((action, rows[action], key, kind, moves, mover))
        return kids

    def start_numbers(self, key: bytes | None, kind: int, moves: int, mover: int) -> tuple[int, int, bool]:
        """A child's ``(proof, disproof, path_dependent)`` before searching it."""
        if key is None:
            return (0, INF, False) if kind in PROVES else (INF, 0, False)
        if key in self.won:
            return 0, INF, False
        if key in self.line:
            return INF, 0, True
        known = self.numbers.get(key)
        if known is not None:
            return known >> SHIFT, known & MASK, False
        return (1, moves, False) if mover == self.own_side else (moves, 1, False)

    def mid(
        self, row: np.ndarray, key: bytes, mover: int, max_proof: int, max_disproof: int
    ) -> tuple[int, int, bool]:
        """Search below the position ``row`` (``mover`` to move) until its proof number reaches
        ``max_proof`` or its disproof number ``max_disproof`` (or it is proven or disproven);
        returns its numbers and whether a disproof rests on a repetition of the current line."""
        self.budget.spend()
        self.spent += 1
        if self.spent > self.quota:
            raise Pause
        kids = self.children(row)
        numbers = [list(self.start_numbers(k, kind, moves, who)) for _, _, k, kind, moves, who in kids]
        mine = mover == self.own_side
        self.line.add(key)
        try:
            while True:
                proof, disproof = self.node_numbers(numbers, mine)
                if proof == 0:
                    self.record_proof(key, kids, numbers, mine)
                    return 0, INF, False
                if disproof == 0:
                    refuting = [n[2] for n in numbers if n[1] == 0]
                    on_line = all(refuting) if not mine else any(refuting)
                    if not on_line:
                        self.record_refutation(key, kids, numbers, mine)
                    return INF, 0, on_line
                if proof >= max_proof or disproof >= max_disproof:
                    self.numbers[key] = proof << SHIFT | disproof
                    return proof, disproof, False
                limits = (proof, disproof, max_proof, max_disproof)
                best, most_proof, most_disproof = self.select(numbers, mine, *limits)
                _, after, k, _, _, who = kids[best]
                numbers[best] = list(self.mid(after, k, who, most_proof, most_disproof))
        finally:
            self.line.discard(key)

    @staticmethod
    def node_numbers(numbers: list[list], mine: bool) -> tuple[int, int]:
        """A node's numbers from its children's: at the claim's side the cheapest proof and the sum
        of disproofs, at the other side the reverse."""
        if mine:
            return min(n[0] for n in numbers), min(INF, sum(n[1] for n in numbers))
        return min(INF, sum(n[0] for n in numbers)), min(n[1] for n in numbers)

    @staticmethod
    def select(numbers: list[list], mine: bool, proof: int, disproof: int, max_proof: int, max_disproof: int):
        """The child to search and its thresholds (the most proving child; at the claim's side the
        one of least proof number, at the other side the one of least disproof number)."""
        side = 0 if mine else 1
        order = sorted(range(len(numbers)), key=lambda i: numbers[i][side])
        best = order[0]
        second = numbers[order[1]][side] if len(order) > 1 else INF
        cap = min(INF - 1, second + 1 + int(second * EPSILON))
        if mine:
            return best, min(max_proof, cap), min(INF - 1, max_disproof - disproof + numbers[best][1])
        return best, min(INF - 1, max_proof - proof + numbers[best][0]), min(max_disproof, cap)

    def record_proof(self, key: bytes, kids: list, numbers: list[list], mine: bool) -> None:
        """Keep the moves that prove ``key``: one proven move at the claim's side, every move at the
        other (each child a leaf or a position proven before this one)."""
        chosen = [i for i, n in enumerate(numbers) if n[0] == 0]
        if mine:
            chosen = chosen[:1]
        moves = []
        for i in chosen:
            action, _, k, kind, _, _ = kids[i]
            moves.append([action, k if k is not None else ("end" if kind in ENDS else "table")])
        self.won[key] = moves
        self.numbers.pop(key, None)

    def record_refutation(self, key: bytes, kids: list, numbers: list[list], mine: bool) -> None:
        """Keep the moves that refute ``key`` (none of them by a repetition of the line): every move
        at the claim's side, one refuted move at the other; a truncated game refutes the claim but
        proves nothing, so it is kept as such."""
        chosen = [i for i, n in enumerate(numbers) if n[1] == 0 and not n[2]]
        if not mine:
            chosen = chosen[:1]
        moves = []
        for i in chosen:
            action, _, k, kind, _, _ = kids[i]
            leaf = "truncated" if kind == TRUNCATED_GAME else ("end" if kind in ENDS else "table")
            moves.append([action, k if k is not None else leaf])
        self.lost[key] = moves
        self.numbers[key] = INF << SHIFT

    def complement(self) -> Proof | None:
        """The proof of the opposite claim (:data:`COMPLEMENT`) from the root's refutation, or None
        (the root not refuted, or refuted only by a repetition or a truncated game)."""
        key = node_key(self.root)
        if self.claim not in COMPLEMENT or key not in self.lost:
            return None
        if not self.reaches_no_truncated(key):
            return None
        root = self.collect(key, self.lost, COMPLEMENT[self.claim])
        return super().proof(root, self.proof_depth, COMPLEMENT[self.claim])

    def reaches_no_truncated(self, root_key: bytes) -> bool:
        """Whether the refutation from ``root_key`` has no truncated game among its leaves."""
        seen, stack = {root_key}, [root_key]
        while stack:
            for _, child in self.lost[stack.pop()]:
                if child == "truncated":
                    return False
                if isinstance(child, bytes) and child not in seen:
                    seen.add(child)
                    stack.append(child)
        return True

    def collect(self, root_key: bytes, moves_of: Shards | None = None, claim: str | None = None) -> int:
        """The proof's nodes from the root's (states replayed from the root), in ``self.nodes``;
        returns the root's id. ``moves_of``: the proven positions' moves (default ``won``) and
        ``claim`` theirs (default the prover's). Sets ``self.proof_depth``, the longest line."""
        moves_of = self.won if moves_of is None else moves_of
        claim = self.claim if claim is None else claim
        ids: dict[bytes, int] = {root_key: self.new_id()}
        stack = [(root_key, self.root)]
        self.nodes = {}
        while stack:
            key, state = stack.pop()
            moves = []
            for action, child in moves_of[key]:
                if isinstance(child, bytes):
                    if child not in ids:
                        ids[child] = self.new_id()
                        stack.append((child, self.game.apply(state, action)))
                    child = ids[child]
                moves.append([action, child])
            nid = ids[key]
            self.nodes[nid] = {"id": nid, "state": state.to_dict(), "claim": claim, "moves": moves}
        self.proof_depth = self.longest_line(ids[root_key])
        return ids[root_key]

    def proof(self, root_id: int, depth: int):
        """The proof (its ``depth`` the longest line's, whatever ``depth`` is given)."""
        return super().proof(root_id, self.proof_depth)

    def longest_line(self, root: int) -> int:
        """Inner plies of the longest line from ``root`` (0: every move of the root reaches a leaf;
        the proof's references form no cycle) — the depth an iterative deepening would need."""
        depth: dict[int, int] = {}
        stack = [(root, False)]
        while stack:
            nid, done = stack.pop()
            inner = [c for _, c in self.nodes[nid]["moves"] if isinstance(c, int)]
            if done:
                depth[nid] = max((depth[c] + 1 for c in inner), default=0)
            elif nid not in depth:
                stack.append((nid, True))
                stack.extend((c, False) for c in inner if c not in depth)
        return depth[root]
