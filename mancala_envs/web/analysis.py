"""What the web app's analysis shows for a position: one column at a time, each a dict with a
value per legal move (keyed by the local hole, as a string: JSON keys) and a ``summary``.

Columns (all values for the player to move):

- ``network`` (``az`` or ``policy``): the prior of each move (the masked softmax of the network's
  logits) and the network's value of the position after it; ``az`` values are in [-1, 1], the
  ``policy`` value head's in the learner's return units. Moves that end the game get their result.
- ``search`` (``az`` or ``mcts``, within the time budget): visits and Q-values (``az``: the
  completed Q-values of its Gumbel search, in [-1, 1]; ``mcts``: the mean rollout result, 1 win,
  0.5 draw, 0 loss) and the simulations run.
- ``minimax`` (depth ``depth``, within the time budget): the exact alpha-beta value of every move at
  the deepest completed depth (the minimax agent's heuristic units; ±1,000,000 and more for a
  forced win or loss).
- ``exact`` (a tablebase of the variant): the outcome of the position after each move for the
  mover (won / drawn / lost, with the captured seeds so far) and, in the games won on captures,
  the bounds of the mover's final margin from before his move (TABLEBASE.md §2–3).

No column re-implements a rule: positions come from ``Game.apply``, values from the agents and
the table.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mancala_envs import Game, State, tablebase
from mancala_envs.agents.alphazero.agent import AZAgent
from mancala_envs.agents.mcts.agent import MCTSAgent
from mancala_envs.agents.minimax.agent import MinimaxAgent
from mancala_envs.agents.minimax.alphabeta import WIN
from mancala_envs.agents.policies.policy import PolicyAgent
from mancala_envs.rulesets import RESULT_BY_SURVIVAL
from mancala_envs.tablebase.proof import end_result

COLUMNS = ("network", "search", "minimax", "exact")
OUTCOME_WORDS = {1: "won", 0: "drawn", -1: "lost"}


def _finite(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


def children(game: Game, state: State) -> dict[int, State]:
    """The position after each legal move."""
    return {a: game.apply(state, a) for a in game.legal_actions(state)}


def network_column(game: Game, state: State, agent: AZAgent | PolicyAgent) -> dict[str, Any]:
    """Priors of the moves and the network's value after each one (module docstring)."""
    kids = children(game, state)
    mover = state.to_move
    mask = game.legal_mask(state)
    obs = agent.inputs(game, state.array[None])
    logits = agent.logits(game, obs, mask[None])[0]
    prior = np.exp(logits - logits.max())
    prior /= prior.sum()
    running = [a for a, c in kids.items() if not c.is_over]
    values: dict[int, float] = {a: float(end_result(c, mover)) for a, c in kids.items() if c.is_over}
    batch = np.stack([state.array] + [kids[a].array for a in running])
    inputs = agent.inputs(game, batch)
    if isinstance(agent, AZAgent):
        v = agent.evaluator(game)(np.ascontiguousarray(inputs, dtype=np.float32))[1]
    else:
        v = agent.values(game, inputs)  # None for a policy without a value head
    root_value = None if v is None else float(v[0])
    if v is not None:
        for a, value in zip(running, v[1:], strict=True):
            values[a] = float(value) if kids[a].to_move == mover else -float(value)
    moves = {str(a): {"prior": float(prior[a]), "value": values.get(a)} for a in kids}
    return {"moves": moves, "summary": {"agent": agent.name, "value": root_value}}


def search_column(game: Game, state: State, agent: AZAgent | MCTSAgent) -> dict[str, Any]:
    """Visits and Q-values of a search within the agent's time budget."""
    legal = game.legal_actions(state)
    if isinstance(agent, AZAgent):
        agent.model(game)
        result = agent.search(game, state.array[None])
        visits, q = result.visits[0], result.q[0]
        sims, value = agent.last_sims, _finite(float(result.value[0]))
    else:
        visits = agent.search(game, state)
        q = agent.root_values()
        sims, value = agent.last_sims, None
    moves = {str(a): {"visits": int(visits[a]), "q": _finite(float(q[a]))} for a in legal}
    return {"moves": moves, "summary": {"agent": agent.name, "simulations": int(sims), "value": value}}


def minimax_text(v: int) -> str:
    """A minimax value as words: ``"win in 5"`` / ``"loss in 3"`` (plies) or the number."""
    if v >= WIN:
        return "win"
    if v <= -WIN:
        return "loss"
    return str(int(v))


def minimax_column(game: Game, state: State, agent: MinimaxAgent) -> dict[str, Any]:
    """The exact alpha-beta value of every move at the deepest depth the budget allowed."""
    values, depth = agent.move_values(game, state)
    legal = game.legal_actions(state)
    moves = {str(a): {"score": int(values[a]), "text": minimax_text(int(values[a]))} for a in legal}
    return {
        "moves": moves,
        "summary": {"agent": agent.name, "depth": int(depth), "nodes": agent.last_nodes},
    }


def exact_column(game: Game, state: State, tb: tablebase.Tablebase) -> dict[str, Any]:
    """The exact outcome after each move where the table covers the position (or the game ended)."""
    mover = state.to_move
    margins = game.ruleset.result != RESULT_BY_SURVIVAL
    moves: dict[str, Any] = {}
    covered = 0
    for a, child in children(game, state).items():
        gain = int(child.captured[mover] - state.captured[mover]) - int(
            child.captured[1 - mover] - state.captured[1 - mover]
        )
        if child.is_over:
            value = end_result(child, mover)
            lo = hi = gain
        elif tb.covers(child):
            same = child.to_move == mover
            value = tb.outcome(child) * (1 if same else -1)
            a_child, b_child = tb.bounds(child)
            lo, hi = (gain + a_child, gain + b_child) if same else (gain - b_child, gain - a_child)
        else:
            moves[str(a)] = {"outcome": None, "text": "not covered"}
            continue
        covered += 1
        entry: dict[str, Any] = {"outcome": int(value), "text": OUTCOME_WORDS[int(value)]}
        if margins:
            entry["margin"] = [_finite(lo), _finite(hi)]
        moves[str(a)] = entry
    summary: dict[str, Any] = {"max_seeds": tb.max_seeds, "covered_moves": covered}
    if tb.covers(state):
        summary["outcome"] = OUTCOME_WORDS[tb.outcome(state)]
    return {"moves": moves, "summary": summary}
