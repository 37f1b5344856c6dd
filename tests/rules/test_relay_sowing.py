"""Relay sowing (SQ1, SQ2, SQ5 / ED1, ED3) against a plain lap-by-lap implementation written here:
the compiled relay, with its plain first laps and Brent's cycle shortcut, must give the same
landing hole, the same board, and the same never-ends verdict under a lap limit."""

from dataclasses import replace

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mancala_envs.core.engine import new_work
from mancala_envs.core.layout import slot_length, state_length
from mancala_envs.core.relay import simulate_relay
from mancala_envs.core.sowing import BRENT_START, NEVER_ENDS
from mancala_envs.rulesets import EN_DODOI, SADEQA_II

LAPS = 200  # a small lap limit, so that the plain relay below stays fast


def plain_relay(board: list[int], hole: int, laps: int) -> tuple[int, list[int], int]:
    """SQ1/SQ2: lift, sow counter-clockwise into every hole (the origin too); relift an occupied
    landing hole; end on an empty one. Returns (landing hole, board, laps), NEVER_ENDS as the
    landing after ``laps`` laps."""
    b = list(board)
    size = len(b)
    pos = hole
    for lap in range(1, laps + 1):
        seeds, b[pos] = b[pos], 0
        for _ in range(seeds):
            pos = (pos + 1) % size
            b[pos] += 1
        if b[pos] == 1:
            return pos, b, lap
    return NEVER_ENDS, b, laps


def boards(n: int):
    return st.lists(st.integers(0, 9), min_size=2 * n, max_size=2 * n).filter(lambda b: sum(b) > 0)


def check(ruleset, board: list[int]) -> tuple[int, int]:
    """Compare every non-empty hole; returns how many relays never ended and how many ran past
    the plain first laps (BRENT_START)."""
    n = ruleset.holes_per_row
    rules = replace(ruleset, max_relay_laps=LAPS).to_array()
    state = np.zeros(state_length(n), dtype=np.int32)
    state[: 2 * n] = board
    never = longer = 0
    for hole in range(2 * n):
        if board[hole] == 0:
            continue
        work = new_work(n)
        landing = simulate_relay(state, n, hole, rules, work)
        expected, after, laps = plain_relay(board, hole, LAPS)
        assert landing == expected, (board, hole)
        slot = work[: n * slot_length(n)].reshape(n, -1)[hole % n]  # core.relay.relay_slot
        assert slot[2 * n] == landing
        if landing != NEVER_ENDS:
            assert slot[: 2 * n].tolist() == after, (board, hole)
        never += landing == NEVER_ENDS
        longer += laps > BRENT_START
    return never, longer


@settings(max_examples=150, deadline=None)
@given(boards(SADEQA_II.holes_per_row))
def test_sadeqa_relays_match_plain_relay(board):
    check(SADEQA_II, board)


@settings(max_examples=150, deadline=None)
@given(boards(EN_DODOI.holes_per_row))
def test_en_dodoi_relays_match_plain_relay(board):
    check(EN_DODOI, board)


def test_long_and_never_ending_relays_match_on_crowded_boards():
    """Seeded boards of 30-64 seeds: relays that run past the plain first laps and relays that
    never end both occur, and every one matches the plain relay (so the cycle-checking phase is
    exercised, not only the first laps)."""
    rng = np.random.default_rng(0)
    never = longer = 0
    for ruleset in (SADEQA_II, EN_DODOI):
        size = 2 * ruleset.holes_per_row
        for _ in range(1000):
            board = np.bincount(rng.integers(0, size, rng.integers(30, 65)), minlength=size)
            found = check(ruleset, board.tolist())
            never += found[0]
            longer += found[1]
    assert never >= 3 and longer >= 50, (never, longer)
