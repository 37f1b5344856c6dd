"""The iterative-deepening prover of one claim (:class:`Prover`) and the budget a solve spends
(:class:`Budget`); :mod:`~.solve` runs the provers, :mod:`~.pn` is the best-first one.

The search is an AND/OR depth-first search with iterative deepening, the depth counting plies
above the table. At a node of the claim's own side (OR) one move must prove the claim, at the
other side's (AND) every move. Leaves are finished games and positions the table covers (their
exact outcome). A position met again on the current line is a cycle: a draw, so it proves ``>=0``
/ ``<=0`` (the proof refers back to it) and fails ``>=1`` / ``<=-1``. A transposition table keeps
every proven (position, claim) and the depth at which each failed; a failure inside a line that
used a cycle undoes the nodes proven since it began (they may lean on it). Moves are tried in a
fixed order: leaves that settle the node first, then by a material heuristic of the mover's side
(captured and row differences; rows and occupied holes in a game won by survival) — ordering
changes the work, never the result, and the checker verifies every proof.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mancala_envs.game import Game
from mancala_envs.infra.memory import available_memory
from mancala_envs.rulesets import RESULT_BY_SURVIVAL
from mancala_envs.state import State
from mancala_envs.tablebase.claims import leaf_result, satisfies, served, strict
from mancala_envs.tablebase.proof import header, position_key

TRUNCATED = -9  # leaf() of a truncated game: it satisfies no claim
MEMORY_RESERVE = 1 << 30  # a search keeps this much available, beyond its tables' next growth
MEMORY_CHECK = 1 << 16  # nodes between two looks at the available memory


class SearchLimit(Exception):
    """The node, time or memory budget of a search ran out."""


@dataclass
class Proof:
    """A proven claim: the header and the nodes reachable from the root, ready to write."""

    claim: str
    header: dict[str, Any]
    nodes: list[dict[str, Any]]
    depth: int


def heuristic(game: Game, state: State, player: int) -> int:
    """Material of ``player`` minus his opponent's (module docstring)."""
    n = game.holes_per_row
    own, opp = state.board[player * n : player * n + n], state.board[(1 - player) * n : (2 - player) * n]
    rows = int(own.sum()) - int(opp.sum())
    if game.ruleset.result == RESULT_BY_SURVIVAL:
        return rows + int((own > 0).sum()) - int((opp > 0).sum())
    return 4 * (int(state.captured[player]) - int(state.captured[1 - player])) + rows


class Prover:
    """Proof search for one claim about ``root`` (its mover is P), with a table."""

    def __init__(self, game: Game, table, root: State, claim: str, budget: Budget):
        self.game, self.table, self.root, self.claim = game, table, root, claim
        self.player = root.to_move
        self.own_side = served(claim, self.player)
        self.strict = strict(claim)
        self.budget = budget
        self.nodes: dict[int, dict[str, Any]] = {}
        self.proven: dict[tuple, int] = {}
        self.failed: dict[tuple, int] = {}
        self.on_line: dict[tuple, int] = {}
        self.created: list[tuple] = []  # keys proven, in order (undone on a failure that may need it)
        self.next_id = 0

    def leaf(self, after: State) -> int | tuple[float, float] | None:
        """P's exact result after a move when it is known without search: his outcome, or for a
        margin claim his margins (:func:`~mancala_envs.tablebase.claims.leaf_result`); a
        truncated game is none (the checker refuses it, the ply count being no part of a
        position)."""
        if after.truncated:
            return TRUNCATED
        if after.is_over or self.table.covers(after):
            return leaf_result(self.game, self.table, self.claim, after, self.player)
        return None

    def prove(self, depth: int) -> int | None:
        """The root's node id if the claim is proven within ``depth`` plies above the table."""
        return self.search(self.root, position_key(self.root), depth)

    def search(self, state: State, key: tuple, depth: int) -> int | None:
        hit = self.proven.get(key)
        if hit is not None:
            return hit
        if key in self.on_line:
            return None if self.strict else self.on_line[key]
        if self.failed.get(key, -1) >= depth:
            return None
        self.budget.spend()
        game, claim = self.game, self.claim
        children = []
        for action in game.legal_actions(state):
            after = game.apply(state, action)
            children.append((action, after, self.leaf(after)))
        mine = state.to_move == self.own_side
        moves: list[list] | None = None
        if mine:
            for action, after, result in children:
                if result is not None and result != TRUNCATED and satisfies(claim, result):
                    moves = [[action, "end" if after.is_over else "table"]]
                    break
        elif any(
            result is not None and (result == TRUNCATED or not satisfies(claim, result))
            for _, _, result in children
        ):
            self.failed[key] = max(self.failed.get(key, -1), 10**6)  # a leaf refutes it at any depth
            return None
        if moves is None and depth > 0:
            moves = self.expand(state, key, depth, children, mine)
        if moves is None:
            self.failed[key] = max(self.failed.get(key, -1), depth)
            return None
        nid = self.on_line.pop(key, None)
        if nid is None:
            nid = self.new_id()
        self.nodes[nid] = {"id": nid, "state": state.to_dict(), "claim": claim, "moves": moves}
        self.proven[key] = nid
        self.created.append(key)
        return nid

    def expand(self, state: State, key: tuple, depth: int, children: list, mine: bool) -> list[list] | None:
        """The moves of a node proven by search below it, or None (its id is reserved on the line)."""
        self.on_line[key] = self.new_id()
        mark = len(self.created)
        side = self.own_side if mine else 1 - self.own_side
        inner = [(a, s) for a, s, result in children if result is None]
        inner.sort(key=lambda item: -heuristic(self.game, item[1], side))
        moves: list[list] | None = [] if not mine else None
        for action, after in inner:
            child = self.search(after, position_key(after), depth - 1)
            if mine and child is not None:
                moves = [[action, child]]
                break
            if not mine:
                if child is None:
                    moves = None
                    break
                assert moves is not None
                moves.append([action, child])
        if not mine and moves is not None:
            moves += [[a, "end" if s.is_over else "table"] for a, s, result in children if result is not None]
            moves.sort(key=lambda m: m[0])
        if moves is None:
            self.on_line.pop(key, None)
            if not self.strict:  # nodes proven below may refer back to this one: undo them
                for undone in self.created[mark:]:
                    self.nodes.pop(self.proven.pop(undone), None)
                del self.created[mark:]
        return moves

    def new_id(self) -> int:
        self.next_id += 1
        return self.next_id - 1

    def proof(self, root_id: int, depth: int, claim: str | None = None) -> Proof:
        """The nodes reachable from the root, the root first (``claim``: theirs, if not the
        prover's)."""
        claim = self.claim if claim is None else claim
        seen, order, stack = {root_id}, [], [root_id]
        while stack:
            nid = stack.pop()
            order.append(self.nodes[nid])
            for _, child in self.nodes[nid]["moves"]:
                if isinstance(child, int) and child not in seen:
                    seen.add(child)
                    stack.append(child)
        k = self.table.max_seeds
        print_ = self.table.fingerprint(k) if hasattr(self.table, "fingerprint") else None
        return Proof(claim, header(self.game, claim, root_id, k, print_), order, depth)


class Budget:
    """Nodes and seconds a solve may spend, and the memory it must leave: a search stops (its
    findings kept) when less than :data:`MEMORY_RESERVE` plus the next growth of its searches'
    tables (:meth:`watch`) is available, before the kernel kills it."""

    def __init__(self, max_nodes: int | None, max_seconds: float | None):
        self.max_nodes, self.max_seconds = max_nodes, max_seconds
        self.nodes, self.start = 0, time.perf_counter()
        self.stopped: str | None = None  # why the search stopped, when a budget stopped it
        self.growth: list[weakref.WeakMethod] = []

    def watch(self, growth: Callable[[], int]) -> None:
        """Count a search's next growth (a bound method, held weakly: a search dropped by its owner
        is freed and no longer counted)."""
        self.growth.append(weakref.WeakMethod(growth))

    def spend(self) -> None:
        self.nodes += 1
        if self.max_nodes is not None and self.nodes > self.max_nodes:
            self.stop(f"node budget of {self.max_nodes} spent")
        late = self.max_seconds is not None and time.perf_counter() - self.start > self.max_seconds
        if self.nodes % 1024 == 0 and late:
            self.stop(f"time budget of {self.max_seconds} s spent")
        if self.nodes % MEMORY_CHECK == 0:
            self.check_memory()

    def check_memory(self) -> None:
        left = available_memory()
        self.growth = [ref for ref in self.growth if ref() is not None]
        need = MEMORY_RESERVE + max((ref()() for ref in self.growth), default=0)
        if left is not None and left < need:
            self.stop(f"memory: {left >> 20:,} MiB available, the search needs {need >> 20:,} MiB to go on")

    def stop(self, why: str) -> None:
        self.stopped = why
        raise SearchLimit(why)
