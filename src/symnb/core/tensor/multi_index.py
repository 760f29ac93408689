"""Theano 1.0's ``UnravelIndex`` and ``RavelMultiIndex`` (``theano.tensor.extra_ops``):
NumPy's ``unravel_index`` (flat indices to one index array per dimension) and
``ravel_multi_index`` (the converse), with the shape ``dims`` an integer vector, symbolic
or not.

An index out of range raises ``ValueError``, as NumPy does (``mode='raise'``); the
lowering rules (``symnb/lower_xla/rules/extra_ops.py``) check it in the compiled program.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from symnb.core.graph.basic import Apply, Variable
from symnb.core.graph.errors import build_error, label
from symnb.core.graph.op import Op
from symnb.core.graph.type import TensorType
from symnb.core.tensor.basic import as_tensor_variable

__all__ = ["UnravelIndex", "unravel_index", "RavelMultiIndex", "ravel_multi_index"]

#: Theano's ``int_dtypes``: indices and shapes are signed integers.
_INDEX_DTYPES = ("int8", "int16", "int32", "int64")


def _index_operand(what: str, value: Any) -> Variable:
    var = as_tensor_variable(value)
    if var.dtype not in _INDEX_DTYPES:
        raise build_error(f"{what} {label(var)!r} ({var.dtype}) cannot be interpreted as an index: "
                          f"it must hold signed integers", TypeError, inputs=[var])
    return var


def _dims_operand(function: str, dims: Any) -> Variable:
    dims = _index_operand(f"{function}: the shape", dims)
    if dims.ndim != 1:
        raise build_error(f"{function}: the shape {label(dims)!r} ({dims.type.short()}) must be a "
                          f"1-d sequence of lengths", TypeError, inputs=[dims])
    return dims


class UnravelIndex(Op):
    """``np.unravel_index(indices, dims, order)``: ``ndim`` int64 arrays shaped as
    ``indices``, the coordinates of each flat index in an array of shape ``dims``."""

    __props__ = ("ndim", "order")
    differentiable = False

    def __init__(self, ndim: int, order: str = "C") -> None:
        if order not in ("C", "F"):
            raise ValueError(f"unravel_index: order must be 'C' or 'F', got {order!r}")
        if not isinstance(ndim, (int, np.integer)) or isinstance(ndim, bool) or ndim < 1:
            raise ValueError(f"unravel_index: ndim must be an integer greater than 0, got {ndim!r}")
        self.ndim, self.order = int(ndim), order

    def make_node(self, indices: Any, dims: Any) -> Apply:
        indices = _index_operand("unravel_index: the indices", indices)
        dims = _dims_operand("unravel_index", dims)
        if dims.type.shape[0] not in (None, self.ndim):
            raise build_error(f"unravel_index: the shape {label(dims)!r} has {dims.type.shape[0]} "
                              f"lengths, not ndim={self.ndim}", ValueError, inputs=[dims])
        out = TensorType("int64", indices.type.shape)
        return Apply(self, [indices, dims], [out] * self.ndim)

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        indices, dims = inputs
        if len(dims) != self.ndim:
            raise ValueError(f"unravel_index: the shape {tuple(dims)} has {len(dims)} lengths, "
                             f"not ndim={self.ndim}")
        found = np.unravel_index(indices, tuple(int(d) for d in dims), order=self.order)
        return [np.array(a, dtype="int64") for a in found]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[0]] * self.ndim

    def L_op(self, inputs, outputs, output_grads):
        return [None, None]


def unravel_index(indices: Any, dims: Any, order: str = "C", ndim: int | None = None) -> tuple:
    """``np.unravel_index``: a tuple of ``ndim`` index arrays (int64), the coordinates of
    the flat ``indices`` in an array of shape ``dims``; ``ndim`` is needed when the
    length of ``dims`` is not known while building (a symbolic vector)."""
    dims = _dims_operand("unravel_index", dims)
    if ndim is None:
        ndim = dims.type.shape[0]
        if ndim is None:
            raise build_error(f"unravel_index: the length of the shape {label(dims)!r} cannot be "
                              f"determined while building, so the number of index arrays is "
                              f"unknown; give ndim=", ValueError, inputs=[dims])
    result = UnravelIndex(ndim=ndim, order=order)(indices, dims, return_list=True)
    return tuple(result)


class RavelMultiIndex(Op):
    """``np.ravel_multi_index(multi_index, dims, mode, order)``: the flat index (int64) of
    each coordinate tuple; the inputs are the index arrays, then ``dims``. ``mode``:
    ``'raise'`` (out of range: ``ValueError``), ``'wrap'`` or ``'clip'``, as NumPy."""

    __props__ = ("mode", "order")
    differentiable = False

    def __init__(self, mode: str = "raise", order: str = "C") -> None:
        if mode not in ("raise", "wrap", "clip"):
            raise ValueError(f"ravel_multi_index: mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
        if order not in ("C", "F"):
            raise ValueError(f"ravel_multi_index: order must be 'C' or 'F', got {order!r}")
        self.mode, self.order = mode, order

    def make_node(self, *inputs: Any) -> Apply:
        if len(inputs) < 2:
            raise TypeError("ravel_multi_index: give the index arrays, then the shape")
        multi_index = [_index_operand("ravel_multi_index: the index", i) for i in inputs[:-1]]
        dims = _dims_operand("ravel_multi_index", inputs[-1])
        if dims.type.shape[0] not in (None, len(multi_index)):
            raise build_error(f"ravel_multi_index: {len(multi_index)} index arrays for the shape "
                              f"{label(dims)!r} of {dims.type.shape[0]} lengths", ValueError,
                              inputs=[dims])
        shape = _broadcast_shape([i.type.shape for i in multi_index])
        return Apply(self, [*multi_index, dims], [TensorType("int64", shape)])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        *multi_index, dims = inputs
        found = np.ravel_multi_index(tuple(multi_index), tuple(int(d) for d in dims),
                                     mode=self.mode, order=self.order)
        return [np.array(found, dtype="int64")]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        from symnb.core.tensor import math as m

        shapes = input_shapes[:-1]
        if len({len(s) for s in shapes}) != 1:
            raise NotImplementedError("ravel_multi_index: index arrays of different ranks")
        # The broadcast length of each axis: the longest (a length-1 axis stretches).
        out = []
        for lengths in zip(*shapes):
            kept = [n for n, var in zip(lengths, node.inputs) if var.type.shape[len(out)] != 1] or [1]
            longest = kept[0]
            for n in kept[1:]:
                longest = m.maximum(longest, n)
            out.append(longest)
        return [tuple(out)]

    def L_op(self, inputs, outputs, output_grads):
        return [None] * len(inputs)


def _broadcast_shape(shapes: Sequence[tuple]) -> tuple:
    from symnb.core.tensor.elemwise import broadcast_static_shapes

    return broadcast_static_shapes(shapes)


def ravel_multi_index(multi_index: Any, dims: Any, mode: str = "raise", order: str = "C") -> Variable:
    """``np.ravel_multi_index``: the flat indices (int64) of the coordinates
    ``multi_index`` (a tuple or list of index arrays) in an array of shape ``dims``."""
    if not isinstance(multi_index, (tuple, list)):
        raise TypeError("ravel_multi_index: multi_index must be a tuple or a list of index arrays")
    return RavelMultiIndex(mode=mode, order=order)(*multi_index, dims)
