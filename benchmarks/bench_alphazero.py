"""Self-play throughput of the AlphaZero search on this machine, beside OpenSpiel's AlphaZero actor loop.

    .venv/bin/python benchmarks/bench_alphazero.py [--games 256] [--sims 32] [--moves 16] [--threads 1] \\
        [--lookahead 64] [--replies 32] [--game en_dodoi] [--out FILE]

For each game: ``--games`` self-play games advance ``--moves`` moves in lockstep, each move one
batched Gumbel search of ``--sims`` simulations
(:class:`mancala_envs.agents.alphazero.search.GumbelSearch`) with an untrained network of the
training's default size (:class:`mancala_envs.agents.alphazero.network.AZNet`, 128 x 128 and a
per-move head of ``--lookahead`` 64 and, with ``--replies`` R, a reply encoder reading the two-ply
lookahead; on the CPU with ``--threads`` torch threads); printed:
self-play positions/s, network evaluations/s (positions the network scored) and the share of the
time spent in the network. Then one game's move (``act``, batch of one, from a position a few
random plies in) at 100 and 200 simulations, in ms.

**OpenSpiel.** ``open_spiel.python.algorithms.alpha_zero`` needs JAX, flax, optax, chex and orbax
(not dependencies of this project, and not installed here), so it cannot run as it is. Its actors
are ``open_spiel.python.algorithms.mcts.MCTSBot`` (a Python tree) with an evaluator that runs the
network on one leaf at a time (``AlphaZeroEvaluator``, with a cache). The comparison runs that
loop — ``MCTSBot`` with ``--sims`` simulations and an evaluator calling a torch MLP of the same
size, one leaf at a time, with a cache — on OpenSpiel's Oware (a mancala with 6 holes a row), in
the same process. Needs ``open-spiel`` (``pip install .[bench]``). Run on demand, not by the tests.
``--out FILE``: the table as a result file (``benchmarks/results_file.py``).

**Simulations per second** (``--per-variant``, instead of the above): for every variant, the
shipped model's search as ``az`` plays a move (batch of one, ``--sims`` simulations, from
``--positions`` positions a few random plies in), with torch's forward pass (``forward=torch``)
and with the compiled one (``forward=numba``, the default) in the same run, beside alpha-beta's
nodes per second (``minimax:depth=--depth``) on the same positions.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
from results_file import per_second, start, times, variant, write_table

import mancala_envs
from mancala_envs.agents.alphazero.agent import AZAgent
from mancala_envs.agents.alphazero.network import build_network, input_plies, network_config, torch_evaluator
from mancala_envs.agents.alphazero.search import GumbelSearch
from mancala_envs.agents.minimax.agent import MinimaxAgent
from mancala_envs.agents.registry import models_played


def timed_evaluator(net):
    """The network's evaluator, also adding up the seconds spent in it."""
    inner = torch_evaluator(net)
    spent = [0.0]

    def evaluate(obs):
        t = time.perf_counter()
        out = inner(obs)
        spent[0] += time.perf_counter() - t
        return out

    return evaluate, spent


def bench_selfplay(
    name: str, games: int, sims: int, moves: int, seed: int, lookahead: int, replies: int = 0
) -> dict[str, float]:
    game = mancala_envs.get_game(name)
    config = network_config(game, [128, 128], 20, 10.0, lookahead, replies)
    net = build_network(config).eval()
    evaluate, spent = timed_evaluator(net)
    search = GumbelSearch(game, games, sims, lookahead=input_plies(lookahead, replies))
    rng = np.random.default_rng(seed)
    start = game.initial_states(games)
    states = start.copy()
    search.run(states[:1], evaluate)  # compile / load the cache outside the timing
    spent[0], search.evaluations = 0.0, 0
    t = time.perf_counter()
    for _ in range(moves):
        result = search.run(states, evaluate, rng.gumbel(size=(games, game.num_actions)))
        game.apply_batch(states, result.action, out=states)
        over = states[:, game.layout.status] != 0
        states[over] = start[over]
    elapsed = time.perf_counter() - t
    state = game.initial_state()
    while game.legal_mask(state).sum() < 2 or state.ply < 6:  # a position with a choice to search
        state = game.apply(state, int(rng.choice(game.legal_actions(state))))
    per_move = {}
    for s in (100, 200):
        agent = AZAgent(network=net, config=config, sims=s, forward="torch")  # as the search above
        agent.act(game, state)
        t = time.perf_counter()
        for _ in range(5):
            agent.act(game, state)
        per_move[s] = (time.perf_counter() - t) / 5 * 1000
    return {
        "positions_per_s": games * moves / elapsed,
        "evals_per_s": search.evaluations / elapsed,
        "network_share": spent[0] / elapsed,
        "ms_100": per_move[100],
        "ms_200": per_move[200],
    }


def bench_openspiel(sims: int, moves: int, seed: int) -> dict[str, float] | None:
    try:
        import pyspiel
        from open_spiel.python.algorithms import mcts
    except ImportError:
        return None
    game = pyspiel.load_game("oware")
    size, actions = game.observation_tensor_size(), game.num_distinct_actions()
    net = torch.nn.Sequential(
        torch.nn.Linear(size, 128), torch.nn.ReLU(), torch.nn.Linear(128, 128), torch.nn.ReLU()
    )
    policy_head, value_head = torch.nn.Linear(128, actions), torch.nn.Linear(128, 1)

    class Evaluator(mcts.Evaluator):
        """One network call per leaf, cached (OpenSpiel's AlphaZeroEvaluator does the same)."""

        def __init__(self):
            self.cache: dict[str, tuple[np.ndarray, float]] = {}
            self.calls = 0

        def _infer(self, state):
            key = state.observation_string() + str(state.current_player())
            if key not in self.cache:
                obs = torch.tensor(state.observation_tensor(), dtype=torch.float32)[None]
                with torch.inference_mode():
                    h = net(obs)
                    p = torch.softmax(policy_head(h), 1)[0].numpy()
                    v = float(torch.tanh(value_head(h))[0, 0])
                self.cache[key] = (p, v)
                self.calls += 1
            return self.cache[key]

        def evaluate(self, state):
            v = self._infer(state)[1]
            return np.array([v, -v]) if state.current_player() == 0 else np.array([-v, v])

        def prior(self, state):
            if state.is_chance_node():
                return state.chance_outcomes()
            p = self._infer(state)[0]
            legal = state.legal_actions()
            total = sum(p[a] for a in legal)
            return [(a, p[a] / total) for a in legal]

    evaluator = Evaluator()
    bot = mcts.MCTSBot(
        game,
        1.25,
        sims,
        evaluator,
        random_state=np.random.RandomState(seed),
        solve=False,
        dirichlet_noise=None,
    )
    state = game.new_initial_state()
    bot.step(state)  # warm up
    evaluator.calls, done = 0, 0
    t = time.perf_counter()
    while done < moves:
        if state.is_terminal():
            state = game.new_initial_state()
        evaluator.cache.clear()  # a new position each move: no credit for the cache across moves
        state.apply_action(bot.step(state))
        done += 1
    elapsed = time.perf_counter() - t
    return {"positions_per_s": done / elapsed, "evals_per_s": evaluator.calls / elapsed}


def search_positions(game, count: int, seed: int) -> list:
    """``count`` running positions with a choice of moves, 4 to 16 seeded random plies in."""
    rng, out = np.random.default_rng(seed), []
    while len(out) < count:
        state = game.initial_state()
        for _ in range(int(rng.integers(4, 17))):
            if state.is_over:
                break
            state = game.apply(state, int(rng.choice(game.legal_actions(state))))
        if not state.is_over and game.legal_mask(state).sum() > 1:
            out.append(state)
    return out


def az_sims_per_second(game, positions: list, sims: int, forward: str) -> float:
    """Simulations per second of ``az``'s search (shipped model, batch of one) on ``positions``."""
    agent = AZAgent(sims=sims, forward=forward)
    agent.search(game, positions[0].array[None])  # load the model, compile, export outside the timing
    t = time.perf_counter()
    for state in positions:
        agent.search(game, state.array[None])
    return sims * len(positions) / (time.perf_counter() - t)


def alphabeta_nodes_per_second(game, positions: list, depth: int) -> float:
    """Alpha-beta's nodes per second (``minimax:depth=depth``) on ``positions``."""
    agent = MinimaxAgent(depth=depth)
    agent.search(game, positions[0])  # compile / load the cache outside the timing
    nodes, seconds = 0, 0.0
    for state in positions:
        agent.search(game, state)
        nodes, seconds = nodes + agent.last_nodes, seconds + agent.last_seconds
    return nodes / seconds


PER_VARIANT_COLUMNS = [
    "variant",
    "lookahead plies",
    "az, torch: sims/s",
    "az, numba: sims/s",
    "speed-up",
    "alpha-beta nodes/s",
]


def per_variant(args: argparse.Namespace, record: dict) -> None:
    """The ``--per-variant`` table (module docstring): az's simulations per second with each
    forward pass, beside alpha-beta's nodes per second."""
    print(f"az's search, batch of one, {args.sims} simulations, {args.positions} positions a variant")
    print("| " + " | ".join(PER_VARIANT_COLUMNS) + " |")
    print("|---|---:|---:|---:|---:|---:|")
    rows, raw = [], {}
    for game in mancala_envs.variants():
        positions = search_positions(game, args.positions, args.seed)
        plies = AZAgent().lookahead(game)
        fast = az_sims_per_second(game, positions, args.sims, "numba")
        slow = az_sims_per_second(game, positions, args.sims, "torch")
        nodes = alphabeta_nodes_per_second(game, positions, args.depth)
        row = [
            variant(game),
            str(plies),
            per_second(slow),
            per_second(fast),
            times(fast / slow),
            per_second(nodes),
        ]
        print("| " + " | ".join(row) + " |", flush=True)
        rows.append(row)
        raw[game.variant] = {"torch": slow, "numba": fast, "alphabeta_nodes": nodes, "plies": plies}
    write_table(
        args.out,
        "az's simulations per second: torch's forward pass and the compiled one, beside alpha-beta",
        PER_VARIANT_COLUMNS,
        rows,
        "---|---:|---:|---:|---:|---:",
        [
            f"`az`'s search with the shipped model, as it plays a move (batch of one, {args.sims} "
            f"simulations, forced-end search not counted), from {args.positions} positions 4–16 random "
            f"plies in, {args.threads} torch thread(s): `forward=torch` and `forward=numba` (the default: "
            "the compiled forward pass inside the compiled search). Alpha-beta: `minimax:depth="
            f"{args.depth}` on the same positions.",
        ],
        {
            "variants": raw,
            "settings": {k: getattr(args, k) for k in ("sims", "positions", "depth", "threads", "seed")},
        },
        record,
    )


def models_played_by_az(names: list[str]) -> dict:
    """The models ``az`` plays in the games ``names`` (the provenance of a result file)."""
    return {
        f"{spec} ({name})": model
        for name in names
        for spec, model in models_played(mancala_envs.get_game(name), ["az"]).items()
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=256)
    p.add_argument("--sims", type=int, default=32)
    p.add_argument("--moves", type=int, default=16)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--lookahead", type=int, default=64, help="the network's per-move head (0: counts only)")
    p.add_argument("--replies", type=int, default=0, help="the reply encoder (two-ply lookahead; 0: none)")
    p.add_argument("--game", nargs="+", default=list(mancala_envs.GAMES), choices=mancala_envs.GAMES)
    p.add_argument("--out", default=None, help="also write the table as a result file (JSON) here")
    p.add_argument("--per-variant", action="store_true", help="az's simulations/s per variant (docstring)")
    p.add_argument("--positions", type=int, default=8, help="with --per-variant: positions a variant")
    p.add_argument("--depth", type=int, default=8, help="with --per-variant: alpha-beta's depth")
    args = p.parse_args()
    if args.per_variant:
        torch.set_num_threads(args.threads)
        per_variant(args, start(models_played_by_az(args.game)))
        return
    record = start(models_played_by_az(args.game))
    torch.set_num_threads(args.threads)
    print(
        f"self-play: {args.games} games x {args.sims} simulations, {args.moves} moves, "
        f"{args.threads} torch thread(s)"
    )
    print(
        "| game | positions/s | network evaluations/s | time in the network | act, 100 sims | act, 200 sims |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    rows, raw = [], {}
    for name in args.game:
        r = bench_selfplay(name, args.games, args.sims, args.moves, args.seed, args.lookahead, args.replies)
        print(
            f"| {name} | {r['positions_per_s']:,.0f} | {r['evals_per_s']:,.0f} | {r['network_share']:.0%} "
            f"| {r['ms_100']:.1f} ms | {r['ms_200']:.1f} ms |",
            flush=True,
        )
        rows.append(
            [
                variant(mancala_envs.get_game(name)),
                per_second(r["positions_per_s"]),
                per_second(r["evals_per_s"]),
                f"{r['network_share']:.0%}",
                f"{r['ms_100']:.1f} ms",
                f"{r['ms_200']:.1f} ms",
            ]
        )
        raw[name] = r
    os_moves = max(8, args.moves // 2)
    r = bench_openspiel(args.sims, os_moves, args.seed)
    peer_note = (
        f"Peer: OpenSpiel's AlphaZero actor loop, `MCTSBot` with {args.sims} simulations and a torch MLP "
        f"of the same size evaluating one leaf at a time (with a cache), {os_moves} moves on Oware "
        "(OpenSpiel's own `alpha_zero` needs JAX, which this project does not install)."
    )
    if r is None:
        peer_note = "Peer: not measured (OpenSpiel not installed)."
        print("OpenSpiel: not installed (pip install .[bench])")
    else:
        print(
            f"| OpenSpiel MCTSBot + per-leaf torch evaluator, oware | {r['positions_per_s']:,.1f} "
            f"| {r['evals_per_s']:,.0f} | | | |"
        )
        peer = "OpenSpiel `MCTSBot` + per-leaf torch evaluator, Oware (peer)"
        rows.append([peer, f"{r['positions_per_s']:,.1f}", per_second(r["evals_per_s"]), "—", "—", "—"])
        raw["openspiel_oware"] = {**r, "moves": os_moves}
    write_table(
        args.out,
        "AlphaZero self-play throughput vs OpenSpiel's actor loop",
        [
            "game",
            "self-play positions/s",
            "network evaluations/s",
            "time in the network",
            "act, 100 sims",
            "act, 200 sims",
        ],
        rows,
        "---|---:|---:|---:|---:|---:",
        [
            f"{args.games} self-play games × {args.sims} simulations of batched Gumbel search, "
            f"{args.moves} moves in lockstep, {args.threads} torch thread(s), an untrained network of the "
            f"training's default size (128 × 128, per-move head {args.lookahead}, reply encoder "
            f"{args.replies or 'none'}). *act*: one move of the agent (batch of one) from a position a few "
            "random plies in, mean of 5.",
            peer_note,
        ],
        {
            "games": raw,
            "settings": {
                k: getattr(args, k)
                for k in ("games", "sims", "moves", "threads", "seed", "lookahead", "replies")
            },
        },
        record,
    )


if __name__ == "__main__":
    main()
