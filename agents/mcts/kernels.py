"""Compiled UCT for :class:`mancala_envs.agents.mcts.agent.MCTSAgent`: the tree in preallocated arrays, one
expansion
and one uniformly random rollout per simulation.

Moves are the engine's (:func:`~mancala_envs.core.engine.play`; rollouts use its mask-free random
player, :func:`~mancala_envs.core.engine.play_random`). A rollout's result is credited by player
id with the core's result helper: ``(outcome(winner, mover) + 1) / 2`` — 1 / 0.5 / 0 for a
win, a draw or truncation, a loss — to the player who made the move into each node.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mancala_envs.core import layout
from mancala_envs.core.engine import decided_winner, new_work, outcome, play, play_random
from mancala_envs.core.fast import kernel, random_below
from mancala_envs.rulesets import R_HOLES


@kernel
def rollout(state, rules, rng, work, candidates):
    """Play uniformly random moves on ``state`` (in place) until the result is known; returns the
    winner (0, 1), or -1 for a draw and layout.NO_WINNER for a truncated game."""
    n = rules[R_HOLES]
    while state[layout.off_status(n)] == layout.RUNNING:
        decided = decided_winner(state, rules)
        if decided >= 0:
            return decided
        play_random(state, rules, rng.random(), work, candidates, False)
    return state[layout.off_winner(n)] if state[layout.off_status(n)] == layout.DONE else layout.NO_WINNER


@njit(cache=True)
def mcts_run(sims, c, rules, rng, states, children, visits, value, mover, n_nodes, path, scratch):
    """Run ``sims`` UCT simulations on the tree whose root is ``states[0]``; returns the node count.

    Node ``i`` holds its position ``states[i]``, its children by action ``children[i]`` (-1 not yet
    expanded), its visit count and the total reward of ``mover[i]``, the player who made the move
    into it. Each simulation descends by UCT (``value/visits + c*sqrt(ln N/visits)``), expands one
    untried legal move chosen at random, plays a uniformly random rollout to the end and credits
    each node's mover (module docstring).
    """
    n = rules[R_HOLES]
    capacity = states.shape[0]
    work = new_work(n)
    candidates = np.empty(n, dtype=np.int64)
    for _ in range(sims):
        node = 0
        path[0] = 0
        depth = 1
        while states[node, layout.off_status(n)] == layout.RUNNING:
            untried = 0
            for a in range(n):
                if states[node, layout.off_mask(n) + a] and children[node, a] < 0:
                    untried += 1
            if untried > 0 and n_nodes < capacity:
                r = random_below(rng, untried)
                pick = -1
                for a in range(n):
                    if states[node, layout.off_mask(n) + a] and children[node, a] < 0:
                        if r == 0:
                            pick = a
                            break
                        r -= 1
                new = n_nodes
                n_nodes += 1
                states[new, :] = states[node]
                play(states[new], pick, rules, work, True)
                children[node, pick] = new
                mover[new] = states[node, layout.off_to_move(n)]
                visits[new] = 0.0
                value[new] = 0.0
                path[depth] = new
                depth += 1
                node = new
                break
            if untried > 0:  # tree full: roll out from here
                break
            log_n = np.log(visits[node])
            best = -1.0
            best_child = -1
            for a in range(n):
                if states[node, layout.off_mask(n) + a]:
                    ch = children[node, a]
                    u = value[ch] / visits[ch] + c * np.sqrt(log_n / visits[ch])
                    if u > best:
                        best = u
                        best_child = ch
            node = best_child
            path[depth] = node
            depth += 1
        scratch[:] = states[node]
        winner = rollout(scratch, rules, rng, work, candidates)
        for i in range(depth):
            nd = path[i]
            visits[nd] += 1.0
            value[nd] += (outcome(winner, mover[nd]) + 1) * 0.5
    return n_nodes
