"""Theano's ``TopKOp`` (``theano.tensor.sort``): the ``k`` largest values along an axis
(the ``|k|`` smallest for a negative ``k``), their indices, or both.

The order is defined, so that a test value and the compiled program agree: the values
come largest first (smallest first for a negative ``k``), and equal values by their
position, as a stable sort gives them. Theano 1.0 refused ``sorted=True`` and left the
order to ``numpy.argpartition``; symnb gives the sorted order whatever ``sorted`` says.
NaN counts as smaller than any number for the largest values and larger for the
smallest (NumPy's sort puts it last in both keys), as Theano's ``argpartition(-x)`` had it.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from symnb.core.graph.basic import Apply, Constant, Variable
from symnb.core.graph.errors import build_error, label
from symnb.core.graph.op import Op
from symnb.core.graph.type import TensorType, is_integer
from symnb.core.tensor.alloc import zeros_like
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.tensor.extra_ops import along_axis
from symnb.core.tensor.shape import flatten, normalize_axis
from symnb.core.tensor.subtensor import getitem, set_subtensor

__all__ = ["TopKOp", "topk", "argtopk", "topk_and_argtopk", "sort_key", "topk_order", "check_k"]


def sort_key(xp: Any, x: Any, largest: bool) -> Any:
    """What a stable ascending sort orders to put the wanted values first: ``x`` for the
    smallest; for the largest ``-x`` of floats and ``~x`` of integers and bools (decreasing
    like ``-x``, without its overflow at the smallest integer). ``xp``: NumPy or jax.numpy."""
    if not largest:
        return x
    return -x if x.dtype.kind in "fc" else xp.invert(x)


def topk_order(xp: Any, x: Any, k: int, axis: int) -> Any:
    """The positions of the ``k`` values ``TopKOp`` picks along ``axis``, by one stable
    sort (``xp``: NumPy for ``perform``, jax.numpy for the lowering, so both agree)."""
    order = xp.argsort(sort_key(xp, x, k > 0), axis=axis, stable=True)
    return xp.take(order, np.arange(abs(k)), axis=axis)


class TopKOp(Op):
    """``[values, indices]`` of the ``k`` largest entries of ``x`` along ``axis`` (the
    ``|k|`` smallest for ``k < 0``), as Theano's ``TopKOp(axis, sorted, idx_dtype,
    return_values, return_indices)(x, kth)``; see the module docstring for the order."""

    __props__ = ("axis", "sorted", "return_values", "return_indices", "idx_dtype")

    def __init__(self, axis: int = -1, sorted: bool = True, idx_dtype: str = "int64",  # noqa: A002
                 return_values: bool = True, return_indices: bool = True) -> None:
        if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
            raise TypeError(f'"axis" parameter must be integer, got "{type(axis).__name__}"')
        if not is_integer(str(np.dtype(idx_dtype))):
            raise TypeError(f'"idx_dtype" parameter must be an integer dtype, got "{idx_dtype}"')
        if not (return_values or return_indices):
            raise ValueError("Neither return_values nor return_indices is True, this isn't allowed")
        self.axis, self.sorted, self.idx_dtype = int(axis), bool(sorted), str(np.dtype(idx_dtype))
        self.return_values, self.return_indices = bool(return_values), bool(return_indices)

    def make_node(self, x: Any, kth: Any) -> Apply:
        x, kth = as_tensor_variable(x), as_tensor_variable(kth)
        if x.ndim == 0:
            raise build_error(f"topk: {label(x)!r} is a scalar; it needs an axis", ValueError,
                              op=self, inputs=[x])
        axis = normalize_axis(self.axis, x.ndim, x)
        if kth.ndim != 0 or not is_integer(kth.dtype):
            raise build_error(f"topk: k ({label(kth)!r}, {kth.type.short()}) must be an integer "
                              "scalar", TypeError, op=self, inputs=[kth])
        k = int(kth.data) if isinstance(kth, Constant) else None
        if k is not None:
            check_k(k, x.type.shape[axis], lambda message: build_error(message, ValueError, op=self,
                                                                         inputs=[x, kth]))
        shape = list(x.type.shape)
        shape[axis] = None if k is None else abs(k)
        outputs = []
        if self.return_values:
            outputs.append(TensorType(x.dtype, tuple(shape)))
        if self.return_indices:
            outputs.append(TensorType(self.idx_dtype, tuple(shape)))
        return Apply(self, [x, kth], outputs)

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x, k = np.asarray(inputs[0]), int(inputs[1])
        axis = self.axis % x.ndim
        check_k(k, x.shape[axis], ValueError)
        return self.results(np, x, topk_order(np, x, k, axis), axis)

    def results(self, xp: Any, x: Any, order: Any, axis: int) -> list[Any]:
        """The outputs (values, indices, or both) at the positions ``order`` picked."""
        results = []
        if self.return_values:
            results.append(xp.take_along_axis(x, order, axis=axis))
        if self.return_indices:
            results.append(order.astype(self.idx_dtype))
        return results

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        from symnb.core.tensor import math as m

        shape = list(input_shapes[0])
        shape[self.axis % len(shape)] = m.abs(node.inputs[1])
        return [tuple(shape)] * len(node.outputs)

    def L_op(self, inputs, outputs, output_grads):
        # Theano's: the values' gradient goes back to the positions they came from.
        x, kth = inputs
        if not self.return_values or output_grads[0] is None:
            return [None, None]  # the indices are integers: no gradient flows through them
        if self.return_indices:
            indices = outputs[1]
        else:
            indices = TopKOp(self.axis, self.sorted, self.idx_dtype, return_values=False)(x, kth)
        placed = getitem(zeros_like(x, dtype=output_grads[0].dtype), along_axis(indices, self.axis % x.ndim))
        return [set_subtensor(placed, output_grads[0]), None]


def check_k(k: int, length: int | None, error: Any) -> None:
    """Raise ``error(message)`` for a ``k`` of 0 or of more values than ``length``."""
    if k == 0:
        raise error("topk: k must not be 0")
    if length is not None and abs(k) > length:
        raise error(f"topk: |k| = {abs(k)} is more than the {length} values along the axis")


def _topk(x: Any, kth: Any, axis: Any, sorted: bool, idx_dtype: str, **returns: bool) -> Any:  # noqa: A002
    x = as_tensor_variable(x)
    if axis is None:
        x, axis = flatten(x), 0
    return TopKOp(axis=axis, sorted=sorted, idx_dtype=idx_dtype, **returns)(x, kth)


def topk(x: Any, kth: Any, axis: Any = -1, sorted: bool = True, idx_dtype: str = "int64") -> Variable:  # noqa: A002
    """The ``kth`` largest values of ``x`` along ``axis`` (the ``|kth|`` smallest for a
    negative ``kth``; ``axis=None``: of the flattened ``x``), largest first (Theano's
    ``T.topk``; see the module docstring for the order)."""
    return _topk(x, kth, axis, sorted, idx_dtype, return_indices=False)


def argtopk(x: Any, kth: Any, axis: Any = -1, sorted: bool = True, idx_dtype: str = "int64") -> Variable:  # noqa: A002
    """The indices along ``axis`` of what :func:`topk` gives, as ``idx_dtype``."""
    return _topk(x, kth, axis, sorted, idx_dtype, return_values=False)


def topk_and_argtopk(x: Any, kth: Any, axis: Any = -1, sorted: bool = True,  # noqa: A002
                     idx_dtype: str = "int64") -> tuple[Variable, Variable]:
    """``(topk(...), argtopk(...))`` from one node."""
    return tuple(_topk(x, kth, axis, sorted, idx_dtype))
