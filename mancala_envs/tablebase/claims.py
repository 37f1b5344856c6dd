"""What a proof's node claims about the result of the player ``P`` to move at its root
(TABLEBASE.md §5): the claims, whose side lists one move, and whether a leaf satisfies one.

**Outcome claims** (version 1 and 2): ``>=1`` (P forces a won end), ``>=0`` (P never loses),
``<=0`` (P never wins), ``<=-1`` (the opponent forces P's lost end). **Margin claims** (version 2,
this project's extension of §5, docs/solving.md):
``margin>=m`` (P forces the game to end with his margin at least ``m``) and ``margin<=m`` (the
opponent forces it to end with P's margin at most ``m``), ``m`` an integer. P's margin is the
final captured difference, P's seeds minus his opponent's (Songo Ewondo, En Dodoi), or his result
+1 / 0 / −1 (Sadeqa II, won by survival: §2's gains). Both margin claims need the game to end,
like ``>=1`` and ``<=-1``: their references may form no cycle.
"""

from __future__ import annotations

import math
import re

from mancala_envs.game import Game, outcome
from mancala_envs.rulesets import RESULT_BY_SURVIVAL
from mancala_envs.state import State

OUTCOME_CLAIMS = (">=1", ">=0", "<=0", "<=-1")
MARGIN = re.compile(r"margin(>=|<=)(-?[0-9]+)")


def margin_claim(op: str, bound: int) -> str:
    """``margin_claim(">=", 3)`` is ``"margin>=3"``."""
    return f"margin{op}{int(bound)}"


def parse_margin(claim: object) -> tuple[str, int] | None:
    """``("<=", -2)`` for ``"margin<=-2"``; None for anything else."""
    match = MARGIN.fullmatch(claim) if isinstance(claim, str) else None
    return (match[1], int(match[2])) if match else None


def is_claim(claim: object, version: int) -> bool:
    """Whether ``claim`` is one a proof file of format ``version`` may make."""
    return claim in OUTCOME_CLAIMS or (version >= 2 and parse_margin(claim) is not None)


def at_least(claim: str) -> bool:
    """Whether ``claim`` is a lower bound on P's result (P's own claim)."""
    return claim.startswith(">=") or claim.startswith("margin>=")


def served(claim: str, root_player: int) -> int:
    """The player whose interest the claim serves: he lists one move."""
    return root_player if at_least(claim) else 1 - root_player


def strict(claim: str) -> bool:
    """Claims that need the game to end (no cycle allowed)."""
    return claim in (">=1", "<=-1") or parse_margin(claim) is not None


def satisfies(claim: str, result: int | tuple[float, float]) -> bool:
    """Whether P's result meets ``claim``: an outcome (+1 / 0 / −1) for an outcome claim; for a
    margin claim, the margins ``(low, high)`` P can force at least and be held to at most
    (:func:`leaf_margins`)."""
    margin = parse_margin(claim)
    if margin is None:
        assert isinstance(result, int)
        return {">=1": result >= 1, ">=0": result >= 0, "<=0": result <= 0, "<=-1": result <= -1}[claim]
    assert isinstance(result, tuple)
    op, bound = margin
    return result[0] >= bound if op == ">=" else result[1] <= bound


def final_margin(game: Game, state: State, player: int) -> int:
    """``player``'s margin at the end of a finished game (module docstring)."""
    if game.ruleset.result == RESULT_BY_SURVIVAL:
        return outcome(state.winner, player)
    return int(state.captured[player]) - int(state.captured[1 - player])


def table_margins(game: Game, table, state: State, player: int) -> tuple[float, float]:
    """The margins ``(low, high)`` of ``player`` at a position the table covers: what he can force
    the game to end with at least, and what his opponent can force it to end with at most
    (§2's ``d + A`` and ``d + B`` of the mover, seen from ``player``; ±inf where unforced)."""
    a, b = table.bounds(state)
    if game.ruleset.result == RESULT_BY_SURVIVAL:
        d = 0  # §2: the captured seeds play no role
    else:
        d = int(state.captured[state.to_move]) - int(state.captured[1 - state.to_move])
    low, high = d + a, d + b
    return (low, high) if state.to_move == player else (-high, -low)


def leaf_result(game: Game, table, claim: str, state: State, player: int) -> int | tuple[float, float]:
    """What ``claim`` is checked against at a leaf (a finished game, or a position ``table``
    covers), for ``player``: his outcome for an outcome claim, his margins for a margin claim."""
    if parse_margin(claim) is None:
        if state.is_over:
            return outcome(state.winner, player)
        value = table.outcome(state)
        return value if state.to_move == player else -value
    if state.is_over:
        margin = final_margin(game, state, player)
        return (margin, margin)
    return table_margins(game, table, state, player)


def shown(result: int | tuple[float, float]) -> str:
    """A leaf's result in a message: ``+1``, or margins ``[3, 5]`` (``inf`` where unforced)."""
    if isinstance(result, tuple):
        low, high = (int(v) if math.isfinite(v) else v for v in result)
        return f"margins [{low}, {high}]"
    return f"{result:+d}"
