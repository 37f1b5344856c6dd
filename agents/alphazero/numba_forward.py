"""The forward pass of :class:`~mancala_envs.agents.alphazero.network.AZNet` without torch: the
weights exported once to numpy arrays (:func:`export_weights`), the pass compiled with numba
(:func:`forward_batch`), so that a search can call it from compiled code
(:func:`mancala_envs.agents.alphazero.search.run_simulations`) and a simulation never
returns to Python.

It computes what ``AZNet.forward`` computes, layer by layer, in ``float32`` as torch does (only
the order of the additions differs: the outputs agree within float tolerance, not bit for bit):
the trunk on the view (scaled counts and the one-hot code of every hole's count), the policy and
value heads, and with a per-move head (``lookahead``) each move's score from its block, with a
reply encoder (``replies``) the maximum and mean of each move's legal replies' features, and with
a third-move encoder (``third``) those of each reply's legal third moves. The weights matrices are
stored transposed (input major), so a layer adds one weight row per non-zero input (most inputs
are ReLU outputs or one-hot codes: zero is common and skipped).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit
from numba.core import types
from numba.extending import overload

from mancala_envs.core.batch import LOOKAHEAD_FLAGS

BLOCK_FLAGS = LOOKAHEAD_FLAGS
ONE = np.float32(1.0)


class Weights(NamedTuple):
    """An :class:`AZNet`'s weights as arrays (``float32``, matrices ``(in, out)``); ``dims``:
    ``[holes, cells, view size, one_hot_max, plies]``, ``factor``: the counts' scale. A layer the
    network lacks is an empty array; the trunk's hidden layers are packed one after another in
    ``trunk_w`` (``trunk_shape[i]``: layer ``i``'s ``(in, out)``)."""

    dims: np.ndarray  # int64 (5,)
    factor: np.ndarray  # float32 (1,)
    counts_in: np.ndarray
    counts_b: np.ndarray
    one_hot: np.ndarray  # (cells * (one_hot_max + 1), width): the EmbeddingBag's rows
    trunk_w: np.ndarray  # flat
    trunk_b: np.ndarray  # flat
    trunk_shape: np.ndarray  # int64 (layers, 2)
    policy_w: np.ndarray
    policy_b: np.ndarray
    value_w: np.ndarray
    value_b: np.ndarray
    after_counts: np.ndarray
    after_counts_b: np.ndarray
    after_one_hot: np.ndarray
    after_flags: np.ndarray
    after_flags_b: np.ndarray
    after_context: np.ndarray
    after_context_b: np.ndarray
    after_hidden: np.ndarray
    after_hidden_b: np.ndarray
    after_score: np.ndarray
    after_score_b: np.ndarray
    reply_counts: np.ndarray
    reply_counts_b: np.ndarray
    reply_flags: np.ndarray
    reply_flags_b: np.ndarray
    reply_context: np.ndarray
    reply_context_b: np.ndarray
    reply_hidden: np.ndarray
    reply_hidden_b: np.ndarray
    reply_to_move: np.ndarray
    reply_to_move_b: np.ndarray
    third_counts: np.ndarray
    third_counts_b: np.ndarray
    third_one_hot: np.ndarray
    third_flags: np.ndarray
    third_flags_b: np.ndarray
    third_context: np.ndarray
    third_context_b: np.ndarray
    third_hidden: np.ndarray
    third_hidden_b: np.ndarray
    third_to_reply: np.ndarray
    third_to_reply_b: np.ndarray


LINEARS = {  # Weights field -> AZNet's linear layer
    "counts_in": "counts_in",
    "policy_w": "policy_head",
    "value_w": "value_head",
    "after_counts": "after_counts_in",
    "after_flags": "after_flags",
    "after_context": "after_context",
    "after_hidden": "after_hidden",
    "after_score": "after_score",
    "reply_counts": "reply_counts_in",
    "reply_flags": "reply_flags",
    "reply_context": "reply_context",
    "reply_hidden": "reply_hidden",
    "reply_to_move": "reply_to_move",
    "third_counts": "third_counts_in",
    "third_flags": "third_flags",
    "third_context": "third_context",
    "third_hidden": "third_hidden",
    "third_to_reply": "third_to_reply",
}
EMBEDDINGS = {
    "one_hot": "one_hot_in",
    "after_one_hot": "after_one_hot_in",
    "third_one_hot": "third_one_hot_in",
}
EMPTY2, EMPTY1 = np.zeros((0, 0), dtype=np.float32), np.zeros(0, dtype=np.float32)


def _array(tensor: Any) -> np.ndarray:
    return np.ascontiguousarray(tensor.detach().cpu().numpy(), dtype=np.float32)


def bias_field(field: str) -> str:
    """The :class:`Weights` field of a linear layer's bias (``counts_in`` -> ``counts_b``)."""
    stem = (
        field[: -len("_in")]
        if field.endswith("_in")
        else field[: -len("_w")]
        if field.endswith("_w")
        else field
    )
    return f"{stem}_b"


def export_weights(net: Any) -> Weights:
    """The :class:`Weights` of an ``AZNet`` (module docstring), read once from its parameters."""
    from mancala_envs.agents.alphazero.network import input_plies

    fields: dict[str, np.ndarray] = {}
    for field, layer in LINEARS.items():
        module = getattr(net, layer, None)
        fields[field] = EMPTY2 if module is None else np.ascontiguousarray(_array(module.weight).T)
        fields[bias_field(field)] = EMPTY1 if module is None else _array(module.bias)
    for field, layer in EMBEDDINGS.items():
        module = getattr(net, layer, None)
        fields[field] = EMPTY2 if module is None else _array(module.weight)
    linears = [m for m in net.trunk if hasattr(m, "weight")]
    fields["trunk_w"] = np.concatenate([_array(m.weight).T.ravel() for m in linears] or [EMPTY1])
    fields["trunk_b"] = np.concatenate([_array(m.bias) for m in linears] or [EMPTY1])
    fields["trunk_shape"] = np.array(
        [[m.in_features, m.out_features] for m in linears], dtype=np.int64
    ).reshape(-1, 2)
    plies = input_plies(net.lookahead, net.replies, net.third)
    fields["dims"] = np.array([net.holes, net.cells, net.view_size, net.one_hot_max, plies], dtype=np.int64)
    fields["factor"] = np.array([net.factor], dtype=np.float32)
    return Weights(**fields)


@njit(cache=True, inline="always")
def axpy(a, row, out):
    """``out += a * row``."""
    for j in range(out.shape[0]):
        out[j] += a * row[j]


@njit(cache=True, inline="always")
def add_row(a, w, i, out):
    """``out += a * w[i]`` (without making a view of the row)."""
    for j in range(out.shape[0]):
        out[j] += a * w[i, j]


@njit(cache=True, inline="always")
def column_dot(x, w):
    """``x @ w[:, 0]`` for a one-output layer ``w`` (``(in, 1)``)."""
    total = np.float32(0.0)
    for i in range(x.shape[0]):
        total += x[i] * w[i, 0]
    return total


@njit(cache=True, inline="always")
def relu(v):
    """``v = max(v, 0)`` in place."""
    for j in range(v.shape[0]):
        if v[j] < 0:
            v[j] = 0


@njit(cache=True, inline="always")
def max_add(features, pooled, t):
    """The running maximum (``pooled[:t]``) and sum (``pooled[t:]``) of ``features``."""
    for j in range(t):
        pooled[j] = max(pooled[j], features[j])
        pooled[t + j] += features[j]


@njit(cache=True)
def dense(x, w, b, out, rectify):
    """``out = x @ w + b`` (``w``: ``(in, out)``), then a ReLU when ``rectify``; zero inputs skipped."""
    out[:] = b
    for i in range(x.shape[0]):
        xi = x[i]
        if xi != 0:
            add_row(xi, w, i, out)
    if rectify:
        relu(out)


@njit(cache=True)
def add_dense(x, w, out):
    """``out += x @ w`` (no bias), zero inputs skipped."""
    for i in range(x.shape[0]):
        xi = x[i]
        if xi != 0:
            add_row(xi, w, i, out)


@njit(cache=True)
def encode_into(view, wt, counts_w, counts_b, one_hot, out):
    """A first layer (before its ReLU) on a raw-count view: the scaled counts through
    ``counts_w`` plus the one-hot code of every hole's count (rows of ``one_hot``)."""
    cells, top, factor = wt.dims[1], wt.dims[3], wt.factor[0]
    out[:] = counts_b
    for i in range(view.shape[0]):
        xi = view[i] * factor if i < cells + 2 else view[i]
        if xi != 0:
            add_row(xi, counts_w, i, out)
    for c in range(cells):
        code = min(max(int(np.rint(view[c])), 0), top)
        add_row(ONE, one_hot, c * (top + 1) + code, out)


@njit(cache=True)
def scaled_dense(block, wt, w, out):
    """``out += scaled(view of block) @ w`` for a lookahead block (its flags, then a view)."""
    cells, factor = wt.dims[1], wt.factor[0]
    for i in range(block.shape[0] - BLOCK_FLAGS):
        xi = block[BLOCK_FLAGS + i]
        if i < cells + 2:
            xi = xi * factor
        if xi != 0:
            add_row(xi, w, i, out)


@njit(cache=True)
def trunk(x, wt, h):
    """The trunk's features ``h`` of the view at the start of ``x``."""
    size = wt.dims[2]
    z = np.empty(wt.counts_b.shape[0], dtype=np.float32)
    encode_into(x[:size], wt, wt.counts_in, wt.counts_b, wt.one_hot, z)
    relu(z)
    w_at, b_at = 0, 0
    for layer in range(wt.trunk_shape.shape[0]):
        a, b = wt.trunk_shape[layer, 0], wt.trunk_shape[layer, 1]
        out = np.empty(b, dtype=np.float32)
        w = wt.trunk_w[w_at : w_at + a * b].reshape(a, b)
        dense(z, w, wt.trunk_b[b_at : b_at + b], out, True)
        z = out
        w_at, b_at = w_at + a * b, b_at + b
    h[:] = z


@njit(cache=True)
def third_scratch(wt):
    """The working rows of :func:`pooled_third`, allocated once a forward pass."""
    block, t = BLOCK_FLAGS + wt.dims[2], wt.third_counts_b.shape[0]
    return np.empty((5, max(block, 2 * t)), dtype=np.float32)


@njit(cache=True)
def pooled_third(x, wt, move, reply, out, scratch):
    """``third_to_reply`` of the maximum and mean of the legal third moves' features after
    ``move`` and ``reply`` (``AZNet.pooled_third`` for one row), into ``out``; ``scratch``:
    :func:`third_scratch`."""
    n, size = wt.dims[0], wt.dims[2]
    block = BLOCK_FLAGS + size
    t = wt.third_counts_b.shape[0]
    at = size + (n + move * n + reply) * block
    context, base, pooled = scratch[0, :block], scratch[1, :t], scratch[2, : 2 * t]
    e, f = scratch[3, :t], scratch[4, :t]
    context[:] = x[at : at + block]
    for i in range(wt.dims[1] + 2):
        context[BLOCK_FLAGS + i] *= wt.factor[0]
    dense(context, wt.third_context, wt.third_context_b, base, False)
    for j in range(t):
        base[j] += wt.third_flags_b[j] + wt.third_counts_b[j]
    pooled[:] = 0
    count = 0
    for c in range(n):
        at = size + (n + n * n + (move * n + reply) * n + c) * block
        if x[at] <= 0:
            continue
        count += 1
        encode_into(x[at + BLOCK_FLAGS : at + block], wt, wt.third_counts, base, wt.third_one_hot, e)
        add_dense(x[at : at + BLOCK_FLAGS], wt.third_flags, e)
        relu(e)
        dense(e, wt.third_hidden, wt.third_hidden_b, f, True)
        max_add(f, pooled, t)
    pooled[t:] /= max(count, 1)
    dense(pooled, wt.third_to_reply, wt.third_to_reply_b, out, False)


@njit(cache=True)
def pooled_replies(x, wt, h, move, out):
    """``reply_to_move`` of the maximum and mean of the legal replies' features after ``move``
    (``AZNet.pooled_replies`` for one row), added to ``out``."""
    n, size = wt.dims[0], wt.dims[2]
    block = BLOCK_FLAGS + size
    r = wt.reply_counts_b.shape[0]
    base = np.empty(r, dtype=np.float32)
    dense(h, wt.reply_context, wt.reply_context_b, base, False)
    for j in range(r):
        base[j] += wt.reply_counts_b[j] + wt.reply_flags_b[j]
    pooled = np.zeros(2 * r, dtype=np.float32)
    e, f = np.empty(r, dtype=np.float32), np.empty(r, dtype=np.float32)
    scratch = third_scratch(wt)
    count = 0
    for reply in range(n):
        at = size + (n + move * n + reply) * block
        if x[at] <= 0:  # an illegal reply's features are 0: nothing to add, the maximum is >= 0
            continue
        count += 1
        if wt.dims[4] >= 3:
            pooled_third(x, wt, move, reply, e, scratch)
            axpy(ONE, base, e)
        else:
            e[:] = base
        scaled_dense(x[at : at + block], wt, wt.reply_counts, e)
        add_dense(x[at : at + BLOCK_FLAGS], wt.reply_flags, e)
        relu(e)
        dense(e, wt.reply_hidden, wt.reply_hidden_b, f, True)
        max_add(f, pooled, r)
    pooled[r:] /= max(count, 1)
    axpy(ONE, wt.reply_to_move_b, out)
    add_dense(pooled, wt.reply_to_move, out)


@njit(cache=True)
def move_scores(x, wt, h, logits):
    """Add each move's score of the per-move head (from its block, the trunk's features ``h``
    and, with a reply encoder, its pooled replies) to ``logits``."""
    n, size = wt.dims[0], wt.dims[2]
    block, w = BLOCK_FLAGS + size, wt.after_counts_b.shape[0]
    context = np.empty(w, dtype=np.float32)
    dense(h, wt.after_context, wt.after_context_b, context, False)
    axpy(ONE, wt.after_flags_b, context)
    z, y = np.empty(w, dtype=np.float32), np.empty(w, dtype=np.float32)
    for move in range(n):
        at = size + move * block
        encode_into(
            x[at + BLOCK_FLAGS : at + block], wt, wt.after_counts, wt.after_counts_b, wt.after_one_hot, z
        )
        axpy(ONE, context, z)
        add_dense(x[at : at + BLOCK_FLAGS], wt.after_flags, z)
        if wt.dims[4] >= 2:
            pooled_replies(x, wt, h, move, z)
        relu(z)
        dense(z, wt.after_hidden, wt.after_hidden_b, y, True)
        logits[move] += column_dot(y, wt.after_score) + wt.after_score_b[0]


@njit(cache=True)
def forward_row(x, wt, logits, value):
    """One input row ``x`` into ``logits`` (``(n,)``) and ``value[0]`` (``AZNet.forward``)."""
    h = np.empty(wt.policy_w.shape[0], dtype=np.float32)
    trunk(x, wt, h)
    out = np.empty(wt.dims[0], dtype=np.float32)
    dense(h, wt.policy_w, wt.policy_b, out, False)
    if wt.dims[4] >= 1:
        move_scores(x, wt, h, out)
    logits[:] = out
    value[0] = np.tanh(column_dot(h, wt.value_w) + wt.value_b[0])


@njit(cache=True)
def forward_batch(obs, wt, logits, values):
    """:func:`forward_row` for the rows of ``obs`` (``logits``: ``(rows, n)``, ``values``:
    ``(rows,)``, of any float type)."""
    row_logits = np.empty(wt.dims[0], dtype=np.float32)
    value = np.empty(1, dtype=np.float32)
    for i in range(obs.shape[0]):
        forward_row(obs[i], wt, row_logits, value)
        logits[i, :] = row_logits
        values[i] = value[0]


def forward_pass(obs, weights, logits, values):
    """The compiled forward pass of ``weights``' network, chosen by their type when a caller is
    compiled (:func:`forward_batch` for :class:`Weights`; the conv network's pass registers itself
    in :mod:`~mancala_envs.agents.alphazero.numba_conv`). The compiled search calls it by name: numba
    cannot cache a function that takes another as an argument (a new process never finds its
    cached code, and saving it then fails: numba issue 2956)."""
    raise TypeError("forward_pass runs in compiled code only: call the evaluator")


def weights_type_is(weights: Any, cls: type) -> bool:
    """Whether the numba type ``weights`` is that of the NamedTuple class ``cls``."""
    return isinstance(weights, types.BaseNamedTuple) and weights.instance_class is cls


@overload(forward_pass)
def _mlp_forward_pass(obs, weights, logits, values):
    if weights_type_is(weights, Weights):
        return lambda obs, weights, logits, values: forward_batch(obs, weights, logits, values)
    return None


class NumbaEvaluator:
    """An evaluator for :class:`~mancala_envs.agents.alphazero.search.GumbelSearch` (``obs ->
    (logits, values)``, ``float32``) running :func:`forward_batch` on exported ``weights``; the
    search runs its simulations in compiled code, calling :func:`forward_pass` on ``weights``."""

    # (obs, weights, logits, values): the compiled pass, which the compiled search calls too
    kernel = staticmethod(forward_batch)

    def __init__(self, weights: Any):
        self.weights = weights

    def holes(self, obs: np.ndarray) -> int:
        """The holes a row of the input rows ``obs``: the network's."""
        return int(self.weights.dims[0])

    def __call__(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        obs = np.ascontiguousarray(obs, dtype=np.float32)
        logits = np.empty((len(obs), self.holes(obs)), dtype=np.float32)
        values = np.empty(len(obs), dtype=np.float32)
        self.kernel(obs, self.weights, logits, values)
        return logits, values


def numba_evaluator(net: Any) -> NumbaEvaluator:
    """The torch-free evaluator of an ``AZNet`` (its weights exported once; a width-independent
    network's is :func:`~mancala_envs.agents.alphazero.numba_conv.conv_evaluator`)."""
    return NumbaEvaluator(export_weights(net))
