"""The graph patterns Theano's T.nnet rewrites look for (core/rewriting/nnet.py), in
symnb's spelling of them: a softmax's logits split into a matrix and a bias broadcast
along the rows, ``arange(y.shape[0])`` however the shape passes wrote it, the one-hot rows
of an indexing's gradient, a value broadcast to one entry per class index."""

from __future__ import annotations

import numpy as np

from symnb.core.graph.basic import Constant, Variable
from symnb.core.graph.rewriting import build
from symnb.core.graph.static import static_value
from symnb.core.rewriting.utils import make_constant, owner_op
from symnb.core.tensor import elemwise as ew
from symnb.core.tensor import nnet_ops
from symnb.core.tensor.alloc import Alloc, Arange
from symnb.core.tensor.basic_theano_ops import MakeVector
from symnb.core.tensor.shape import DimShuffle, Shape, ShapeI
from symnb.core.tensor.subtensor import AdvancedIncSubtensor, Subtensor
from symnb.core.tensor.subtensor_index import ARRAY

__all__ = ["ROW", "bias_split", "zero_bias", "softmax_logits", "is_arange_of_rows", "one_hot_rows",
           "exp_times", "per_row_of", "scalar_of"]

ROW = ("x", 0)  # DimShuffle{x,0}: a vector made a row


def _as_bias(term: Variable) -> Variable | None:
    """``term`` as a vector over the columns when it is broadcast along the rows of a
    matrix sum (a vector, or a 1 x n matrix), else None."""
    if term.ndim == 1:
        return term
    if term.ndim != 2 or term.type.shape[0] != 1:
        return None
    row = owner_op(term, DimShuffle)
    if row is not None and row.op.pattern == ROW:
        return row.inputs[0]
    return build(DimShuffle(2, (1,)), term)


def _sum_of(terms: list[Variable]) -> Variable:
    return terms[0] if len(terms) == 1 else build(ew.Add(), *terms)


def bias_split(x: Variable) -> tuple[Variable, Variable] | None:
    """``(matrix, bias)`` with ``x == matrix + bias`` (``bias`` a vector over the
    columns) when ``x`` is a sum with terms broadcast along the rows, else None (Theano's
    ``local_softmax_with_bias`` split); ``x`` a row of a sum of vectors too."""
    terms = _row_terms(x) if x.ndim == 2 else None
    if terms is None:
        return None
    matrix, bias = terms
    # the fused op computes in x's dtype and shape: nothing may be widened by the sum, and
    # the bias has one entry per column (a length-1 bias broadcast by the sum would not)
    if matrix.type != x.type or bias.dtype != x.dtype:
        return None
    if bias.type.shape[0] == 1 and x.type.shape[1] != 1:
        return None
    return matrix, bias


def _row_terms(x: Variable) -> tuple[Variable, Variable] | None:
    """``(matrix, bias)`` summing to the matrix ``x``, before any check of their types."""
    row = owner_op(x, DimShuffle)
    if row is not None and row.op.pattern == ROW and owner_op(row.inputs[0], ew.Add):
        vectors = list(row.inputs[0].owner.inputs)  # softmax(v + b) of vectors: one row
        if len(vectors) < 2 or any(v.ndim != 1 for v in vectors):
            return None
        return build(DimShuffle(1, ROW), vectors[0]), _sum_of(vectors[1:])
    add = owner_op(x, ew.Add)
    if add is None:
        return None
    vectors, others = [], []
    for term in add.inputs:
        bias = _as_bias(term)
        (others if bias is None else vectors).append(term if bias is None else bias)
    if not vectors or not others:
        return None
    return _sum_of(others), _sum_of(vectors)


def zero_bias(x: Variable) -> Variable:
    """Zeros, one per column of ``x`` (Theano's ``zeros_like(x[0])``)."""
    length = build(DimShuffle(0, ("x",)), build(ShapeI(1), x))  # Alloc takes a shape vector
    return build(Alloc(), make_constant(0, x.dtype), length)


def softmax_logits(sm: Variable) -> tuple[Variable, Variable] | None:
    """``(x, b)`` with ``sm == softmax(x + b)`` row by row, for Theano's softmax ops."""
    node = owner_op(sm, (nnet_ops.SoftmaxWithBias, nnet_ops.Softmax))
    if node is None or sm.ndim != 2:
        return None
    if isinstance(node.op, nnet_ops.SoftmaxWithBias):
        return node.inputs[0], node.inputs[1]
    x = node.inputs[0]
    return bias_split(x) or (x, zero_bias(x))


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


def one_hot_rows(g: Variable) -> tuple[Variable, Variable] | None:
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


def exp_times(term: Variable) -> tuple[Variable, Variable] | None:
    """``(a, s)`` when ``term`` is ``exp(a) * s`` (either order), else None."""
    mul = owner_op(term, ew.Mul)
    if mul is None or len(mul.inputs) != 2:
        return None
    for e, other in (mul.inputs, mul.inputs[::-1]):
        exp = owner_op(e, ew.Exp)
        if exp is not None:
            return exp.inputs[0], other
    return None


def per_row_of(like: Variable, y_idx: Variable) -> bool:
    """True when ``like`` has one entry per class index of ``y_idx`` by construction:
    ``y_idx`` itself, or the negative log-likelihood a cross-entropy op computes of it."""
    while owner_op(like, ew.Neg) is not None:  # -nll has nll's length
        like = like.owner.inputs[0]
    if like is y_idx:
        return True
    node = owner_op(like, (nnet_ops.CrossentropyCategorical1Hot,
                           nnet_ops.CrossentropySoftmaxArgmax1HotWithBias))
    return node is not None and like is node.outputs[0] and node.inputs[-1] is y_idx


def scalar_of(var: Variable) -> Variable | None:
    """The 0-d value ``var`` holds, when it is one made a 1-element array by
    ``DimShuffle{x,...}`` (as ``sn.grad`` seeds a sum), else None."""
    shuffle = owner_op(var, DimShuffle)
    if shuffle is not None and shuffle.op.input_ndim == 0:
        var = shuffle.inputs[0]
    fill = owner_op(var, Alloc)
    if fill is not None and var.ndim == 0 and fill.inputs[0].ndim == 0:
        var = fill.inputs[0]  # alloc(c, []) is c
    return var if var.ndim == 0 else None
