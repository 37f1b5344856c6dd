"""The engine: one entry point for a move, :func:`play` — the rules, the end of the turn and the
settling of the position (SE9/SQ6/ED4, TR1) — and the legal mask built from the same predicate.

Every path that moves a piece calls :func:`play` (or :func:`play_in_context`, the same move with
the position's legality context already read): ``Game.apply``, the batches, the random players,
the statistics, the vector env and the searches. Legality of one hole is
:func:`hole_legal`, shared by :func:`compute_legal_mask` and :func:`play_random`.

``with_mask``: after the move the next player's legal mask is computed (the packed state is then
complete) or, with False, only what decides the end without it: an empty row ends the game
(SE9/SQ6/ED4: no legal move), ``max_plies`` settles it fully (TR1). The mask slots are then stale
(kernel-internal states only: random games, rollouts, the vector env before the opponent's
reply), and the player to move may still turn out to have no legal move (a relay game where
every relay never ends): :func:`play_random` finds that and ends the game, as :func:`settle`
would have.
"""

from __future__ import annotations

import warnings

import numpy as np
from numba import njit

from mancala_envs.core.fast import inline_kernel, kernel
from mancala_envs.core.layout import (
    DONE,
    DRAW,
    NO_ACTION,
    NO_WINNER,
    RUNNING,
    TRUNCATED,
    copy_row,
    off_captured,
    off_last_action,
    off_mask,
    off_pending,
    off_ply,
    off_status,
    off_to_move,
    off_winner,
    row_sum,
    state_length,
    work_length,
)
from mancala_envs.core.relay import CTX_OPENING, relay_context, relay_hole_legal, relay_resolve
from mancala_envs.core.songo import CTX_LONE_SEED, play_songo, songo_context, songo_hole_legal
from mancala_envs.rulesets import (
    R_END_TO_LAST_MOVER,
    R_HOLES,
    R_MAX_PLIES,
    R_OPENING_HOLE,
    R_RESULT,
    R_SEEDS_PER_HOLE,
    R_SOWING,
    RESULT_BY_CAPTURES,
    SOW_RELAY,
)


@njit(cache=True)
def new_work(n):
    """Scratch for :func:`play` and the mask (callers in hot loops allocate it once)."""
    return np.empty(work_length(n), dtype=np.int32)


@inline_kernel
def legality_context(state, rules, work):
    """What governs the choice of the player to move (SE7/SE8, SQ4), read once per position."""
    n = rules[R_HOLES]
    mover = state[off_to_move(n)]
    if rules[R_SOWING] == SOW_RELAY:
        return relay_context(state, n, mover, state[off_pending(n) + mover], rules, work)
    return songo_context(state, n, mover, rules, work)


@inline_kernel
def forced_action(ctx, rules):
    """The one legal move a context imposes (SE8: hole 0; SQ4: the opening hole), or -1."""
    if rules[R_SOWING] == SOW_RELAY:
        return rules[R_OPENING_HOLE] if ctx == CTX_OPENING else -1
    return 0 if ctx == CTX_LONE_SEED else -1


@inline_kernel
def hole_legal(state, action, ctx, rules, work):
    """The legality of local hole ``action`` for the player to move (SE6–SE8 / SQ4–SQ5, ED3)."""
    n = rules[R_HOLES]
    mover = state[off_to_move(n)]
    if rules[R_SOWING] == SOW_RELAY:
        return relay_hole_legal(state, n, mover, action, ctx, rules, work)
    return songo_hole_legal(state, n, mover, action, ctx, rules, work)


@kernel
def compute_legal_mask(state, rules, work):
    """Write the legal mask of the player to move into the state (TR2: all zero once over)."""
    n = rules[R_HOLES]
    m = off_mask(n)
    if state[off_status(n)] != RUNNING:
        for a in range(n):
            state[m + a] = 0
        return
    ctx = legality_context(state, rules, work)
    for a in range(n):
        state[m + a] = hole_legal(state, a, ctx, rules, work)


@kernel
def has_legal_move(state, rules, work):
    """Whether the player to move has a legal move (the search stops at the first one); the state
    is left as it is."""
    n = rules[R_HOLES]
    if state[off_status(n)] != RUNNING:
        return False
    ctx = legality_context(state, rules, work)
    for a in range(n):  # noqa: SIM110 (no generators in compiled code)
        if hole_legal(state, a, ctx, rules, work):
            return True
    return False


@kernel
def finish_game(state, rules, last_mover):
    """SE9 / SQ6 / ED4 with SE10 / ED5: the player to move has no legal move, the game ends.

    SE9/ED4: the board goes to the last mover; SE10/ED5: more captured seeds wins, equal draws.
    SQ6: the player to move with an empty row loses to the last mover; with seeds (all his
    moves never end) the game is a draw."""
    n = rules[R_HOLES]
    cap = off_captured(n)
    if rules[R_END_TO_LAST_MOVER]:
        state[cap + last_mover] += row_sum(state, n, 0) + row_sum(state, n, 1)
        for i in range(2 * n):
            state[i] = 0
    if rules[R_RESULT] == RESULT_BY_CAPTURES:
        if state[cap] > state[cap + 1]:
            winner = 0
        elif state[cap] < state[cap + 1]:
            winner = 1
        else:
            winner = DRAW
    elif row_sum(state, n, 1 - last_mover) == 0:
        winner = last_mover
    else:
        winner = DRAW
    state[off_status(n)] = DONE
    state[off_winner(n)] = winner
    for a in range(n):
        state[off_mask(n) + a] = 0


@inline_kernel
def mask_moves(state, n):
    """How many holes the state's legal mask offers."""
    k = 0
    for a in range(n):
        k += state[off_mask(n) + a]
    return k


@kernel
def settle(state, rules, work, with_mask):
    """After a move (or on a constructed position): compute the mover's legal mask and end the
    game (SE9/SQ6/ED4) if it is empty, or truncate it at ``max_plies`` (TR1). Without
    ``with_mask`` (module docstring) only an empty row ends the game before ``max_plies``."""
    n = rules[R_HOLES]
    m = off_mask(n)
    if state[off_status(n)] != RUNNING:
        compute_legal_mask(state, rules, work)  # TR2: all zero
        return
    mover = state[off_to_move(n)]
    if with_mask or state[off_ply(n)] >= rules[R_MAX_PLIES]:
        compute_legal_mask(state, rules, work)
        if mask_moves(state, n) == 0:
            finish_game(state, rules, 1 - mover)
        elif state[off_ply(n)] >= rules[R_MAX_PLIES]:
            state[off_status(n)] = TRUNCATED
            for a in range(n):
                state[m + a] = 0
        return
    if row_sum(state, n, mover) == 0:
        finish_game(state, rules, 1 - mover)


TURN_PASSES = True  # end_turn gives every move's turn to the other player (no rule grants another)


@inline_kernel
def end_turn(state, n, mover, action):
    """Bookkeeping after a move's seeds are resolved: SQ4's pending flag, the last action, the turn
    passes, one more ply."""
    state[off_pending(n) + mover] = 0  # SQ4: the first move is made
    state[off_last_action(n)] = action
    state[off_to_move(n)] = 1 - mover
    state[off_ply(n)] += 1


@kernel
def resolve(state, action, rules, work, with_mask):
    """The move of a legal ``action`` (the predicate has said so, and for a relay game has
    simulated it into its slot of ``work``, which nothing has overwritten since): its seeds and
    capture (SE1–SE5, SE8 / SQ1–SQ3, ED1–ED2), the end of the turn, and the settling of the
    position (module docstring). After :func:`compute_legal_mask`, every legal move of the
    position is simulated in ``work``: a caller keeping both may resolve any of them directly."""
    n = rules[R_HOLES]
    mover = state[off_to_move(n)]
    if rules[R_SOWING] == SOW_RELAY:
        relay_resolve(state, off_captured(n), n, mover, action, rules, work)
    else:
        play_songo(state, off_captured(n), n, mover, action, rules)
    end_turn(state, n, mover, action)
    if with_mask or state[off_ply(n)] >= rules[R_MAX_PLIES]:
        settle(state, rules, work, True)
    elif row_sum(state, n, 1 - mover) == 0:  # SE9/SQ6/ED4: an empty row has no legal move
        finish_game(state, rules, mover)


@kernel
def play_in_context(state, action, ctx, rules, work, with_mask):
    """:func:`play` with the position's :func:`legality_context` already read."""
    if action < 0 or action >= rules[R_HOLES] or not hole_legal(state, action, ctx, rules, work):
        return False
    resolve(state, action, rules, work, with_mask)
    return True


@kernel
def play(state, action, rules, work, with_mask):
    """THE move: if local hole ``action`` is legal for the player to move, resolve it (sowing,
    capture), end the turn and settle the position, in place, and return True; otherwise return
    False and leave ``state`` untouched. ``work``: :func:`new_work` scratch."""
    n = rules[R_HOLES]
    if state[off_status(n)] != RUNNING:
        return False
    return play_in_context(state, action, legality_context(state, rules, work), rules, work, with_mask)


@kernel
def play_random(state, rules, u, work, candidates, with_mask):
    """Play a uniformly random legal move of the player to move and return it; if he has none,
    end the game (SE9/SQ6/ED4) and return -1. No mask is needed: a forced move is played at once,
    otherwise the non-empty holes are tried in a uniformly random order and the first one the
    legality predicate (:func:`hole_legal`) accepts is played — uniform over the legal moves.

    The order comes from one uniform draw ``u`` in [0, 1) made by the caller
    (``rng.random()``): each pick takes ``floor(u * k)`` of the ``k`` holes left and keeps the
    fraction as the next draw (:mod:`mancala_envs.core.fast`). ``candidates``: int64 scratch of n."""
    n = rules[R_HOLES]
    mover = state[off_to_move(n)]
    ctx = legality_context(state, rules, work)
    forced = forced_action(ctx, rules)
    if forced >= 0 and hole_legal(state, forced, ctx, rules, work):
        resolve(state, forced, rules, work, with_mask)
        return forced
    k = 0
    for a in range(n):
        if state[mover * n + a] > 0:
            candidates[k] = a
            k += 1
    while k > 0:
        u *= k
        j = int(u)
        u -= j
        a = candidates[j]
        candidates[j] = candidates[k - 1]
        k -= 1
        if hole_legal(state, a, ctx, rules, work):
            resolve(state, a, rules, work, with_mask)
            return a
    finish_game(state, rules, 1 - mover)
    return -1


@njit(cache=True)
def initial_state(rules, first_player):
    """The starting position (each hole ``seeds_per_hole``), ``first_player`` to move."""
    n = rules[R_HOLES]
    state = np.zeros(state_length(n), dtype=np.int32)
    state[: 2 * n] = rules[R_SEEDS_PER_HOLE]
    state[off_to_move(n)] = first_player
    state[off_winner(n)] = NO_WINNER
    state[off_last_action(n)] = NO_ACTION
    if rules[R_OPENING_HOLE] >= 0:
        state[off_pending(n)] = 1
        state[off_pending(n) + 1] = 1
    settle(state, rules, new_work(n), True)
    return state


@kernel
def outcome(winner, seat):
    """A game's outcome for ``seat``, the one implementation of it: +1 if ``seat`` won, -1 if it
    lost, 0 for a draw or no winner (a running or truncated game). Score = (outcome + 1) / 2,
    reward = outcome. Checked for Python callers: :func:`mancala_envs.outcome`."""
    if winner == seat:
        return 1
    if winner == 1 - seat:
        return -1
    return 0


@kernel
def decided_winner(state, rules):
    """SE10/ED5 decided early: in a game won on captures, a player who holds more than half the
    seeds wins if the game ends (captured counts never decrease; a game that never ends is still a
    draw, so this is the searches' shortcut, not the result); NO_WINNER otherwise."""
    n = rules[R_HOLES]
    if rules[R_RESULT] != RESULT_BY_CAPTURES:
        return NO_WINNER
    half = rules[R_SEEDS_PER_HOLE] * n  # total seeds / 2
    cap = off_captured(n)
    for p in range(2):
        if state[cap + p] > half:
            return p
    return NO_WINNER


@kernel
def apply_into(old, action, rules, new, mask, work):
    """The single-position entry point of ``Game.apply``: if in-range ``action`` is legal in
    ``old`` (its mask), write the next position into ``new`` and its legal mask into ``mask``
    (int8) and return True; otherwise touch nothing and return False."""
    n = rules[R_HOLES]
    if old[off_mask(n) + action] != 1:
        return False
    copy_row(new, old)
    if not play(new, action, rules, work, True):
        copy_row(new, old)
        return False
    for a in range(n):
        mask[a] = new[off_mask(n) + a]
    return True


@kernel
def push_move(stack, depth, action, rules, work):
    """The cursor's move: ``stack[depth]`` becomes ``stack[depth - 1]`` after ``action``. Returns
    the new position's legal mask as bits (bit a = hole a; 0 once the game is over), or -1 when
    ``action`` is illegal (``stack[depth - 1]`` is unchanged)."""
    n = rules[R_HOLES]
    child = stack[depth]
    copy_row(child, stack[depth - 1])
    if not play(child, action, rules, work, True):
        return -1
    return mask_bits(child, n)


@inline_kernel
def mask_bits(state, n):
    """The legal mask of a packed state as an integer, bit ``a`` for hole ``a``."""
    bits = 0
    for a in range(n):
        if state[off_mask(n) + a]:
            bits |= 1 << a
    return bits


def __getattr__(name: str):
    """``outcome_for``, the old name of :func:`outcome`, still works (with a ``DeprecationWarning``)."""
    if name == "outcome_for":
        message = "mancala_envs.core.engine.outcome_for is deprecated: use outcome"
        warnings.warn(message, DeprecationWarning, stacklevel=2)
        return outcome
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
