"""Self-play speed of the JAX AlphaZero trainer beside ``mancala train-az``, in one run.

    python benchmarks/bench_az_jax.py [--game sadeqa_ii] [--games 1024] [--sims 16] [--out FILE]

(1) ``training/train_az_jax.py``'s compiled iteration (self-play of ``--games`` games x
    ``--moves`` moves with ``--sims`` Gumbel MuZero simulations each, targets and updates) on the
    device JAX sees: positions/s over ``--iterations`` iterations after a compiled first one.
(2) ``mancala train-az`` (torch network, numba search) with the same games and simulations, as
    a subprocess on the CPU, for ``--peer-positions`` positions: the mean of its metrics.csv
    positions/s (every iteration but the first).
``--out FILE``: one table in a result file (results_file.py).
"""

from __future__ import annotations

import argparse
import csv
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import jax
from results_file import per_second, start, times, variant, write_table

import mancala_envs
from mancala_envs.agents.alphazero_jax.model import AZNet, init_params
from mancala_envs.jax import env_for
from mancala_envs.training.train_az_jax import Loop, compiled_iteration


def jax_positions_per_second(game, games: int, moves: int, sims: int, iterations: int) -> float:
    env = env_for(game)
    net = AZNet(num_actions=env.num_actions)
    optimizer, step = compiled_iteration(env, net, Loop(games, moves, sims, 1024, 1e-3))
    params = init_params(net, env, 0)
    carry = (
        params,
        optimizer.init(params),
        jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(0), games)),
    )
    key = jax.random.PRNGKey(1)
    carry, _ = jax.block_until_ready(step(carry, key))  # compiles
    t0 = time.perf_counter()
    for i in range(iterations):
        carry, _ = step(carry, jax.random.fold_in(key, i))
    jax.block_until_ready(carry)
    return games * moves * iterations / (time.perf_counter() - t0)


def peer_positions_per_second(game, games: int, moves: int, sims: int, positions: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        run = Path(tmp) / "run"
        holes = ["--holes-per-row", str(game.holes_per_row)] if game.name == "en_dodoi" else []
        cmd = [
            sys.executable, "-m", "mancala_envs.training.train_alphazero", "--game", game.name, *holes,
            "--games", str(games), "--sims", str(sims), "--moves-per-iteration", str(moves),
            "--total-positions", str(positions), "--eval-every", str(10 * positions), "--eval-games", "2",
            "--final-eval-games", "2", "--eval-opponents", "random", "--eval-net-opponents", "random",
            "--device", "cpu", "--out", str(run),
        ]  # fmt: skip
        subprocess.run(cmd, check=True, capture_output=True, text=True)
        with open(run / "metrics.csv") as fh:
            rates = [float(r["positions_per_second"]) for r in csv.DictReader(fh)]
    return sum(rates[1:]) / max(1, len(rates) - 1)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--game", default="sadeqa_ii")
    parser.add_argument("--holes-per-row", type=int, default=None)
    parser.add_argument("--games", type=int, default=1024)
    parser.add_argument("--moves", type=int, default=16)
    parser.add_argument("--sims", type=int, default=16)
    parser.add_argument("--iterations", type=int, default=3)
    parser.add_argument("--peer-positions", type=int, default=100_000)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    record = start()
    params = {} if args.holes_per_row is None else {"holes_per_row": args.holes_per_row}
    game = mancala_envs.get_game(args.game, **params)
    ours = jax_positions_per_second(game, args.games, args.moves, args.sims, args.iterations)
    print(f"train_az_jax on {jax.devices()[0]}: {ours:,.0f} positions/s", flush=True)
    peer = peer_positions_per_second(game, args.games, args.moves, args.sims, args.peer_positions)
    print(f"mancala train-az on the CPU: {peer:,.0f} positions/s", flush=True)
    device = f"{jax.default_backend()} ({jax.devices()[0].device_kind})"
    rows = [
        ["`mancala train-az` (torch + numba, CPU; peer)", "cpu", per_second(peer), times(1.0)],
        ["`training/train_az_jax.py`", device, per_second(ours), times(ours / peer)],
    ]
    notes = [
        f"{variant(game)}: {args.games} games side by side, {args.sims} simulations a move, "
        f"{args.moves} moves an iteration; self-play positions/s of whole iterations (self-play, "
        "targets, updates), the first (compiling) iteration left out on both sides."
    ]
    raw = {"ours": ours, "peer": peer, "device": device, "games": args.games, "sims": args.sims}
    write_table(args.out, f"AlphaZero self-play positions/s: {variant(game)}",
                ["trainer", "device", "positions/s", "vs train-az"], rows, "---|---|---:|---:",
                notes, raw, record)  # fmt: skip


if __name__ == "__main__":
    main()
