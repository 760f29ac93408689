"""Theano's rewrites of its ``T.nnet`` ops (``theano/tensor/nnet/nnet.py``), under
Theano's names, so a compiled classifier holds the fused, numerically stable ops that
Theano's did:

- ``crossentropy_to_crossentropy_with_softmax``: ``crossentropy_categorical_1hot`` of a
  ``softmax`` (or ``softmax_with_bias``) -> ``crossentropy_softmax_argmax_1hot_with_bias``,
  which computes ``-log_softmax`` of the true class (no ``log(0)``); the softmax itself is
  read from the fused op (``stabilize``, so every level that rewrites makes it stable);
- ``local_crossentropy_to_crossentropy_with_softmax_grad``: the gradient Theano's ops
  build, ``softmax_grad(crossentropy_categorical_1hot_grad(g, sm, y), sm)``, ->
  ``crossentropy_softmax_1hot_with_bias_dx(g, sm, y)`` (``stabilize``);
- ``local_useless_crossentropy_softmax_1hot_with_bias_dx_alloc``: a scalar gradient
  broadcast to the rows passed to the ``_dx`` op as a scalar (``specialize``);
- ``local_softmax_with_bias``: ``softmax(x + b)`` with ``b`` broadcast along the rows ->
  ``softmax_with_bias(x, b)`` (``specialize``);
- ``local_advanced_indexing_crossentropy_onehot``: ``log_softmax(x)[arange(y.shape[0]), y]``
  (what ``log(softmax(x))[rows, y]`` and ``log(softmax(x)[rows, y])`` become) -> minus
  the fused op's first output, and ``..._grad``: its gradient -> the ``_dx`` op
  (``stabilize``);
- ``local_broadcast_like_crossentropy``: a value broadcast like the cross-entropy (the
  seed of ``sn.grad(nll.sum())``) broadcast like the class indices instead, so the
  gradient does not keep the forward op for its shape (``canonicalize``, ``stabilize``).

They rewrite Theano's ops (``T.nnet.softmax``, ``softmax_op``, ``logsoftmax_op``...), as
Theano's did; the graphs of symnb's own ``T.softmax`` and ``T.log_softmax`` keep their ops.
``local_argmax_pushdown`` is in :mod:`symnb.core.rewriting.argmax`; the patterns these
rewrites look for in :mod:`symnb.core.rewriting.nnet_patterns`.

``log(softmax(x))`` -> ``LogSoftmax`` is the stable form of ``core/tensor/stable_forms.py``
(Theano's ``local_logsoftmax``).
"""

from __future__ import annotations

from symnb.core.graph.basic import Apply
from symnb.core.graph.fgraph import FunctionGraph, types_compatible
from symnb.core.graph.rewriting import build, node_rewriter
from symnb.core.graph.type import is_integer
from symnb.core.rewriting import algebra
from symnb.core.rewriting.nnet_patterns import (
    bias_split, exp_times, is_arange_of_rows, one_hot_rows, per_row_of, scalar_of, softmax_logits,
    zero_bias,
)
from symnb.core.rewriting.passes import register_rewrite
from symnb.core.rewriting.utils import owner_op
from symnb.core.tensor import elemwise as ew
from symnb.core.tensor import nnet_ops
from symnb.core.tensor.broadcast import BroadcastLike
from symnb.core.tensor.reduction import Sum
from symnb.core.tensor.subtensor import AdvancedSubtensor
from symnb.core.tensor.subtensor_index import ARRAY

__all__ = ["crossentropy_to_crossentropy_with_softmax", "local_advanced_indexing_crossentropy_onehot",
           "local_advanced_indexing_crossentropy_onehot_grad",
           "local_crossentropy_to_crossentropy_with_softmax_grad",
           "local_useless_crossentropy_softmax_1hot_with_bias_dx_alloc",
           "local_broadcast_like_crossentropy", "local_softmax_with_bias"]


@register_rewrite("stabilize")
@node_rewriter([nnet_ops.CrossentropyCategorical1Hot], exact=(
    "where no probability of a true class underflows to 0 (x[i, y[i]] - max(x[i]) above about "
    "-87 in float32, -708 in float64), where the written -log is inf"))
def crossentropy_to_crossentropy_with_softmax(fgraph: FunctionGraph, node: Apply):
    """crossentropy_categorical_1hot(softmax(x + b), y) ->
    crossentropy_softmax_argmax_1hot_with_bias(x, b, y) (the softmax read from it too)."""
    sm, y = node.inputs
    logits = softmax_logits(sm)
    if logits is None:
        return None
    nll, new_sm, _ = nnet_ops.crossentropy_softmax_argmax_1hot_with_bias.make_node(*logits, y).outputs
    if not (types_compatible(node.outputs[0].type, nll.type) and types_compatible(sm.type, new_sm.type)):
        return None
    return {node.outputs[0]: nll, sm: new_sm}


@register_rewrite("stabilize")
@node_rewriter([AdvancedSubtensor], exact=(
    "where no probability of a true class underflows to 0 or a subnormal (x[i, y[i]] - "
    "max(x[i]) above about -87 in float32, -708 in float64)"))
def local_advanced_indexing_crossentropy_onehot(fgraph: FunctionGraph, node: Apply):
    """log_softmax(x)[arange(y.shape[0]), y] (what ``log(softmax(x))[rows, y]`` and
    ``log(softmax(x)[rows, y])`` become) -> -crossentropy_softmax_argmax_1hot_with_bias(x, b, y)[0],
    ``b`` the bias of ``x``'s sum, or zeros."""
    if len(node.inputs) != 3 or node.op.idx_list != (ARRAY, ARRAY):
        return None
    log_sm, rows, labels = node.inputs
    normalized = owner_op(log_sm, nnet_ops.LogSoftmax)  # of T.nnet.softmax: Theano's op
    if normalized is None or labels.ndim != 1:
        return None
    x = normalized.inputs[0]
    if x.dtype != log_sm.dtype or not is_integer(labels.dtype) or not is_arange_of_rows(rows, labels):
        return None
    logits = bias_split(x) or (x, zero_bias(x))
    nll = nnet_ops.crossentropy_softmax_argmax_1hot_with_bias.make_node(*logits, labels).outputs[0]
    out = build(ew.Neg(), nll)
    return [out] if types_compatible(node.outputs[0].type, out.type) else None


@register_rewrite("stabilize")
@node_rewriter([ew.Sub])
def local_advanced_indexing_crossentropy_onehot_grad(fgraph: FunctionGraph, node: Apply):
    """The gradient of ``log_softmax(x)[arange(n), y]`` (``g - exp(log_softmax(x)) *
    sum(g, 1)``, ``g`` the one-hot rows of the output gradient ``gy``) ->
    crossentropy_softmax_1hot_with_bias_dx(-gy, softmax(x), y)."""
    g, term = node.inputs
    hot, product = one_hot_rows(g), exp_times(term)
    if hot is None or product is None:
        return None
    log_sm, factor = product
    normalized = owner_op(log_sm, nnet_ops.LogSoftmax)
    if normalized is None:
        return None
    total = owner_op(factor, Sum)
    if total is None or total.inputs[0] is not g or total.op.axis != (1,) or not total.op.keepdims:
        return None
    gy, labels = hot
    x = normalized.inputs[0]
    dx = build(nnet_ops.crossentropy_softmax_1hot_with_bias_dx, build(ew.Neg(), gy),
               build(nnet_ops.softmax_op, x), labels)
    return [dx] if types_compatible(node.outputs[0].type, dx.type) else None


@register_rewrite("stabilize")
@node_rewriter([nnet_ops.SoftmaxGrad], exact=(
    "where no probability of a true class underflows to 0, where the written gradient "
    "divides by it (inf or NaN)"))
def local_crossentropy_to_crossentropy_with_softmax_grad(fgraph: FunctionGraph, node: Apply):
    """softmax_grad(crossentropy_categorical_1hot_grad(g, sm, y), sm) ->
    crossentropy_softmax_1hot_with_bias_dx(g, sm, y)."""
    g_coding, sm = node.inputs
    grad = owner_op(g_coding, nnet_ops.CrossentropyCategorical1HotGrad)
    if grad is None or grad.inputs[1] is not sm:
        return None
    g_nll, _, y = grad.inputs
    dx = build(nnet_ops.crossentropy_softmax_1hot_with_bias_dx, g_nll, sm, y)
    return [dx] if types_compatible(node.outputs[0].type, dx.type) else None


@register_rewrite("specialize")
@node_rewriter([nnet_ops.CrossentropySoftmax1HotWithBiasDx])
def local_useless_crossentropy_softmax_1hot_with_bias_dx_alloc(fgraph: FunctionGraph, node: Apply):
    """crossentropy_softmax_1hot_with_bias_dx(broadcast(c, nll), sm, y) -> ..._dx(c, sm, y)
    for a scalar ``c`` broadcast to one entry per row (``sn.grad`` of ``nll.sum()``: the op
    takes a scalar for every row, and the forward pass is no longer needed for its shape)."""
    dy, sm, y_idx = node.inputs
    negated = owner_op(dy, ew.Neg)
    spread = owner_op(negated.inputs[0] if negated else dy, BroadcastLike)
    if spread is None or not per_row_of(spread.inputs[1], y_idx):
        return None
    c = scalar_of(spread.inputs[0])
    if c is None or c.dtype != dy.dtype:
        return None
    return [build(node.op, build(ew.Neg(), c) if negated else c, sm, y_idx)]


@register_rewrite("stabilize")
@register_rewrite("canonicalize")
@node_rewriter([BroadcastLike])
def local_broadcast_like_crossentropy(fgraph: FunctionGraph, node: Apply):
    """broadcast_like(c, crossentropy(..., y)) -> broadcast_like(c, y): the cross-entropy
    has one value per class index, and the forward pass is not needed for its shape (as
    Theano's shape feature made it; ``sn.grad(nll.sum())`` seeds the gradient so)."""
    c, like = node.inputs
    if like.owner is None or not per_row_of(like, like.owner.inputs[-1]):
        return None
    return [build(node.op, c, like.owner.inputs[-1])]


@register_rewrite("specialize")
@node_rewriter([nnet_ops.Softmax])
def local_softmax_with_bias(fgraph: FunctionGraph, node: Apply):
    """softmax(x + b) -> softmax_with_bias(x, b), ``b`` broadcast along the rows."""
    split = bias_split(node.inputs[0])
    if split is None:
        return None
    out = build(nnet_ops.softmax_with_bias, *split)
    return [out] if out.type == node.outputs[0].type else None


register_rewrite("specialize")(algebra.local_neg_neg)  # -(-nll) the rewrites above leave
