"""The compiled stepping behind the vector envs (:mod:`mancala_envs.envs.vector` for SB3 and
:mod:`mancala_envs.envs.gym_vector` for Gymnasium): every game in one packed ``int32`` array,
advanced by one kernel call per step — the learner's moves, the random opponent's replies,
episode ends, automatic resets and the observation, mask, reward and done buffers.

Every move is the engine's :func:`~mancala_envs.core.engine.play`; the random opponent is the
engine's :func:`~mancala_envs.core.engine.play_random`, so the games follow exactly the rules of
:class:`~mancala_envs.envs.single.SingleAgentEnv`. With that opponent the learner's move skips
the opponent's legal mask (``with_mask=False``): the random player needs none.

Each game keeps its own engine scratch (``works[i]``). When the opponent's move has just built
the learner's legal mask in it, a relay game's every legal move is already simulated there
(:mod:`mancala_envs.core.relay`), and ``simulated[i]`` says so: the learner's move is then the
engine's :func:`~mancala_envs.core.engine.resolve` of that simulation, not a second one.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mancala_envs.core.batch import view_into
from mancala_envs.core.engine import outcome, play, play_random, resolve
from mancala_envs.core.fast import kernel, random_below
from mancala_envs.core.layout import (
    RUNNING,
    TRUNCATED,
    copy_row,
    off_captured,
    off_mask,
    off_ply,
    off_status,
    off_to_move,
    off_winner,
)
from mancala_envs.rulesets import R_HOLES

# Per-game status after a kernel call.
READY, NEED_OPPONENT = 0, 1
# Kernel modes.
MODE_LEARNER, MODE_OPPONENT, MODE_RESET, MODE_RESUME = 0, 1, 2, 3
# Columns of the episode-end record (VectorDriver.end_infos reads them).
END_TRUNCATED, END_WINNER, END_OWN, END_OPP, END_PLY, END_SEAT, END_ILLEGAL = range(7)
END_COLUMNS = 7


@kernel
def record_end(i, state, seat, reward, illegal, rules, scale, out):
    """Write the end of game ``i``'s episode into the outputs ``out``: reward, done, terminal
    observation and record."""
    n = rules[R_HOLES]
    _, _, rewards, dones, term_obs, ends, _ = out
    view_into(state, seat, rules, scale, term_obs[i])
    rewards[i] = reward
    dones[i] = True
    ends[i, END_TRUNCATED] = state[off_status(n)] == TRUNCATED
    ends[i, END_WINNER] = 1 - seat if illegal else state[off_winner(n)]
    ends[i, END_OWN] = state[off_captured(n) + seat]
    ends[i, END_OPP] = state[off_captured(n) + 1 - seat]
    ends[i, END_PLY] = state[off_ply(n)]
    ends[i, END_SEAT] = seat
    ends[i, END_ILLEGAL] = illegal


@kernel
def new_episode(state, seats, i, starts, rng):
    """Game ``i`` starts a new episode: a start position (a random row of ``starts`` when there
    are several) and a random learner seat."""
    k = 0 if starts.shape[0] == 1 else random_below(rng, starts.shape[0])
    copy_row(state, starts[k])
    seats[i] = random_below(rng, 2)


@kernel
def first_bad_action(states, actions, selected, rules, allow_illegal):
    """(row, kind) of the first selected action out of range (kind 1) or illegal (kind 2, unless
    ``allow_illegal``); (-1, 0) when all are acceptable."""
    n = rules[R_HOLES]
    for i in range(states.shape[0]):
        if selected[i]:
            a = actions[i]
            if a < 0 or a >= n:
                return i, 1
            if not allow_illegal and states[i, off_mask(n) + a] != 1:
                return i, 2
    return -1, 0


@njit(cache=True, nogil=True)
def run_block(mode, selected, rng, random_opponent, games, starts, rules, scale, out):
    """The one kernel behind the vector envs, over a block of games (all of them, or one
    thread's share): :func:`step_game` on every selected game. ``games`` = (states, actions,
    seats, works, simulated) and ``out`` = (obs, masks, rewards, dones, term_obs, ends, status)
    are the env's per-game arrays (rows of this block); ``starts`` the start positions. Returns
    the number of games waiting for an agent opponent."""
    candidates = np.empty(rules[R_HOLES], dtype=np.int64)
    waiting = 0
    for i in range(selected.shape[0]):
        if selected[i]:
            waiting += step_game(i, mode, rng, random_opponent, games, starts, rules, scale, out, candidates)
    return waiting


@kernel
def step_game(i, mode, rng, random_opponent, games, starts, rules, scale, out, candidates):
    """Game ``i`` by ``mode``: LEARNER: the learner's action (an illegal one, checked beforehand by
    :func:`first_bad_action`, ends the episode with -1), OPPONENT: the opponent's action, RESET: a
    new episode, RESUME: nothing (positions set from outside). Then the game runs on until the
    learner is to move: finished episodes are recorded and restarted, random opponent moves are
    played; an agent opponent's turn stops it (status NEED_OPPONENT; returns 1, else 0). A new
    episode starts from a row of ``starts`` (drawn uniformly when it has more than one: an
    opening suite) with a uniformly drawn learner seat."""
    n = rules[R_HOLES]
    states, actions, seats, works, simulated = games
    obs, masks, rewards, dones, _, _, status = out
    state = states[i]
    work = works[i]
    fresh = False  # does work hold the simulations of the learner's mask (module docstring)?
    if mode != MODE_OPPONENT:
        rewards[i] = 0.0
        dones[i] = False
    if mode == MODE_RESET:
        new_episode(state, seats, i, starts, rng)
    elif mode == MODE_OPPONENT:
        fresh = play(state, actions[i], rules, work, True)
    elif mode == MODE_RESUME:
        pass
    elif state[off_mask(n) + actions[i]] == 1 and simulated[i]:
        resolve(state, actions[i], rules, work, not random_opponent)
    elif state[off_mask(n) + actions[i]] == 1:
        play(state, actions[i], rules, work, not random_opponent)
    else:  # illegal_action="terminate": the learner loses, a new game starts
        record_end(i, state, seats[i], -1.0, True, rules, scale, out)
        new_episode(state, seats, i, starts, rng)
    status[i] = READY
    while True:
        seat = seats[i]
        if state[off_status(n)] != RUNNING:
            reward = float(outcome(state[off_winner(n)], seat))
            record_end(i, state, seat, reward, False, rules, scale, out)
            new_episode(state, seats, i, starts, rng)
            fresh = False
        elif state[off_to_move(n)] == seat:
            view_into(state, seat, rules, scale, obs[i])
            for a in range(n):
                masks[i, a] = state[off_mask(n) + a]
            simulated[i] = fresh
            return 0
        elif random_opponent:
            fresh = play_random(state, rules, rng.random(), work, candidates, True) >= 0
        else:
            status[i] = NEED_OPPONENT
            return 1
