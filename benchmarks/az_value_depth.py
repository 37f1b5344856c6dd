"""How many plies an ``az`` network's value head is worth: full-width minimax to ``depth`` plies
with the network's value at the leaves, played against a baseline on the strength protocol.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/az_value_depth.py --game en_dodoi --depths 1 2

:class:`ValueMinimax` is :func:`mancala_envs.agents.alphazero.value_minimax.move_values` (every legal move
expanded to
``depth`` plies through the core; a finished position is worth its result, an unfinished leaf the
network's value head for its player to move; values credited by player id). Ties at the root are
broken by the agent's generator. Each depth plays
:func:`mancala_envs.evaluation.arena.play_match` against ``--opponent`` (``--games`` games, the game's default
opening suite, arena seed ``--seed``): the same games as
``benchmarks/strength_alphazero.py --agents ... --opponents OPPONENT`` with that seed, so its rows
for ``az:sims=0`` and for ``minimax:depth=d`` (the same search with the baseline's heuristic) are
the scale to read these against.
"""

from __future__ import annotations

import argparse

import numpy as np

from mancala_envs import GAMES, Game, State, get_game
from mancala_envs.agents.alphazero.agent import shipped_az_model
from mancala_envs.agents.alphazero.network import AZNet, load_network
from mancala_envs.agents.alphazero.value_minimax import move_values, network_value
from mancala_envs.agents.base import Agent
from mancala_envs.evaluation.arena import play_match


class ValueMinimax(Agent):
    """Minimax to ``depth`` plies over ``net``'s value head (module docstring)."""

    def __init__(self, net: AZNet, depth: int, seed: int = 0):
        super().__init__(seed)
        if depth < 1:
            raise ValueError(f"depth must be at least 1, got {depth}")
        self.net, self.depth, self.name = net, depth, f"value-minimax:depth={depth}"

    def act(self, game: Game, state: State) -> int:
        v = move_values(game, state.array[None], self.depth, network_value(game, self.net))[0]
        actions = np.flatnonzero(~np.isnan(v))
        return int(self.rng.choice(actions[v[actions] >= v[actions].max() - 1e-9]))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", choices=GAMES, default="en_dodoi")
    p.add_argument("--holes-per-row", type=int, default=None)
    p.add_argument("--path", default=None, help="an az model (default: the game's shipped one)")
    p.add_argument("--depths", type=int, nargs="+", default=[1, 2])
    p.add_argument("--opponent", default="minimax:depth=2")
    p.add_argument("--games", type=int, default=400, help="games (even): games / 2 opening pairs")
    p.add_argument("--seed", type=int, default=2024)
    args = p.parse_args()
    if min(args.depths) < 1:
        p.error(f"--depths must be at least 1, got {args.depths}")
    params = {} if args.holes_per_row is None else {"holes_per_row": args.holes_per_row}
    game = get_game(args.game, **params)
    net, config = load_network(args.path or shipped_az_model(game))
    if config["game"] != game.name or config["params"] != dict(game.params):
        p.error(f"the model is for {config['game']} {config['params']}, not {game.name} {dict(game.params)}")
    print(f"{game.name}, {args.games} games against {args.opponent}, seed {args.seed}")
    print("| agent | W/D/L | score | 95% CI (pairs) |\n|---|---|---:|---|")
    for depth in args.depths:
        res = play_match(game, ValueMinimax(net, depth), args.opponent, args.games, seed=args.seed)
        low, high = res.confidence_interval()
        print(
            f"| `value-minimax:depth={depth}` | {res.wins}/{res.draws}/{res.losses} | {res.score:.3f} "
            f"| [{low:.2f}, {high:.2f}] |",
            flush=True,
        )


if __name__ == "__main__":
    main()
