"""How well an ``az`` network imitates its own search: the gap between the network alone and the
self-play search it learns from, on the positions where the network alone is measured.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/az_imitation.py --game en_dodoi --games 40

Plays :func:`mancala_envs.evaluation.arena.play_match` of the network alone (``az:sims=0``) against
``--opponent``
(``--games`` games over the game's default opening suite, arena seed ``--seed``: the first pairs
of the README's strength protocol) and takes every position at which the network was to move.
On them it runs the self-play search of the model (:class:`mancala_envs.agents.alphazero.search.GumbelSearch`
with the
model's ``sims``, ``max_considered``, ``c_visit``, ``c_scale``) ``--repeats`` times with fresh root
Gumbel noise, as self-play does, and prints:

- the *noise floor*: the mean KL divergence of one search's improved policy (a training target)
  from the mean of the repeats (bias-corrected by ``R / (R - 1)``): what no network can fit;
- the network's KL divergence from that mean target: what the network does not fit;
- how often the network's move (argmax of its masked logits) is the mean target's and the
  deterministic search's (no noise) move.

Every draw comes from ``numpy.random.default_rng(--seed)``.
"""

from __future__ import annotations

import argparse

import numpy as np

from mancala_envs import GAMES, get_game
from mancala_envs.agents.alphazero.agent import shipped_az_model
from mancala_envs.agents.alphazero.network import load_network, lookahead_plies, torch_evaluator
from mancala_envs.agents.alphazero.search import GumbelSearch
from mancala_envs.evaluation.arena import play_match
from mancala_envs.evaluation.arena.records import replay


def kl(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``KL(p || q)`` per row (terms with ``p = 0`` count 0)."""
    logs = np.log(np.clip(p, 1e-12, None)) - np.log(np.clip(q, 1e-12, None))
    return (np.where(p > 0, p * logs, 0.0)).sum(-1)


def network_positions(game, agent: str, opponent: str, games: int, seed: int) -> np.ndarray:
    """The packed states at which ``agent`` was to move in its match against ``opponent``."""
    res = play_match(game, agent, opponent, games, seed=seed)
    rows = []
    for rec in res.records:
        seat = rec.seat_of(res.a)
        rows += [s.array for s in replay(rec, game) if not s.is_over and s.to_move == seat]
    return np.stack(rows)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", choices=GAMES, default="en_dodoi")
    p.add_argument("--model", default=None, help="an az model's .json (default: the shipped one)")
    p.add_argument("--opponent", default="minimax:depth=2")
    p.add_argument("--games", type=int, default=40, help="games of the network's match (even)")
    p.add_argument("--repeats", type=int, default=8, help="noisy searches per position (>= 2)")
    p.add_argument("--batch", type=int, default=256, help="positions per batched search")
    p.add_argument("--seed", type=int, default=2024)
    args = p.parse_args()
    if args.repeats < 2 or args.batch < 1:
        p.error("--repeats must be >= 2 and --batch >= 1")
    game = get_game(args.game)
    path = args.model or shipped_az_model(game)
    net, config = load_network(path)
    spec = f"az:path={path},sims=0"
    states = network_positions(game, spec, args.opponent, args.games, args.seed)
    search_params, plies = config["search"], lookahead_plies(config)
    evaluate = torch_evaluator(net)
    rng = np.random.default_rng(args.seed)
    search = GumbelSearch(
        game,
        min(args.batch, len(states)),
        int(search_params["sims"]),
        int(search_params["max_considered"]),
        float(search_params["c_visit"]),
        float(search_params["c_scale"]),
        plies,
        bool(search_params.get("settle_decided", True)),
    )
    floor, fit, agree_mean, agree_search = [], [], [], []
    for start in range(0, len(states), args.batch):
        batch = states[start : start + args.batch]
        noise = (rng.gumbel(size=(len(batch), game.num_actions)) for _ in range(args.repeats))
        targets = np.stack([search.run(batch, evaluate, g).policy for g in noise])
        mean = targets.mean(0)
        floor.append(kl(targets, mean[None]).mean(0) * args.repeats / (args.repeats - 1))
        searched = search.run(batch, evaluate, None)  # deterministic; its inputs are the network's
        logits, _ = evaluate(searched.inputs)
        logits = np.where(batch[:, game.layout.mask] != 0, np.asarray(logits, dtype=np.float64), -np.inf)
        prior = np.exp(logits - logits.max(1, keepdims=True))
        prior /= prior.sum(1, keepdims=True)
        fit.append(kl(mean, prior))
        agree_mean.append(prior.argmax(1) == mean.argmax(1))
        agree_search.append(prior.argmax(1) == searched.action)
    print(f"{game.name}, {spec}: {len(states)} positions of its {args.games} games against {args.opponent}")
    print(f"noise floor, KL(one target || mean target):  {np.concatenate(floor).mean():.4f} nats")
    print(f"network,     KL(mean target || network):     {np.concatenate(fit).mean():.4f} nats")
    print(f"network's move = the mean target's argmax:   {np.concatenate(agree_mean).mean():.1%}")
    print(f"network's move = the deterministic search's: {np.concatenate(agree_search).mean():.1%}")


if __name__ == "__main__":
    main()
