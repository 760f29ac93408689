"""Theano's ``theano.tensor.nlinalg`` ops ``AllocDiag`` (a vector's diagonal matrix),
``ExtractDiag`` (a matrix's diagonal) and ``TensorInv`` (``numpy.linalg.tensorinv``),
and ``nlinalg.diag``, which builds the first two.

Each op has its NumPy ``perform``, ``infer_shape`` and ``L_op``; the lowering rules are
in ``symnb/lower_xla/rules/linalg.py``.
"""

from __future__ import annotations

import functools
import operator
from typing import Any, Sequence

import numpy as np

from symnb.core.graph.basic import Apply, Variable
from symnb.core.graph.errors import build_error, label
from symnb.core.graph.type import TensorType
from symnb.core.tensor import math as m
from symnb.core.tensor.alloc import arange, zeros
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.tensor.linalg_base import LinAlgOp, linalg_dtype
from symnb.core.tensor.nlinalg import matrix_dot
from symnb.core.tensor.shape import reshape, shape_i, transpose
from symnb.core.tensor.subtensor import getitem, inc_subtensor
from symnb.core.graph.op import Op

__all__ = ["AllocDiag", "ExtractDiag", "TensorInv", "diag"]


class AllocDiag(Op):
    """The square matrix with the vector ``x`` on its diagonal (``np.diag(x)``; Theano's
    ``nlinalg.AllocDiag``)."""

    __props__ = ()

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        if x.ndim != 1:
            raise build_error(f"alloc_diag: {label(x)!r} ({x.type.short()}) must be a vector",
                              TypeError, inputs=[x])
        n = x.type.shape[0]
        return Apply(self, [x], [TensorType(x.dtype, (n, n))])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [np.diag(inputs[0])]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        (n,) = input_shapes[0]
        return [(n, n)]

    def L_op(self, inputs, outputs, output_grads):
        return [ExtractDiag()(output_grads[0])]


class ExtractDiag(Op):
    """The main diagonal of ``x`` (``np.diagonal(x)``: of axes 0 and 1, as the last axis
    of the result; Theano's ``nlinalg.ExtractDiag``, which took matrices)."""

    __props__ = ("view",)

    def __init__(self, view: bool = False) -> None:
        # Theano's view=True returned NumPy's read-only view; symnb's values are copies.
        self.view = bool(view)

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        if x.ndim < 2:
            raise build_error(f"extract_diag: {label(x)!r} ({x.type.short()}) has {x.ndim} "
                              f"dimension(s); it needs at least 2", TypeError, inputs=[x])
        rows, cols = x.type.shape[:2]
        n = min(rows, cols) if rows is not None and cols is not None else None
        return Apply(self, [x], [TensorType(x.dtype, (*x.type.shape[2:], n))])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [np.array(np.diagonal(inputs[0]))]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        rows, cols, *rest = input_shapes[0]
        return [(*rest, m.minimum(rows, cols))]

    def L_op(self, inputs, outputs, output_grads):
        (x,), (g,) = inputs, output_grads
        # Each diagonal entry's gradient goes back to its place; the rest is zero.
        n = m.minimum(shape_i(x, 0), shape_i(x, 1))
        positions = arange(n)
        spread = g.dimshuffle(g.ndim - 1, *range(g.ndim - 1))  # the diagonal axis first
        return [inc_subtensor(getitem(zeros(x.shape, dtype=x.dtype), (positions, positions)), spread)]


def diag(x: Any) -> Variable:
    """Theano's ``nlinalg.diag``: the diagonal matrix of a vector (``AllocDiag``), the
    diagonal of a matrix (``ExtractDiag``), as ``np.diag``."""
    x = as_tensor_variable(x)
    if x.ndim == 1:
        return AllocDiag()(x)
    if x.ndim == 2:
        return ExtractDiag()(x)
    raise build_error(f"diag: {label(x)!r} ({x.type.short()}) must be a vector or a matrix",
                      TypeError, inputs=[x])


class TensorInv(LinAlgOp):
    """``numpy.linalg.tensorinv(a, ind)``: the inverse of ``a`` for ``tensordot(., ., ind)``,
    of shape ``a.shape[ind:] + a.shape[:ind]``; ``a`` must be "square"
    (``prod(a.shape[:ind]) == prod(a.shape[ind:])``) and invertible."""

    __props__ = ("ind",)

    def __init__(self, ind: int = 2) -> None:
        self.ind = int(ind)

    def make_node(self, a: Any) -> Apply:
        a = as_tensor_variable(a)
        if not 0 < self.ind < a.ndim:
            raise build_error(f"tensorinv: ind must be in 1..{a.ndim - 1} for {label(a)!r} "
                              f"({a.type.short()}), got {self.ind}", ValueError, inputs=[a])
        rows, cols = _sides(a.type.shape, self.ind)
        if rows is not None and cols is not None and rows != cols:
            raise build_error(f"tensorinv: {label(a)!r} ({a.type.short()}) is not square for "
                              f"ind={self.ind}: its first axes hold {rows} entries, the others "
                              f"{cols}", ValueError, inputs=[a])
        dtype = linalg_dtype("tensorinv", a, op=self)
        shape = a.type.shape[self.ind:] + a.type.shape[:self.ind]
        return Apply(self, [a], [TensorType(dtype, shape)])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        try:
            result = np.linalg.tensorinv(inputs[0], ind=self.ind)
        except np.linalg.LinAlgError:
            raise np.linalg.LinAlgError(self.failure(node)) from None
        return [np.asarray(result, dtype=node.outputs[0].type.dtype)]

    def failure(self, node: Apply) -> str:
        return f"tensorinv: {label(node.inputs[0])!r} is singular (its inverse is not finite)"

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        shape = input_shapes[0]
        return [tuple(shape[self.ind:]) + tuple(shape[:self.ind])]

    def L_op(self, inputs, outputs, output_grads):
        # As matrices (n x n), the inverse's gradient: -(A^-1)^T G (A^-1)^T, shaped back.
        (a,), (inverse,), (g,) = inputs, outputs, output_grads
        lengths = [shape_i(a, i) for i in range(a.ndim)]
        n = functools.reduce(m.mul, lengths[:self.ind])
        inverse2, g2 = reshape(inverse, [-1, n]), reshape(g, [-1, n])  # (n, n) both
        grad2 = m.neg(transpose(matrix_dot(inverse2, transpose(g2), inverse2)))
        return [reshape(grad2, lengths)]


def _sides(shape: tuple, ind: int) -> tuple[int | None, int | None]:
    """The entries of ``shape[:ind]`` and of ``shape[ind:]`` (None where one is unknown)."""
    def count(part: tuple) -> int | None:
        return None if None in part else functools.reduce(operator.mul, part, 1)

    return count(shape[:ind]), count(shape[ind:])
