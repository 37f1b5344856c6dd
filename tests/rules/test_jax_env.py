"""The JAX core (mancala_envs.jax) plays the same rules as the numba core: lockstep after every
move over random games of every variant (truncation, SQ4's forced first moves and never-ending
relays included), the rule cases, batched against single-state steps, pgx's API and wrappers.

``MANCALA_LOCKSTEP_MOVES=100000 pytest tests/rules/test_jax_env.py -k lockstep`` runs the long lockstep
(100,000 moves a variant) that the suite's quick one samples."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("pgx")

import jax.numpy as jnp  # noqa: E402
from pgx.experimental import auto_reset  # noqa: E402
from variants import ALL, ALL_IDS, GAME_NAMES, NARROWEST, NARROWEST_IDS  # noqa: E402

import mancala_envs  # noqa: E402
from mancala_envs.core.batch import random_actions, step_batch  # noqa: E402
from mancala_envs.jax import JaxEnv, to_packed, to_state  # noqa: E402
from mancala_envs.jax.relay import Plan, relay_lanes  # noqa: E402

CASES = json.loads((Path(__file__).parents[1] / "data" / "rule_cases.json").read_text())
LOCKSTEP_MOVES = int(os.environ.get("MANCALA_LOCKSTEP_MOVES", "6400"))
LOCKSTEP_BATCH = 32


def reset_lanes(state, start, lanes):
    """``state`` with the rows ``lanes`` (bool) replaced by the start position."""
    return jax.tree.map(
        lambda s, z: jnp.where(lanes.reshape((-1,) + (1,) * (s.ndim - 1)), z, s), state, start
    )


def never_ending_holes(packed, game):
    """Non-empty holes of the player to move that are illegal outside SQ4's opening: never-ending
    relays (SQ5/ED3)."""
    lay, n = game.layout, game.num_actions
    running = packed[:, lay.status] == 0
    mover = packed[:, lay.to_move]
    own = np.stack([packed[i, m * n : m * n + n] for i, m in enumerate(mover)])
    forced = np.zeros(len(packed), bool)
    if game.ruleset.opening_hole >= 0:
        forced = packed[np.arange(len(packed)), lay.pending.start + mover] == 1
    return int(((own > 0) & (packed[:, lay.mask] == 0) & (running & ~forced)[:, None]).sum())


def lockstep(game, moves: int, seed: int) -> dict[str, int]:
    """Play random games on both cores in lockstep, comparing every field after every move;
    returns counts of what was met."""
    env = JaxEnv(game)
    batch = LOCKSTEP_BATCH
    step = jax.jit(jax.vmap(env.step))
    start = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(seed), batch))
    state = start
    packed = np.stack([game.initial_state().array] * batch)
    rng = np.random.default_rng(seed)
    met = dict(moves=0, done=0, truncated=0, never_ending=0)
    while met["moves"] < moves:
        mine = to_packed(state, game)
        np.testing.assert_array_equal(mine, packed)
        views = game.observations(packed, packed[:, game.layout.to_move])
        np.testing.assert_allclose(np.asarray(state.observation), views, rtol=1e-6)
        met["never_ending"] += never_ending_holes(packed, game)
        actions = random_actions(packed, game.rules, rng)  # rows are never finished here: reset below
        assert step_batch(packed, actions, game.rules) == -1
        state = step(state, jnp.asarray(actions, jnp.int32))
        met["moves"] += batch
        np.testing.assert_array_equal(to_packed(state, game), packed)
        winner = packed[:, game.layout.winner]
        over = packed[:, game.layout.status] != 0
        expect = np.stack(
            [np.where(winner == p, 1.0, np.where(winner == 1 - p, -1.0, 0.0)) for p in (0, 1)], 1
        )
        np.testing.assert_array_equal(np.asarray(state.rewards), expect * (winner >= 0)[:, None])
        assert np.asarray(state.legal_action_mask)[over].all()  # pgx: all True once over
        met["done"] += int((packed[:, game.layout.status] == 1).sum())
        met["truncated"] += int((packed[:, game.layout.status] == 2).sum())
        state = reset_lanes(state, start, jnp.asarray(over))
        packed[over] = game.initial_state().array
    return met


@pytest.mark.parametrize(("name", "params"), ALL, ids=ALL_IDS)
def test_lockstep_with_the_numba_core(name, params):
    """Every field of the packed state, the observation, the rewards, after every move."""
    game = mancala_envs.get_game(name, **params)
    met = lockstep(game, LOCKSTEP_MOVES, seed=7)
    assert met["done"] > 0
    if LOCKSTEP_MOVES >= 100_000 and game.ruleset.sowing == 1:
        assert met["never_ending"] > 0, met


@pytest.mark.parametrize("name", GAME_NAMES)
def test_lockstep_with_truncation(name):
    """TR1: short games truncate on both cores alike (no winner, no redistribution)."""
    met = lockstep(mancala_envs.get_game(name, max_plies=12), 512, seed=3)
    assert met["truncated"] > 0


STEPS: dict = {}  # one compiled step per game of the rule cases


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_rule_case(case):
    game = mancala_envs.get_game(case["game"], **case["params"])
    extra = {"first_move_pending": case["first_move_pending"]} if "first_move_pending" in case else {}
    before = game.state_from(board=case["board"], captured=case["captured"], to_move=case["to_move"], **extra)
    env = JaxEnv(game)
    state = env.from_state(before)
    assert np.flatnonzero(np.asarray(state.legal_action_mask)).tolist() == case["expect_legal"]
    step = STEPS.setdefault(game.variant, jax.jit(env.step))
    after = step(state, jnp.int32(case["action"]))
    assert np.asarray(after._board).tolist() == case["expect_board"], case["rule"]
    assert np.asarray(after._captured).tolist() == case["expect_captured"], case["rule"]
    assert bool(after.terminated) == case["expect_done"]
    if not case["expect_done"]:
        assert int(after.current_player) == case["expect_to_move"]
    assert env.to_state(after) == game.apply(before, case["action"])


def test_never_ending_relays_match():
    """Random boards with never-ending relays (SQ5/ED3): the same legal masks as the numba core,
    under the default level plan and a plan of many tiny levels."""
    rng = np.random.default_rng(11)
    # the games with never-ending relays, each on its narrowest board
    for name, params in [v for v in NARROWEST if v[0] != "songo_ewondo"]:
        game = mancala_envs.get_game(name, **params)
        n = game.num_actions
        found = []
        while len(found) < 4:
            board = np.bincount(rng.integers(0, 2 * n, game.total_seeds), minlength=2 * n)
            state = game.state_from(board=board, captured=[0, 0], to_move=0)
            if not state.is_over and ((board[:n] > 0) & (game.legal_mask(state) == 0)).any():
                found.append(state)
        env = JaxEnv(game)
        for state in found:
            assert env.to_state(env.from_state(state)) == state
        boards = np.stack([s.board for s in found for _ in range(n)])
        starts = np.tile(np.arange(n), len(found))
        active = boards[np.arange(len(boards)), starts] > 0
        for plan in (Plan(), Plan(ratio=2, min_lanes=2, unroll=3)):
            _, landing = jax.jit(relay_lanes, static_argnums=(3, 4, 5))(
                boards, starts, active, 1, game.ruleset.max_relay_laps, plan
            )
            legal = np.asarray(landing).reshape(len(found), n) >= 0
            assert legal.tolist() == [game.legal_mask(s).astype(bool).tolist() for s in found]


# two games: each compiles its own batched step (a deliberate subset, for time)
@pytest.mark.parametrize(("name", "params"), NARROWEST[:2], ids=NARROWEST_IDS[:2])
def test_batched_steps_equal_single_steps(name, params):
    """``jit(vmap(step))`` and the single-state ``step`` agree, lane by lane."""
    env = JaxEnv(name, **params)
    batch = 4
    vstep, step = jax.jit(jax.vmap(env.step)), jax.jit(env.step)
    states = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(0), batch))
    rng = np.random.default_rng(0)
    for _ in range(12):
        mask = np.asarray(states.legal_action_mask, float)
        actions = jnp.asarray([rng.choice(len(m), p=m / m.sum()) for m in mask], jnp.int32)
        together = vstep(states, actions)
        for i in range(batch):
            one = step(jax.tree.map(lambda x, i=i: x[i], states), actions[i])
            for a, b in zip(
                jax.tree.leaves(one),
                jax.tree.leaves(jax.tree.map(lambda x, i=i: x[i], together)),
                strict=True,
            ):
                np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
        states = together


@pytest.mark.parametrize(("name", "params"), NARROWEST, ids=NARROWEST_IDS)
def test_pgx_api_and_auto_reset(name, params):
    """pgx's contract (dtypes, ids, shapes, zero rewards at the start and after the end, all
    actions 'legal' at the end) and ``pgx.experimental.auto_reset`` over random play (the other
    widths share En Dodoi's program; the lockstep test plays them all)."""
    env = JaxEnv(name, **params)
    game = env.game
    assert (env.id, env.version, env.num_players) == (game.variant, "v0", 2)
    assert env.num_actions == game.num_actions and env.observation_shape == (game.observation_size,)
    state = jax.jit(env.init)(jax.random.PRNGKey(0))
    assert state.env_id == env.id and state._step_count == 0
    assert state.current_player.dtype == jnp.int32 and state.rewards.dtype == jnp.float32
    assert state.legal_action_mask.dtype == jnp.bool_ and state.terminated.dtype == jnp.bool_
    assert state.observation.shape == env.observation_shape and not state.rewards.any()
    assert to_state(state, game) == game.initial_state()
    step = jax.jit(jax.vmap(auto_reset(env.step, env.init)))
    batch = 16
    states = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(1), batch))
    key = jax.random.PRNGKey(2)
    finished = 0
    for _ in range(150):
        key, k1, k2 = jax.random.split(key, 3)
        actions = jax.random.categorical(k1, jnp.log(states.legal_action_mask.astype(jnp.float32)), axis=1)
        states = step(states, actions, jax.random.split(k2, batch))
        ended = np.asarray(states.terminated)
        finished += int(ended.sum())
        rewards = np.asarray(states.rewards)
        assert (rewards[ended].sum(1) == 0).all() and not rewards[~ended].any()
        assert int(np.asarray(states._step_count).max()) >= 0
    assert finished > 0


def test_terminal_and_illegal_steps():
    """A step after the end changes nothing but zeroes the rewards (pgx); an illegal action ends
    the game with pgx's penalty, the board left as it was, and has no rules position."""
    env = JaxEnv("en_dodoi", holes_per_row=6)
    state = env.init(jax.random.PRNGKey(0))
    board = np.asarray(state._board)
    illegal_state = env.from_state(env.game.state_from(board=[0, 0, 0, 0, 0, 24] + [4] * 6, to_move=0))
    bad = env.step(illegal_state, jnp.int32(0))
    assert bool(bad.terminated) and np.asarray(bad.rewards).tolist() == [-1.0, 1.0]
    assert np.asarray(bad._board).tolist() == [0, 0, 0, 0, 0, 24] + [4] * 6
    with pytest.raises(ValueError, match="illegal action"):
        env.to_state(bad)
    again = env.step(bad, jnp.int32(1))
    assert not np.asarray(again.rewards).any() and bool(again.terminated)
    assert np.asarray(state._board).tolist() == board.tolist()


def test_conversions_refuse_what_they_cannot_convert():
    env = JaxEnv("sadeqa_ii")
    states = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(0), 2))
    with pytest.raises(ValueError, match="one state"):
        env.to_state(states)
    with pytest.raises(ValueError, match="JaxState of sadeqa_ii"):
        to_state(JaxEnv("songo_ewondo").init(jax.random.PRNGKey(0)), env.game)
    with pytest.raises(ValueError, match="from_state takes a State of"):
        env.from_state(mancala_envs.get_game("songo_ewondo").initial_state())
    with pytest.raises(ValueError):
        JaxEnv("en_dodoi", holes_per_row=11)
    with pytest.raises(TypeError):
        JaxEnv(env.game, holes_per_row=8)


def test_state_svg():
    env = JaxEnv("songo_ewondo")
    assert env.init(jax.random.PRNGKey(0)).to_svg().startswith("<svg")


def test_pmap_runs_the_step():
    """``pmap`` takes init and step as pgx users write it (one device here: a leading axis of 1)."""
    env = JaxEnv("sadeqa_ii")
    devices = jax.local_device_count()
    states = jax.pmap(env.init)(jax.random.split(jax.random.PRNGKey(0), devices))
    after = jax.pmap(env.step)(states, jnp.full(devices, 5, jnp.int32))  # SQ4: the opening hole
    assert int(after._ply[0]) == 1 and int(after.current_player[0]) == 1
    first = to_state(jax.tree.map(lambda x: x[0], after), env.game)
    assert first == env.game.apply(env.game.initial_state(), 5)
