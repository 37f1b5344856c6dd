"""Compiled rules engine: every rule of RULES.md as a small numba function over numpy arrays.

This is the only module that knows the array tricks. A position is one packed ``int32`` vector
(see :func:`state_length` for the layout) and a game is a rules vector built by
:meth:`mancala_envs.rulesets.Ruleset.to_array`. Each rule is one named helper whose docstring cites
its RULES.md id; the public entry points (:func:`apply_move`, :func:`step_batch`,
:func:`play_random_games`, …) compose them. Everything is ``cache=True``.

Packed state layout for ``n`` holes a row (``L = 3n + 9``)::

    [0, 2n)          board, canonical indexing (RULES.md §1)
    2n, 2n+1         captured[0], captured[1]
    2n+2             to_move
    2n+3             ply
    2n+4             status: 0 running, 1 done, 2 truncated
    2n+5             winner: 0, 1, -1 draw, -2 none (running or truncated)
    2n+6, 2n+7       first_move_pending[0], [1] (0/1; always 0 without an opening rule)
    2n+8             last action (local hole of the previous move, -1 none)
    [2n+9, 3n+9)     legal mask of the player to move (0/1)
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mancala_envs.rulesets import (
    CAPTURE_OPPOSITE_EITHER_SIDE,
    CAPTURE_OPPOSITE_OWN_SIDE,
    R_BIG_HOLE,
    R_CAPTURE,
    R_CAPTURE_MAX,
    R_CAPTURE_MIN,
    R_DIRECTION,
    R_END_TO_LAST_MOVER,
    R_FEEDING_TARGET,
    R_GRAND_SLAM_FORFEIT,
    R_HOLES,
    R_LEFTMOST_RESTRICTION,
    R_LONE_SEED,
    R_MAX_LAPS,
    R_MAX_PLIES,
    R_OPENING_HOLE,
    R_RESULT,
    R_SEEDS_PER_HOLE,
    R_SINGLE_CAPTURE_MULTIPLE,
    R_SOWING,
    RESULT_BY_CAPTURES,
    SOW_RELAY,
)

RUNNING, DONE, TRUNCATED = 0, 1, 2
DRAW, NO_WINNER = -1, -2
NEVER_ENDS = -1  # landing hole reported for a relay that never ends (SQ5, ED3)
BRENT_START = 16  # relays that end mostly do so within a few laps: look for cycles after this


# --------------------------------------------------------------------------- layout


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
def step_hole(pos, d, size):
    """The next hole in direction ``d`` (+1 counter-clockwise, -1 clockwise), without a modulo."""
    pos += d
    if pos == size:
        return 0
    if pos < 0:
        return size - 1
    return pos


@njit(cache=True, inline="always")
def row_sum(board, n, player):
    s = 0
    for i in range(player * n, player * n + n):
        s += board[i]
    return s


# --------------------------------------------------------------------------- Songo Ewondo


@njit(cache=True)
def sow_single_lap(board, n, mover, hole, rules):
    """SE1/SE2: lift ``hole`` and sow one lap; returns the last hole sown (``hole`` if empty).

    SE1: fewer than ``big_hole`` seeds go one by one in the game's direction from the next hole.
    SE2: ``big_hole`` seeds or more skip the origin and all the mover's holes: every seed goes
    into the opponent's row from his first hole in the sowing direction, wrapping round his row.
    """
    seeds = board[hole]
    board[hole] = 0
    d = rules[R_DIRECTION]
    size = 2 * n
    if seeds < rules[R_BIG_HOLE]:
        pos = hole
        for _ in range(seeds):
            pos = step_hole(pos, d, size)
            board[pos] += 1
        return pos
    base = (1 - mover) * n
    laps, rest = divmod(seeds, n)
    for i in range(base, base + n):
        board[i] += laps
    first = n - 1 if d < 0 else 0  # the opponent's first hole in the sowing direction
    for k in range(rest):
        board[base + (first + d * k) % n] += 1
    return base + (first + d * (seeds - 1)) % n


@njit(cache=True)
def chain_capture_length(board, n, mover, last, seeds_sown, rules):
    """SE3/SE4: how many holes a sowing that ended in ``last`` captures: ``last`` itself and the
    holes sown before it, ``last - d*k`` for ``k < length`` (``d`` the sowing direction).

    SE3: the last hole is taken if it is an opponent hole holding capture_min..capture_max, then
    each hole sown before it (against the sowing direction) while it qualifies, never leaving
    the opponent's row. SE4: a sowing of k * single_capture_multiple seeds (k >= 2) takes only
    the last hole.
    """
    opp = 1 - mover
    lo = rules[R_CAPTURE_MIN]
    hi = rules[R_CAPTURE_MAX]
    if last // n != opp or board[last] < lo or board[last] > hi:
        return 0
    multiple = rules[R_SINGLE_CAPTURE_MULTIPLE]
    if multiple > 0 and seeds_sown >= 2 * multiple and seeds_sown % multiple == 0:
        return 1
    step = -rules[R_DIRECTION]
    length = 1
    pos = last + step
    while opp * n <= pos < opp * n + n and lo <= board[pos] <= hi:
        length += 1
        pos += step
    return length


@njit(cache=True)
def grand_slam(board, n, mover, taken):
    """SE5: True when capturing ``taken`` seeds would leave the opponent's row empty."""
    return taken > 0 and taken == row_sum(board, n, 1 - mover)


@njit(cache=True)
def is_lone_seed(board, n, mover):
    """SE8: the mover's row holds exactly one seed, in his leftmost hole."""
    return board[mover * n] == 1 and row_sum(board, n, mover) == 1


@njit(cache=True)
def play_songo(board, captured, n, mover, action, rules):
    """SE1–SE5, SE8: resolve one Songo move on ``board``/``captured`` in place.

    Returns the seeds captured (0 when SE5 forfeits the capture)."""
    hole = mover * n + action
    if rules[R_LONE_SEED] and action == 0 and is_lone_seed(board, n, mover):
        board[hole] = 0
        captured[mover] += 1
        return 1
    seeds = board[hole]
    last = sow_single_lap(board, n, mover, hole, rules)
    length = chain_capture_length(board, n, mover, last, seeds, rules)
    step = -rules[R_DIRECTION]
    taken = 0
    for k in range(length):
        taken += board[last + step * k]
    if rules[R_GRAND_SLAM_FORFEIT] and grand_slam(board, n, mover, taken):
        return 0
    for k in range(length):
        board[last + step * k] = 0
    captured[mover] += taken
    return taken


@njit(cache=True)
def songo_outcome(board, n, mover, action, rules, scratch):
    """Resolve Songo move ``action`` on a copy (``scratch``, 2n + 2 entries: board then captured):
    returns (seeds captured, seeds left in the opponent's row)."""
    size = 2 * n
    scratch[:size] = board
    scratch[size:] = 0
    gained = play_songo(scratch[:size], scratch[size:], n, mover, action, rules)
    return gained, row_sum(scratch, n, 1 - mover)


@njit(cache=True)
def feeding_moves(board, n, mover, rules, mask):
    """SE7: the opponent's row is empty: keep the moves that leave him ``feeding_target`` seeds or
    more; if none does, those that leave him the most; if none reaches him, every non-empty hole."""
    scratch = np.empty(2 * n + 2, dtype=board.dtype)
    best = 0
    for a in range(n):  # mask holds each move's feed (-1: empty hole) until the second pass
        mask[a] = -1
        if board[mover * n + a] > 0:
            mask[a] = songo_outcome(board, n, mover, a, rules, scratch)[1]
            best = max(best, mask[a])
    target = rules[R_FEEDING_TARGET]
    for a in range(n):
        fed = mask[a]
        if best >= target:
            mask[a] = fed >= target
        elif best > 0:
            mask[a] = fed == best
        else:
            mask[a] = fed >= 0


@njit(cache=True)
def leftmost_allowed(board, n, mover, rules):
    """SE6: the leftmost hole with 1 or 2 seeds may be played only if it is the mover's only
    non-empty hole or if playing it captures at least one seed (after SE5)."""
    seeds = board[mover * n]
    if seeds == 0:
        return False
    if seeds >= 3 or row_sum(board, n, mover) == seeds:
        return True
    scratch = np.empty(2 * n + 2, dtype=board.dtype)
    return songo_outcome(board, n, mover, 0, rules, scratch)[0] > 0


@njit(cache=True)
def songo_legal_mask(board, n, mover, rules, mask):
    """SE6–SE8: the legal moves of ``mover``."""
    mask[:] = 0
    if row_sum(board, n, mover) == 0:
        return
    if rules[R_LONE_SEED] and is_lone_seed(board, n, mover):
        mask[0] = 1
        return
    if rules[R_FEEDING_TARGET] > 0 and row_sum(board, n, 1 - mover) == 0:
        feeding_moves(board, n, mover, rules, mask)
        return
    for a in range(n):
        mask[a] = board[mover * n + a] > 0
    if rules[R_LEFTMOST_RESTRICTION]:
        mask[0] = leftmost_allowed(board, n, mover, rules)


# --------------------------------------------------------------------------- relay games


@njit(cache=True)
def sow_lap(board, n, hole, d):
    """SQ2/ED1: lift ``hole`` and sow its seeds one by one from the next hole in direction ``d``,
    never skipping a hole (a lap of 2n or more seeds also feeds its origin). Returns the last hole."""
    seeds = board[hole]
    board[hole] = 0
    size = 2 * n
    rest = seeds
    if seeds >= size:
        rounds, rest = divmod(seeds, size)
        for i in range(size):
            board[i] += rounds
    pos = hole
    for _ in range(rest):
        pos = step_hole(pos, d, size)
        board[pos] += 1
    return pos


@njit(cache=True)
def relay_sow(board, n, hole, rules, saved):
    """SQ1, SQ5 / ED1, ED3: relay sowing from ``hole``; returns the landing hole, or NEVER_ENDS.

    Each lap lifts the hole where the previous lap's last seed fell while that hole was occupied;
    the move ends when the last seed falls into an empty hole. A relay still running after
    ``max_relay_laps`` laps never ends (``board`` is then left mid-relay). A repeated lap-end
    position proves the same verdict early (Brent's cycle detection, from lap BRENT_START on;
    ``saved`` is scratch of 2n).
    """
    d = rules[R_DIRECTION]
    max_laps = rules[R_MAX_LAPS]
    saved_hole = -1
    power = BRENT_START
    since_save = 0
    pos = hole
    for _ in range(max_laps):
        pos = sow_lap(board, n, pos, d)
        if board[pos] == 1:
            return pos
        if since_save == power:  # Brent: save the position at powers of two
            saved[:] = board
            saved_hole = pos
            power *= 2
            since_save = 0
        elif pos == saved_hole and np.array_equal(board, saved):
            return NEVER_ENDS
        since_save += 1
    return NEVER_ENDS


@njit(cache=True)
def relay_capture(board, captured, n, mover, landing, rules):
    """SQ3 / ED2: capture after a relay that ended in ``landing``; returns the seeds taken.

    SQ3 (either side): the opposite hole's seeds, wherever the landing hole is; the landing seed
    stays. ED2 (own side): only when landing in the mover's row; the opposite seeds and the
    landing seed."""
    opposite = 2 * n - 1 - landing
    if board[opposite] == 0:
        return 0
    style = rules[R_CAPTURE]
    if style == CAPTURE_OPPOSITE_EITHER_SIDE:
        gained = board[opposite]
        board[opposite] = 0
    elif style == CAPTURE_OPPOSITE_OWN_SIDE and landing // n == mover:
        gained = board[opposite] + board[landing]
        board[opposite] = 0
        board[landing] = 0
    else:
        return 0
    captured[mover] += gained
    return gained


@njit(cache=True)
def relay_ends(board, n, hole, rules, scratch, saved):
    """SQ5 / ED3: True when the relay from ``hole`` ends within the lap limit."""
    scratch[:] = board
    return relay_sow(scratch, n, hole, rules, saved) != NEVER_ENDS


@njit(cache=True)
def relay_legal_mask(board, n, mover, pending, rules, mask):
    """SQ4, SQ5 / ED3: every own non-empty hole whose relay ends; SQ4's opening hole alone while
    the mover's first move is pending, unless that hole is empty or never ends (then lapses)."""
    scratch = np.empty(2 * n, dtype=board.dtype)
    saved = np.empty(2 * n, dtype=board.dtype)
    mask[:] = 0
    opening = rules[R_OPENING_HOLE]
    if opening >= 0 and pending:
        hole = mover * n + opening
        if board[hole] > 0 and relay_ends(board, n, hole, rules, scratch, saved):
            mask[opening] = 1
            return
    for a in range(n):
        hole = mover * n + a
        if board[hole] > 0:
            mask[a] = relay_ends(board, n, hole, rules, scratch, saved)


@njit(cache=True)
def play_relay(board, captured, n, mover, action, rules):
    """SQ1–SQ3 / ED1–ED2: resolve one (legal) relay move in place; returns the landing hole."""
    saved = np.empty(2 * n, dtype=board.dtype)
    landing = relay_sow(board, n, mover * n + action, rules, saved)
    relay_capture(board, captured, n, mover, landing, rules)
    return landing


# --------------------------------------------------------------------------- shared engine


@njit(cache=True)
def compute_legal_mask(state, rules):
    """The legal mask of the player to move, written into the state's mask slots (TR2: all zero
    once the game is over)."""
    n = rules[R_HOLES]
    mover = state[off_to_move(n)]
    mask = state[off_mask(n) : off_mask(n) + n]
    if state[off_status(n)] != RUNNING:
        mask[:] = 0
    elif rules[R_SOWING] == SOW_RELAY:
        relay_legal_mask(state[: 2 * n], n, mover, state[off_pending(n) + mover], rules, mask)
    else:
        songo_legal_mask(state[: 2 * n], n, mover, rules, mask)


@njit(cache=True)
def finish_game(state, rules, last_mover):
    """SE9 / SQ6 / ED4 with SE10 / ED5: the player to move has no legal move, the game ends.

    SE9/ED4: the board goes to the last mover; SE10/ED5: more captured seeds wins, equal draws.
    SQ6: the player to move with an empty row loses to the last mover; with seeds (all his
    moves never end) the game is a draw."""
    n = rules[R_HOLES]
    board = state[: 2 * n]
    cap = off_captured(n)
    if rules[R_END_TO_LAST_MOVER]:
        state[cap + last_mover] += row_sum(board, n, 0) + row_sum(board, n, 1)
        board[:] = 0
    if rules[R_RESULT] == RESULT_BY_CAPTURES:
        if state[cap] > state[cap + 1]:
            winner = 0
        elif state[cap] < state[cap + 1]:
            winner = 1
        else:
            winner = DRAW
    elif row_sum(board, n, 1 - last_mover) == 0:
        winner = last_mover
    else:
        winner = DRAW
    state[off_status(n)] = DONE
    state[off_winner(n)] = winner


@njit(cache=True)
def settle(state, rules):
    """After a move (or on a constructed position): compute the mover's legal mask, then end the
    game (SE9/SQ6/ED4) if it is empty, or truncate it at ``max_plies`` (TR1)."""
    n = rules[R_HOLES]
    compute_legal_mask(state, rules)
    if state[off_status(n)] != RUNNING:
        return
    mask = state[off_mask(n) : off_mask(n) + n]
    if mask.sum() == 0:
        finish_game(state, rules, 1 - state[off_to_move(n)])
    elif state[off_ply(n)] >= rules[R_MAX_PLIES]:
        state[off_status(n)] = TRUNCATED
        mask[:] = 0


@njit(cache=True)
def is_legal(state, action, rules):
    n = rules[R_HOLES]
    return 0 <= action < n and state[off_mask(n) + action] == 1


@njit(cache=True)
def apply_move(state, action, rules):
    """Apply a legal ``action`` to ``state`` in place: the move, its capture, the turn change,
    the ply count, then :func:`settle`. The caller checks legality first (:func:`is_legal`)."""
    n = rules[R_HOLES]
    mover = state[off_to_move(n)]
    board = state[: 2 * n]
    captured = state[off_captured(n) : off_captured(n) + 2]
    if rules[R_SOWING] == SOW_RELAY:
        play_relay(board, captured, n, mover, action, rules)
    else:
        play_songo(board, captured, n, mover, action, rules)
    end_turn(state, n, mover, action)
    settle(state, rules)


@njit(cache=True)
def end_turn(state, n, mover, action):
    """Bookkeeping after a move's seeds are resolved: SQ4's pending flag, the last action, the turn
    passes, one more ply."""
    state[off_pending(n) + mover] = 0  # SQ4: the first move is made
    state[off_last_action(n)] = action
    state[off_to_move(n)] = 1 - mover
    state[off_ply(n)] += 1


@njit(cache=True)
def apply_into(old, action, rules, new, mask):
    """The single-position entry point of :meth:`Game.apply`: if ``action`` is legal in ``old``,
    write the next position into ``new`` and its legal mask into ``mask`` (int8) and return True;
    otherwise touch nothing and return False."""
    if not is_legal(old, action, rules):
        return False
    new[:] = old
    apply_move(new, action, rules)
    n = rules[R_HOLES]
    mask[:] = new[off_mask(n) : off_mask(n) + n]
    return True


@njit(cache=True)
def initial_state(rules, first_player):
    """The starting position (each hole ``seeds_per_hole``), ``first_player`` to move."""
    n = rules[R_HOLES]
    state = np.zeros(state_length(n), dtype=np.int32)
    state[: 2 * n] = rules[R_SEEDS_PER_HOLE]
    state[off_to_move(n)] = first_player
    state[off_winner(n)] = NO_WINNER
    state[off_last_action(n)] = -1
    if rules[R_OPENING_HOLE] >= 0:
        state[off_pending(n)] = 1
        state[off_pending(n) + 1] = 1
    settle(state, rules)
    return state


# --------------------------------------------------------------------------- batches


@njit(cache=True)
def step_batch(states, actions, rules):
    """Apply ``actions[i]`` to ``states[i]`` in place for every row; returns the first row whose
    action is illegal (rows before it are applied, it and later rows are not), or -1."""
    for i in range(states.shape[0]):
        if not is_legal(states[i], actions[i], rules):
            return i
        apply_move(states[i], actions[i], rules)
    return -1


@njit(cache=True)
def random_legal_action(state, n, rng):
    """A uniformly random legal action of the player to move (-1 when there is none)."""
    mask = state[off_mask(n) : off_mask(n) + n]
    k = mask.sum()
    if k == 0:
        return -1
    r = rng.integers(0, k)
    for a in range(n):
        if mask[a]:
            if r == 0:
                return a
            r -= 1
    return -1


@njit(cache=True)
def random_actions(states, rules, rng):
    """One uniformly random legal action per row (-1 for finished rows)."""
    n = rules[R_HOLES]
    out = np.empty(states.shape[0], dtype=np.int64)
    for i in range(states.shape[0]):
        out[i] = random_legal_action(states[i], n, rng)
    return out


@njit(cache=True)
def try_relay_move(state, rules, mover, action, scratch, saved):
    """Play relay move ``action`` if its relay ends (SQ5/ED3): sow on ``scratch``, then commit the
    board and the capture (SQ3/ED2) to ``state``. Returns False, ``state`` untouched, otherwise."""
    n = rules[R_HOLES]
    board = state[: 2 * n]
    scratch[:] = board
    landing = relay_sow(scratch, n, mover * n + action, rules, saved)
    if landing == NEVER_ENDS:
        return False
    board[:] = scratch
    relay_capture(board, state[off_captured(n) : off_captured(n) + 2], n, mover, landing, rules)
    return True


@njit(cache=True)
def random_relay_move(state, rules, rng, scratch, saved, candidates):
    """Play a uniformly random legal relay move in place and return it (-1: no legal move).

    The legal mask is never computed: SQ4's opening hole is tried first while pending, then the
    mover's non-empty holes in a uniformly random order, and the first whose relay ends (SQ5/ED3)
    is played — the first legal hole of a uniform random order is uniform over the legal holes."""
    n = rules[R_HOLES]
    mover = state[off_to_move(n)]
    opening = rules[R_OPENING_HOLE]
    pending = opening >= 0 and state[off_pending(n) + mover] and state[mover * n + opening] > 0
    if pending and try_relay_move(state, rules, mover, opening, scratch, saved):
        return opening
    k = 0
    for a in range(n):
        if state[mover * n + a] > 0:
            candidates[k] = a
            k += 1
    while k > 0:
        j = rng.integers(0, k)
        a = candidates[j]
        candidates[j] = candidates[k - 1]
        k -= 1
        if try_relay_move(state, rules, mover, a, scratch, saved):
            return a
    return -1


@njit(cache=True)
def random_songo_move(state, rules, rng, candidates):
    """Play a uniformly random legal Songo move in place (seeds and captures only) and return it.

    SE7/SE8 positions draw from the legal mask; otherwise every non-empty hole is legal except,
    perhaps, the leftmost (SE6): holes are tried in a uniformly random order and the first legal one
    is played, which is uniform over the legal moves without computing the whole mask."""
    n = rules[R_HOLES]
    mover = state[off_to_move(n)]
    board = state[: 2 * n]
    captured = state[off_captured(n) : off_captured(n) + 2]
    lone = rules[R_LONE_SEED] and is_lone_seed(board, n, mover)
    if lone or (rules[R_FEEDING_TARGET] > 0 and row_sum(board, n, 1 - mover) == 0):
        songo_legal_mask(board, n, mover, rules, state[off_mask(n) : off_mask(n) + n])
        action = random_legal_action(state, n, rng)
        play_songo(board, captured, n, mover, action, rules)
        return action
    k = 0
    for a in range(n):
        if board[mover * n + a] > 0:
            candidates[k] = a
            k += 1
    while k > 0:
        j = rng.integers(0, k)
        action = candidates[j]
        candidates[j] = candidates[k - 1]
        k -= 1
        if action == 0 and rules[R_LEFTMOST_RESTRICTION] and not leftmost_allowed(board, n, mover, rules):
            continue
        play_songo(board, captured, n, mover, action, rules)
        return action
    return -1


@njit(cache=True)
def play_random_game(state, rules, rng, moves):
    """Play the game in ``state`` to its end with uniformly random legal moves, in place; records
    the moves into ``moves`` (as many as fit) and returns the number of plies played.

    Moves come from :func:`random_songo_move` and :func:`random_relay_move`, which need no legal
    mask; a mask is computed only where the game may end (an empty row, TR1), ending it as
    :func:`settle` does (SE9/SQ6/ED4, TR1)."""
    n = rules[R_HOLES]
    scratch = np.empty(2 * n, dtype=state.dtype)
    saved = np.empty(2 * n, dtype=state.dtype)
    candidates = np.empty(n, dtype=np.int64)
    relay = rules[R_SOWING] == SOW_RELAY
    count = 0
    while state[off_status(n)] == RUNNING:
        mover = state[off_to_move(n)]
        if relay:
            action = random_relay_move(state, rules, rng, scratch, saved, candidates)
            if action < 0:
                finish_game(state, rules, 1 - mover)
                break
            end_turn(state, n, mover, action)
            if state[off_ply(n)] >= rules[R_MAX_PLIES]:
                settle(state, rules)
        else:
            action = random_songo_move(state, rules, rng, candidates)
            end_turn(state, n, mover, action)
            if state[off_ply(n)] >= rules[R_MAX_PLIES] or row_sum(state, n, 1 - mover) == 0:
                settle(state, rules)  # SE9 (an empty row has no legal move) or TR1
        if count < moves.shape[0]:
            moves[count] = action
        count += 1
    state[off_mask(n) : off_mask(n) + n] = 0
    return count


@njit(cache=True)
def play_random_games(rules, n_games, first_player, rng, count_legal_moves):
    """Play ``n_games`` uniformly random games from the start; returns winner, plies, captured,
    truncated and, with ``count_legal_moves`` (slower: full masks every ply), the number of legal
    moves summed over each game's plies."""
    n = rules[R_HOLES]
    winner = np.empty(n_games, dtype=np.int8)
    plies = np.empty(n_games, dtype=np.int32)
    captured = np.empty((n_games, 2), dtype=np.int32)
    truncated = np.zeros(n_games, dtype=np.bool_)
    legal_moves = np.zeros(n_games, dtype=np.int64)
    no_moves = np.empty(0, dtype=np.int64)
    start = initial_state(rules, first_player)
    state = start.copy()
    for g in range(n_games):
        state[:] = start
        if count_legal_moves:
            while state[off_status(n)] == RUNNING:
                legal_moves[g] += state[off_mask(n) : off_mask(n) + n].sum()
                apply_move(state, random_legal_action(state, n, rng), rules)
        else:
            play_random_game(state, rules, rng, no_moves)
        winner[g] = state[off_winner(n)]
        plies[g] = state[off_ply(n)]
        captured[g, 0] = state[off_captured(n)]
        captured[g, 1] = state[off_captured(n) + 1]
        truncated[g] = state[off_status(n)] == TRUNCATED
    return winner, plies, captured, truncated, legal_moves


@njit(cache=True)
def observe(state, player, rules, total, out):
    """The observation of ``player`` (layout in :meth:`mancala_envs.game.Game.observation`)."""
    n = rules[R_HOLES]
    scale = 1.0 / total
    for i in range(2 * n):
        out[i] = state[(i + player * n) % (2 * n)] * scale
    out[2 * n] = state[off_captured(n) + player] * scale
    out[2 * n + 1] = state[off_captured(n) + 1 - player] * scale
    if rules[R_OPENING_HOLE] >= 0:
        out[2 * n + 2] = state[off_pending(n) + player]
        out[2 * n + 3] = state[off_pending(n) + 1 - player]


@njit(cache=True)
def observe_batch(states, players, rules, total, out):
    """:func:`observe` for every row: ``out[i]`` is ``players[i]``'s view of ``states[i]``."""
    for i in range(states.shape[0]):
        observe(states[i], players[i], rules, total, out[i])
