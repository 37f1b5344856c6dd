"""What the web app's analysis shows for a position: one column at a time, each a dict with a
value per legal move (keyed by the local hole, as a string: JSON keys) and a ``summary``.

**One convention for every value** (the ``value`` of each move, and ``q`` of a search): the value
for the player to move at the analysed position, in [-1, 1], -1 a loss, 0 a draw, +1 a win; a
move's value is what that move is worth to the player choosing it. Each column converts its
source's units where it computes them (the functions named in each entry say how). The summary's
``value`` is the value of the position for the same player: the value of the column's ``best`` move
(the move the column recommends), so that the position and its moves never disagree.

- ``network`` (``az`` or ``policy``): the prior of each move (the masked softmax of the network's
  logits) and the network's value of the position after it (:func:`network_values`); moves that end
  the game get their result. The summary's ``head_value`` is the value head's own estimate of the
  analysed position (same convention).
- ``search`` (``az`` or ``mcts``, within the time budget): visits and ``q`` of each move (``az``:
  the completed Q-values of its Gumbel search; ``mcts``: ``2 * mean rollout result - 1``,
  :func:`mcts_value`) and the simulations run; ``best`` is the move the search plays.
- ``minimax`` (depth ``depth``, within the time budget): the alpha-beta ``score`` of every move at
  the deepest completed depth (the minimax agent's heuristic units), its ``text`` (``win`` / ``loss``
  for a forced result) and its ``value`` (:func:`minimax_value`).
- ``exact`` (a tablebase of the variant): the outcome of each move for the mover (``value`` and
  ``text``: win / draw / loss) and, in the games won on captures, the bounds of the mover's final
  margin from before his move (TABLEBASE.md §2–3).

No column re-implements a rule: positions come from ``Game.apply``, values from the agents and
the table.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mancala_envs import Game, State, outcome, tablebase
from mancala_envs.agents.alphazero.agent import AZAgent
from mancala_envs.agents.mcts.agent import MCTSAgent
from mancala_envs.agents.minimax.agent import MinimaxAgent
from mancala_envs.agents.minimax.alphabeta import W_CAPTURED, W_HOLES, W_ROW, WIN
from mancala_envs.agents.policies.policy import PolicyAgent
from mancala_envs.rulesets import RESULT_BY_SURVIVAL

COLUMNS = ("network", "search", "minimax", "exact")
OUTCOME_WORDS = {1: "win", 0: "draw", -1: "loss"}  # the words of a result, in every column


def _finite(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


def children(game: Game, state: State) -> dict[int, State]:
    """The position after each legal move."""
    return {a: game.apply(state, a) for a in game.legal_actions(state)}


def best_of(moves: dict[str, Any], key: str) -> tuple[int | None, float | None]:
    """The move with the highest ``key`` value among those that have one, and that value."""
    known = {a: m[key] for a, m in moves.items() if m.get(key) is not None}
    if not known:
        return None, None
    a = max(known, key=lambda k: known[k])
    return int(a), float(known[a])


def network_values(raw: np.ndarray, kids: dict[int, State], mover: int) -> dict[int, float]:
    """Each running child's network value, for ``mover``: the network values a position for the
    player to move there (its input is his view), so a child where the opponent moves is negated;
    clipped to [-1, 1] (the az value head is a tanh; the policy's value head regresses PPO's
    discounted return of a +1 / -1 result, which may overshoot a little)."""
    running = [a for a, c in kids.items() if not c.is_over]
    out = {}
    for a, v in zip(running, raw, strict=True):
        own = float(v) if kids[a].to_move == mover else -float(v)
        out[a] = float(np.clip(own, -1.0, 1.0))
    return out


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
    values: dict[int, float] = {a: float(outcome(c.winner, mover)) for a, c in kids.items() if c.is_over}
    inputs = agent.inputs(game, np.stack([state.array] + [kids[a].array for a in running]))
    if isinstance(agent, AZAgent):
        v = agent.evaluator(game)(np.ascontiguousarray(inputs, dtype=np.float32))[1]
    else:
        v = agent.values(game, inputs)  # None for a policy without a value head
    head = None if v is None else float(np.clip(float(v[0]), -1.0, 1.0))  # the mover's own view
    if v is not None:
        values.update(network_values(np.asarray(v[1:]), kids, mover))
    moves = {str(a): {"prior": float(prior[a]), "value": values.get(a)} for a in kids}
    best, value = best_of(moves, "value")
    summary = {"agent": agent.name, "value": value, "best": best, "head_value": head}
    return {"moves": moves, "summary": summary}


def mcts_value(mean_result: float) -> float:
    """An MCTS mean rollout result for the root's mover (1 win, 0.5 draw, 0 loss) as a value in
    [-1, 1]: ``2 * mean - 1``."""
    return 2.0 * mean_result - 1.0


def search_column(game: Game, state: State, agent: AZAgent | MCTSAgent) -> dict[str, Any]:
    """Visits and Q-values (``q``, for the mover, in [-1, 1]) of a search within the agent's time
    budget; the summary's ``best`` is the move the search plays (az: its Gumbel choice; mcts: the
    most visited), its ``value`` that move's ``q``."""
    legal = game.legal_actions(state)
    if isinstance(agent, AZAgent):
        agent.model(game)
        result = agent.search(game, state.array[None])
        visits, q = result.visits[0], result.q[0]  # completed Q-values of the root's mover, in [-1, 1]
        best = int(result.action[0])
    else:
        visits = agent.search(game, state)
        q = mcts_value(agent.root_values())
        best = max(legal, key=lambda a: visits[a])
    moves = {str(a): {"visits": int(visits[a]), "q": _finite(float(q[a]))} for a in legal}
    summary = {
        "agent": agent.name,
        "simulations": int(agent.last_sims),
        "value": moves[str(best)]["q"],
        "best": best,
    }
    return {"moves": moves, "summary": summary}


def minimax_text(v: int) -> str:
    """A minimax value as words: ``"win"`` / ``"loss"`` for a forced result, or the number."""
    if v >= WIN:
        return OUTCOME_WORDS[1]
    if v <= -WIN:
        return OUTCOME_WORDS[-1]
    return str(int(v))


def heuristic_bound(game: Game) -> int:
    """More than the largest size the minimax heuristic can reach in ``game``: its weights times
    the seeds (captured and row differences) and the holes (non-empty holes difference), plus 1."""
    w = np.abs(MinimaxAgent.weights(game))
    return int((w[W_CAPTURED] + w[W_ROW]) * game.total_seeds + w[W_HOLES] * game.holes_per_row) + 1


def minimax_value(score: int, bound: int) -> float:
    """A minimax score as a value in [-1, 1]: +1 / -1 for a forced win / loss (``|score| >= WIN``),
    a heuristic score divided by :func:`heuristic_bound` (so strictly inside (-1, 1); 0 for a draw)."""
    if score >= WIN:
        return 1.0
    if score <= -WIN:
        return -1.0
    return score / bound


def minimax_column(game: Game, state: State, agent: MinimaxAgent) -> dict[str, Any]:
    """The exact alpha-beta value of every move at the deepest depth the budget allowed."""
    values, depth = agent.move_values(game, state)
    bound = heuristic_bound(game)
    moves = {
        str(a): {
            "score": int(values[a]),
            "text": minimax_text(int(values[a])),
            "value": minimax_value(int(values[a]), bound),
        }
        for a in game.legal_actions(state)
    }
    best, value = best_of(moves, "value")
    summary = {"agent": agent.name, "depth": int(depth), "nodes": agent.last_nodes, "value": value}
    return {"moves": moves, "summary": {**summary, "best": best}}


def exact_column(game: Game, state: State, tb: tablebase.Tablebase) -> dict[str, Any]:
    """The exact outcome after each move where the table covers the position (or the game ended)."""
    mover = state.to_move
    margins = game.ruleset.result != RESULT_BY_SURVIVAL
    moves: dict[str, Any] = {}
    for a, child in children(game, state).items():
        gain = int(child.captured[mover] - state.captured[mover]) - int(
            child.captured[1 - mover] - state.captured[1 - mover]
        )
        if child.is_over:
            value = outcome(child.winner, mover)
            lo = hi = gain
        elif tb.covers(child):
            same = child.to_move == mover
            value = tb.outcome(child) * (1 if same else -1)
            a_child, b_child = tb.bounds(child)
            lo, hi = (gain + a_child, gain + b_child) if same else (gain - b_child, gain - a_child)
        else:
            moves[str(a)] = {"outcome": None, "value": None, "text": "not covered"}
            continue
        word = OUTCOME_WORDS[int(value)]
        entry: dict[str, Any] = {"outcome": int(value), "value": float(value), "text": word}
        if margins:
            entry["margin"] = [_finite(lo), _finite(hi)]
        moves[str(a)] = entry
    return {"moves": moves, "summary": exact_summary(state, tb, moves)}


def exact_summary(state: State, tb: tablebase.Tablebase, moves: dict[str, Any]) -> dict[str, Any]:
    """The table's size, the moves it covers, and the position's outcome and value for the mover:
    the table's, or the best covered move's when that is a win or every move is covered."""
    best, value = best_of(moves, "value")
    covered = sum(m["value"] is not None for m in moves.values())
    summary: dict[str, Any] = {"max_seeds": tb.max_seeds, "covered_moves": covered}
    if tb.covers(state):
        value = float(tb.outcome(state))
    elif value is not None and value < 1 and covered < len(moves):
        best, value = None, None  # an uncovered move may be better
    if value is not None:
        summary["outcome"] = OUTCOME_WORDS[int(value)]
    summary["value"] = value
    summary["best"] = best
    return summary
