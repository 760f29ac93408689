"""Theano's structured elementwise functions of a sparse matrix (``structured_monoid``:
``sin``, ``sqrt``, ``structured_exp``, ``structured_add(x, 2)``...): a tensor elementwise
op applied to the stored entries only, the result of ``x``'s format and pattern.

Theano builds each from ``csm_properties``, the tensor op on the data, and ``CSM``;
symnb holds the composition in one op, :class:`StructuredElemwise`, whose parameter is
the tensor op, so that it also lowers on a dense matrix (``rules/sparse.py``: the tensor
op's own rule, kept at the stored entries). Its gradient is Theano's: structured.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from symnb.core.graph.basic import Apply, Variable
from symnb.core.graph.evaluate import run_node
from symnb.core.graph.type import TensorType
from symnb.core.sparse.ops import SparseOp, as_sparse_variable, dense_from_sparse, mul_s_d, sp_ones_like
from symnb.core.sparse.type import SparseType
from symnb.core.tensor.basic import as_tensor_variable

__all__ = ["StructuredElemwise", "structured_monoid"]


class StructuredElemwise(SparseOp):
    """``tensor_op`` (an elementwise op) on the stored entries of a sparse matrix, with
    scalar operands after it (``structured_pow(x, 2)``); named ``name``."""

    __props__ = ("tensor_op", "name")
    reads_pattern = True  # f(0) is no entry: a stored zero would give f(0)

    def __init__(self, tensor_op: Any, name: str) -> None:
        self.tensor_op = tensor_op
        self.name = name

    def public_name(self) -> str:
        return self.name

    def display_name(self) -> str:
        return f"Structured{{{self.name}}}"

    def inner_node(self, dtype: str, scalars: Sequence[Variable]) -> Apply:
        """The tensor op's node on a vector of ``dtype`` (the stored entries) and the
        scalars: its output type is the entries' type, its perform and rule compute them."""
        entries = TensorType.variable_type(TensorType(dtype, (None,)))
        return self.tensor_op.make_node(entries, *scalars)

    def make_node(self, x: Any, *scalars: Any) -> Apply:
        x = as_sparse_variable(x)
        scalars = [as_tensor_variable(s) for s in scalars]
        for s in scalars:
            if s.type.ndim != 0:
                raise TypeError(f"{self.name}: the operands after the sparse matrix must be "
                                f"scalars, got {s.type.short()}")
        dtype = self.inner_node(x.type.dtype, scalars).outputs[0].type.dtype
        return Apply(self, [x, *scalars], [SparseType.variable_type(SparseType(x.type.format, dtype))])

    def perform(self, node: Apply, inputs: Sequence[Any]) -> list[Any]:
        x, *scalars = inputs
        inner = self.inner_node(x.dtype.name, node.inputs[1:])
        (data,) = run_node(inner, [x.data, *scalars])
        out = x.astype(node.outputs[0].type.dtype)  # x's pattern, entries replaced
        out.data = np.asarray(data, dtype=node.outputs[0].type.dtype)
        return [out]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[0]]

    def L_op(self, inputs, outputs, output_grads):
        from symnb.core.gradient import grad
        from symnb.core.tensor.math import neq, switch

        x, *scalars = inputs
        (g,) = output_grads
        if np.dtype(x.type.dtype).kind not in "fc":
            return [None] * len(inputs)
        # The derivative at the stored entries only: elsewhere the entries are replaced
        # by 0.5, where every function here is finite, so no NaN of f'(0) (log, sqrt)
        # reaches a sum (the scalars' gradients).
        stored = neq(dense_from_sparse(sp_ones_like(x)), 0)
        entries = switch(stored, dense_from_sparse(x), np.asarray(0.5, dtype=x.type.dtype))
        values = self.tensor_op(entries, *scalars)
        cost = (values * dense_from_sparse(g)).sum()
        wrt = [entries] + [s for s in scalars if s.owner is not None or not hasattr(s, "data")]
        grads = grad(cost, wrt, disconnected_inputs="ignore")
        by_scalar = dict(zip(map(id, wrt[1:]), grads[1:]))
        return [mul_s_d(sp_ones_like(x), grads[0])] + [by_scalar.get(id(s)) for s in scalars]


def structured_monoid(tensor_op: Any, name: str) -> Any:
    """The function ``name(x, *scalars)``: ``tensor_op`` on the stored entries of ``x``
    (Theano's decorator of the same name, as a function of the op)."""
    op = StructuredElemwise(tensor_op, name)

    def structured(x: Any, *scalars: Any) -> Variable:
        return op(x, *scalars)

    structured.__name__ = structured.__qualname__ = name
    structured.__doc__ = f"``{name}`` of the stored entries of a sparse matrix (structured)."
    structured.op = op
    return structured
