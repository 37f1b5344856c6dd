"""Fuzzing the public entry points that take arrays (run in a subprocess by
tests/integration/test_hardening.py, so that a crash fails the test instead of killing the suite).

Every call gets random shapes, dtypes and values; it must raise an exception of the ValueError
family or return a correct result — never another exception, never a crash.
"""

from __future__ import annotations

import os
import sys

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mancala_envs import get_game

# its own short list (this script runs alone in a subprocess, without tests/ on its path): every game,
# En Dodoi at an odd width
GAMES = [get_game("songo_ewondo"), get_game("sadeqa_ii"), get_game("en_dodoi", holes_per_row=7)]
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "300"))
DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint64, np.float32, np.float64, np.bool_]
VALUES = st.one_of(
    st.integers(-3, 3),
    st.integers(-(2**40), 2**40),
    st.integers(0, 80),
    st.just(2**31 - 1),
    st.just(-(2**31)),
)


@st.composite
def arrays(draw, game, batch):
    """A packed state (or a batch), often valid, often damaged in one or more places."""
    rows = draw(st.integers(0, 4)) if batch else 1
    base = game.initial_states(max(rows, 1), first_player=draw(st.integers(0, 1)))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    for r in range(base.shape[0]):  # advance each row a few random legal moves
        s = game.state_from_array(base[r])
        for _ in range(int(rng.integers(0, 30))):
            if s.is_over:
                break
            legal = game.legal_actions(s)
            s = game.apply(s, legal[rng.integers(len(legal))])
        base[r] = s.array
    arr = base[:rows] if batch else base[0]
    for _ in range(draw(st.integers(0, 3))):  # damage
        flat = arr.reshape(-1)
        if flat.size:
            flat[draw(st.integers(0, flat.size - 1))] = np.int32(np.clip(draw(VALUES), -(2**31), 2**31 - 1))
    kind = draw(st.sampled_from(["same", "dtype", "shape", "list", "scalar", "noncontiguous"]))
    if kind == "dtype":
        arr = arr.astype(draw(st.sampled_from(DTYPES)))
    elif kind == "shape":
        arr = np.resize(arr, tuple(draw(st.lists(st.integers(0, 40), min_size=0, max_size=3))))
    elif kind == "list":
        arr = arr.tolist()
    elif kind == "scalar":
        arr = draw(VALUES)
    elif kind == "noncontiguous" and arr.ndim == 2 and arr.shape[0] > 1:
        arr = arr[::2]
    return arr


def ok_or_value_error(fn):
    try:
        return fn()
    except ValueError:  # IllegalMoveError is a ValueError
        return None


SETTINGS = settings(
    max_examples=EXAMPLES, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck)
)


@SETTINGS
@given(data=st.data())
def fuzz_state_from_array(data):
    game = data.draw(st.sampled_from(GAMES))
    arr = data.draw(arrays(game, batch=False))
    state = ok_or_value_error(lambda: game.state_from_array(arr))
    if state is not None:  # accepted: then it is a position the rules allow, and it plays
        assert game.state_from_dict(state.to_dict()) == state
        for a in game.legal_actions(state):
            game.apply(state, a)


@SETTINGS
@given(data=st.data())
def fuzz_batches(data):
    game = data.draw(st.sampled_from(GAMES))
    arr = data.draw(arrays(game, batch=True))
    actions = data.draw(
        st.one_of(
            st.lists(VALUES, min_size=0, max_size=5).map(np.array),
            st.lists(st.floats(-3, 9), min_size=0, max_size=5).map(np.array),
        )
    )
    players = data.draw(st.one_of(VALUES, st.lists(VALUES, max_size=5).map(np.array), st.floats(-1, 2)))
    ok_or_value_error(lambda: game.apply_batch(arr, actions))
    ok_or_value_error(lambda: game.legal_masks(arr))
    ok_or_value_error(lambda: game.observations(arr, players))
    ok_or_value_error(lambda: game.counts_batch(arr, players))
    ok_or_value_error(lambda: game.check_states(arr))


@SETTINGS
@given(data=st.data())
def fuzz_state_from(data):
    game = data.draw(st.sampled_from(GAMES))
    n = game.holes_per_row
    board = data.draw(
        st.one_of(st.lists(VALUES, min_size=2 * n, max_size=2 * n), st.lists(VALUES, max_size=30))
    )
    captured = data.draw(st.lists(VALUES, min_size=0, max_size=3))
    to_move = data.draw(st.one_of(VALUES, st.floats(-1, 2), st.booleans()))
    pending = data.draw(
        st.one_of(st.none(), st.booleans(), st.lists(st.one_of(st.booleans(), VALUES), max_size=3))
    )
    ply = data.draw(st.one_of(st.just(0), VALUES))
    s = ok_or_value_error(lambda: game.state_from(board, captured, to_move, pending, ply=ply))
    if s is not None:
        assert int(s.board.sum() + s.captured.sum()) == game.total_seeds
        assert game.state_from_array(s.array) == s


@SETTINGS
@given(data=st.data())
def fuzz_vector_env_step(data):
    from mancala_envs.envs.vector import MancalaVecEnv

    game = data.draw(st.sampled_from(GAMES))
    vec = MancalaVecEnv(game, 3, seed=0)
    vec.reset()
    actions = data.draw(
        st.one_of(
            st.lists(VALUES, min_size=0, max_size=6).map(np.array),
            st.lists(st.floats(-2, 9), min_size=3, max_size=3).map(np.array),
            st.lists(VALUES, min_size=6, max_size=6).map(lambda v: np.array(v).reshape(2, 3)),
        )
    )
    ok_or_value_error(lambda: vec.step(actions))


if __name__ == "__main__":
    for test in (fuzz_state_from_array, fuzz_batches, fuzz_state_from, fuzz_vector_env_step):
        test()
        print(f"{test.__name__}: ok", flush=True)
    sys.exit(0)
