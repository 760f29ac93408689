"""Theano's sparse ops with a dense vector or a sampled product: ``col_scale`` and
``row_scale`` (``ColScaleCSC``, ``RowScaleCSC``), ``mul_s_v``, ``structured_add_s_v``,
``add_s_s_data`` and ``sampling_dot``, computing Theano's values (its ``perform``) with
its gradients. Their XLA rules are in ``symnb/lower_xla/rules/sparse_indexing.py``."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from symnb.core.graph.basic import Apply, Variable
from symnb.core.graph.errors import build_error, label
from symnb.core.sparse.ops import (
    SparseOp, _as_format, _check_same_shape, _sparse_output, as_sparse_variable, cast, dot,
    is_sparse_variable, sp_sum, transpose, upcast,
)
from symnb.core.tensor.basic import as_tensor_variable

__all__ = ["ColScaleCSC", "RowScaleCSC", "col_scale", "row_scale", "MulSV", "mul_s_v",
           "StructuredAddSV", "structured_add_s_v", "AddSSData", "add_s_s_data",
           "SamplingDot", "sampling_dot"]


def _vector(y: Any, what: str, length_of: str) -> Variable:
    y = as_tensor_variable(y)
    if y.type.ndim != 1:
        raise build_error(f"{what}: {label(y)} must be a vector (one value per {length_of}), "
                          f"got {y.type.short()}", TypeError)
    return y


def _same_dtype(what: str, x: Variable, y: Variable) -> None:
    if x.type.dtype != y.type.dtype:
        raise build_error(f"{what} not implemented for differing dtypes: {label(x)} is "
                          f"{x.type.dtype}, {label(y)} {y.type.dtype} (as Theano)", NotImplementedError)


class _Scale(SparseOp):
    """The stored entries of a csc ``x`` times ``s`` along ``axis`` (1: ``s[j]`` for
    column ``j``; 0: ``s[i]`` for row ``i``)."""

    __props__ = ()
    reads_pattern = True  # a stored zero times inf is a NaN entry, as in Theano
    axis = 1

    def make_node(self, x: Any, s: Any) -> Apply:
        x = as_sparse_variable(x)
        if x.type.format != "csc":
            raise build_error(f"{type(self).__name__}: {label(x)} was not a csc matrix", ValueError)
        s = _vector(s, type(self).__name__, "column" if self.axis == 1 else "row")
        return Apply(self, [x, s], [_sparse_output("csc", upcast(x.type.dtype, s.type.dtype))])

    def perform(self, node: Apply, inputs: Sequence[Any]) -> list[Any]:
        x, s = inputs
        if s.shape != (x.shape[self.axis],):
            raise ValueError(f"{type(self).__name__}: {x.shape} matrix and {s.shape} scales")
        dtype = node.outputs[0].type.dtype
        z = x.astype(dtype)
        z.data = z.data.copy()
        coo = x.tocoo()  # x's storage order
        z.data *= np.asarray(s, dtype=dtype)[coo.col if self.axis == 1 else coo.row]
        return [z]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[0]]

    def L_op(self, inputs, outputs, output_grads):
        x, s = inputs
        (gz,) = output_grads
        scale = col_scale if self.axis == 1 else row_scale
        return [scale(gz, s), sp_sum(x * gz, axis=1 - self.axis)]


class ColScaleCSC(_Scale):
    """Column ``j`` of a csc matrix times ``s[j]`` (Theano's ``ColScaleCSC``)."""


class RowScaleCSC(_Scale):
    """Row ``i`` of a csc matrix times ``s[i]`` (Theano's ``RowScaleCSC``)."""

    axis = 0


def col_scale(x: Any, s: Any) -> Variable:
    """Column ``j`` of a sparse ``x`` times ``s[j]`` (x's format)."""
    x = as_sparse_variable(x)
    if x.type.format == "csc":
        return ColScaleCSC()(x, s)
    return transpose(RowScaleCSC()(transpose(x), s))


def row_scale(x: Any, s: Any) -> Variable:
    """Row ``i`` of a sparse ``x`` times ``s[i]`` (x's format)."""
    return transpose(col_scale(transpose(as_sparse_variable(x)), s))


class MulSV(SparseOp):
    """``x * y`` of a sparse ``x`` and a dense vector ``y`` over its columns: sparse, of
    ``x``'s format (Theano's ``mul_s_v``, the product of the dense matrix)."""

    __props__ = ()
    _public = "mul_s_v"

    def make_node(self, x: Any, y: Any) -> Apply:
        x, y = as_sparse_variable(x), _vector(y, "MulSV", "column")
        _same_dtype("MulSV", x, y)
        return Apply(self, [x, y], [_sparse_output(x.type.format, x.type.dtype)])

    def perform(self, node: Apply, inputs: Sequence[Any]) -> list[Any]:
        x, y = inputs
        if x.shape[1] != y.shape[0]:
            raise ValueError(f"mul_s_v: {x.shape} matrix and {y.shape} vector")
        out = node.outputs[0].type
        return [_as_format(x.toarray() * y, out.format, out.dtype)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[0]]

    def L_op(self, inputs, outputs, output_grads):
        x, y = inputs
        (gz,) = output_grads
        if gz.dtype == "float64" and y.dtype == "float32":
            y = y.astype("float64")
        if gz.dtype == "float32" and y.dtype == "float64":
            gz = cast(gz, "float64")
        return [mul_s_v(gz, y), sp_sum(x * gz, axis=0, sparse_grad=True)]


mul_s_v = MulSV()


class StructuredAddSV(SparseOp):
    """``x + y`` of a sparse ``x`` and a dense vector ``y`` over its columns, at ``x``'s
    nonzero entries only (Theano's ``structured_add_s_v``)."""

    __props__ = ()
    _public = "structured_add_s_v"

    def make_node(self, x: Any, y: Any) -> Apply:
        x, y = as_sparse_variable(x), _vector(y, "StructuredAddSV", "column")
        _same_dtype("StructuredAddSV", x, y)
        return Apply(self, [x, y], [_sparse_output(x.type.format, x.type.dtype)])

    def perform(self, node: Apply, inputs: Sequence[Any]) -> list[Any]:
        x, y = inputs
        if x.shape[1] != y.shape[0]:
            raise ValueError(f"structured_add_s_v: {x.shape} matrix and {y.shape} vector")
        out = node.outputs[0].type
        return [_as_format(x + (x.toarray() != 0) * y, out.format, out.dtype)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[0]]

    def L_op(self, inputs, outputs, output_grads):
        (gz,) = output_grads
        return [gz, sp_sum(gz, axis=0, sparse_grad=True)]


structured_add_s_v = StructuredAddSV()


class AddSSData(SparseOp):
    """``x + y`` of two sparse matrices of one format, dtype and pattern: their ``data``
    added (Theano's ``add_s_s_data``)."""

    __props__ = ()
    _public = "add_s_s_data"

    def make_node(self, x: Any, y: Any) -> Apply:
        x, y = as_sparse_variable(x), as_sparse_variable(y)
        _same_dtype("AddSSData", x, y)
        if x.type.format != y.type.format:
            raise build_error(f"AddSSData: {label(x)} is {x.type.format}, {label(y)} "
                              f"{y.type.format}", NotImplementedError)
        return Apply(self, [x, y], [_sparse_output(x.type.format, x.type.dtype)])

    def perform(self, node: Apply, inputs: Sequence[Any]) -> list[Any]:
        x, y = inputs
        _check_same_shape("add_s_s_data", x, y)
        if x.data.shape != y.data.shape:
            raise ValueError(f"add_s_s_data: the operands store {x.data.shape[0]} and "
                             f"{y.data.shape[0]} entries; they must share one pattern")
        z = x.copy()
        z.data += y.data
        return [z]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[0]]

    def L_op(self, inputs, outputs, output_grads):
        (gz,) = output_grads
        return [gz if np.dtype(i.type.dtype).kind in "fc" else None for i in inputs]


add_s_s_data = AddSSData()


class SamplingDot(SparseOp):
    """``p * (x @ y.T)`` at ``p``'s stored entries (dense ``x`` and ``y``, sparse ``p``):
    sparse, of ``p``'s format (Theano's ``sampling_dot``). No gradient for ``p``."""

    __props__ = ()
    _public = "sampling_dot"
    reads_pattern = True

    def make_node(self, x: Any, y: Any, p: Any) -> Apply:
        x, y, p = as_tensor_variable(x), as_tensor_variable(y), as_sparse_variable(p)
        if is_sparse_variable(x) or is_sparse_variable(y):
            raise build_error("sampling_dot: x and y must be dense", TypeError)
        dtype = upcast(x.type.dtype, y.type.dtype, p.type.dtype)
        return Apply(self, [x, y, p], [_sparse_output(p.type.format, dtype)])

    def perform(self, node: Apply, inputs: Sequence[Any]) -> list[Any]:
        x, y, p = inputs
        out = node.outputs[0].type
        return [_as_format(p.multiply(np.dot(x, y.T)), out.format, out.dtype)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[2]]

    def L_op(self, inputs, outputs, output_grads):
        x, y, p = inputs
        (gz,) = output_grads
        sampled = p * gz
        return [dot(sampled, y), dot(transpose(sampled), x), None]


sampling_dot = SamplingDot()
