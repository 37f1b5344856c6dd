"""The JAX core's speed: random play, steps/s, every variant beside pgx's ``connect_four`` in the
same run, on whatever device JAX sees.

    python benchmarks/bench_jax.py [--batches 1 1024 16384 262144 1048576] [--seconds S] [--out FILE]

One jitted call plays ``--steps-per-call`` steps of ``vmap(auto_reset(env.step, env.init))`` with
a uniformly random legal action per game (``jax.random.categorical`` over the legal mask), as
pgx's own speed benchmarks do; a figure is games x steps per second of wall time over calls
repeated for at least ``--seconds`` after a compiled warm-up call. Targets on one H200 at batch
2^20 (issue 42): Songo Ewondo >= pgx connect_four; Sadeqa II and every En Dodoi width
>= 200 M steps/s. On a CPU the default batches stop at 2^14 (JAX on 2 cores is not where the
numba kernels are beaten). ``--out FILE``: one table in a result file (results_file.py).
"""

from __future__ import annotations

import argparse
import time

import jax
import jax.numpy as jnp
import pgx
from pgx.experimental import auto_reset
from results_file import per_second, start, times, variant, write_table

import mancala_envs
from mancala_envs.jax import JaxEnv, relay

GPU_BATCHES = [1, 2**10, 2**14, 2**18, 2**20]
CPU_BATCHES = [1, 2**10, 2**14]


def random_play(env, batch: int, steps: int):
    """A jitted function ``(states, key) -> (states, key)`` playing ``steps`` random moves."""
    step = jax.vmap(auto_reset(env.step, env.init))

    def one(carry, _):
        states, key = carry
        key, k_act, k_step = jax.random.split(key, 3)
        logits = jnp.log(states.legal_action_mask.astype(jnp.float32))
        actions = jax.random.categorical(k_act, logits, axis=-1)
        return (step(states, actions, jax.random.split(k_step, batch)), key), None

    def play(states, key):
        return jax.lax.scan(one, (states, key), None, length=steps)[0]

    return jax.jit(play)


def steps_per_second(env, batch: int, steps: int, seconds: float) -> tuple[float, float]:
    """(steps/s, seconds of the first, compiling call)."""
    key = jax.random.PRNGKey(0)
    states = jax.jit(jax.vmap(env.init))(jax.random.split(key, batch))
    play = random_play(env, batch, steps)
    t0 = time.perf_counter()
    states, key = jax.block_until_ready(play(states, key))
    compile_s = time.perf_counter() - t0
    calls = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds or calls < 2:
        states, key = play(states, key)
        calls += 1
    jax.block_until_ready(states)
    return batch * steps * calls / (time.perf_counter() - t0), compile_s


def numba_moves_per_second(game, seconds: float) -> float:
    """The rules core's compiled random games (``mancala_envs.random_games``, one core): moves/s."""
    mancala_envs.random_games(game, 10)  # compile or load the kernels first
    moves, t0, seed = 0, time.perf_counter(), 1
    while time.perf_counter() - t0 < seconds:
        moves += int(mancala_envs.random_games(game, 2000, seed=seed).plies.sum())
        seed += 1
    return moves / (time.perf_counter() - t0)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    on_gpu = jax.default_backend() != "cpu"
    parser.add_argument("--batches", type=int, nargs="+", default=GPU_BATCHES if on_gpu else CPU_BATCHES)
    parser.add_argument("--steps-per-call", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument(
        "--numba-seconds", type=float, default=None,
        help="seconds of the numba column per variant (default: --seconds; 0 leaves the column out)",
    )  # fmt: skip
    parser.add_argument("--variants", nargs="*", default=None, help="variant names (default: all)")
    parser.add_argument(
        "--plan",
        type=int,
        nargs=3,
        default=None,
        metavar=("RATIO", "MIN_LANES", "UNROLL"),
        help="the relay level plan (mancala_envs.jax.relay.Plan; default: its PLAN)",
    )
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    if args.plan:
        relay.PLAN = relay.Plan(*args.plan)
    record = start()
    games = [g for g in mancala_envs.variants() if args.variants is None or g.variant in args.variants]
    envs = [("pgx connect_four (peer)", pgx.make("connect_four"))] + [(variant(g), JaxEnv(g)) for g in games]
    device = jax.devices()[0]
    raw: dict = {
        "device": str(device.device_kind),
        "backend": jax.default_backend(),
        "jax": jax.__version__,
        "relay_plan": relay.PLAN._asdict(),
        "pgx": pgx.__version__,
        "steps_per_call": args.steps_per_call,
        "steps_per_second": {},
        "compile_seconds": {},
    }
    rows = []
    for label, env in envs:
        row = [label]
        numba_s = args.seconds if args.numba_seconds is None else args.numba_seconds
        numba = numba_moves_per_second(env.game, numba_s) if isinstance(env, JaxEnv) and numba_s > 0 else None
        raw.setdefault("numba_moves_per_second", {})[label] = numba
        for batch in args.batches:
            rate, compile_s = steps_per_second(env, batch, args.steps_per_call, args.seconds)
            raw["steps_per_second"].setdefault(label, {})[str(batch)] = rate
            raw["compile_seconds"].setdefault(label, {})[str(batch)] = compile_s
            print(
                f"{label:28s} batch {batch:>8}: {rate:>14,.0f} steps/s (compiled in {compile_s:.1f} s)",
                flush=True,
            )
            row.append(per_second(rate))
        rows.append(row)
    peer = raw["steps_per_second"][envs[0][0]][str(args.batches[-1])]
    for row, (label, _) in zip(rows, envs, strict=True):
        row.append(times(raw["steps_per_second"][label][str(args.batches[-1])] / peer))
        numba = raw["numba_moves_per_second"][label]
        row.append("—" if numba is None else per_second(numba))
    columns = [
        "game", *(f"batch {b:,}" for b in args.batches), f"vs connect_four at {args.batches[-1]:,}",
        "numba core, 1 CPU core (moves/s)",
    ]  # fmt: skip
    notes = [
        f"Random play through `vmap(auto_reset(env.step, env.init))`, {args.steps_per_call} steps a "
        f"jitted call, on {raw['backend']} ({raw['device']}), jax {raw['jax']}, pgx {raw['pgx']}, "
        f"relay plan (ratio, min lanes, unroll) {tuple(relay.PLAN)}; "
        f"steps/s = games × steps over at least {args.seconds:g} s after a compiled warm-up. "
        "Targets on one H200 at batch 2^20: Songo Ewondo ≥ pgx connect_four; Sadeqa II and every "
        "En Dodoi width ≥ 200 M steps/s. Last column: the rules core's compiled random games "
        "(`mancala_envs.random_games`) on one CPU core in the same run, the fast path without an "
        "accelerator.",
    ]
    write_table(
        args.out,
        f"JAX core on {raw['backend']}: random-play steps/s beside pgx connect_four",
        columns,
        rows,
        "---|" + "|".join(["---:"] * (len(columns) - 1)),
        notes,
        raw,
        record,
    )


if __name__ == "__main__":
    main()
