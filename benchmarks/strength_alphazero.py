"""Strength of agents on the evaluation protocol of issue 8, with the mean time per move of each side.

    .venv/bin/python benchmarks/strength_alphazero.py --game en_dodoi --agents az az:sims=0 \\
        --opponents minimax:depth=2 minimax:depth=4 mcts:sims=1000 policy --games 400 --out results/az.json

Each agent plays :func:`mancala_envs.evaluation.arena.play_match` against each opponent: ``--games``
games, that is ``--games / 2`` openings of the game's default suite (or of ``--openings FILE``, a
suite held out from the reported one, e.g. for choosing between models), each played once with each
seating; the score is ``(wins + draws / 2) / games`` from the agent's side (a game stopped at
``max_plies`` is a draw; ``truncated`` counts them) with its 95% Wilson interval over the opening
pairs. The games are those of ``mancala evaluate`` with the same seed (a spec is rebuilt with the
arena's seed before every game; a network agent is loaded once and reseeded). Time per move: wall
time of each side's ``act`` calls over its own moves, on this machine as loaded when it ran, after
one untimed warm-up move of each; network agents run on ``--torch-threads`` threads (default 1:
torch's threads spin when the cores are shared, and a move then costs ten times as long). ``--out``:
the rows as a result file (:mod:`mancala_envs.infra.results`), rewritten after every match.

**Equal time per move** (``--equal-time minimax mcts``): for each agent, first its mean time per
move is measured over ``--calibration-games`` games against ``minimax:depth=4`` (openings of the
same suite, other seeds); then each named opponent plays it with that budget, ``NAME:time=T``
(iterative deepening or simulations until T is spent). Both sides' measured time per move stands
beside the score, so the equality can be checked. A network agent's row also states what its
input costs: engine moves per evaluation (the lookahead rows it reads, legal or not).

**Matched time** (``--match-rounds R``, default 3): the calibration games meet another opponent, the
agent's time per move depends on the game (its forced-end search runs in decided positions), and an
opponent rarely spends exactly its budget, so the two sides' time per move in the match can differ
by a fifth or more. An equal-time match whose two ms/move differ by more than ``--time-tolerance``
(default 10%) is played again, up to R matches in all, with the budget scaled by agent / opponent
time (at most 4 times up or down); the row is the last match, and the earlier ones stand in it
(``equal_time.replaced``: budget, both times and score of each), so nothing is chosen by its score.
``equal_time.matched`` says whether the last one agrees within the tolerance. ``--match-rounds 1``
is the protocol of the files written before it (one match, no ``replaced``).
"""

from __future__ import annotations

import argparse
import time

from mancala_envs import GAMES, Game, State, get_game
from mancala_envs.agents.alphazero.agent import FORWARDS
from mancala_envs.agents.base import Agent
from mancala_envs.agents.registry import make_agent, models_played, parse_spec
from mancala_envs.infra.results import command_line, provenance, write_result

MAX_SCALE = 4.0  # a replayed match's budget is at most this factor from the last one's


class Timed(Agent):
    """An agent of ``spec`` whose moves are timed; rebuilt per game (``reseed``) like a spec in
    the arena, except network agents (loaded once, then reseeded)."""

    def __init__(self, spec: str):
        super().__init__(0)
        self.spec, self.name = spec, spec
        self.keep = parse_spec(spec)[0] in ("policy", "az", "rllib")
        self.inner = make_agent(spec)
        self.seconds, self.moves = 0.0, 0

    def reseed(self, seed: int) -> None:
        if self.keep:
            self.inner.reseed(seed)
        else:
            self.inner = make_agent(self.spec, seed)

    def act(self, game: Game, state: State) -> int:
        start = time.perf_counter()
        action = self.inner.act(game, state)
        self.seconds += time.perf_counter() - start
        self.moves += 1
        return action

    def ms_per_move(self) -> float:
        return 1000 * self.seconds / max(self.moves, 1)


def calibrate(game: Game, spec: str, games: int, seed: int, warm: State) -> float:
    """``spec``'s mean seconds per move over ``games`` games against ``minimax:depth=4`` (after
    an untimed warm-up move from ``warm``)."""
    from mancala_envs.evaluation.arena import play_match

    a = Timed(spec)
    a.inner.act(game, warm)
    play_match(game, a, "minimax:depth=4", games, seed=seed + 1)
    return a.seconds / max(a.moves, 1)


def play_row(game: Game, spec: str, opponent: str, games: int, seed: int, suite, warm: State) -> dict:
    """A match of ``spec`` against ``opponent`` (both warmed up from ``warm`` off the clock) on
    ``suite`` as a result row, with each side's mean time per move."""
    from mancala_envs.evaluation.arena import play_match

    a, b = Timed(spec), Timed(opponent)
    for side in (a, b):  # load compiled code and models before the clock runs
        side.inner.act(game, warm)
    res = play_match(game, a, b, games, seed=seed, openings=suite)
    return {
        "game": game.name,
        "agent": spec,
        "opponent": opponent,
        "pairs": res.pairs,
        "wins": res.wins,
        "draws": res.draws,
        "losses": res.losses,
        "truncated": res.truncated,  # of the draws: games stopped at max_plies (TR1)
        "score": res.score,
        "ci95": list(res.confidence_interval()),
        "agent_ms_per_move": a.ms_per_move(),
        "opponent_ms_per_move": b.ms_per_move(),
    }


def equal_time_row(
    game: Game, spec: str, name: str, budget: float, args: argparse.Namespace, suite, warm: State
) -> dict:
    """``spec`` against ``name`` given ``budget`` seconds a move, played again with the budget
    scaled by agent / opponent time while the two differ by more than ``--time-tolerance``, at most
    ``--match-rounds`` matches; the last one's row, the earlier ones in its ``equal_time``."""
    replaced: list[dict[str, float]] = []
    while True:
        row = play_row(game, spec, f"{name}:time={budget:.4g}", args.games, args.seed, suite, warm)
        ratio = row["agent_ms_per_move"] / max(row["opponent_ms_per_move"], 1e-9)
        matched = abs(ratio - 1) <= args.time_tolerance
        if matched or len(replaced) + 1 >= args.match_rounds:
            break
        replaced.append({k: row[k] for k in ("agent_ms_per_move", "opponent_ms_per_move", "score")})
        replaced[-1]["budget_ms"] = 1000 * budget
        print(f"  `{row['opponent']}`: times differ ({ratio:.2f}), played again", flush=True)
        budget *= min(max(ratio, 1 / MAX_SCALE), MAX_SCALE)
    row["equal_time"] = {"budget_ms": 1000 * budget, "calibration_games": args.calibration_games}
    if args.match_rounds > 1:
        row["equal_time"] |= {"tolerance": args.time_tolerance, "matched": matched, "replaced": replaced}
    return row


def input_cost(game: Game, spec: str) -> int | None:
    """Engine moves per network evaluation of an az spec (None for other agents)."""
    if parse_spec(spec)[0] != "az":
        return None
    from mancala_envs.agents.alphazero.network import engine_moves_per_evaluation

    return engine_moves_per_evaluation(make_agent(spec).model(game)[1])


def main() -> None:
    from mancala_envs.evaluation.openings import resolve_openings

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", choices=GAMES, default="en_dodoi")
    p.add_argument("--holes-per-row", type=int, default=None)
    p.add_argument("--agents", nargs="+", default=["az", "az:sims=0"])
    p.add_argument("--opponents", nargs="*", default=["minimax:depth=2", "minimax:depth=4", "mcts:sims=1000"])
    p.add_argument("--games", type=int, default=400, help="games per pairing (even): games / 2 opening pairs")
    p.add_argument("--seed", type=int, default=2024)
    p.add_argument(
        "--openings",
        default="default",
        metavar="SUITE",
        help="'default' (the game's default suite: every reported row) or a JSONL suite file",
    )
    p.add_argument("--out", default=None, help="write the rows as JSON here")
    p.add_argument(
        "--equal-time",
        nargs="+",
        default=[],
        metavar="NAME",
        help="also play these agents (minimax, mcts) with each agent's measured time per move",
    )
    p.add_argument("--calibration-games", type=int, default=8, help="games that measure the time per move")
    p.add_argument(
        "--match-rounds",
        type=int,
        default=3,
        help="equal-time matches at most, each with the budget scaled by agent / opponent time (1: one)",
    )
    p.add_argument(
        "--time-tolerance", type=float, default=0.10, help="relative difference of the matched times per move"
    )
    p.add_argument(
        "--torch-threads",
        type=int,
        default=1,
        help="torch CPU threads of the network agents (1: no slowdown when the cores are shared)",
    )
    args = p.parse_args()
    if args.match_rounds < 1 or not 0 < args.time_tolerance < 1:
        p.error("--match-rounds must be >= 1 and --time-tolerance in (0, 1)")
    try:
        import torch

        torch.set_num_threads(args.torch_threads)
    except ImportError:
        pass
    params = {} if args.holes_per_row is None else {"holes_per_row": args.holes_per_row}
    game = get_game(args.game, **params)
    print(f"{game.name} ({game.holes_per_row} holes a row), {args.games} games per pairing, seed {args.seed}")
    print(
        "| agent | opponent | pairs | W/D/L | truncated | score | 95% CI (pairs) "
        "| agent ms/move | opponent ms/move |"
    )
    print("|---|---|---:|---|---:|---:|---|---:|---:|")
    rows: list[dict] = []
    record = provenance(command_line(), models_played(game, [*args.agents, *args.opponents]))
    warm = next(s for s in resolve_openings(game, "default", 8) if game.legal_mask(s).sum() > 1)
    suite = resolve_openings(game, args.openings, args.games // 2)
    for spec in args.agents:
        cost = input_cost(game, spec)  # loads the agent's model once, not once per row
        budget = None
        if args.equal_time:
            budget = calibrate(game, spec, args.calibration_games, args.seed, warm)
            print(f"`{spec}`: {1000 * budget:.1f} ms/move over {args.calibration_games} calibration games")
        for name, timed in [(n, True) for n in args.equal_time] + [(n, False) for n in args.opponents]:
            if timed and budget is not None:
                row = equal_time_row(game, spec, name, budget, args, suite, warm)
            else:
                row = play_row(game, spec, name, args.games, args.seed, suite, warm)
            if cost is not None:
                row["engine_moves_per_evaluation"] = cost
            rows.append(row)
            (low, high), times = row["ci95"], (row["agent_ms_per_move"], row["opponent_ms_per_move"])
            print(
                f"| `{spec}` | `{row['opponent']}` | {row['pairs']} "
                f"| {row['wins']}/{row['draws']}/{row['losses']} | {row['truncated']} | {row['score']:.3f} "
                f"| [{low:.2f}, {high:.2f}] | {times[0]:.1f} | {times[1]:.1f} |",
                flush=True,
            )
            if args.out:  # rewritten after every match: an interrupt keeps the finished rows
                payload = {
                    "game": game.name,
                    "params": dict(game.params),
                    "seed": args.seed,
                    "openings": args.openings,
                    "az_forward_default": FORWARDS[0],  # what `az` without `forward` ran
                    "games": args.games,
                    "rows": rows,
                    "provenance": record,
                }
                write_result(args.out, payload)


if __name__ == "__main__":
    main()
