"""SQ1, SQ5 / ED1, ED3 on an accelerator: many relays at once, and the long ones in small buffers.

A relay ends when its last seed falls into an empty hole; one that has not ended after
``max_relay_laps`` laps (10,000) never ends and its move is illegal. Most relays end within a few
laps, but a batched loop runs until its slowest lane is done, and one never-ending relay in a
batch would make every lane pay 10,000 laps. So the lanes run in *levels*: all of them lap
together until no more than ``lanes // ratio`` are still running; those are gathered into a
buffer of that size, which laps on until its own count falls below the next level's, and so on
down to ``min_lanes``, which laps to the cap; each level scatters its results back. A lap is
closed-form (:func:`mancala_envs.jax.rules.sow_lap`) and each loop iteration runs ``unroll``
laps, so a long relay costs arithmetic, not one loop iteration (a kernel launch on a GPU) a lap.

The level plan needs the whole batch: :func:`relay_simulator` returns a function of one
position's lanes with a ``custom_vmap`` rule, so ``vmap(env.step)`` hands it every lane of the
batch at once (nested ``vmap`` still works, a level plan per outer element).
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import jax
import jax.numpy as jnp
from jax.custom_batching import custom_vmap

from mancala_envs.jax.rules import at, sow_lap

NEVER_ENDS = -1  # the landing hole of a relay that never ends (SQ5, ED3), or of an idle lane


class Plan(NamedTuple):
    """How the lanes are split into levels: each level holds ``1/ratio`` of the one before, down
    to ``min_lanes``; ``unroll`` laps per loop iteration."""

    ratio: int = 16
    min_lanes: int = 64
    unroll: int = 8


PLAN = Plan(ratio=8, min_lanes=64, unroll=4)  # the best of a sweep on 2 CPU cores; sweep again on a GPU


class Lanes(NamedTuple):
    board: jax.Array  # int32[m, 2n]
    pos: jax.Array  # int32[m]: the hole the next lap lifts
    running: jax.Array  # bool[m]
    landing: jax.Array  # int32[m]: where the relay ended, NEVER_ENDS while running


def lap(lanes: Lanes, direction: int, allowed: jax.Array) -> Lanes:
    """One lap of every running lane (SQ1): lift ``pos``, sow; the relay ends when the last seed
    falls into an empty hole (now 1), else the next lap lifts the hole it fell into."""
    go = lanes.running & allowed
    board, last = sow_lap(lanes.board, lanes.pos, direction)
    ended = go & (at(board, last) == 1)
    return Lanes(
        board=jnp.where(go[:, None], board, lanes.board),
        pos=jnp.where(go, last, lanes.pos),
        running=lanes.running & ~ended,
        landing=jnp.where(ended, last, lanes.landing),
    )


def level_sizes(lanes: int, plan: Plan) -> list[int]:
    sizes = [lanes]
    while sizes[-1] > plan.min_lanes:
        sizes.append(max(plan.min_lanes, sizes[-1] // plan.ratio))
    return sizes


def run_levels(lanes: Lanes, laps: jax.Array, sizes: list[int], direction: int, max_laps: int, plan: Plan):
    """Lap ``lanes`` (``sizes[0]`` of them) until at most ``sizes[1]`` run (or the cap), then the
    rest in a buffer of ``sizes[1]`` lanes, recursively."""
    target = sizes[1] if len(sizes) > 1 else 0

    def more(carry):
        done, ls = carry
        return (done < max_laps) & (jnp.sum(ls.running) > target)

    def laps_of(carry):
        done, ls = carry
        for k in range(plan.unroll):
            ls = lap(ls, direction, done + k < max_laps)
        return done + plan.unroll, ls

    laps, lanes = jax.lax.while_loop(more, laps_of, (laps, lanes))
    if target == 0:
        return lanes
    pick = jnp.nonzero(lanes.running, size=target, fill_value=sizes[0])[0]
    sub = Lanes(
        board=jnp.take(lanes.board, pick, axis=0, mode="clip"),
        pos=jnp.take(lanes.pos, pick, mode="clip"),
        running=jnp.take(lanes.running, pick, mode="fill", fill_value=False),
        landing=jnp.take(lanes.landing, pick, mode="clip"),
    )
    sub = run_levels(sub, laps, sizes[1:], direction, max_laps, plan)
    return Lanes(*(whole.at[pick].set(part, mode="drop") for whole, part in zip(lanes, sub, strict=True)))


def relay_lanes(boards, starts, active, direction: int, max_laps: int, plan: Plan = PLAN):
    """The relays of ``starts[i]`` on ``boards[i]`` for every lane ``i`` with ``active[i]``: the
    board where each ended (``int32[m, 2n]``) and the landing hole (NEVER_ENDS when the relay
    never ends, or the lane was not active)."""
    m = boards.shape[0]
    lanes = Lanes(
        board=boards.astype(jnp.int32),
        pos=starts.astype(jnp.int32),
        running=active,
        landing=jnp.full((m,), NEVER_ENDS, jnp.int32),
    )
    out = run_levels(lanes, jnp.int32(0), level_sizes(m, plan), direction, max_laps, plan)
    return out.board, out.landing


@lru_cache(maxsize=64)
def relay_simulator(direction: int, max_laps: int, plan: Plan):
    """``simulate(boards, starts, active) -> (boards, landing)`` over one position's lanes (its
    holes), whose ``vmap`` runs every lane of the batch through one level plan."""

    @custom_vmap
    def simulate(boards, starts, active):
        return relay_lanes(boards, starts, active, direction, max_laps, plan)

    @simulate.def_vmap
    def simulate_batch(axis_size, in_batched, boards, starts, active):
        args = [
            a if b else jnp.broadcast_to(a, (axis_size, *a.shape))
            for a, b in zip((boards, starts, active), in_batched, strict=True)
        ]
        boards, starts, active = args
        lead = boards.shape[:2]
        flat_boards, landing = relay_lanes(
            boards.reshape(-1, boards.shape[-1]),
            starts.reshape(-1),
            active.reshape(-1),
            direction,
            max_laps,
            plan,
        )
        return (flat_boards.reshape(boards.shape), landing.reshape(lead)), (True, True)

    return simulate
