"""Theano's sparse ops on a matrix's structure: ``Remove0`` (drop stored zeros),
``Diag`` (the diagonal of a square sparse matrix, dense), ``SquareDiagonal`` (a csc
matrix of a diagonal) and ``EnsureSortedIndices`` (``clean``: both), with Theano's
gradients. In a compiled program, where a sparse matrix is its dense matrix, ``remove0``
and ``ensure_sorted_indices`` change nothing (a stored zero is a zero there)."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import scipy.sparse

from symnb.core.graph.basic import Apply
from symnb.core.graph.errors import build_error, label
from symnb.core.sparse.ops import SparseOp, _sparse_output, _tensor_output, as_sparse_variable
from symnb.core.tensor.basic import as_tensor_variable

__all__ = ["Remove0", "remove0", "Diag", "diag", "SquareDiagonal", "square_diagonal",
           "EnsureSortedIndices", "ensure_sorted_indices", "clean"]


class Remove0(SparseOp):
    """``x`` without its explicitly stored zeros (SciPy's ``eliminate_zeros``), of ``x``'s
    type; the gradient passes through. ``inplace`` is accepted as Theano's flag: symnb
    computes a copy (a compiled program never aliases a sparse input)."""

    __props__ = ("inplace",)
    _public = "remove0"

    def __init__(self, inplace: bool = False) -> None:
        self.inplace = bool(inplace)

    def __str__(self) -> str:
        return f"Remove0{{{'inplace' if self.inplace else ''}}}"

    def make_node(self, x: Any) -> Apply:
        x = as_sparse_variable(x)
        return Apply(self, [x], [_sparse_output(x.type.format, x.type.dtype)])

    def perform(self, node: Apply, inputs: Sequence[Any]) -> list[Any]:
        z = inputs[0].copy()
        z.eliminate_zeros()
        return [z]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[0]]

    def L_op(self, inputs, outputs, output_grads):
        return [output_grads[0]]


remove0 = Remove0()


class Diag(SparseOp):
    """The diagonal of a square sparse matrix, a dense vector (Theano's ``Diag``; a
    regular gradient, ``square_diagonal(gz)``)."""

    __props__ = ()
    _public = "diag"

    def make_node(self, x: Any) -> Apply:
        x = as_sparse_variable(x)
        return Apply(self, [x], [_tensor_output(x.type.dtype, (None,))])

    def perform(self, node: Apply, inputs: Sequence[Any]) -> list[np.ndarray]:
        (x,) = inputs
        if x.shape[0] != x.shape[1]:
            raise ValueError(f"Diag only applies to a square matrix; {label(node.inputs[0])} "
                             f"has shape {x.shape}")
        return [np.asarray(x.diagonal(), dtype=node.outputs[0].type.dtype)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        from symnb.core.tensor.math import minimum

        return [(minimum(*input_shapes[0]),)]

    def L_op(self, inputs, outputs, output_grads):
        return [square_diagonal(output_grads[0])]


diag = Diag()


class SquareDiagonal(SparseOp):
    """A square csc matrix whose diagonal is the dense vector ``diag`` (Theano's
    ``SquareDiagonal``; its gradient is ``diag(gz)``)."""

    __props__ = ()
    _public = "square_diagonal"

    def make_node(self, diag: Any) -> Apply:
        diag = as_tensor_variable(diag)
        if diag.type.ndim != 1:
            raise build_error(f"square_diagonal: {label(diag)} must be a vector, got "
                              f"{diag.type.short()}", TypeError)
        return Apply(self, [diag], [_sparse_output("csc", diag.type.dtype)])

    def perform(self, node: Apply, inputs: Sequence[Any]) -> list[Any]:
        values = np.array(inputs[0])
        n = len(values)
        return [scipy.sparse.csc_matrix((values, np.arange(n), np.arange(n + 1)), shape=(n, n))]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [(input_shapes[0][0], input_shapes[0][0])]

    def L_op(self, inputs, outputs, output_grads):
        return [diag(output_grads[0])]


square_diagonal = SquareDiagonal()


class EnsureSortedIndices(SparseOp):
    """``x`` with its indices sorted (SciPy's ``sorted_indices``); the gradient passes
    through. ``inplace`` is Theano's flag; symnb computes a copy."""

    __props__ = ("inplace",)
    _public = "ensure_sorted_indices"

    def __init__(self, inplace: bool = False) -> None:
        self.inplace = bool(inplace)

    def __str__(self) -> str:
        return f"EnsureSortedIndices{{{'inplace' if self.inplace else 'no_inplace'}}}"

    def make_node(self, x: Any) -> Apply:
        x = as_sparse_variable(x)
        return Apply(self, [x], [_sparse_output(x.type.format, x.type.dtype)])

    def perform(self, node: Apply, inputs: Sequence[Any]) -> list[Any]:
        return [inputs[0].sorted_indices()]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[0]]

    def L_op(self, inputs, outputs, output_grads):
        return [output_grads[0]]


ensure_sorted_indices = EnsureSortedIndices(inplace=False)


def clean(x: Any) -> Any:
    """``x`` without stored zeros and with sorted indices (Theano's ``clean``)."""
    return ensure_sorted_indices(remove0(x))
