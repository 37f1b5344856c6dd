"""The forward pass of :class:`~mancala_envs.agents.alphazero.conv_net.ConvNet` without torch: its
weights exported once to arrays (:func:`export_conv`), the pass compiled with numba
(:func:`conv_forward_batch`), for ``az:forward=numba``.

It computes what ``ConvNet.forward`` computes, layer by layer, in ``float32``: the input channels
of every hole, the circular convolutions (hole ``i`` of a layer reads holes ``i - k//2 .. i +
k//2`` of the one below, modulo ``2n``), the blocks' global context, the policy and value heads.
Only the order of the additions differs from torch: the outputs agree within float tolerance.
The number of holes is read from each row's width, as in torch.

Like the MLP's pass, it runs inside the compiled search (:class:`ConvEvaluator` is a
:class:`~.numba_forward.NumbaEvaluator` whose ``kernel`` is :func:`conv_forward_batch`, and
:func:`~.numba_forward.forward_pass` calls it for :class:`ConvWeights`), so a simulation never
returns to Python.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit
from numba.extending import overload

from mancala_envs.agents.alphazero.conv_net import CAPTURED
from mancala_envs.agents.alphazero.numba_forward import NumbaEvaluator, forward_pass, weights_type_is


class ConvWeights(NamedTuple):
    """A :class:`ConvNet`'s weights as ``float32`` arrays; ``dims``: ``[extras, one_hot_max,
    kernel]``; ``per_hole``: the seeds a hole at the start. Convolutions are stored ``(in, k,
    out)`` (torch's ``(out, in, k)`` transposed: the outputs of one input and tap are contiguous),
    the blocks' stacked on a first axis; linear layers ``(out, in)`` as in torch."""

    dims: np.ndarray  # int64 (3,)
    per_hole: np.ndarray  # float32 (1,)
    in_w: np.ndarray
    in_b: np.ndarray
    a_w: np.ndarray  # (blocks, C, k, C)
    a_b: np.ndarray  # (blocks, C)
    ctx_w: np.ndarray  # (blocks, C, C)
    ctx_b: np.ndarray
    b_w: np.ndarray
    b_b: np.ndarray
    policy_w: np.ndarray  # (C,)
    policy_b: np.ndarray  # (1,)
    hidden_w: np.ndarray  # (H, 2C + extras)
    hidden_b: np.ndarray
    value_w: np.ndarray  # (H,)
    value_b: np.ndarray  # (1,)


def _array(tensor: Any) -> np.ndarray:
    return np.ascontiguousarray(tensor.detach().cpu().numpy(), dtype=np.float32)


def _conv(tensor: Any) -> np.ndarray:
    """A convolution's weights ``(out, in, k)`` as ``(in, k, out)``."""
    return np.ascontiguousarray(_array(tensor).transpose(1, 2, 0))


def _stack(layers: Any, attr: str, shape: tuple[int, ...]) -> np.ndarray:
    """The ``attr`` of every layer of ``layers`` stacked (``shape``: one layer's, for none),
    convolution weights transposed (:func:`_conv`)."""
    arrays = [
        _conv(m.weight) if attr == "weight" and m.weight.dim() == 3 else _array(getattr(m, attr))
        for m in layers
    ]
    return np.ascontiguousarray(np.stack(arrays)) if arrays else np.zeros((0, *shape), dtype=np.float32)


def export_conv(net: Any) -> ConvWeights:
    """The :class:`ConvWeights` of a ``ConvNet``, read once from its parameters."""
    c, k = net.conv_in.out_channels, net.kernel
    return ConvWeights(
        dims=np.array([net.extras, net.one_hot_max, k], dtype=np.int64),
        per_hole=np.array([net.per_hole], dtype=np.float32),
        in_w=_conv(net.conv_in.weight),
        in_b=_array(net.conv_in.bias),
        a_w=_stack(net.conv_a, "weight", (c, c, k)),
        a_b=_stack(net.conv_a, "bias", (c,)),
        ctx_w=_stack(net.context, "weight", (c, c)),
        ctx_b=_stack(net.context, "bias", (c,)),
        b_w=_stack(net.conv_b, "weight", (c, c, k)),
        b_b=_stack(net.conv_b, "bias", (c,)),
        policy_w=_array(net.policy_head.weight).reshape(-1),
        policy_b=_array(net.policy_head.bias),
        hidden_w=_array(net.value_hidden.weight),
        hidden_b=_array(net.value_hidden.bias),
        value_w=_array(net.value_head.weight).reshape(-1),
        value_b=_array(net.value_head.bias),
    )


@njit(cache=True)
def circular_conv(x, w, b, out):
    """``out[i, o] = b[o] + sum over c, t of w[c, t, o] * x[(i + t - k // 2) mod cells, c]``
    (torch's ``Conv1d`` with circular padding; ``x``, ``out``: ``(cells, channels)``); zero
    inputs skipped."""
    channels_in, k, channels_out = w.shape
    cells = x.shape[0]
    half = k // 2
    for i in range(cells):
        out[i, :] = b
    for j in range(cells):
        for c in range(channels_in):
            xj = x[j, c]
            if xj == 0:
                continue
            for t in range(k):
                i = (j - t + half) % cells  # the output hole that reads hole j through tap t
                for o in range(channels_out):
                    out[i, o] += w[c, t, o] * xj


@njit(cache=True)
def input_channels(row, wt, cells):
    """``(cells, in_channels)``: ``ConvNet.features`` of one view (transposed), and the view's
    ``rest`` (the entries after the holes, captured seeds scaled)."""
    extras, top = wt.dims[0], wt.dims[1]
    rest = np.empty(extras, dtype=np.float32)
    for e in range(extras):
        rest[e] = row[cells + e] / (wt.per_hole[0] * cells) if e < CAPTURED else row[cells + e]
    x = np.zeros((cells, 2 + top + 1 + extras), dtype=np.float32)
    for i in range(cells):
        x[i, 0] = row[i] / wt.per_hole[0]
        x[i, 1 + min(max(int(np.rint(row[i])), 0), top)] = 1.0
        x[i, 2 + top] = 1.0 if i < cells // 2 else 0.0
        x[i, 3 + top :] = rest
    return x, rest


@njit(cache=True)
def relu2(v):
    """``v = max(v, 0)`` in place (2-D)."""
    for i in range(v.shape[0]):
        for j in range(v.shape[1]):
            if v[i, j] < 0:
                v[i, j] = 0


@njit(cache=True)
def conv_trunk(x, wt):
    """The trunk's ``(cells, C)`` features of the input channels ``x`` (``(cells, in)``)."""
    c, cells = wt.in_b.shape[0], x.shape[0]
    h = np.empty((cells, c), dtype=np.float32)
    circular_conv(x, wt.in_w, wt.in_b, h)
    relu2(h)
    y, z = np.empty((cells, c), dtype=np.float32), np.empty((cells, c), dtype=np.float32)
    mean = np.empty(c, dtype=np.float32)
    for blk in range(wt.a_w.shape[0]):
        circular_conv(h, wt.a_w[blk], wt.a_b[blk], y)
        relu2(y)
        mean[:] = 0
        for i in range(cells):
            mean += y[i]
        mean /= cells
        for o in range(c):
            add = wt.ctx_b[blk, o] + (wt.ctx_w[blk, o] * mean).sum()
            y[:, o] += add
        circular_conv(y, wt.b_w[blk], wt.b_b[blk], z)
        h += z
        relu2(h)
    return h


@njit(cache=True)
def conv_forward_row(row, wt, logits, value):
    """One raw-count view ``row`` into ``logits`` (its first ``n`` entries) and ``value[0]``."""
    cells = row.shape[0] - wt.dims[0]
    x, rest = input_channels(row, wt, cells)
    h = conv_trunk(x, wt)
    c = h.shape[1]
    for i in range(cells // 2):
        logits[i] = wt.policy_b[0] + (wt.policy_w * h[i]).sum()
    pooled = np.zeros(2 * c + rest.shape[0], dtype=np.float32)
    pooled[c : 2 * c] = h[0]
    for i in range(cells):
        for ch in range(c):
            pooled[ch] += h[i, ch]
            pooled[c + ch] = max(pooled[c + ch], h[i, ch])
    pooled[:c] /= cells
    pooled[2 * c :] = rest
    total = wt.value_b[0]
    for j in range(wt.hidden_b.shape[0]):
        z = wt.hidden_b[j] + (wt.hidden_w[j] * pooled).sum()
        if z > 0:
            total += wt.value_w[j] * z
    value[0] = np.tanh(total)


@njit(cache=True)
def conv_forward_batch(obs, wt, logits, values):
    """:func:`conv_forward_row` for the rows of ``obs`` (``logits``: ``(rows, n)``)."""
    row_logits = np.empty(logits.shape[1], dtype=np.float32)
    value = np.empty(1, dtype=np.float32)
    for r in range(obs.shape[0]):
        conv_forward_row(obs[r], wt, row_logits, value)
        logits[r, :] = row_logits
        values[r] = value[0]


@overload(forward_pass)
def _conv_forward_pass(obs, weights, logits, values):
    if weights_type_is(weights, ConvWeights):
        return lambda obs, weights, logits, values: conv_forward_batch(obs, weights, logits, values)
    return None


class ConvEvaluator(NumbaEvaluator):
    """A :class:`~.numba_forward.NumbaEvaluator` running :func:`conv_forward_batch` on exported
    :class:`ConvWeights` (also from inside the compiled search)."""

    kernel = staticmethod(conv_forward_batch)

    def holes(self, obs: np.ndarray) -> int:
        """The holes a row of the input rows ``obs``: read from their width."""
        return (obs.shape[1] - int(self.weights.dims[0])) // 2


def conv_evaluator(net: Any) -> ConvEvaluator:
    """The torch-free evaluator of a ``ConvNet`` (its weights exported once)."""
    return ConvEvaluator(export_conv(net))
