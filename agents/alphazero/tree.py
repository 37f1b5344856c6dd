"""The search tree of :mod:`mancala_envs.agents.alphazero.search`: one data structure of numpy arrays for a
batch of
games, each game with its own tree of at most ``sims + 1`` nodes (node 0 is the root).

Per game ``b`` and node ``i``:

- ``states[b, i]``: the packed position (the core's layout; the player to move is read from it);
- ``visits[b, i]``: times the node was evaluated or backed up through (1 once evaluated);
- ``value_sum[b, i]``: the sum of those values, **from player 0's side** (values are credited by
  player id: a node's value for the player to move ``p`` is ``sign(p) * value``, ``sign(0) = +1``,
  ``sign(1) = -1``; nothing assumes that turns alternate);
- ``raw_value[b, i]``: the network's value of the node (or its exact value), player 0's side;
- ``terminal[b, i]``: 1 when the node's result is known without a network (the game is over, or,
  in a game won on captures, one player holds more than half the seeds);
- ``logits[b, i, a]``: the network's prior logits of the node's moves (``-inf`` on illegal moves);
- ``children[b, i, a]``: the child reached by action ``a`` (-1: not created yet);
- ``parent[b, i]``, ``action[b, i]``: the node above and the action that led here (-1 at the root).

Per game: ``n_nodes[b]``, the root's Gumbel noise ``gumbel[b, a]``, and the simulation's
``leaf[b]`` and ``slot[b]`` (its row in ``obs``, the network's input batch; -1 when the leaf
needs no network), and a ``scratch`` position for the lookahead input.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from mancala_envs.core.fast import inline_kernel
from mancala_envs.game import Game


class Tree(NamedTuple):
    """The batched search tree (module docstring); build it with :func:`new_tree`."""

    states: np.ndarray  # int32 (B, N, state_size)
    visits: np.ndarray  # int32 (B, N)
    value_sum: np.ndarray  # float64 (B, N)
    raw_value: np.ndarray  # float64 (B, N)
    terminal: np.ndarray  # int8 (B, N)
    logits: np.ndarray  # float64 (B, N, A)
    children: np.ndarray  # int32 (B, N, A)
    parent: np.ndarray  # int32 (B, N)
    action: np.ndarray  # int32 (B, N)
    n_nodes: np.ndarray  # int32 (B,)
    gumbel: np.ndarray  # float64 (B, A)
    leaf: np.ndarray  # int32 (B,)
    slot: np.ndarray  # int32 (B,)
    obs: np.ndarray  # float32 (B, observation_size or lookahead_size): the leaves to evaluate
    scratch: np.ndarray  # int32 (3, state_size): the positions the lookahead plays moves on


def input_width(game: Game, lookahead: int) -> int:
    """Entries of a network input row: the raw-count view (``lookahead`` 0), or the lookahead row
    of that many plies (``Game.lookahead_width``; ``True`` is one ply)."""
    return game.lookahead_width(int(lookahead)) if lookahead else game.observation_size


def new_tree(game: Game, batch: int, sims: int, lookahead: int = 0) -> Tree:
    """An empty tree for ``batch`` games of ``game`` and searches of ``sims`` simulations; the
    network input is the raw-count view, or with ``lookahead`` (plies) the lookahead rows."""
    nodes, a = sims + 1, game.num_actions
    return Tree(
        states=np.zeros((batch, nodes, game.state_size), dtype=np.int32),
        visits=np.zeros((batch, nodes), dtype=np.int32),
        value_sum=np.zeros((batch, nodes), dtype=np.float64),
        raw_value=np.zeros((batch, nodes), dtype=np.float64),
        terminal=np.zeros((batch, nodes), dtype=np.int8),
        logits=np.zeros((batch, nodes, a), dtype=np.float64),
        children=np.full((batch, nodes, a), -1, dtype=np.int32),
        parent=np.full((batch, nodes), -1, dtype=np.int32),
        action=np.full((batch, nodes), -1, dtype=np.int32),
        n_nodes=np.zeros(batch, dtype=np.int32),
        gumbel=np.zeros((batch, a), dtype=np.float64),
        leaf=np.zeros(batch, dtype=np.int32),
        slot=np.full(batch, -1, dtype=np.int32),
        obs=np.zeros((batch, input_width(game, lookahead)), dtype=np.float32),
        scratch=np.zeros((3, game.state_size), dtype=np.int32),
    )


@inline_kernel
def side(player):
    """+1 for player 0, -1 for player 1: a player-0 value times ``side(p)`` is ``p``'s value."""
    return 1.0 - 2.0 * player


@inline_kernel
def child_q(tree, b, child, player):
    """The mean value of a visited ``child`` for ``player`` (the mover of its parent)."""
    return side(player) * tree.value_sum[b, child] / tree.visits[b, child]
