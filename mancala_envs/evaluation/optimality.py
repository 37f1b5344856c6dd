"""How often an agent's move keeps the exact outcome: the optimality rate over a suite of positions.

::

    mancala optimality GAME AGENT... [--holes-per-row N] [--suite FILE] [--seed S] [--out FILE]

(the command line: :mod:`mancala_envs.cli.optimality`)

A suite (:mod:`mancala_envs.tablebase.optimality_suite`) holds positions with their exact outcome ``G`` for
the player to move and the outcome of every legal move (TABLEBASE.md §3). The agent acts once
per position; the move is *optimal* when its outcome equals ``G``. Reported: the optimal share
with a 95% Wilson interval over the positions, and the blunders by kind — ``win->draw``,
``win->loss``, ``draw->loss`` (outcome of the position -> outcome of the move). Without
``--suite`` the package's shipped suite of the game is used, so no table is needed.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from mancala_envs import Game
from mancala_envs.agents.base import Agent
from mancala_envs.agents.registry import as_agent
from mancala_envs.evaluation.arena.matches import wilson_interval
from mancala_envs.tablebase.optimality_suite import SuiteEntry

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


def build_parser() -> Any:
    """Deprecated: ``mancala optimality``'s parser is :func:`mancala_envs.cli.optimality.add_parser`."""
    from mancala_envs.cli import optimality as command  # the command line is the cli layer's
    from mancala_envs.cli.parsing import standalone

    warnings.warn(DEPRECATED.format("build_parser", "add_parser"), DeprecationWarning, stacklevel=2)
    return standalone(command.add_parser)


def main(argv: Sequence[str] | None = None) -> int:
    """Deprecated: :func:`mancala_envs.cli.optimality.main` (``mancala optimality``)."""
    from mancala_envs.cli import optimality as command

    warnings.warn(DEPRECATED.format("main", "main"), DeprecationWarning, stacklevel=2)
    return command.main(argv)


DEPRECATED = "mancala_envs.evaluation.optimality.{} is deprecated: use mancala_envs.cli.optimality.{}"


if __name__ == "__main__":  # python -m mancala_envs.evaluation.optimality: the command, unwarned
    from mancala_envs.cli import optimality as _command

    sys.exit(_command.main())
