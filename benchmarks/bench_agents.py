"""Search speed of the baseline agents on one core, beside OpenSpiel's C++ MCTS on Oware.

    .venv/bin/python benchmarks/bench_agents.py [--sims 1000] [--depth 6] [--positions 6] [--rounds 3] \\
        [--out FILE]

For each game: MCTS simulations per second (``MCTSAgent.search`` with ``--sims`` simulations from each
of ``--positions`` positions: the start and positions reached by random play) and alpha-beta nodes per
second (``MinimaxAgent.search`` to ``--depth`` on the same positions). In the same run, OpenSpiel's
``MCTSBot`` with a one-rollout ``RandomRolloutEvaluator`` plays ``--sims`` simulations from Oware
positions reached the same way; the ratio column is our simulations/s over OpenSpiel's. The two
are measured in alternating rounds and each figure is the best round (least disturbed by other load).
``--out FILE``: the table as a result file (``benchmarks/results_file.py``). Run on demand only (not
part of the tests). Needs ``open-spiel`` (``pip install .[bench]``).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from results_file import per_second, start, times, variant, write_table

import mancala_envs
from mancala_envs.agents.mcts.agent import MCTSAgent
from mancala_envs.agents.minimax.agent import MinimaxAgent


def reached_positions(count: int, rng: np.random.Generator, start, is_over, legal, child) -> list:
    """The start, then positions after 4, 8, ..., 40 random plies, then 4 again (finished games and
    positions with a single legal move skipped). One schedule for both engines, given as functions
    of a state (``start()``, ``is_over(s)``, ``legal(s)``, ``child(s, action)``), so that both are
    measured from positions reached the same way."""
    out = [start()]
    plies = 4
    while len(out) < count:
        s = start()
        for _ in range(plies):
            if is_over(s):
                break
            moves = legal(s)
            s = child(s, moves[rng.integers(len(moves))])
        if not is_over(s) and len(legal(s)) > 1:
            out.append(s)
        plies = plies + 4 if plies < 40 else 4
    return out


def bench_ours(name: str, sims: int, depth: int, count: int, seed: int) -> tuple[float, float]:
    game = mancala_envs.get_game(name)
    rng = np.random.default_rng(seed)
    positions = reached_positions(
        count, rng, game.initial_state, lambda s: s.is_over, game.legal_actions, game.apply
    )
    mcts = MCTSAgent(sims=sims, seed=seed)
    minimax = MinimaxAgent(depth=depth, seed=seed)
    mcts.search(game, positions[0])  # compile / load the cache outside the timing
    minimax.search(game, positions[0])
    sims_done, mcts_time, nodes, ab_time = 0, 0.0, 0, 0.0
    for s in positions:
        mcts.search(game, s)
        sims_done += mcts.last_sims
        mcts_time += mcts.last_seconds
        minimax.search(game, s)
        nodes += minimax.last_nodes
        ab_time += minimax.last_seconds
    return sims_done / mcts_time, nodes / ab_time


def bench_openspiel(sims: int, count: int, seed: int) -> float:
    import pyspiel

    game = pyspiel.load_game("oware")
    rng = np.random.default_rng(seed)
    bot = pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(1, seed), 2.8, sims, 1000, False, seed, False)
    positions = reached_positions(
        count,
        rng,
        game.new_initial_state,
        lambda s: s.is_terminal(),
        lambda s: s.legal_actions(),
        lambda s, action: s.child(action),
    )
    bot.step(positions[0])
    start = time.perf_counter()
    for s in positions:
        bot.step(s)
    return sims * len(positions) / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sims", type=int, default=1000, help="MCTS simulations per position")
    parser.add_argument("--depth", type=int, default=6, help="alpha-beta depth")
    parser.add_argument("--positions", type=int, default=6, help="positions per game")
    parser.add_argument("--rounds", type=int, default=3, help="alternating measurement rounds")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None, help="also write the table as a result file (JSON) here")
    args = parser.parse_args(argv)
    record = start()
    theirs = 0.0
    ours = {name: (0.0, 0.0) for name in mancala_envs.GAMES}
    for _ in range(args.rounds):
        theirs = max(theirs, bench_openspiel(args.sims, args.positions, args.seed))
        for name in mancala_envs.GAMES:
            sims_s, nodes_s = bench_ours(name, args.sims, args.depth, args.positions, args.seed)
            ours[name] = (max(ours[name][0], sims_s), max(ours[name][1], nodes_s))
    print(f"OpenSpiel MCTSBot (C++, random rollouts) on oware: {theirs:,.0f} simulations/s")
    print(f"{'game':<14} {'MCTS sims/s':>12} {'vs OpenSpiel':>13} {'alpha-beta nodes/s':>19}")
    rows = [["OpenSpiel MCTSBot (C++), Oware (peer)", per_second(theirs), times(1.0), "—"]]
    label = "MCTS simulations/s (× OpenSpiel's C++ MCTSBot)"
    headline: dict = {label: {}}
    for name, (sims_s, nodes_s) in ours.items():
        print(f"{name:<14} {sims_s:>12,.0f} {sims_s / theirs:>12.2f}x {nodes_s:>19,.0f}")
        shown = variant(mancala_envs.get_game(name))
        rows.append([shown, per_second(sims_s), times(sims_s / theirs), per_second(nodes_s)])
        headline[label][shown] = f"{per_second(sims_s)} ({times(sims_s / theirs)})"
    write_table(
        args.out,
        "Search speed: MCTS and alpha-beta vs OpenSpiel's MCTSBot (one core)",
        ["game", "MCTS simulations/s", "vs OpenSpiel", "alpha-beta nodes/s"],
        rows,
        "---|---:|---:|---:",
        [
            f"`MCTSAgent.search` with {args.sims} simulations and `MinimaxAgent.search` to depth "
            f"{args.depth} from {args.positions} positions per game (the start and positions reached by "
            "random play); the peer is OpenSpiel's C++ `MCTSBot` with a one-rollout "
            f"`RandomRolloutEvaluator`, {args.sims} simulations from Oware positions reached the same way. "
            f"Each figure is the best of {args.rounds} alternating rounds.",
        ],
        {
            "openspiel_mcts_sims_per_s": theirs,
            "games": {
                name: {"mcts_sims_per_s": s, "alphabeta_nodes_per_s": n} for name, (s, n) in ours.items()
            },
            "settings": {k: getattr(args, k) for k in ("sims", "depth", "positions", "rounds", "seed")},
        },
        record,
        headline,
    )


if __name__ == "__main__":
    main()
