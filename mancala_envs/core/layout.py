"""The packed state layout and the board geometry of RULES.md §1 — defined here and nowhere else.

A position is one ``int32`` vector. For ``n`` holes a row (``L = 3n + 9``)::

    [0, 2n)          board, canonical indexing (RULES.md §1)
    2n, 2n+1         captured[0], captured[1]
    2n+2             to_move
    2n+3             ply
    2n+4             status: 0 running, 1 done, 2 truncated
    2n+5             winner: 0, 1, -1 draw, -2 none (running or truncated)
    2n+6, 2n+7       first_move_pending[0], [1] (0/1; always 0 without an opening rule)
    2n+8             last action (local hole of the previous move, -1 none)
    [2n+9, 3n+9)     legal mask of the player to move (0/1)

Both sides read one table, :data:`FIELD_OFFSETS`: kernels through the small ``off_*`` functions
built from it (inlined by numba), Python code through :func:`layout`, so the two cannot disagree.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from numba import njit

from mancala_envs.core.fast import inline_kernel

RUNNING, DONE, TRUNCATED = 0, 1, 2  # status
DRAW, NO_WINNER = -1, -2  # winner codes besides the players 0 and 1
NO_ACTION = -1  # last action of a start or constructed position


# Where each field starts after the board: index 2n + offset (the table of the module docstring).
FIELD_OFFSETS = dict(captured=0, to_move=2, ply=3, status=4, winner=5, pending=6, last_action=8, mask=9)


@njit(cache=True, inline="always")
def state_length(n):
    return 3 * n + 9


def _field_accessor(name: str):
    """The kernels' accessor of field ``name``: ``off_<name>(n)`` is its index in a packed state
    of ``n`` holes a row. Not cached on disk (closures would share one cache entry): it is only
    ever inlined into its callers, which are."""
    after_board = FIELD_OFFSETS[name]

    def offset(n):
        return 2 * n + after_board

    offset.__name__ = offset.__qualname__ = f"off_{name}"
    return njit(inline="always")(offset)


# The accessors, in the order of FIELD_OFFSETS.
off_captured, off_to_move, off_ply, off_status, off_winner, off_pending, off_last_action, off_mask = (
    _field_accessor(name) for name in FIELD_OFFSETS
)


@njit(cache=True, inline="always")
def slot_length(n):
    """Scratch for one simulated move: a board plus captured counts (or the landing hole)."""
    return 2 * n + 2


@njit(cache=True, inline="always")
def off_cycle_board(n):
    """Where ``work`` keeps the board a relay's cycle check compares with (after the slots)."""
    return n * slot_length(n)


@njit(cache=True, inline="always")
def work_length(n):
    """Scratch a move and the legal mask may need (kernels take it as ``work``): one slot per
    local hole, so that a relay game's mask leaves every legal hole's simulated move in place
    (:mod:`mancala_envs.core.relay`), then one board for the relays' cycle check. (Compact: the
    vector env keeps one per game, and they must stay in the processor's cache.)"""
    return off_cycle_board(n) + 2 * n


class Layout(NamedTuple):
    """Where each field of a packed state lives, for ``n`` holes a row (Python side)."""

    n: int
    length: int
    board: slice
    captured: slice
    to_move: int
    ply: int
    status: int
    winner: int
    pending: slice
    last_action: int
    mask: slice


@lru_cache(maxsize=16)
def layout(n: int) -> Layout:
    """The :class:`Layout` of a game with ``n`` holes a row (from the kernels' own table)."""
    n = int(n)
    at = {name: 2 * n + offset for name, offset in FIELD_OFFSETS.items()}
    return Layout(
        n=n,
        length=int(state_length(n)),
        board=slice(0, 2 * n),
        captured=slice(at["captured"], at["captured"] + 2),
        to_move=at["to_move"],
        ply=at["ply"],
        status=at["status"],
        winner=at["winner"],
        pending=slice(at["pending"], at["pending"] + 2),
        last_action=at["last_action"],
        mask=slice(at["mask"], int(state_length(n))),
    )


# --------------------------------------------------------------------------- board geometry (§1)


@inline_kernel
def copy_row(dst, src):
    """``dst[:] = src`` for two packed states (or boards), inside reference-free kernels."""
    for i in range(src.shape[0]):
        dst[i] = src[i]


@inline_kernel
def row_sum(board, n, player):
    """Seeds on ``player``'s row."""
    s = 0
    for i in range(player * n, player * n + n):
        s += board[i]
    return s


@njit(cache=True, inline="always")
def opposite(hole, n):
    """RULES.md §1: hole ``i`` faces hole ``2n - 1 - i``."""
    return 2 * n - 1 - hole
