"""Forward proof search from a position down to a table (TABLEBASE.md §5): ``solve`` finds the
position's value and the proof(s) of it, in the format :mod:`~mancala_envs.tablebase.proof`
checks.

The search is an AND/OR depth-first search with iterative deepening, one claim at a time
(``>=1``, then ``<=-1``, then ``>=0`` and ``<=0``), the depth counting plies above the table. At a
node of the claim's own side (OR) one move must prove the claim, at the other side's (AND) every
move. Leaves are finished games and positions the table covers (their exact outcome). A position
met again on the current line is a cycle: a draw, so it proves ``>=0`` / ``<=0`` (the proof refers
back to it) and fails ``>=1`` / ``<=-1``. A transposition table keeps every proven (position,
claim) and the depth at which each failed; a failure inside a line that used a cycle undoes the
nodes proven since it began (they may lean on it). Moves are tried in a fixed order: leaves that
settle the node first, then by a material heuristic of the mover's side (captured and row
differences; rows and occupied holes in a game won by survival) — ordering changes the work, never
the result, and the checker verifies every proof.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mancala_envs.game import Game
from mancala_envs.rulesets import RESULT_BY_SURVIVAL
from mancala_envs.state import State
from mancala_envs.tablebase.claims import leaf_result, satisfies, served, strict
from mancala_envs.tablebase.proof import header, position_key

ORDER = (">=1", "<=-1", ">=0", "<=0")
TRUNCATED = -9  # leaf() of a truncated game: it satisfies no claim


class SearchLimit(Exception):
    """The node or time budget of a search ran out."""


@dataclass
class Proof:
    """A proven claim: the header and the nodes reachable from the root, ready to write."""

    claim: str
    header: dict[str, Any]
    nodes: list[dict[str, Any]]
    depth: int


@dataclass
class Solution:
    """What ``solve`` established about a position (``value`` None when the budget ran out first;
    ``bounds`` then says what was proven)."""

    value: int | None
    bounds: tuple[int, int]  # the value lies in [low, high]
    proofs: list[Proof]
    nodes_searched: int
    seconds: float
    depth: int  # deepest iteration finished
    max_seeds: int
    failed_depths: dict[str, int] = field(default_factory=dict)  # the deepest failed try per claim


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

    def proof(self, root_id: int, depth: int) -> Proof:
        """The nodes reachable from the root, the root first."""
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
        return Proof(self.claim, header(self.game, self.claim, root_id, k, print_), order, depth)


class Budget:
    """Nodes and seconds a solve may spend."""

    def __init__(self, max_nodes: int | None, max_seconds: float | None):
        self.max_nodes, self.max_seconds = max_nodes, max_seconds
        self.nodes, self.start = 0, time.perf_counter()

    def spend(self) -> None:
        self.nodes += 1
        if self.max_nodes is not None and self.nodes > self.max_nodes:
            raise SearchLimit(f"node budget of {self.max_nodes} spent")
        late = self.max_seconds is not None and time.perf_counter() - self.start > self.max_seconds
        if self.nodes % 1024 == 0 and late:
            raise SearchLimit(f"time budget of {self.max_seconds} s spent")


def solve(
    game: Game,
    table,
    state: State | None = None,
    max_depth: int = 64,
    max_nodes: int | None = None,
    max_seconds: float | None = None,
    progress=None,
) -> Solution:
    """The value of ``state`` (default: the initial position) for its player to move, with its
    proof(s): one ``>=1`` proof (a win), one ``<=-1`` proof (a loss), or a ``>=0`` and a ``<=0``
    proof (a draw). Iterative deepening to ``max_depth`` plies above ``table``; ``max_nodes`` and
    ``max_seconds`` bound the work (the solution then gives the bounds proven so far).
    ``progress(depth, claim, nodes)`` is called before each try."""
    state = game.initial_state() if state is None else state
    if state.is_over:
        raise ValueError("solve needs a running position: this game is over")
    if (table.game.name, table.game.holes_per_row) != (game.name, game.holes_per_row):
        raise ValueError(f"the table is for {table.game!r}, not {game!r}")
    if isinstance(max_depth, bool) or not isinstance(max_depth, (int, np.integer)) or max_depth < 0:
        raise ValueError(f"max_depth must be a non-negative integer, got {max_depth!r}")
    budget = Budget(max_nodes, max_seconds)
    provers = {claim: Prover(game, table, state, claim, budget) for claim in ORDER}
    proven: dict[str, Proof] = {}
    failed: dict[str, int] = {}
    low, high, finished = -1, 1, -1
    try:
        for depth in range(max_depth + 1):
            for claim in ORDER:
                if decided(low, high) or claim in proven or not open_claim(claim, low, high):
                    continue
                if progress is not None:
                    progress(depth, claim, budget.nodes)
                root = provers[claim].prove(depth)
                if root is None:
                    failed[claim] = depth
                    continue
                proven[claim] = provers[claim].proof(root, depth)
                low, high = tighten(claim, low, high)
            finished = depth
            if decided(low, high):
                break
    except SearchLimit:
        pass
    value = low if decided(low, high) else None
    proofs = [proven[c] for c in ORDER if c in proven and needed(c, value)]
    seconds = time.perf_counter() - budget.start
    return Solution(value, (low, high), proofs, budget.nodes, seconds, finished, table.max_seeds, failed)


def tighten(claim: str, low: int, high: int) -> tuple[int, int]:
    bound = int(claim[2:])
    return (max(low, bound), high) if claim.startswith(">=") else (low, min(high, bound))


def decided(low: int, high: int) -> bool:
    return low == high


def open_claim(claim: str, low: int, high: int) -> bool:
    """Whether proving ``claim`` could still narrow [low, high]."""
    bound = int(claim[2:])
    return (low < bound <= high) if claim.startswith(">=") else (low <= bound < high)


def needed(claim: str, value: int | None) -> bool:
    """The proofs that establish ``value`` (all proven ones while it is open)."""
    if value is None:
        return True
    return claim in {1: (">=1",), -1: ("<=-1",), 0: (">=0", "<=0")}[value]


@dataclass
class MarginSolution:
    """What ``solve_margin`` established about the margin of a position's mover (TABLEBASE.md §2:
    the final captured difference; Sadeqa II's +1 / 0 / −1): ``margin`` when a ``margin>=m`` and
    a ``margin<=m`` proof were both found, else None, ``bounds`` then what was proven."""

    margin: int | None
    bounds: tuple[float, float]  # proven: low <= the margin P forces, the margin he is held to <= high
    proofs: list[Proof]
    nodes_searched: int
    seconds: float
    depth: int  # deepest iteration finished
    max_seeds: int


def solve_margin(
    game: Game,
    table,
    state: State | None = None,
    guess: int = 0,
    max_depth: int = 64,
    max_nodes: int | None = None,
    max_seconds: float | None = None,
    progress=None,
) -> MarginSolution:
    """The exact margin of ``state``'s mover (default: the initial position) with its two proofs,
    ``margin>=m`` and ``margin<=m`` (both need the game to end: §5). Iterative deepening; at each
    depth it raises the proven floor one seed at a time (``margin>=low+1``; none proven yet:
    ``margin>=guess``, e.g. 1 where :func:`solve` found a win) and tries to close it from above
    (``margin<=low``; none proven: ``margin<=guess-1``, which lowers the guess). Budgets and
    ``progress(depth, claim, nodes)`` as in :func:`solve`; the solution gives the bounds proven
    when they run out."""
    state = game.initial_state() if state is None else state
    if state.is_over:
        raise ValueError("solve_margin needs a running position: this game is over")
    if (table.game.name, table.game.variant_params) != (game.name, game.variant_params):
        raise ValueError(f"the table is for {table.game!r}, not {game!r}")
    if isinstance(guess, bool) or not isinstance(guess, (int, np.integer)) or abs(guess) > game.total_seeds:
        raise ValueError(f"guess must be an integer within ±{game.total_seeds}, got {guess!r}")
    search = MarginSearch(game, table, state, int(guess), Budget(max_nodes, max_seconds), progress)
    finished = -1
    try:
        for depth in range(max_depth + 1):
            while search.step(depth):
                pass
            finished = depth
            if search.margin is not None:
                break
    except SearchLimit:
        pass
    low, high = search.low, search.high
    proofs = [search.proven[c] for c in search.proven if c in (f"margin>={low}", f"margin<={high}")]
    seconds = time.perf_counter() - search.budget.start
    bounds = (-float("inf") if low is None else low, float("inf") if high is None else high)
    return MarginSolution(
        search.margin, bounds, proofs, search.budget.nodes, seconds, finished, table.max_seeds
    )


class MarginSearch:
    """The proven bounds of a margin and one prover per claim tried (``solve_margin``)."""

    def __init__(self, game: Game, table, state: State, guess: int, budget: Budget, progress) -> None:
        self.game, self.table, self.state, self.guess = game, table, state, guess
        self.budget, self.progress = budget, progress
        self.low: int | None = None  # proven: P forces an end with margin >= low
        self.high: int | None = None  # proven: the opponent forces an end with P's margin <= high
        self.provers: dict[str, Prover] = {}
        self.proven: dict[str, Proof] = {}

    @property
    def margin(self) -> int | None:
        return self.low if self.low is not None and self.low == self.high else None

    def step(self, depth: int) -> bool:
        """One claim proven at ``depth`` (the bounds tightened), or False when neither is."""
        if self.margin is not None:
            return False
        if self.low is not None:
            up = self.low + 1
        else:  # no floor yet: the guess, or the proven ceiling where it lies below
            up = self.guess if self.high is None else min(self.guess, self.high)
        if (self.high is None or up <= self.high) and self.attempt(f"margin>={up}", depth):
            self.low = up
            return True
        down = self.low if self.low is not None else up - 1
        if self.attempt(f"margin<={down}", depth):
            self.high = down
            return True
        return False

    def attempt(self, claim: str, depth: int) -> bool:
        if self.progress is not None:
            self.progress(depth, claim, self.budget.nodes)
        prover = self.provers.setdefault(claim, Prover(self.game, self.table, self.state, claim, self.budget))
        root = prover.prove(depth)
        if root is not None:
            self.proven[claim] = prover.proof(root, depth)
        return root is not None
