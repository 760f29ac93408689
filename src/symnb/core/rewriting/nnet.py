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
- ``local_argmax_pushdown``: the argmax of an increasing function of ``x`` is the argmax
  of ``x`` (``exp``, ``log``, ``tanh``, ``sigmoid``, ``softplus``, and a softmax along the
  argmax's axis), and ``max_and_argmax`` with one output unread -> ``max`` or ``argmax``
  (``specialize``).

``log(softmax(x))`` -> ``LogSoftmax`` is the stable form of ``core/tensor/stable_forms.py``
(Theano's ``local_logsoftmax``).
"""

from __future__ import annotations

import numpy as np

from symnb.core.graph.basic import Apply, Constant, Variable
from symnb.core.graph.fgraph import FunctionGraph, types_compatible
from symnb.core.graph.rewriting import build, node_rewriter
from symnb.core.graph.static import static_value
from symnb.core.rewriting import algebra
from symnb.core.rewriting.passes import register_rewrite
from symnb.core.rewriting.utils import make_constant, owner_op
from symnb.core.tensor import elemwise as ew
from symnb.core.tensor import nnet, nnet_ops
from symnb.core.graph.type import is_integer
from symnb.core.tensor.alloc import Alloc, Arange
from symnb.core.tensor.basic_theano_ops import MakeVector, MaxAndArgmax
from symnb.core.tensor.broadcast import BroadcastLike
from symnb.core.tensor.reduction import Argmax, Max, Sum
from symnb.core.tensor.shape import DimShuffle, Shape, ShapeI
from symnb.core.tensor.subtensor import AdvancedIncSubtensor, AdvancedSubtensor, Subtensor
from symnb.core.tensor.subtensor_index import ARRAY

__all__ = ["crossentropy_to_crossentropy_with_softmax",
           "local_crossentropy_to_crossentropy_with_softmax_grad", "local_softmax_with_bias",
           "local_argmax_pushdown", "local_max_and_argmax",
           "local_useless_crossentropy_softmax_1hot_with_bias_dx_alloc"]

_ROW = ("x", 0)  # DimShuffle{x,0}: a vector made a row


def _as_bias(term: Variable) -> Variable | None:
    """``term`` as a vector over the columns when it is broadcast along the rows of a
    matrix sum (a vector, or a 1 x n matrix), else None."""
    if term.ndim == 1:
        return term
    if term.ndim != 2 or term.type.shape[0] != 1:
        return None
    row = owner_op(term, DimShuffle)
    if row is not None and row.op.pattern == _ROW:
        return row.inputs[0]
    return build(DimShuffle(2, (1,)), term)


def _sum_of(terms: list[Variable]) -> Variable:
    return terms[0] if len(terms) == 1 else build(ew.Add(), *terms)


def bias_split(x: Variable) -> tuple[Variable, Variable] | None:
    """``(matrix, bias)`` with ``x == matrix + bias`` (``bias`` a vector over the
    columns) when ``x`` is a sum with terms broadcast along the rows, else None (Theano's
    ``local_softmax_with_bias`` split); ``x`` a row of a sum of vectors too."""
    row = owner_op(x, DimShuffle)
    if row is not None and row.op.pattern == _ROW and owner_op(row.inputs[0], ew.Add):
        vectors = list(row.inputs[0].owner.inputs)  # softmax(v + b) of vectors: one row
        if len(vectors) < 2 or any(v.ndim != 1 for v in vectors):
            return None
        return build(DimShuffle(1, _ROW), vectors[0]), _sum_of(vectors[1:])
    add = owner_op(x, ew.Add)
    if add is None or x.ndim != 2:
        return None
    vectors, others = [], []
    for term in add.inputs:
        bias = _as_bias(term)
        (others if bias is None else vectors).append(term if bias is None else bias)
    if not vectors or not others:
        return None
    matrix, bias = _sum_of(others), _sum_of(vectors)
    # the fused op computes in x's dtype and shape: nothing may be widened by the sum
    if matrix.type != x.type or bias.dtype != x.dtype:
        return None
    return matrix, bias


def _zero_bias(x: Variable) -> Variable:
    """Zeros, one per column of ``x`` (Theano's ``zeros_like(x[0])``)."""
    length = build(DimShuffle(0, ("x",)), build(ShapeI(1), x))  # Alloc takes a shape vector
    return build(Alloc(), make_constant(0, x.dtype), length)


def _softmax_logits(sm: Variable) -> tuple[Variable, Variable] | None:
    """``(x, b)`` with ``sm == softmax(x + b)`` row by row, for Theano's softmax ops."""
    node = owner_op(sm, (nnet_ops.SoftmaxWithBias, nnet_ops.Softmax))
    if node is None or sm.ndim != 2:
        return None
    if isinstance(node.op, nnet_ops.SoftmaxWithBias):
        return node.inputs[0], node.inputs[1]
    x = node.inputs[0]
    return bias_split(x) or (x, _zero_bias(x))


@register_rewrite("stabilize")
@node_rewriter([nnet_ops.CrossentropyCategorical1Hot], exact=(
    "where no probability of a true class underflows to 0 (x[i, y[i]] - max(x[i]) above about "
    "-87 in float32, -708 in float64), where the written -log is inf"))
def crossentropy_to_crossentropy_with_softmax(fgraph: FunctionGraph, node: Apply):
    """crossentropy_categorical_1hot(softmax(x + b), y) ->
    crossentropy_softmax_argmax_1hot_with_bias(x, b, y) (the softmax read from it too)."""
    sm, y = node.inputs
    logits = _softmax_logits(sm)
    if logits is None:
        return None
    nll, new_sm, _ = nnet_ops.crossentropy_softmax_argmax_1hot_with_bias.make_node(*logits, y).outputs
    if not (types_compatible(node.outputs[0].type, nll.type) and types_compatible(sm.type, new_sm.type)):
        return None
    return {node.outputs[0]: nll, sm: new_sm}


def _length_source(stop: Variable) -> Variable | None:
    """The variable whose length ``stop`` is (``v.shape[0]``, however the shape passes
    have spelled it: ``Shape_i{0}(v)``, ``Subtensor{0}(Shape(v))``,
    ``Subtensor{0}(MakeVector(Shape_i{0}(v), ...))``, cast or not), else None."""
    cast = owner_op(stop, ew.Cast)
    stop = cast.inputs[0] if cast is not None else stop
    node = stop.owner
    if node is None:
        return None
    if isinstance(node.op, ShapeI):
        return node.inputs[0] if node.op.i == 0 else None
    if not isinstance(node.op, Subtensor) or node.op.idx_list != (0,):
        return None
    inner = node.inputs[0].owner
    if inner is not None and isinstance(inner.op, Shape):
        return inner.inputs[0]
    if inner is not None and isinstance(inner.op, MakeVector) and inner.inputs:
        return _length_source(inner.inputs[0])
    return None


def _same_length(source: Variable, labels: Variable) -> bool:
    """True when ``source`` has ``labels``' length: it is ``labels``, or one is a cast of
    the other."""
    if source is labels:
        return True
    return any(node is not None and isinstance(node.op, ew.Cast) and node.inputs[0] is other
               for node, other in ((labels.owner, source), (source.owner, labels)))


def is_arange_of_rows(rows: Variable, labels: Variable) -> bool:
    """True when ``rows`` is ``arange(labels.shape[0])`` (Theano's
    ``_check_rows_is_arange_len_labels``): ``m[rows, labels]`` picks one entry per row."""
    node = owner_op(rows, Arange)
    if node is None:
        return False
    start, stop, step = node.inputs
    if not (_is_scalar_constant(start, 0) and _is_scalar_constant(step, 1)):
        return False
    source = _length_source(stop)
    return source is not None and _same_length(source, labels)


def _is_scalar_constant(var: Variable, value: int) -> bool:
    return isinstance(var, Constant) and var.data.size == 1 and var.data.reshape(()) == value


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
    normalized = owner_op(log_sm, nnet.LogSoftmax)
    if normalized is None or normalized.op.axis != (1,) or log_sm.ndim != 2 or labels.ndim != 1:
        return None
    x = normalized.inputs[0]
    if x.dtype != log_sm.dtype or not is_integer(labels.dtype) or not is_arange_of_rows(rows, labels):
        return None
    logits = bias_split(x) or (x, _zero_bias(x))
    nll = nnet_ops.crossentropy_softmax_argmax_1hot_with_bias.make_node(*logits, labels).outputs[0]
    out = build(ew.Neg(), nll)
    return [out] if types_compatible(node.outputs[0].type, out.type) else None


def _one_hot_rows(g: Variable) -> tuple[Variable, Variable] | None:
    """``(gy, labels)`` when ``g`` is ``inc_subtensor(zeros[arange(n), labels], gy)``
    (the gradient of ``m[arange(n), labels]``), else None."""
    node = owner_op(g, AdvancedIncSubtensor)
    if node is None or len(node.inputs) != 4 or node.op.idx_list != (ARRAY, ARRAY):
        return None
    zeros, gy, rows, labels = node.inputs
    if owner_op(zeros, Alloc) is None or static_value(zeros.owner.inputs[0]) is None:
        return None
    if np.any(static_value(zeros.owner.inputs[0]) != 0) or node.op.set_instead_of_inc:
        return None
    if gy.ndim > 1 or labels.ndim != 1 or not is_arange_of_rows(rows, labels):
        return None
    return gy, labels


def _times_exp_of(term: Variable, log_sm: Variable) -> Variable | None:
    """``s`` when ``term`` is ``exp(log_sm) * s`` (either order), else None."""
    mul = owner_op(term, ew.Mul)
    if mul is None or len(mul.inputs) != 2:
        return None
    for e, other in (mul.inputs, mul.inputs[::-1]):
        exp = owner_op(e, ew.Exp)
        if exp is not None and exp.inputs[0] is log_sm:
            return other
    return None


@register_rewrite("stabilize")
@node_rewriter([ew.Sub])
def local_advanced_indexing_crossentropy_onehot_grad(fgraph: FunctionGraph, node: Apply):
    """The gradient of ``log_softmax(x)[arange(n), y]`` (``g - exp(log_softmax(x)) *
    sum(g, 1)``, ``g`` the one-hot rows of the output gradient ``gy``) ->
    crossentropy_softmax_1hot_with_bias_dx(-gy, softmax(x), y)."""
    g, term = node.inputs
    hot = _one_hot_rows(g)
    if hot is None or term.owner is None:
        return None
    mul = owner_op(term, ew.Mul)
    log_sm = next((e.owner.inputs[0] for e in (mul.inputs if mul else ())
                   if owner_op(e, ew.Exp) is not None), None)
    normalized = owner_op(log_sm, nnet.LogSoftmax) if log_sm is not None else None
    if normalized is None or normalized.op.axis != (1,) or log_sm.ndim != 2:
        return None
    total = owner_op(_times_exp_of(term, log_sm), Sum)
    if total is None or total.inputs[0] is not g or total.op.axis != (1,) or not total.op.keepdims:
        return None
    gy, labels = hot
    x = normalized.inputs[0]
    softmax = (nnet_ops.softmax_op if isinstance(normalized.op, nnet_ops.LogSoftmax)
               else nnet.Softmax((1,)))
    dx = build(nnet_ops.crossentropy_softmax_1hot_with_bias_dx, build(ew.Neg(), gy),
               build(softmax, x), labels)
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


def _per_row_of(like: Variable, y_idx: Variable) -> bool:
    """True when ``like`` has one entry per class index of ``y_idx`` by construction:
    ``y_idx`` itself, or the negative log-likelihood a cross-entropy op computes of it."""
    while owner_op(like, ew.Neg) is not None:  # -nll has nll's length
        like = like.owner.inputs[0]
    if like is y_idx:
        return True
    node = owner_op(like, (nnet_ops.CrossentropyCategorical1Hot,
                           nnet_ops.CrossentropySoftmaxArgmax1HotWithBias))
    return node is not None and like is node.outputs[0] and node.inputs[-1] is y_idx


@register_rewrite("specialize")
@node_rewriter([nnet_ops.CrossentropySoftmax1HotWithBiasDx])
def local_useless_crossentropy_softmax_1hot_with_bias_dx_alloc(fgraph: FunctionGraph, node: Apply):
    """crossentropy_softmax_1hot_with_bias_dx(broadcast(c, nll), sm, y) -> ..._dx(c, sm, y)
    for a scalar ``c`` broadcast to one entry per row (``sn.grad`` of ``nll.sum()``: the op
    takes a scalar for every row, and the forward pass is no longer needed for its shape)."""
    dy, sm, y_idx = node.inputs
    negated = owner_op(dy, ew.Neg)
    spread = owner_op(negated.inputs[0] if negated else dy, BroadcastLike)
    if spread is None or not _per_row_of(spread.inputs[1], y_idx):
        return None
    c = _scalar_of(spread.inputs[0])
    if c is None or c.dtype != dy.dtype:
        return None
    return [build(node.op, build(ew.Neg(), c) if negated else c, sm, y_idx)]


def _scalar_of(var: Variable) -> Variable | None:
    """The 0-d value ``var`` holds, when it is one made a 1-element array by
    ``DimShuffle{x,...}`` (as ``sn.grad`` seeds a sum), else None."""
    shuffle = owner_op(var, DimShuffle)
    if shuffle is not None and shuffle.op.input_ndim == 0:
        var = shuffle.inputs[0]
    fill = owner_op(var, Alloc)
    if fill is not None and var.ndim == 0 and fill.inputs[0].ndim == 0:
        var = fill.inputs[0]  # alloc(c, []) is c
    return var if var.ndim == 0 else None


@register_rewrite("stabilize")
@register_rewrite("canonicalize")
@node_rewriter([BroadcastLike])
def local_broadcast_like_crossentropy(fgraph: FunctionGraph, node: Apply):
    """broadcast_like(c, crossentropy(..., y)) -> broadcast_like(c, y): the cross-entropy
    has one value per class index, and the forward pass is not needed for its shape (as
    Theano's shape feature made it; ``sn.grad(nll.sum())`` seeds the gradient so)."""
    c, like = node.inputs
    if like.owner is None or not _per_row_of(like, like.owner.inputs[-1]):
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


@register_rewrite("specialize")
@node_rewriter([MaxAndArgmax])
def local_max_and_argmax(fgraph: FunctionGraph, node: Apply):
    """max_and_argmax(x) with its argmax unread -> max(x); with its max unread ->
    argmax(x) (one axis, or all of them)."""
    x = node.inputs[0]
    the_max, the_argmax = node.outputs
    if not fgraph.clients.get(the_argmax):
        return {the_max: build(Max(node.op.axis), x)}
    if fgraph.clients.get(the_max):
        return None
    if node.op.axis == tuple(range(x.ndim)):
        return {the_argmax: build(Argmax(None), x)}
    if len(node.op.axis) == 1:
        return {the_argmax: build(Argmax(node.op.axis[0]), x)}
    return None


#: Elementwise functions increasing in their input: they keep the argmax.
_INCREASING = (ew.Exp, ew.Log, ew.Tanh, ew.Sigmoid, ew.Softplus)


@register_rewrite("specialize")
@node_rewriter([Argmax], exact=(
    "where the function keeps distinct values of x distinct (exp overflowing to inf, "
    "sigmoid or tanh rounding to 1, log of a negative x: ties or NaN the argmax of x has not)"))
def local_argmax_pushdown(fgraph: FunctionGraph, node: Apply):
    """argmax(f(x)) -> argmax(x) for f increasing (exp, log, tanh, sigmoid, softplus, a
    softmax along the argmax's axis); argmax(softmax_with_bias(x, b), 1) -> argmax(x + b, 1)."""
    fx = node.inputs[0]
    inner = fx.owner
    if inner is None:
        return None
    if isinstance(inner.op, _INCREASING) and inner.inputs[0].type.shape == fx.type.shape:
        pre = inner.inputs[0]
    elif isinstance(inner.op, nnet.Softmax) and inner.op.axis == _axes(node, fx):
        pre = inner.inputs[0]
    elif isinstance(inner.op, nnet_ops.SoftmaxWithBias) and _axes(node, fx) == (1,):
        pre = build(ew.Add(), inner.inputs[0], build(DimShuffle(1, _ROW), inner.inputs[1]))
    else:
        return None
    if pre.ndim != fx.ndim:
        return None
    return [build(node.op, pre)]


def _axes(node: Apply, x: Variable) -> tuple[int, ...]:
    """The argmax's axes, non-negative (``argmax(x, axis=-1)`` keeps -1)."""
    return tuple(a % x.ndim for a in node.op.reduced_axes(x.ndim))


register_rewrite("specialize")(algebra.local_neg_neg)  # -(-nll) the rewrites above leave
