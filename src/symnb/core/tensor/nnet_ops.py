"""Theano's ``T.nnet`` ops (``theano.tensor.nnet.nnet``), as Ops of their own.

Theano's classifier layers were written with these compound ops (and its tests look
for them in compiled graphs), so they are real ops here, each with its NumPy ``perform``,
``infer_shape``, its gradient as Theano defined it, and its XLA lowering
(lower_xla/rules/nnet.py):

- :class:`Softmax`, :class:`LogSoftmax`: row-wise, on a matrix (a vector is taken as
  one row, as in Theano 1.0: a 1 x n result); they are symnb's ``Softmax``/``LogSoftmax``
  along axis 1, so the numerically stable rewrites apply to them;
- :class:`SoftmaxWithBias` ``(x, b)``: ``softmax(x + b)``; :class:`SoftmaxGrad`
  ``(dy, sm)``: the softmax's gradient;
- :class:`CrossentropySoftmaxArgmax1HotWithBias` ``(x, b, y_idx)``: the row-wise negative
  log-likelihood of the classes ``y_idx``, ``softmax(x + b)`` and the row-wise argmax;
  :class:`CrossentropySoftmax1HotWithBiasDx` ``(dy, sm, y_idx)``: its gradient;
- :class:`CrossentropyCategorical1Hot` ``(coding_dist, y_idx)``:
  ``-log(coding_dist[i, y_idx[i]])``; :class:`CrossentropyCategorical1HotGrad`;
- :class:`Prepend_scalar_constant_to_each_row`, :class:`Prepend_scalar_to_each_row`.

``T.nnet.softmax_with_bias`` and ``T.nnet.crossentropy_categorical_1hot`` are the op
instances, as in Theano (``softmax_with_bias_op`` and ``crossentropy_categorical_1hot_op``
are other names of them). A graph holds what the user wrote (``-log`` of the probability
of the true class); compiling rewrites it into the fused, numerically stable ops, as
Theano's optimizer did (core/rewriting/nnet.py: ``crossentropy_categorical_1hot`` of a
softmax becomes :class:`CrossentropySoftmaxArgmax1HotWithBias`, its gradient
:class:`CrossentropySoftmax1HotWithBiasDx`). ``T.nnet.categorical_crossentropy`` (what
Keras and Lasagne call) builds the stable form itself (core/tensor/losses.py).

A class index out of range (negative, or past the last column) raises ``ValueError``
when the function runs, as Theano's ops did.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from symnb.core.graph.basic import Apply, Variable
from symnb.core.graph.errors import build_error, label
from symnb.core.graph.op import Op
from symnb.core.graph.source import warn_at_user_line
from symnb.core.graph.type import TensorType, is_float, is_integer
from symnb.core.gradient_types import disconnected_type, grad_not_implemented, is_disconnected
from symnb.core.tensor import math as m
from symnb.core.tensor import nnet
from symnb.core.tensor.alloc import arange, zeros_like
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.tensor.reduction import sum as _sum

__all__ = [
    "Softmax", "LogSoftmax", "SoftmaxWithBias", "SoftmaxGrad", "CrossentropySoftmaxArgmax1HotWithBias",
    "CrossentropySoftmax1HotWithBiasDx", "CrossentropyCategorical1Hot", "CrossentropyCategorical1HotGrad",
    "Prepend_scalar_constant_to_each_row", "Prepend_scalar_to_each_row", "softmax_op", "logsoftmax_op",
    "softmax_with_bias_op", "softmax_grad", "crossentropy_softmax_argmax_1hot_with_bias",
    "crossentropy_softmax_1hot_with_bias_dx", "crossentropy_categorical_1hot_op",
    "crossentropy_categorical_1hot", "softmax_with_bias",
    "crossentropy_categorical_1hot_grad", "prepend_scalar_to_each_row", "prepend_0_to_each_row",
    "prepend_1_to_each_row", "class_index_problem",
]


def _check(var: Variable, what: str, op: str, ndims: tuple[int, ...], kind: str) -> Variable:
    """``var`` as a tensor, after checking its number of dimensions and its dtype's kind."""
    var = as_tensor_variable(var)
    fits = is_float(var.dtype) if kind == "float" else is_integer(var.dtype)
    if var.ndim not in ndims or not fits:
        dims = " or ".join(f"{n}-d" for n in ndims)
        raise build_error(f"{op}: {what} {label(var)!r} must be a {dims} tensor of "
                          f"{'floats' if kind == 'float' else 'integers'}; got {var.type.short()}",
                          ValueError, inputs=[var])
    return var


def class_index_problem(y_idx: np.ndarray, n_classes: int) -> str | None:
    """Why the class indices ``y_idx`` cannot index ``n_classes`` columns (None if they can)."""
    bad = np.flatnonzero((y_idx < 0) | (y_idx >= n_classes))
    if bad.size == 0:
        return None
    return (f"y_i value out of bounds: class index {int(y_idx[bad[0]])} (row {int(bad[0])}) is "
            f"not in [0, {n_classes})")


def _rows(x: np.ndarray) -> np.ndarray:
    """``softmax`` of each row, computed from the row minus its maximum."""
    e = np.exp(x - np.max(x, axis=1, keepdims=True))
    return e / np.sum(e, axis=1, keepdims=True)


class Softmax(nnet.Softmax):
    """Theano's ``Softmax()`` (``softmax_op``): the softmax of each row of a matrix; a
    vector is taken as one row (Theano 1.0's deprecated padding: a 1 x n result)."""

    __props__ = ()

    def __init__(self) -> None:
        super().__init__((1,))

    def make_node(self, x: Any) -> Apply:
        x = _check(x, "x", type(self).__name__, (1, 2), "float")
        if x.ndim == 1:
            warn_at_user_line(f"DEPRECATION: If x is a vector, {type(self).__name__} will not "
                              "automatically pad x anymore in next releases (Theano 1.0's warning): "
                              "the result is a 1 x n matrix")
            x = x.dimshuffle("x", 0)
        return Apply(self, [x], [x.type])

    def L_op(self, inputs, outputs, output_grads):
        return [softmax_grad(output_grads[0], outputs[0])]

    def log_op(self) -> "LogSoftmax":
        return logsoftmax_op  # log(T.nnet.softmax(x)) compiles to Theano's LogSoftmax


class LogSoftmax(nnet.LogSoftmax):
    """Theano's ``LogSoftmax()`` (``logsoftmax_op``): ``log(softmax(x))`` of each row,
    computed without overflow; a vector is taken as one row."""

    __props__ = ()

    def __init__(self) -> None:
        super().__init__((1,))

    make_node = Softmax.make_node


class SoftmaxWithBias(Op):
    """``softmax(x + b)`` of each row: ``x`` a matrix, ``b`` a vector (one per column)."""

    __props__ = ()

    def make_node(self, x: Any, b: Any) -> Apply:
        x = _check(x, "x", "SoftmaxWithBias", (2,), "float")
        b = _check(b, "b", "SoftmaxWithBias", (1,), "float")
        return Apply(self, [x, b], [x.type])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x, b = inputs
        if b.shape[0] != x.shape[1]:
            raise ValueError(f"SoftmaxWithBias: b has {b.shape[0]} entries, x {x.shape[1]} columns")
        return [_rows(x + b).astype(node.outputs[0].type.dtype)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[0]]

    def L_op(self, inputs, outputs, output_grads):
        dx = softmax_grad(output_grads[0], outputs[0])
        return [dx, _sum(dx, axis=0)]


class SoftmaxGrad(Op):
    """The gradient of the row-wise softmax: ``(dy, sm) -> dy * sm - sum(dy * sm, 1) * sm``."""

    __props__ = ()

    def make_node(self, dy: Any, sm: Any) -> Apply:
        dy, sm = as_tensor_variable(dy), as_tensor_variable(sm)
        if dy.ndim != 2 or sm.ndim != 2:
            raise build_error(f"SoftmaxGrad: dy and sm must be matrices; got {label(dy)!r} "
                              f"({dy.type.short()}) and {label(sm)!r} ({sm.type.short()})",
                              ValueError, inputs=[dy, sm])
        return Apply(self, [dy, sm], [sm.type])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        dy, sm = inputs
        dx = dy * sm
        return [(dx - np.sum(dx, axis=1, keepdims=True) * sm).astype(node.outputs[0].type.dtype)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[1]]

    def L_op(self, inputs, outputs, output_grads):
        dy, sm = inputs
        (g,) = output_grads
        tmp = m.sub(g, _sum(m.mul(g, sm), axis=1, keepdims=True))
        g_dy = m.mul(tmp, sm)
        g_sm = m.sub(m.mul(tmp, dy), m.mul(g, _sum(m.mul(dy, sm), axis=1, keepdims=True)))
        return [g_dy, g_sm]


class CrossentropySoftmaxArgmax1HotWithBias(Op):
    """``(x, b, y_idx) -> (nll, sm, am)``: ``sm = softmax(x + b)`` by rows, ``nll[i] =
    -log(sm[i, y_idx[i]])`` (computed stably) and ``am[i] = argmax(x[i] + b)``."""

    __props__ = ()

    def public_name(self) -> str:
        return "crossentropy_softmax_argmax_1hot_with_bias"  # Theano's name of the op (the class name's snake case splits "1hot")

    def make_node(self, x: Any, b: Any, y_idx: Any) -> Apply:
        name = "CrossentropySoftmaxArgmax1HotWithBias"
        x = _check(x, "x", name, (2,), "float")
        b = _check(b, "b", name, (1,), "float")
        y_idx = _check(y_idx, "y_idx", name, (1,), "int")
        nll = TensorType(x.dtype, y_idx.type.shape)
        return Apply(self, [x, b, y_idx], [nll, x.type, y_idx.type])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x, b, y_idx = inputs
        if b.shape[0] != x.shape[1]:
            raise ValueError("b must have same number of columns as x")
        if y_idx.shape[0] != x.shape[0]:
            raise ValueError("y_idx must have same number of rows as x")
        problem = class_index_problem(y_idx, x.shape[1])
        if problem:
            raise ValueError(problem)
        row = x + b
        am = np.argmax(row, axis=1)
        top = np.max(row, axis=1, keepdims=True)
        e = np.exp(row - top)
        total = np.sum(e, axis=1)
        nll = -row[np.arange(x.shape[0]), y_idx] + top[:, 0] + np.log(total)
        dtype = node.outputs[0].type.dtype
        return [nll.astype(dtype), (e / total[:, None]).astype(dtype),
                am.astype(node.outputs[2].type.dtype)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        x_shape, _, idx_shape = input_shapes
        return [(x_shape[0],), x_shape, idx_shape]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True, True, True], [True, True, True], [False, False, True]]

    def L_op(self, inputs, outputs, output_grads):
        x, b, y_idx = inputs
        g_nll, g_sm, _ = output_grads  # the argmax's gradient is zero
        dx_terms = []
        if g_nll is not None and not is_disconnected(g_nll):
            dx_terms.append(crossentropy_softmax_1hot_with_bias_dx(g_nll, outputs[1], y_idx))
        if g_sm is not None and not is_disconnected(g_sm):
            dx_terms.append(softmax_grad(g_sm, outputs[1]))
        if not dx_terms:
            return [disconnected_type(), disconnected_type(), disconnected_type()]
        dx = dx_terms[0] if len(dx_terms) == 1 else m.add(*dx_terms)
        return [dx, _sum(dx, axis=0), disconnected_type()]


class CrossentropySoftmax1HotWithBiasDx(Op):
    """The gradient of the negative log-likelihood with respect to ``x``: ``(dy, sm,
    y_idx) -> dy[i] * sm[i] - dy[i] * onehot(y_idx[i])`` (``dy`` a vector, or a scalar
    for every row)."""

    __props__ = ()

    def public_name(self) -> str:
        return "crossentropy_softmax_1hot_with_bias_dx"  # Theano's name of the op (the class name's snake case splits "1hot")

    def make_node(self, dy: Any, sm: Any, y_idx: Any) -> Apply:
        name = "CrossentropySoftmax1HotWithBiasDx"
        dy = _check(dy, "dy", name, (0, 1), "float")
        sm = _check(sm, "sm", name, (2,), "float")
        y_idx = _check(y_idx, "y_idx", name, (1,), "int")
        return Apply(self, [dy, sm, y_idx], [sm.type])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        dy, sm, y_idx = inputs
        problem = class_index_problem(y_idx, sm.shape[1])
        if problem:
            raise ValueError(problem)
        dy = np.broadcast_to(np.reshape(dy, (-1,)), (sm.shape[0],))
        dx = dy[:, None] * sm
        dx[np.arange(sm.shape[0]), y_idx] -= dy
        return [dx.astype(node.outputs[0].type.dtype)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[1]]

    def L_op(self, inputs, outputs, output_grads):
        dy, sm, y_idx = inputs
        (g_dx,) = output_grads
        rows = arange(y_idx.shape[0])
        minus_hot = m.sub(sm, _one_hot(sm, rows, y_idx))  # sm - onehot: d(dx[i]) / d(dy[i])
        g_dy = _sum(m.mul(g_dx, minus_hot), axis=1)
        if dy.ndim == 0:
            g_dy = _sum(g_dy)
        per_row = dy.dimshuffle(0, "x") if dy.ndim == 1 else dy
        return [g_dy, m.mul(per_row, g_dx), grad_not_implemented(self, 2, y_idx)]


def _one_hot(like: Variable, rows: Variable, columns: Variable) -> Variable:
    """A matrix of ``like``'s shape and dtype, 1 at ``(rows[i], columns[i])``, else 0."""
    from symnb.core.tensor.subtensor import set_subtensor

    zeros = zeros_like(like)
    return set_subtensor(zeros[rows, columns], m.cast(1, like.dtype))


class CrossentropyCategorical1Hot(Op):
    """``(coding_dist, true_one_of_n) -> -log(coding_dist[i, true_one_of_n[i]])``:
    the row-wise cross-entropy of distributions against integer class labels."""

    __props__ = ()

    def public_name(self) -> str:
        return "crossentropy_categorical_1hot"  # Theano's name of the op (the class name's snake case splits "1hot")

    def make_node(self, coding_dist: Any, true_one_of_n: Any) -> Apply:
        name = "CrossentropyCategorical1Hot"
        coding_dist = _check(coding_dist, "coding_dist", name, (2,), "float")
        true_one_of_n = _check(true_one_of_n, "true_one_of_n", name, (1,), "int")
        return Apply(self, [coding_dist, true_one_of_n],
                     [TensorType(coding_dist.dtype, (coding_dist.type.shape[0],))])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        coding, one_of_n = inputs
        problem = class_index_problem(one_of_n, coding.shape[1])
        if problem:
            raise ValueError(problem)
        with np.errstate(divide="ignore"):
            picked = coding[np.arange(coding.shape[0]), one_of_n]
            return [(-np.log(picked)).astype(node.outputs[0].type.dtype)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [(input_shapes[0][0],)]

    def L_op(self, inputs, outputs, output_grads):
        coding, one_of_n = inputs
        return [crossentropy_categorical_1hot_grad(output_grads[0], coding, one_of_n),
                grad_not_implemented(self, 1, one_of_n)]


class CrossentropyCategorical1HotGrad(Op):
    """The gradient of :class:`CrossentropyCategorical1Hot`: ``(g_y, coding_dist,
    true_one_of_n) -> -g_y[i] / coding_dist[i, true_one_of_n[i]]`` at the true classes,
    0 elsewhere."""

    __props__ = ()

    def public_name(self) -> str:
        return "crossentropy_categorical_1hot_grad"  # Theano's name of the op (the class name's snake case splits "1hot")

    def make_node(self, g_y: Any, coding_dist: Any, true_one_of_n: Any) -> Apply:
        g_y, coding_dist = as_tensor_variable(g_y), as_tensor_variable(coding_dist)
        true_one_of_n = as_tensor_variable(true_one_of_n)
        return Apply(self, [g_y, coding_dist, true_one_of_n], [coding_dist.type])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        g_y, coding, one_of_n = inputs
        problem = class_index_problem(np.asarray(one_of_n), coding.shape[1])
        if problem:
            raise ValueError(problem)
        rows = np.arange(coding.shape[0])
        g = np.zeros_like(coding)
        g[rows, one_of_n] = -g_y / coding[rows, one_of_n]
        return [g.astype(node.outputs[0].type.dtype)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[1]]

    def L_op(self, inputs, outputs, output_grads):
        # Theano defined none: a second derivative through it is refused, not zero.
        return [grad_not_implemented(self, i, v) for i, v in enumerate(inputs)]


class Prepend_scalar_constant_to_each_row(Op):  # noqa: N801  (Theano's name)
    """A column of the number ``val`` put before the first column of a matrix."""

    __props__ = ("val",)

    def __init__(self, val: float = 0) -> None:
        self.val = float(val) if not isinstance(val, (int, np.integer)) else int(val)

    def make_node(self, mat: Any) -> Apply:
        mat = _check(mat, "the matrix", "Prepend_scalar_constant_to_each_row", (2,), "float")
        rows, cols = mat.type.shape
        return Apply(self, [mat], [TensorType(mat.dtype, (rows, None if cols is None else cols + 1))])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        (mat,) = inputs
        column = np.full((mat.shape[0], 1), self.val, dtype=mat.dtype)
        return [np.concatenate([column, mat], axis=1)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        rows, cols = input_shapes[0]
        return [(rows, cols + 1)]

    def L_op(self, inputs, outputs, output_grads):
        return [output_grads[0][:, 1:]]


class Prepend_scalar_to_each_row(Op):  # noqa: N801  (Theano's name)
    """``(val, mat)``: a column of the scalar ``val`` put before the first column of ``mat``."""

    __props__ = ()

    def make_node(self, val: Any, mat: Any) -> Apply:
        val = as_tensor_variable(val)
        mat = _check(mat, "the matrix", "Prepend_scalar_to_each_row", (2,), "float")
        if val.ndim != 0:
            raise build_error(f"Prepend_scalar_to_each_row: the value {label(val)!r} must be a "
                              f"scalar; got {val.type.short()}", TypeError, inputs=[val])
        val = m.cast(val, mat.dtype) if val.dtype != mat.dtype else val
        rows, cols = mat.type.shape
        return Apply(self, [val, mat], [TensorType(mat.dtype, (rows, None if cols is None else cols + 1))])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        val, mat = inputs
        column = np.full((mat.shape[0], 1), val, dtype=mat.dtype)
        return [np.concatenate([column, mat], axis=1)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        rows, cols = input_shapes[1]
        return [(rows, cols + 1)]

    def L_op(self, inputs, outputs, output_grads):
        (g,) = output_grads
        return [_sum(g[:, 0]), g[:, 1:]]


softmax_op = Softmax()
logsoftmax_op = LogSoftmax()
softmax_with_bias_op = SoftmaxWithBias()
softmax_grad = SoftmaxGrad()
crossentropy_softmax_argmax_1hot_with_bias = CrossentropySoftmaxArgmax1HotWithBias()
crossentropy_softmax_1hot_with_bias_dx = CrossentropySoftmax1HotWithBiasDx()
crossentropy_categorical_1hot = crossentropy_categorical_1hot_op = CrossentropyCategorical1Hot()
softmax_with_bias = softmax_with_bias_op
crossentropy_categorical_1hot_grad = CrossentropyCategorical1HotGrad()
prepend_scalar_to_each_row = Prepend_scalar_to_each_row()
prepend_0_to_each_row = Prepend_scalar_constant_to_each_row(0.)
prepend_1_to_each_row = Prepend_scalar_constant_to_each_row(1.)
