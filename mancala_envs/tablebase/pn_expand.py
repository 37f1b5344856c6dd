"""A proof-number search node's moves in one compiled call (:func:`expand`), for :mod:`~.pn`.

For every legal move of a packed state, the engine's :func:`~mancala_envs.core.engine.apply_into`
(what ``Game.apply`` runs) writes the child, and the child is classified as :class:`~.prover.Prover`
does with ``Game`` and ``Tablebase`` calls: a truncated game, a finished game or a position the
table covers (a leaf, whose result satisfies the claim or not: :func:`~.claims.leaf_result` and
:func:`~.claims.satisfies` read from the table's arrays), or an inner position, with its legal move
count and its search key (:func:`~.pn.node_key`'s bytes). ``tests/tablebase/test_pn.py`` checks the
two ways agree on every child of random games of every game.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mancala_envs.core.engine import apply_into, outcome
from mancala_envs.core.layout import (
    DONE,
    TRUNCATED,
    off_captured,
    off_mask,
    off_pending,
    off_status,
    off_to_move,
    off_winner,
)
from mancala_envs.rulesets import R_HOLES, R_RESULT, RESULT_BY_SURVIVAL
from mancala_envs.tablebase.claims import at_least, parse_margin
from mancala_envs.tablebase.kernels import NEG_INF, POS_INF
from mancala_envs.tablebase.probe import covered, lead, outcome_of, table_index

# a child's kind (column 0 of expand's ``out``; an inner child's legal moves and mover: columns 1, 2)
ILLEGAL, INNER, END_PROVES, END_FAILS, TABLE_PROVES, TABLE_FAILS, TRUNCATED_GAME = range(-1, 6)
PROVES = (END_PROVES, TABLE_PROVES)
ENDS = (END_PROVES, END_FAILS)
# the claim and table in ``params``: max_seeds (-1: no table), P, margin claim?, at least?, bound, flag bytes
P_MAX_SEEDS, P_PLAYER, P_MARGIN, P_AT_LEAST, P_BOUND, P_FLAGS = range(6)
UNBOUNDED = 1 << 20  # an unforced margin (a table's -inf / +inf)


def claim_params(claim: str, player: int, max_seeds: int, has_opening_rule: bool) -> np.ndarray:
    """:func:`expand`'s ``params`` for ``claim`` about ``player``'s result (outcome claims ``>=1``
    and ``<=-1`` compare his outcome with the bound, margin claims his margins)."""
    margin = parse_margin(claim)
    bound = margin[1] if margin is not None else (1 if claim == ">=1" else -1)
    if margin is None and claim not in (">=1", "<=-1"):
        raise ValueError(f"the compiled expansion serves claims that need the game to end, not {claim!r}")
    flags = 2 if has_opening_rule else 1
    return np.array([max_seeds, player, margin is not None, at_least(claim), bound, flags], dtype=np.int64)


def key_length(holes_per_row: int, has_opening_rule: bool) -> int:
    """Bytes of a search key: a count a hole and a store, the mover, the opening flags."""
    return 2 * holes_per_row + 3 + (2 if has_opening_rule else 1)


@njit(cache=True)
def _meets(params, low, high):
    """Whether P's result ``low .. high`` (an outcome: ``low == high``) meets the claim."""
    if params[P_AT_LEAST]:
        return low >= params[P_BOUND]
    return high <= params[P_BOUND]


@njit(cache=True)
def _end_result(child, rules, params, n):
    """P's result at a finished game: his outcome, or his final margin for a margin claim."""
    player = params[P_PLAYER]
    won = outcome(child[off_winner(n)], player)
    if params[P_MARGIN] == 0 or rules[R_RESULT] == RESULT_BY_SURVIVAL:
        return won
    cap = off_captured(n)
    return child[cap + player] - child[cap + 1 - player]


@njit(cache=True)
def _table_meets(child, rules, params, comp, offsets, values, n):
    """Whether P's exact result at a covered position meets the claim (TABLEBASE.md §2)."""
    q = table_index(child, n, comp, offsets)
    a, b = np.int64(values[q, 0]), np.int64(values[q, 1])
    d = np.int64(lead(child, rules))
    low = -UNBOUNDED if a == NEG_INF else d + a
    high = UNBOUNDED if b == POS_INF else d + b
    if params[P_MARGIN] == 0:
        low = high = outcome_of(d, a, b)
    if child[off_to_move(n)] != params[P_PLAYER]:
        low, high = -high, -low
    return _meets(params, low, high)


@njit(cache=True)
def expand(state, rules, work, comp, offsets, values, params, mask, rows, out, keys):
    """Every move of ``state``: row ``a`` of ``rows`` the child of move ``a``, ``out[a]`` its kind and,
    for an inner child, its legal move count and mover; ``keys[a]`` an inner child's search key.
    Returns the number of legal moves."""
    n = rules[R_HOLES]
    legal = 0
    for a in range(n):
        out[a, 0] = ILLEGAL
        out[a, 1] = 0
        out[a, 2] = 0
        child = rows[a]
        if not apply_into(state, a, rules, child, mask, work):
            continue
        legal += 1
        status = child[off_status(n)]
        if status == TRUNCATED:
            out[a, 0] = TRUNCATED_GAME
        elif status == DONE:
            r = _end_result(child, rules, params, n)
            out[a, 0] = END_PROVES if _meets(params, r, r) else END_FAILS
        elif params[P_MAX_SEEDS] >= 0 and covered(child, rules, params[P_MAX_SEEDS]):
            meets = _table_meets(child, rules, params, comp, offsets, values, n)
            out[a, 0] = TABLE_PROVES if meets else TABLE_FAILS
        else:
            out[a, 0] = INNER
            out[a, 2] = child[off_to_move(n)]
            moves = 0
            for i in range(n):
                moves += child[off_mask(n) + i]
            out[a, 1] = moves
            for i in range(2 * n + 2):
                keys[a, i] = child[i]
            keys[a, 2 * n + 2] = child[off_to_move(n)]
            if params[P_FLAGS] == 1:
                keys[a, 2 * n + 3] = 3
            else:
                keys[a, 2 * n + 3] = child[off_pending(n)]
                keys[a, 2 * n + 4] = child[off_pending(n) + 1]
    return legal
