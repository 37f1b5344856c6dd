"""How often an agent's move keeps the exact outcome: the optimality rate over a suite of positions.

::

    mancala optimality GAME AGENT... [--holes-per-row N] [--suite FILE] [--seed S] [--out FILE]

A suite (:mod:`mancala_envs.tablebase.optimality_suite`) holds positions with their exact outcome ``G`` for
the player to move and the outcome of every legal move (TABLEBASE.md §3). The agent acts once
per position; the move is *optimal* when its outcome equals ``G``. Reported: the optimal share
with a 95% Wilson interval over the positions, and the blunders by kind — ``win->draw``,
``win->loss``, ``draw->loss`` (outcome of the position -> outcome of the move). Without
``--suite`` the package's shipped suite of the game is used, so no table is needed.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

from mancala_envs import GAMES, Game, get_game
from mancala_envs.agents.base import Agent
from mancala_envs.agents.registry import as_agent, models_played
from mancala_envs.evaluation.arena.matches import wilson_interval
from mancala_envs.infra import interrupts
from mancala_envs.infra.results import provenance, write_result
from mancala_envs.rulesets import parameter_help
from mancala_envs.tablebase.optimality_suite import SuiteEntry, load_suite

WORDS = {1: "win", 0: "draw", -1: "loss"}
BLUNDER_KINDS = ("win->draw", "win->loss", "draw->loss")


@dataclass
class OptimalityResult:
    """An agent's score on a suite."""

    agent: str
    positions: int
    optimal: int
    interval: tuple[float, float]  # 95% Wilson interval of the optimal share
    blunders: dict[str, int] = field(default_factory=dict)  # kind -> count (BLUNDER_KINDS)

    @property
    def rate(self) -> float:
        return self.optimal / self.positions if self.positions else float("nan")

    def row(self) -> str:
        lo, hi = self.interval
        kinds = "  ".join(f"{k} {self.blunders.get(k, 0)}" for k in BLUNDER_KINDS)
        return f"{self.agent:<28} {self.positions:>6} {self.rate:>8.1%}  [{lo:.1%}, {hi:.1%}]  {kinds}"


def optimality(
    game: Game, agent: Agent | str, suite: Sequence[SuiteEntry], seed: int = 0
) -> OptimalityResult:
    """Score ``agent`` on ``suite`` (module docstring); the agent is reseeded from ``seed`` first.
    ``ValueError`` for an empty suite or an illegal move."""
    if not suite:
        raise ValueError("the suite is empty")
    agent = as_agent(agent, seed=seed)
    agent.reseed(seed)
    optimal = 0
    blunders = dict.fromkeys(BLUNDER_KINDS, 0)
    for entry in suite:
        move = int(agent.act(game, entry.state))
        if not 0 <= move < game.num_actions or entry.move_outcomes[move] == -2:
            raise ValueError(f"agent {agent.name!r} played illegal move {move!r} in {entry.state!r}")
        got = int(entry.move_outcomes[move])
        if got == entry.outcome:
            optimal += 1
        else:
            blunders[f"{WORDS[entry.outcome]}->{WORDS[got]}"] += 1
    return OptimalityResult(agent.name, len(suite), optimal, wilson_interval(optimal, len(suite)), blunders)


def header() -> str:
    kinds = "  ".join(BLUNDER_KINDS)
    return f"{'agent':<28} {'n':>6} {'optimal':>8}  95% interval      blunders: {kinds}"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mancala optimality", description=__doc__.splitlines()[0])
    parser.add_argument("game", choices=GAMES)
    parser.add_argument("agents", nargs="+", metavar="AGENT", help="agent specs, e.g. minimax:depth=4")
    parser.add_argument(
        "--holes-per-row", type=int, default=None, metavar="N", help=parameter_help("holes_per_row")
    )
    parser.add_argument("--suite", default=None, metavar="FILE", help="suite JSONL (default: shipped)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the agents (0)")
    parser.add_argument(
        "--out", default=None, metavar="FILE", help="also write the rows as a result file (JSON)"
    )
    return parser


def result_rows(results: Sequence[OptimalityResult]) -> list[dict[str, object]]:
    """The rows of a result file: agent, positions, optimal, rate, ci95, blunders."""
    return [
        {
            "agent": r.agent,
            "positions": r.positions,
            "optimal": r.optimal,
            "rate": r.rate,
            "ci95": list(r.interval),
            "blunders": r.blunders,
        }
        for r in results
    ]


def main(argv: Sequence[str] | None = None) -> int:
    """``mancala optimality``; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    game = get_game(
        args.game, **({} if args.holes_per_row is None else {"holes_per_row": args.holes_per_row})
    )
    suite = load_suite(game, args.suite)
    won = sum(e.outcome == 1 for e in suite)
    print(f"{game.name} suite: {len(suite)} positions ({won} won, {len(suite) - won} drawn for the mover)")
    print(header())
    command = shlex.join(["mancala", "optimality", *argv])
    record = provenance(command, models_played(game, args.agents))
    results: list[OptimalityResult] = []
    try:
        with interrupts.sigterm_raises():
            for spec in args.agents:
                results.append(optimality(game, spec, suite, seed=args.seed))
                print(results[-1].row(), flush=True)
                if args.out is not None:  # rewritten after every agent: an interrupt keeps the rows
                    payload = {
                        "game": game.name,
                        "params": dict(game.params),
                        "suite": {"file": args.suite or "shipped", "positions": len(suite), "won": won},
                        "seed": args.seed,
                        "rows": result_rows(results),
                        "provenance": record,
                    }
                    write_result(args.out, payload)
    except KeyboardInterrupt as e:  # the finished agents' rows are printed
        print(f"\nmancala optimality: {interrupts.stopped(e)}", file=sys.stderr)
        return interrupts.exit_status(e)
    return 0


if __name__ == "__main__":
    sys.exit(main())
