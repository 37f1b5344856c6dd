"""Batched Gumbel MuZero search (Danihelka et al., ICLR 2022) over the compiled core, for many
games at once: the trees live in one :class:`~mancala_envs.agents.alphazero.tree.Tree`, the moves are the
engine's
:func:`~mancala_envs.core.engine.play`, and the network is evaluated by the caller, one batch per
simulation for every game together.

One search (:meth:`GumbelSearch.run`) is

1. :func:`start_roots` — each game's root position into node 0, its view into ``obs``; the caller
   evaluates the batch and :func:`backward` stores the roots' priors and values;
2. ``sims`` times: :func:`simulate` descends every game's tree from the root
   (:func:`~mancala_envs.agents.alphazero.select.root_action`, then
   :func:`~mancala_envs.agents.alphazero.select.interior_action`) to an
   action not tried yet, creates that child with the engine and writes its view into ``obs``
   (a finished or decided child needs no network); the caller evaluates the new leaves in one
   forward pass; :func:`backward` stores their priors and values and backs the value up the path;
3. :func:`root_outputs` — the action to play, the improved policy, visits and completed Q.

Values are exact where the core knows the result: a finished game is worth its outcome
(:func:`~mancala_envs.core.engine.outcome`, 0 for a truncated game), and so, with
``settle_decided`` (the default), is a game won on captures once one player holds more than half
the seeds (:func:`mancala_envs.core.engine.decided_winner`). That shortcut is not the rules' result:
the
leader still has to end the game, and a game that never ends is a draw (TABLEBASE.md). With
``decided_discount`` D > 0 a settled decided position is worth ``1 - D * share`` of a win
(:func:`unfinished_share`: the seeds still on the board), so among winning moves the search prefers
those that bring the end nearer (``az`` also looks for a forced end:
:mod:`mancala_envs.agents.alphazero.forced_end`). With
``settle_decided=False`` such positions go to the network like any other, so a network trained on
games played out to their end (``train_alphazero --no-settle-decided``) can search for the ending.
The network's value is for the player to move at the leaf; the tree stores player 0's side.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit

from mancala_envs.agents.alphazero.numba_forward import NumbaEvaluator, forward_pass
from mancala_envs.agents.alphazero.qtransforms import completed_q, legal, prior_policy
from mancala_envs.agents.alphazero.select import halving_table, interior_action, root_action, root_result
from mancala_envs.agents.alphazero.tree import Tree, new_tree, side
from mancala_envs.core.batch import lookahead_into, lookahead_width, view_into, view_size
from mancala_envs.core.engine import decided_winner, new_work, outcome, play
from mancala_envs.core.fast import entry_point, kernel
from mancala_envs.core.layout import (
    DONE,
    NO_WINNER,
    TRUNCATED,
    off_status,
    off_to_move,
    off_winner,
    row_sum,
)
from mancala_envs.game import Game
from mancala_envs.rulesets import R_HOLES, R_SEEDS_PER_HOLE

# obs (k, input_width) float32 -> (logits (k, n), values (k,)) for the player to move
Evaluator = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]


def network_inputs(game: Game, states: np.ndarray, lookahead: int) -> np.ndarray:
    """The network's ``float32`` inputs for running packed states, the rows :func:`write_input`
    writes for the tree: the mover's raw-count view (``lookahead`` 0), or his lookahead of that
    many plies (``Game.lookahead_batch``; ``True`` is one ply)."""
    if lookahead:
        return game.lookahead_batch(states, int(lookahead)).astype(np.float32)
    return game.counts_batch(states, states[:, game.layout.to_move]).astype(np.float32)


@kernel
def exact_value(state, rules, settle_decided, discount):
    """``(known, value for player 0)``: the result of a finished game, or of a decided one with
    ``settle_decided``, discounted by :func:`unfinished_share` (module docstring)."""
    n = rules[R_HOLES]
    status = state[off_status(n)]
    if status == DONE:
        return True, float(outcome(state[off_winner(n)], 0))
    if status == TRUNCATED:
        return True, 0.0
    decided = decided_winner(state, rules) if settle_decided else NO_WINNER
    if decided >= 0:
        return True, float(outcome(decided, 0)) * (1.0 - discount * unfinished_share(state, rules))
    return False, 0.0


@kernel
def unfinished_share(state, rules):
    """The share of the game's seeds still on the board: 0 once the game has ended (SE9/ED4
    clear the board), so a decided game closer to its end is worth more to its winner."""
    n = rules[R_HOLES]
    return (row_sum(state, n, 0) + row_sum(state, n, 1)) / (2.0 * n * rules[R_SEEDS_PER_HOLE])


@njit(cache=True)
def known_results(states, rules, settle_decided=True):
    """:func:`exact_value` for every row, undiscounted (the results self-play trains on):
    ``(known (B,) bool, value for player 0 (B,))``."""
    known = np.zeros(states.shape[0], dtype=np.bool_)
    value = np.zeros(states.shape[0])
    for i in range(states.shape[0]):
        known[i], value[i] = exact_value(states[i], rules, settle_decided, 0.0)
    return known, value


@kernel
def write_input(tree, b, node, rules, work, slot):
    """The network input of node ``node`` of game ``b`` into ``obs[slot]``: the mover's raw-count
    view, or his lookahead of one, two or three plies (``Game.lookahead_batch``), whichever ``obs``
    is as wide as."""
    state = tree.states[b, node]
    width = tree.obs.shape[1]
    if width == view_size(rules):
        view_into(state, state[off_to_move(rules[R_HOLES])], rules, 1.0, tree.obs[slot])
    else:
        plies = 1 if width == lookahead_width(rules, 1) else 2 if width == lookahead_width(rules, 2) else 3
        lookahead_into(state, rules, plies, work, tree.scratch, tree.obs[slot])


@kernel
def start_roots(tree, roots, rules):
    """Reset the first ``len(roots)`` trees to the root positions ``roots`` (running states) and
    write their views into ``obs`` (slot ``b`` for game ``b``); returns the number of slots."""
    n = rules[R_HOLES]
    work = new_work(n)
    for b in range(roots.shape[0]):
        for i in range(roots.shape[1]):
            tree.states[b, 0, i] = roots[b, i]
        tree.n_nodes[b] = 1
        tree.visits[b, 0] = 0
        tree.value_sum[b, 0] = 0.0
        tree.terminal[b, 0] = 0  # the root is always searched
        tree.parent[b, 0] = -1
        tree.action[b, 0] = -1
        for a in range(n):
            tree.children[b, 0, a] = -1
        tree.leaf[b] = 0
        tree.slot[b] = b
        write_input(tree, b, 0, rules, work, b)
    return roots.shape[0]


@kernel
def add_child(tree, b, node, a, rules, work, count, settle_decided, discount):
    """Create the child of ``node`` by action ``a`` as the simulation's leaf; returns the number of
    ``obs`` slots used (``count``, plus one when the child needs the network)."""
    n = rules[R_HOLES]
    c = tree.n_nodes[b]
    tree.n_nodes[b] = c + 1
    for i in range(tree.states.shape[2]):
        tree.states[b, c, i] = tree.states[b, node, i]
    play(tree.states[b, c], a, rules, work, True)
    tree.children[b, node, a] = c
    tree.parent[b, c] = node
    tree.action[b, c] = a
    tree.visits[b, c] = 0
    tree.value_sum[b, c] = 0.0
    for x in range(n):
        tree.children[b, c, x] = -1
        tree.logits[b, c, x] = -np.inf
    tree.leaf[b] = c
    known, value = exact_value(tree.states[b, c], rules, settle_decided, discount)
    if known:
        tree.terminal[b, c] = 1
        tree.raw_value[b, c] = value
        tree.slot[b] = -1
        return count
    tree.terminal[b, c] = 0
    tree.slot[b] = count
    write_input(tree, b, c, rules, work, count)
    return count + 1


@njit(cache=True)
def simulate(tree, games, rules, k, table, max_considered, c_visit, c_scale, settle_decided, discount):
    """Simulation ``k`` in the first ``games`` trees: descend to a new leaf (or a known result) and
    write the leaves to evaluate into ``obs``; returns how many there are."""
    n = rules[R_HOLES]
    work = new_work(n)
    prior = np.empty(n)
    sigma = np.empty(n)
    count = 0
    for b in range(games):
        node = 0
        while True:
            if tree.terminal[b, node]:
                tree.leaf[b] = node
                tree.slot[b] = -1
                break
            if node == 0:
                a = root_action(tree, b, n, k, table, max_considered, c_visit, c_scale, prior, sigma)
            else:
                a = interior_action(tree, b, node, n, c_visit, c_scale, prior, sigma)
            child = tree.children[b, node, a]
            if child < 0:
                count = add_child(tree, b, node, a, rules, work, count, settle_decided, discount)
                break
            node = child
    return count


@kernel
def backward(tree, games, rules, logits, values):
    """Store each leaf's network output (its ``obs`` slot's row of ``logits``, masked to the legal
    actions, and ``values``, for its player to move), then back the leaf's value up to the root."""
    n = rules[R_HOLES]
    for b in range(games):
        leaf = tree.leaf[b]
        s = tree.slot[b]
        if s >= 0:
            for a in range(n):
                tree.logits[b, leaf, a] = logits[s, a] if legal(tree, b, leaf, n, a) else -np.inf
            tree.raw_value[b, leaf] = side(tree.states[b, leaf, off_to_move(n)]) * values[s]
        value = tree.raw_value[b, leaf]
        node = leaf
        while node >= 0:
            tree.visits[b, node] += 1
            tree.value_sum[b, node] += value
            node = tree.parent[b, node]


@njit(cache=True)
def run_simulations(
    tree, games, rules, first, last, table, max_considered, c_visit, c_scale, settle_decided, discount,
    weights,
):  # fmt: skip
    """Simulations ``first .. last - 1`` (:func:`simulate`, :func:`backward`) with the network's
    compiled forward pass on its exported ``weights``
    (:func:`~mancala_envs.agents.alphazero.numba_forward.forward_pass`, chosen by their type) in
    between, all in compiled code; returns the leaves evaluated."""
    logits = np.empty((tree.obs.shape[0], rules[R_HOLES]))
    values = np.empty(tree.obs.shape[0])
    evaluations = 0
    for k in range(first, last):
        count = simulate(
            tree, games, rules, k, table, max_considered, c_visit, c_scale, settle_decided, discount
        )
        forward_pass(tree.obs[:count], weights, logits, values)
        backward(tree, games, rules, logits, values)
        evaluations += count
    return evaluations


@njit(cache=True)
def root_outputs(tree, games, rules, c_visit, c_scale, actions, policy, visits, q, value):
    """Per game: the action to play, the improved policy, the children's visits, the completed Q
    (``-inf`` on illegal actions) and the root's value, all for the root's player to move."""
    n = rules[R_HOLES]
    prior = np.empty(n)
    sigma = np.empty(n)
    for b in range(games):
        actions[b] = root_result(tree, b, n, c_visit, c_scale, prior, sigma, policy[b])
        prior_policy(tree, b, 0, n, prior)
        completed_q(tree, b, 0, n, prior, q[b])
        for a in range(n):
            c = tree.children[b, 0, a]
            visits[b, a] = tree.visits[b, c] if c >= 0 else 0
        player = tree.states[b, 0, off_to_move(n)]
        value[b] = side(player) * tree.value_sum[b, 0] / tree.visits[b, 0]


@dataclass
class SearchResult:
    """What one batched search returns, one row per game, from the root's player to move."""

    action: np.ndarray  # int64 (B,): the action to play
    policy: np.ndarray  # float64 (B, n): the improved policy softmax(logits + sigma(qhat))
    visits: np.ndarray  # int32 (B, n): visits of each root action
    q: np.ndarray  # float64 (B, n): completed Q-values (-inf on illegal actions)
    value: np.ndarray  # float64 (B,): the root's mean value after the search
    gumbel: np.ndarray  # float64 (B, n): the root's Gumbel noise
    inputs: np.ndarray  # float32 (B, input width): the roots' network inputs (network_inputs)


class GumbelSearch:
    """Gumbel MuZero search for up to ``batch`` games at once, ``sims`` simulations per move.

    ``max_considered``: actions sampled at the root (Gumbel-top-k); ``c_visit``, ``c_scale``: the
    ``sigma`` transform (:mod:`mancala_envs.agents.alphazero.qtransforms`; the defaults are the paper's
    ``c_visit``
    and mctx's ``value_scale``); ``lookahead``: the network reads ``Game.lookahead_batch`` rows
    of that many plies, not raw-count views; ``settle_decided``: a decided game is a known
    result, discounted by ``decided_discount`` (module docstring)."""

    def __init__(
        self,
        game: Game,
        batch: int,
        sims: int,
        max_considered: int = 16,
        c_visit: float = 50.0,
        c_scale: float = 0.1,
        lookahead: int = 0,
        settle_decided: bool = True,
        decided_discount: float = 0.0,
    ):
        if batch < 1 or sims < 1 or max_considered < 1:
            raise ValueError(
                f"batch, sims and max_considered must be >= 1, got {batch}, {sims}, {max_considered}"
            )
        self.game, self.batch, self.sims = game, int(batch), int(sims)
        self.max_considered = int(max_considered)
        self.c_visit, self.c_scale = float(c_visit), float(c_scale)
        self.settle_decided = bool(settle_decided)
        if not 0.0 <= decided_discount < 1.0:
            raise ValueError(f"decided_discount must be in [0, 1), got {decided_discount!r}")
        self.decided_discount = float(decided_discount)
        self.tree: Tree = new_tree(game, self.batch, self.sims, lookahead)
        self.table = halving_table(self.max_considered, self.sims)
        # the search's fixed arguments of simulate and run_simulations, in their order
        self._settings = (self.table, self.max_considered, self.c_visit, self.c_scale, self.settle_decided)
        self._settings = (*self._settings, self.decided_discount)
        self.evaluations = 0  # network evaluations (positions) so far
        self.last_sims = 0  # simulations of the last run (fewer than sims when its deadline came)
        self._entries: dict[Any, Any] = {}

    def _call(self, kernel: Any, *args: Any, key: Any = None) -> Any:
        """``kernel(*args)`` through its compiled entry point, looked up once per search object
        and ``key`` (:func:`~mancala_envs.core.fast.entry_point`): numba's dispatcher types the tree,
        a tuple of arrays, in Python on every call, which cost more than a small search itself.
        Each kernel here always takes arguments of the same types (the caller makes them so)."""
        entry = self._entries.get((kernel, key))
        if entry is None:
            entry = self._entries[(kernel, key)] = entry_point(kernel, *args)
        return entry(*args)

    def _evaluate(self, evaluate: Evaluator, count: int) -> tuple[np.ndarray, np.ndarray]:
        n = self.game.num_actions
        if count == 0:
            return np.zeros((0, n)), np.zeros(0)
        logits, values = evaluate(self.tree.obs[:count])
        self.evaluations += count
        as_float = np.ascontiguousarray  # the types backward's entry point was looked up with
        return as_float(logits, dtype=np.float64), as_float(values, dtype=np.float64)

    def _compiled_steps(self, games: int, evaluate: Any, deadline: float | None) -> None:
        """All the simulations in one compiled call (:func:`run_simulations`), or with a
        ``deadline`` one call a simulation, none started after it."""
        settings = (*self._settings, evaluate.weights)
        step = self.sims if deadline is None else 1
        key = evaluate  # its weights keep their types; the key keeps it (and their id) alive
        if (run_simulations, key) not in self._entries:  # the last evaluator's entry only
            self._entries = {k: v for k, v in self._entries.items() if k[0] is not run_simulations}
        for first in range(0, self.sims, step):
            if deadline is not None and first > 0 and time.perf_counter() >= deadline:
                break
            args = (self.tree, games, self.game.rules, first, first + step, *settings)
            self.evaluations += self._call(run_simulations, *args, key=key)
            self.last_sims = first + step

    def run(
        self,
        roots: np.ndarray,
        evaluate: Evaluator,
        gumbel: np.ndarray | None = None,
        deadline: float | None = None,
    ) -> SearchResult:
        """Search from each row of ``roots`` (running packed states, at most ``batch`` rows);
        ``gumbel``: the roots' Gumbel noise ``(rows, n)`` (none: zero, a deterministic search);
        ``deadline``: a ``time.perf_counter()`` after which no simulation starts (at least one
        runs): the result is then that of the simulations done (``last_sims``), the most visited
        of the actions still considered played, as after a full search."""
        games, n, tree, rules = roots.shape[0], self.game.num_actions, self.tree, self.game.rules
        if not 1 <= games <= self.batch:
            raise ValueError(f"a search takes 1..{self.batch} root positions, got {games}")
        if not (roots[:, self.game.layout.mask] != 0).any(axis=1).all():
            raise ValueError("a search needs running root positions: some rows have no legal move")
        tree.gumbel[:games] = 0.0 if gumbel is None else gumbel
        count = self._call(start_roots, tree, np.ascontiguousarray(roots, dtype=np.int32), rules)
        inputs = tree.obs[:games].copy()  # the leaves' rows overwrite them later
        self._call(backward, tree, games, rules, *self._evaluate(evaluate, count))
        self.last_sims = 0
        if isinstance(evaluate, NumbaEvaluator):  # no return to Python within a step
            self._compiled_steps(games, evaluate, deadline)
        for k in range(self.last_sims, self.sims):
            if deadline is not None and k > 0 and time.perf_counter() >= deadline:
                break
            self.last_sims = k + 1
            count = self._call(simulate, tree, games, rules, k, *self._settings)
            self._call(backward, tree, games, rules, *self._evaluate(evaluate, count))
        out = SearchResult(
            action=np.empty(games, dtype=np.int64),
            policy=np.zeros((games, n)),
            visits=np.zeros((games, n), dtype=np.int32),
            q=np.zeros((games, n)),
            value=np.zeros(games),
            gumbel=tree.gumbel[:games].copy(),
            inputs=inputs,
        )
        outputs = (out.action, out.policy, out.visits, out.q, out.value)
        self._call(root_outputs, tree, games, rules, self.c_visit, self.c_scale, *outputs)
        return out
