"""Action selection of Gumbel MuZero (Danihelka et al., ICLR 2022) on a
:class:`~mancala_envs.agents.alphazero.tree.Tree`.

- **Root** (:func:`root_action`): *Gumbel-top-k with sequential halving*. The root's considered
  actions are the ``m = min(max_considered, legal)`` with the largest ``g(a) + logits(a)``
  (``g``: Gumbel noise); the simulation budget is split into ``ceil(log2 m)`` phases, each giving
  every action still considered the same number of visits, after which the better half by
  ``g + logits + sigma(qhat)`` is kept. Both steps follow from one rule: simulation ``k`` visits,
  among the legal actions whose visit count is :func:`halving_table`'s ``[m, k]``, the one with
  the largest ``g + logits + sigma(qhat)``.
- **Interior** (:func:`interior_action`), deterministic: the action that brings the visit
  distribution closest to the improved policy ``pi' = softmax(logits + sigma(qhat))``:
  ``argmax_a pi'(a) - N(a) / (1 + sum_N)``.
- **Result** (:func:`root_result`): the action played is the most visited one with the largest
  ``g + logits + sigma(qhat)`` (the survivor of the last phase); the policy target is ``pi'``.

Ties go to the lowest action. ``sigma(qhat)`` is
:func:`~mancala_envs.agents.alphazero.qtransforms.qtransform_completed_by_mix_value`.
"""

from __future__ import annotations

import math

import numpy as np

from mancala_envs.agents.alphazero.qtransforms import legal, qtransform_completed_by_mix_value
from mancala_envs.core.fast import inline_kernel


def halving_sequence(m: int, sims: int) -> list[int]:
    """The visit count the root action of each of ``sims`` simulations must have, for ``m``
    considered actions (sequential halving: each phase adds ``max(1, sims // (phases * k))``
    visits to each of the ``k`` actions still considered, then halves ``k``, never below 2)."""
    if m <= 1:
        return list(range(sims))
    phases = math.ceil(math.log2(m))
    sequence: list[int] = []
    visits = [0] * m
    k = m
    while len(sequence) < sims:
        for _ in range(max(1, sims // (phases * k))):
            sequence.extend(visits[:k])
            visits[:k] = [v + 1 for v in visits[:k]]
        k = max(2, k // 2)
    return sequence[:sims]


def halving_table(max_considered: int, sims: int) -> np.ndarray:
    """``table[m, k]``: :func:`halving_sequence` ``(m, sims)[k]`` for ``m`` in 0..max_considered."""
    table = np.zeros((max_considered + 1, max(sims, 1)), dtype=np.int32)
    for m in range(max_considered + 1):
        table[m, :sims] = halving_sequence(m, sims)
    return table


@inline_kernel
def legal_count(tree, b, node, n):
    k = 0
    for a in range(n):
        k += legal(tree, b, node, n, a)
    return k


@inline_kernel
def root_action(tree, b, n, k, table, max_considered, c_visit, c_scale, prior, sigma):
    """The root action of simulation ``k`` (module docstring)."""
    sims = table.shape[1]
    m = min(max_considered, legal_count(tree, b, 0, n))
    wanted = table[m, min(k, sims - 1)]
    qtransform_completed_by_mix_value(tree, b, 0, n, c_visit, c_scale, prior, sigma)
    pick, fallback = best_root_score(tree, b, n, wanted, sigma)
    return pick if pick >= 0 else fallback  # past the table (a longer search): the best score


@inline_kernel
def best_root_score(tree, b, n, wanted, sigma):
    """The root's legal action of the largest ``g + logits + sigma`` among those with ``wanted``
    visits (-1 if none), and the one of the largest score whatever its visits."""
    best = -np.inf
    pick = -1
    fallback = -1
    fallback_score = -np.inf
    for a in range(n):
        if not legal(tree, b, 0, n, a):
            continue
        c = tree.children[b, 0, a]
        visits = tree.visits[b, c] if c >= 0 else 0
        score = tree.gumbel[b, a] + tree.logits[b, 0, a] + sigma[a]
        if visits == wanted and score > best:
            best = score
            pick = a
        if score > fallback_score or fallback < 0:
            fallback_score = score
            fallback = a
    return pick, fallback


@inline_kernel
def interior_action(tree, b, node, n, c_visit, c_scale, prior, sigma):
    """The deterministic interior selection: ``argmax_a pi'(a) - N(a) / (1 + sum_N)``."""
    qtransform_completed_by_mix_value(tree, b, node, n, c_visit, c_scale, prior, sigma)
    improved_policy(tree, b, node, n, sigma, prior)
    total = 0
    for a in range(n):
        c = tree.children[b, node, a]
        if c >= 0:
            total += tree.visits[b, c]
    best = -np.inf
    pick = -1
    for a in range(n):
        if legal(tree, b, node, n, a):
            c = tree.children[b, node, a]
            visits = tree.visits[b, c] if c >= 0 else 0
            score = prior[a] - visits / (1.0 + total)
            if score > best:
                best = score
                pick = a
    return pick


@inline_kernel
def improved_policy(tree, b, node, n, sigma, out):
    """``out = softmax(logits + sigma)`` over the legal actions (0 elsewhere); ``sigma`` holds
    the transformed Q-values."""
    top = -np.inf
    for a in range(n):
        if legal(tree, b, node, n, a):
            top = max(top, tree.logits[b, node, a] + sigma[a])
    total = 0.0
    for a in range(n):
        out[a] = np.exp(tree.logits[b, node, a] + sigma[a] - top) if legal(tree, b, node, n, a) else 0.0
        total += out[a]
    for a in range(n):
        out[a] /= total


@inline_kernel
def root_result(tree, b, n, c_visit, c_scale, prior, sigma, policy_out):
    """The action to play (module docstring); writes the improved policy into ``policy_out``."""
    qtransform_completed_by_mix_value(tree, b, 0, n, c_visit, c_scale, prior, sigma)
    most = -1
    for a in range(n):
        c = tree.children[b, 0, a]
        if legal(tree, b, 0, n, a) and c >= 0:
            most = max(most, tree.visits[b, c])
    pick, _ = best_root_score(tree, b, n, max(most, 0), sigma)
    improved_policy(tree, b, 0, n, sigma, policy_out)
    return pick


__all__ = [
    "halving_sequence",
    "halving_table",
    "improved_policy",
    "interior_action",
    "root_action",
    "root_result",
]
