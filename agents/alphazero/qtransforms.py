"""Q-value transforms of Gumbel MuZero (Danihelka et al., ICLR 2022, §4 and appendix D), for one
node of a :class:`~mancala_envs.agents.alphazero.tree.Tree`: the prior policy, the mixed value, the completed
Q-values and their monotone transform ``sigma``.

For a node with player ``p`` to move, legal actions ``a``, prior ``pi = softmax(logits)`` and
children visits ``N(a)``, all from ``p``'s side:

- ``q(a)`` is the mean value of child ``a`` (visited children only);
- the **mixed value** ``v_mix = (v + sum_N / sum_{N(b)>0} pi(b) * sum_{N(b)>0} pi(b) q(b)) /
  (1 + sum_N)`` blends the network's value ``v`` of the node with the visited children;
- the **completed Q** is ``q(a)`` for a visited child, ``v_mix`` for an unvisited one;
- **min-max rescaling** over the node's legal actions maps them to ``qhat`` in [0, 1]
  (``(q - min) / max(max - min, EPSILON)``);
- ``sigma(qhat) = (c_visit + max_b N(b)) * c_scale * qhat``: the more the node is searched, the
  more its values count against the prior.

Every function writes into caller-owned scratch of ``n`` entries; illegal actions get ``-inf``.
"""

from __future__ import annotations

import numpy as np

from mancala_envs.agents.alphazero.tree import child_q, side
from mancala_envs.core.fast import inline_kernel
from mancala_envs.core.layout import off_mask, off_to_move

EPSILON = 1e-8  # the smallest range of Q-values min-max rescaling divides by


@inline_kernel
def legal(tree, b, node, n, a):
    """Is ``a`` a legal action at ``node`` (its position's legal mask)?"""
    return tree.states[b, node, off_mask(n) + a] != 0


@inline_kernel
def prior_policy(tree, b, node, n, out):
    """``out[a] = softmax(logits)[a]`` over the legal actions, 0 elsewhere."""
    top = -np.inf
    for a in range(n):
        if legal(tree, b, node, n, a) and tree.logits[b, node, a] > top:
            top = tree.logits[b, node, a]
    total = 0.0
    for a in range(n):
        out[a] = np.exp(tree.logits[b, node, a] - top) if legal(tree, b, node, n, a) else 0.0
        total += out[a]
    for a in range(n):
        out[a] /= total


@inline_kernel
def children_visits(tree, b, node, n):
    """``(sum of N(a), max of N(a))`` over the node's children."""
    total = 0
    most = 0
    for a in range(n):
        c = tree.children[b, node, a]
        if c >= 0:
            total += tree.visits[b, c]
            most = max(most, tree.visits[b, c])
    return total, most


@inline_kernel
def mix_value(tree, b, node, n, prior):
    """The mixed value of ``node`` for its player to move (module docstring); ``prior`` holds
    :func:`prior_policy`."""
    player = tree.states[b, node, off_to_move(n)]
    raw = side(player) * tree.raw_value[b, node]
    sum_n = 0
    sum_p = 0.0
    weighted = 0.0
    for a in range(n):
        c = tree.children[b, node, a]
        if c >= 0 and tree.visits[b, c] > 0:
            sum_n += tree.visits[b, c]
            sum_p += prior[a]
            weighted += prior[a] * child_q(tree, b, c, player)
    if sum_n == 0:
        return raw
    if sum_p > 0.0:
        return (raw + sum_n * weighted / sum_p) / (1.0 + sum_n)
    # a prior that underflowed to 0 on every visited child: their plain mean
    mean = 0.0
    for a in range(n):
        c = tree.children[b, node, a]
        if c >= 0 and tree.visits[b, c] > 0:
            mean += tree.visits[b, c] * child_q(tree, b, c, player)
    return (raw + mean) / (1.0 + sum_n)


@inline_kernel
def completed_q(tree, b, node, n, prior, out):
    """``out[a]``: the completed Q-value of each legal action (module docstring), ``-inf`` for
    illegal ones; ``prior`` holds :func:`prior_policy`."""
    player = tree.states[b, node, off_to_move(n)]
    v_mix = mix_value(tree, b, node, n, prior)
    for a in range(n):
        c = tree.children[b, node, a]
        if not legal(tree, b, node, n, a):
            out[a] = -np.inf
        elif c >= 0 and tree.visits[b, c] > 0:
            out[a] = child_q(tree, b, c, player)
        else:
            out[a] = v_mix


@inline_kernel
def qtransform_completed_by_mix_value(tree, b, node, n, c_visit, c_scale, prior, out):
    """``out[a] = sigma(qhat(a))`` for the legal actions (``-inf`` elsewhere): the completed Q,
    min-max rescaled over the legal actions, times ``(c_visit + max N) * c_scale``. ``prior``
    receives :func:`prior_policy`."""
    prior_policy(tree, b, node, n, prior)
    completed_q(tree, b, node, n, prior, out)
    low = np.inf
    high = -np.inf
    for a in range(n):
        if legal(tree, b, node, n, a):
            low = min(low, out[a])
            high = max(high, out[a])
    scale = (c_visit + children_visits(tree, b, node, n)[1]) * c_scale / max(high - low, EPSILON)
    for a in range(n):
        if legal(tree, b, node, n, a):
            out[a] = (out[a] - low) * scale
