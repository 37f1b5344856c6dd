"""Forward proof search from a position down to a table (TABLEBASE.md §5): ``solve`` finds the
position's value and the proof(s) of it, in the format :mod:`~mancala_envs.tablebase.proof`
checks, one claim at a time (``>=1``, then ``<=-1``, then ``>=0`` and ``<=0``) by iterative
deepening (:mod:`~.prover`, ``method="id"``, the default) or, for the claims that need the game to
end, by proof-number search (:mod:`~.pn`, ``method="pn"``); ``solve_margin`` finds the exact
margin the same way.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from mancala_envs.game import Game
from mancala_envs.state import State
from mancala_envs.tablebase.claims import strict
from mancala_envs.tablebase.pn import PNProver
from mancala_envs.tablebase.prover import TRUNCATED, Budget, Proof, Prover, SearchLimit, heuristic

__all__ = [
    "ORDER",
    "TRUNCATED",
    "Budget",
    "MarginSolution",
    "Proof",
    "Prover",
    "SearchLimit",
    "Solution",
    "heuristic",
    "solve",
    "solve_margin",
]

ORDER = (">=1", "<=-1", ">=0", "<=0")
METHODS = ("id", "pn")  # iterative deepening (every claim), or proof-number search where a claim needs an end


@dataclass
class Solution:
    """What ``solve`` established about a position (``value`` None when the budget ran out first;
    ``bounds`` then says what was proven)."""

    value: int | None
    bounds: tuple[int, int]  # the value lies in [low, high]
    proofs: list[Proof]
    nodes_searched: int
    seconds: float
    depth: int  # deepest iteration finished, or the longest line of a proof found by pn if deeper
    max_seeds: int
    failed_depths: dict[str, int] = field(default_factory=dict)  # the deepest failed try per claim
    stopped: str | None = None  # the budget that stopped the search (Budget.stopped)


def solve(
    game: Game,
    table,
    state: State | None = None,
    max_depth: int = 64,
    max_nodes: int | None = None,
    max_seconds: float | None = None,
    progress=None,
    method: str = "id",
) -> Solution:
    """The value of ``state`` (default: the initial position) for its player to move, with its
    proof(s): one ``>=1`` proof (a win), one ``<=-1`` proof (a loss), or a ``>=0`` and a ``<=0``
    proof (a draw). Iterative deepening to ``max_depth`` plies above ``table``; ``max_nodes`` and
    ``max_seconds`` bound the work (the solution then gives the bounds proven so far).
    ``progress(depth, claim, nodes)`` is called before each try. ``method="pn"`` proves ``>=1`` and
    ``<=-1`` by proof-number search (:mod:`~.pn`), in turns of doubling node quotas until one is
    proven or both are refuted; their refutations then prove the draw (``<=0``, ``>=0``) or, where
    one rests on a repetition, iterative deepening tries the draw's claims."""
    state = game.initial_state() if state is None else state
    if state.is_over:
        raise ValueError("solve needs a running position: this game is over")
    if (table.game.name, table.game.holes_per_row) != (game.name, game.holes_per_row):
        raise ValueError(f"the table is for {table.game!r}, not {game!r}")
    if isinstance(max_depth, bool) or not isinstance(max_depth, (int, np.integer)) or max_depth < 0:
        raise ValueError(f"max_depth must be a non-negative integer, got {max_depth!r}")
    budget = Budget(max_nodes, max_seconds)
    provers = {claim: prover_class(method, claim)(game, table, state, claim, budget) for claim in ORDER}
    proven: dict[str, Proof] = {}
    failed: dict[str, int] = {}
    low, high, finished = -1, 1, -1
    try:
        if method == "pn":
            for claim, proof in race(provers, progress, budget).items():
                proven[claim] = proof
                low, high = tighten(claim, low, high)
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
    depth = max([finished, *(p.depth for p in proofs)]) if method == "pn" else finished
    stopped = None if value is not None else budget.stopped
    k = table.max_seeds
    return Solution(value, (low, high), proofs, budget.nodes, seconds, depth, k, failed, stopped)


def race(provers: dict[str, Prover], progress, budget: Budget) -> dict[str, Proof]:
    """``method="pn"``: the claims that need the game to end, tried in turns (each try twice the
    nodes of the last, resuming it) until one is proven (returned) or both are refuted (then the
    draw's two proofs from the refutations, when both exist; else nothing)."""
    turn = 0
    while True:
        live = [c for c in ORDER if strict(c) and not getattr(provers[c], "disproven", True)]
        if not live:  # both refuted: their refutations prove the draw's claims, if neither needs a cycle
            found = [p for c in ORDER if strict(c) and (p := provers[c].complement()) is not None]
            return {p.claim: p for p in found} if len(found) == 2 else {}
        for claim in live:
            if progress is not None:
                progress(turn, claim, budget.nodes)
            root = provers[claim].prove(turn)
            if root is not None:
                return {claim: provers[claim].proof(root, turn)}
        turn += 1


def prover_class(method: str, claim: str) -> type[Prover]:
    """The prover ``method`` uses for ``claim`` (``ValueError`` for an unknown method)."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    return PNProver if method == "pn" and strict(claim) else Prover


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
    stopped: str | None = None  # the budget that stopped the search (Budget.stopped)


def solve_margin(
    game: Game,
    table,
    state: State | None = None,
    guess: int = 0,
    max_depth: int = 64,
    max_nodes: int | None = None,
    max_seconds: float | None = None,
    progress=None,
    method: str = "id",
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
    prover_class(method, ">=1")  # checks the method
    search = MarginSearch(game, table, state, int(guess), Budget(max_nodes, max_seconds), progress, method)
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
    stopped = None if search.margin is not None else search.budget.stopped
    return MarginSolution(
        search.margin, bounds, proofs, search.budget.nodes, seconds, finished, table.max_seeds, stopped
    )


class MarginSearch:
    """The proven bounds of a margin and one prover per claim tried and not yet proven
    (``solve_margin``)."""

    def __init__(
        self, game: Game, table, state: State, guess: int, budget: Budget, progress, method: str = "id"
    ) -> None:
        self.game, self.table, self.state, self.guess, self.method = game, table, state, guess, method
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
        if claim not in self.provers:
            make = prover_class(self.method, claim)
            self.provers[claim] = make(self.game, self.table, self.state, claim, self.budget)
        prover = self.provers[claim]
        root = prover.prove(depth)
        if root is not None:
            self.proven[claim] = prover.proof(root, depth)
            del self.provers[claim]  # never tried again: its tables go (a long search's memory)
        return root is not None
