"""The rules of RULES.md as pure JAX functions of one position, for :mod:`mancala_envs.jax.env`.

Every function reads a frozen :class:`~mancala_envs.rulesets.Ruleset` (static: one compiled
program per game) and arrays of one position: ``board`` (``int32[2n]``, RULES.md §1 indexing),
``captured`` (``int32[2]``), the ``mover`` (0/1). The same rules as :mod:`mancala_envs.core`, in
closed form where the numba kernels loop (a lap of ``s`` seeds gives each hole ``s // 2n`` plus
one for the first ``s % 2n``), so that ``vmap`` and ``jit`` see fixed shapes and no host call.
The relay loop of SQ1/ED1 lives in :mod:`mancala_envs.jax.relay`; this module only knows one lap.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from mancala_envs.rulesets import (
    CAPTURE_OPPOSITE_EITHER_SIDE,
    RESULT_BY_CAPTURES,
    Ruleset,
)

DRAW, NO_WINNER = -1, -2  # winner codes besides the players (mancala_envs.core.layout's)


class Moves(NamedTuple):
    """Every move of the player to move, resolved: the board after each local hole's move
    (``int32[n, 2n]``), the seeds it captures (``int32[n]``) and whether it is legal
    (``bool[n]``)."""

    boards: jax.Array
    gains: jax.Array
    legal: jax.Array


def holes(r: Ruleset) -> jax.Array:
    return jnp.arange(2 * r.holes_per_row, dtype=jnp.int32)


def row_of(r: Ruleset, player: jax.Array) -> jax.Array:
    """RULES.md §1: ``True`` on ``player``'s row (``board[p*n .. p*n+n-1]``)."""
    return holes(r) // r.holes_per_row == player


def own_row(r: Ruleset, board: jax.Array, player: jax.Array) -> jax.Array:
    """``player``'s ``n`` holes, from his seat (local 0 first)."""
    n = r.holes_per_row
    return jax.lax.dynamic_slice(board, (player * n,), (n,))


def row_sum(r: Ruleset, board: jax.Array, player: jax.Array) -> jax.Array:
    return jnp.sum(jnp.where(row_of(r, player), board, 0))


def opposite(r: Ruleset, hole: jax.Array) -> jax.Array:
    """RULES.md §1: hole ``i`` faces hole ``2n - 1 - i``."""
    return 2 * r.holes_per_row - 1 - hole


def at(board: jax.Array, hole: jax.Array) -> jax.Array:
    """``board[hole]`` as a masked sum (no gather: cheap under ``vmap`` on an accelerator)."""
    hole = jnp.asarray(hole)[..., None]
    return jnp.sum(jnp.where(jnp.arange(board.shape[-1]) == hole, board, 0), axis=-1)


def sow_lap(board: jax.Array, hole: jax.Array, d: int) -> tuple[jax.Array, jax.Array]:
    """SE1 / SQ2, ED1: lift ``hole`` and sow its seeds one by one in direction ``d`` from the next
    hole, skipping none (a lap of ``2n`` or more also feeds its origin). Returns the board and the
    last hole sown (``hole`` itself for an empty hole). Works on a batch of boards too."""
    size = board.shape[-1]
    idx = jnp.arange(size, dtype=jnp.int32)
    hole = jnp.asarray(hole, jnp.int32)
    seeds = at(board, hole)
    distance = ((idx - hole[..., None]) * d) % size  # 1 = the next hole, 0 = the origin ...
    distance = jnp.where(distance == 0, size, distance)  # ... which is fed last
    board = jnp.where(idx == hole[..., None], 0, board)
    board = board + seeds[..., None] // size + (distance <= seeds[..., None] % size)
    return board, (hole + d * seeds) % size


def sow_into_opponent(r: Ruleset, board: jax.Array, mover: jax.Array, hole: jax.Array):
    """SE2: a big hole skips the origin and all the mover's holes: every seed goes into the
    opponent's row from his first hole in the sowing direction, wrapping round his row."""
    n, d = r.holes_per_row, r.direction
    idx = holes(r)
    seeds = at(board, hole)
    board = jnp.where(idx == hole, 0, board)
    first = n - 1 if d < 0 else 0  # the opponent's first hole in the sowing direction
    order = ((idx % n - first) * d) % n  # sowing order within his row
    gets = seeds // n + (order < seeds % n)
    board = board + jnp.where(row_of(r, 1 - mover), gets, 0)
    return board, (1 - mover) * n + (first + d * (seeds - 1)) % n


def sow_single_lap(r: Ruleset, board: jax.Array, mover: jax.Array, hole: jax.Array):
    """SE1/SE2: one lap, in the game's direction, or into the opponent's row for a big hole."""
    small = sow_lap(board, hole, r.direction)
    big = sow_into_opponent(r, board, mover, hole)
    is_big = at(board, hole) >= r.big_hole
    return jnp.where(is_big, big[0], small[0]), jnp.where(is_big, big[1], small[1])


def chain_capture(r: Ruleset, board: jax.Array, mover: jax.Array, last: jax.Array, sown: jax.Array):
    """SE3/SE4: the holes a sowing of ``sown`` seeds that ended in ``last`` captures (``bool[2n]``).

    SE3: ``last`` if it is an opponent hole holding capture_min..capture_max, then each hole sown
    before it while it qualifies, never leaving the opponent's row. SE4: a sowing of k * 7 seeds
    (k >= 2) takes the last hole only."""
    idx = holes(r)
    qualifies = (board >= r.capture_min) & (board <= r.capture_max)
    behind = (idx - last) * -r.direction  # 0 at the last hole, k for the k-th hole sown before it
    candidate = (behind >= 0) & row_of(r, 1 - mover) & (last // r.holes_per_row == 1 - mover)
    stop = jnp.min(jnp.where(candidate & ~qualifies, behind, 2 * r.holes_per_row))
    chain = candidate & (behind < stop)
    m = r.single_capture_multiple
    if m > 0:
        single = (sown >= 2 * m) & (sown % m == 0)
        chain = jnp.where(single, chain & (idx == last), chain)
    return chain


def play_songo(r: Ruleset, board: jax.Array, mover: jax.Array, action: jax.Array):
    """SE1–SE5, SE8: one Songo move of local hole ``action``; returns (board, seeds captured)."""
    n = r.holes_per_row
    hole = mover * n + action
    sown = at(board, hole)
    after, last = sow_single_lap(r, board, mover, hole)
    chain = chain_capture(r, after, mover, last, sown)
    taken = jnp.sum(jnp.where(chain, after, 0))
    if r.grand_slam_forfeit:  # SE5: a capture that would empty the opponent's row is forfeit
        slam = (taken > 0) & (taken == row_sum(r, after, 1 - mover))
        chain = chain & ~slam
        taken = jnp.where(slam, 0, taken)
    after = jnp.where(chain, 0, after)
    if r.lone_seed_capture:  # SE8: the lone leftmost seed goes to the mover's store
        lone = (action == 0) & is_lone_seed(r, board, mover)
        after = jnp.where(lone, jnp.where(holes(r) == hole, 0, board), after)
        taken = jnp.where(lone, 1, taken)
    return after, taken


def is_lone_seed(r: Ruleset, board: jax.Array, mover: jax.Array) -> jax.Array:
    """SE8: the mover's row holds exactly one seed, in his leftmost hole."""
    return (at(board, mover * r.holes_per_row) == 1) & (row_sum(r, board, mover) == 1)


def songo_legal(r: Ruleset, board: jax.Array, mover: jax.Array, boards: jax.Array, gains: jax.Array):
    """SE6–SE8: the legal mask, given every hole's resolved move (``boards``, ``gains``).

    SE8 first (the lone seed is the only move), then SE7 when the opponent's row is empty (moves
    that leave him ``feeding_target`` seeds, else the most any move leaves him), else SE6 (the
    leftmost hole with 1 or 2 seeds only if it is the only non-empty hole or it captures)."""
    n = r.holes_per_row
    own = own_row(r, board, mover)
    non_empty = own > 0
    legal = non_empty
    if r.leftmost_restriction:
        alone = jnp.sum(own) == own[0]
        legal = legal.at[0].set(non_empty[0] & ((own[0] >= 3) | alone | (gains[0] > 0)))
    if r.feeding_target > 0:
        left = jax.vmap(lambda b: row_sum(r, b, 1 - mover))(boards)
        best = jnp.max(jnp.where(non_empty, left, 0))
        feeding = non_empty & (left >= jnp.minimum(best, r.feeding_target))
        legal = jnp.where(row_sum(r, board, 1 - mover) == 0, feeding, legal)
    if r.lone_seed_capture:
        legal = jnp.where(is_lone_seed(r, board, mover), jnp.arange(n) == 0, legal)
    return legal


def relay_capture(r: Ruleset, board: jax.Array, mover: jax.Array, landing: jax.Array):
    """SQ3 / ED2: the capture after a relay that ended in ``landing``; returns (board, gained).

    SQ3 (either side): the opposite hole's seeds, wherever the landing hole is; the landing seed
    stays. ED2 (own side): only when landing in the mover's row; the opposite seeds and the
    landing seed."""
    idx = holes(r)
    facing = opposite(r, landing)
    seeds = at(board, facing)
    if r.capture == CAPTURE_OPPOSITE_EITHER_SIDE:
        taken = idx == facing
    else:
        own_side = landing // r.holes_per_row == mover
        taken = ((idx == facing) | (idx == landing)) & own_side
    taken = taken & (seeds > 0)
    return jnp.where(taken, 0, board), jnp.sum(jnp.where(taken, board, 0))


def relay_legal(r: Ruleset, board: jax.Array, mover: jax.Array, pending: jax.Array, ends: jax.Array):
    """SQ4, SQ5 / ED3: the legal mask given which relays end (``ends``: ``bool[n]``): a non-empty
    hole whose relay ends; while the mover's first move is pending (SQ4), only the opening hole
    if it is such a hole (else the restriction lapses)."""
    n = r.holes_per_row
    own = own_row(r, board, mover)
    legal = (own > 0) & ends
    if r.opening_hole >= 0:
        forced = pending[mover] & legal[r.opening_hole]
        legal = jnp.where(forced, jnp.arange(n) == r.opening_hole, legal)
    return legal


def finish(r: Ruleset, board: jax.Array, captured: jax.Array, last_mover: jax.Array):
    """SE9 / SQ6 / ED4 with SE10 / ED5: the player to move has no legal move, the game ends.
    Returns (board, captured, winner)."""
    if r.end_board_to_last_mover:  # SE9/ED4: the board goes to the last mover
        captured = captured.at[last_mover].add(jnp.sum(board))
        board = jnp.zeros_like(board)
    if r.result == RESULT_BY_CAPTURES:  # SE10/ED5
        winner = jnp.where(captured[0] > captured[1], 0, jnp.where(captured[0] < captured[1], 1, DRAW))
    else:  # SQ6: an empty row loses to the last mover; seeds with no legal move draw
        winner = jnp.where(row_sum(r, board, 1 - last_mover) == 0, last_mover, DRAW)
    return board, captured, jnp.int32(winner)
