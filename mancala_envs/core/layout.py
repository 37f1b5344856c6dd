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

Kernels read the offsets through the small ``off_*`` functions (inlined by numba); Python code
reads them through :func:`layout`, which calls the same functions, so the two cannot disagree.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from numba import njit

from mancala_envs.core.fast import inline_kernel

RUNNING, DONE, TRUNCATED = 0, 1, 2  # status
DRAW, NO_WINNER = -1, -2  # winner codes besides the players 0 and 1
NO_ACTION = -1  # last action of a start or constructed position


@njit(cache=True, inline="always")
def state_length(n):
    return 3 * n + 9


@njit(cache=True, inline="always")
def off_captured(n):
    return 2 * n


@njit(cache=True, inline="always")
def off_to_move(n):
    return 2 * n + 2


@njit(cache=True, inline="always")
def off_ply(n):
    return 2 * n + 3


@njit(cache=True, inline="always")
def off_status(n):
    return 2 * n + 4


@njit(cache=True, inline="always")
def off_winner(n):
    return 2 * n + 5


@njit(cache=True, inline="always")
def off_pending(n):
    return 2 * n + 6


@njit(cache=True, inline="always")
def off_last_action(n):
    return 2 * n + 8


@njit(cache=True, inline="always")
def off_mask(n):
    return 2 * n + 9


@njit(cache=True, inline="always")
def slot_length(n):
    """Scratch for one simulated move: two boards plus captured counts (or the landing hole)."""
    return 4 * n + 4


@njit(cache=True, inline="always")
def work_length(n):
    """Scratch a move and the legal mask may need (kernels take it as ``work``): one slot per
    local hole, so that a relay game's mask leaves every legal hole's simulated move in place
    (:mod:`mancala_envs.core.relay`)."""
    return n * slot_length(n)


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
    """The :class:`Layout` of a game with ``n`` holes a row (from the kernels' own offsets)."""
    n = int(n)
    return Layout(
        n=n,
        length=int(state_length(n)),
        board=slice(0, 2 * n),
        captured=slice(int(off_captured(n)), int(off_captured(n)) + 2),
        to_move=int(off_to_move(n)),
        ply=int(off_ply(n)),
        status=int(off_status(n)),
        winner=int(off_winner(n)),
        pending=slice(int(off_pending(n)), int(off_pending(n)) + 2),
        last_action=int(off_last_action(n)),
        mask=slice(int(off_mask(n)), int(state_length(n))),
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
