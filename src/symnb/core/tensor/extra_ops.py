"""Theano's ``extra_ops`` and ``sort`` ops: cumulative sums and products, sorting,
and ``specify_shape`` (a length check that also tells the graph the static shape).

Each op has its NumPy ``perform``, ``infer_shape`` and ``L_op``; the lowering rules
are in ``symnb/lower_xla/rules/extra_ops.py``.
"""

from __future__ import annotations

import functools
import operator
from functools import lru_cache
from typing import Any, Sequence

import numpy as np

from symnb.core.graph.errors import build_error, label
from symnb.core.graph.basic import Apply, Variable
from symnb.core.graph.op import Op
from symnb.core.tensor import math as m
from symnb.core.tensor.alloc import arange, zeros_like
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.tensor.deep_copy import ViewOp
from symnb.core.tensor.shape import flatten, normalize_axis, reshape, shape
from symnb.core.tensor.specify_shape import SpecifyShape as SpecifyShape
from symnb.core.tensor.specify_shape import specify_shape as specify_shape
from symnb.core.tensor.subtensor import getitem, inc_subtensor
from symnb.core.graph.type import TensorType, is_float

__all__ = ["CumOp", "Sort", "Argsort", "SpecifyShape", "cumsum", "cumprod", "sort", "argsort",
           "specify_shape", "flip", "GradClip", "grad_clip", "Unique"]


@lru_cache(maxsize=None)
def _accumulated_dtype(mode: str, dtype: str) -> str:
    function = np.cumsum if mode == "add" else np.cumprod
    return str(function(np.zeros(1, dtype=dtype)).dtype)


def flip(x: Variable, axis: int) -> Variable:
    """``x`` reversed along ``axis`` (a view: ``x[..., ::-1, ...]``)."""
    index = [slice(None)] * x.ndim
    index[axis] = slice(None, None, -1)
    return getitem(x, tuple(index))


class CumOp(Op):
    """``np.cumsum`` (``mode='add'``) or ``np.cumprod`` (``mode='mul'``) along ``axis``
    (None: of the flattened input, a vector, as Theano's ``CumOp()``), in NumPy's
    accumulation dtype (small integers and bool accumulate in int64)."""

    __props__ = ("axis", "mode")

    def __init__(self, axis: int | None = None, mode: str = "add") -> None:
        if mode not in ("add", "mul"):
            raise ValueError(f"CumOp mode must be 'add' or 'mul', got {mode!r}")
        self.axis, self.mode = (None if axis is None else int(axis)), mode

    def make_node(self, x: Variable) -> Apply:
        x = as_tensor_variable(x)
        if self.axis is None:
            size = None if None in x.type.shape else functools.reduce(operator.mul, x.type.shape, 1)
            shape = (size,)
        else:
            normalize_axis(self.axis, x.ndim, x)  # an axis out of range raises, naming x
            shape = x.type.shape
        return Apply(self, [x], [TensorType(_accumulated_dtype(self.mode, x.dtype), shape)])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        function = np.cumsum if self.mode == "add" else np.cumprod
        dtype = node.outputs[0].type.dtype
        return [np.asarray(function(inputs[0], axis=self.axis, dtype=dtype), dtype=dtype)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        if self.axis is None:
            return [(functools.reduce(m.mul, input_shapes[0], 1),)]
        return [input_shapes[0]]

    def L_op(self, inputs, outputs, output_grads):
        (x,), (g,) = inputs, output_grads
        if not is_float(x.dtype):
            return [None]
        if self.axis is None:  # the flattened input's gradient, shaped back as x
            flat = CumOp(0, self.mode).L_op([flatten(x)], outputs, output_grads)[0]
            return [reshape(flat, shape(x))]
        axis = normalize_axis(self.axis, x.ndim, x)
        if self.mode == "add":  # each input reaches every later output
            return [flip(cumsum(flip(g, axis), axis), axis)]
        # Theano's rule: d cumprod / dx = reversed cumsum of (g * cumprod), over x (not
        # finite where x is zero, as in Theano).
        return [m.true_div(flip(cumsum(flip(m.mul(g, outputs[0]), axis), axis), axis), x)]


def _cumulative(mode: str, x: Any, axis: Any) -> Variable:
    x = as_tensor_variable(x)
    if axis is None:
        x, axis = flatten(x), 0
    return CumOp(normalize_axis(axis, x.ndim, x), mode)(x)


def cumsum(x: Any, axis: Any = None) -> Variable:
    """Cumulative sum along ``axis`` (None: of the flattened input), as ``np.cumsum``."""
    return _cumulative("add", x, axis)


def cumprod(x: Any, axis: Any = None) -> Variable:
    """Cumulative product along ``axis`` (None: of the flattened input), as ``np.cumprod``."""
    return _cumulative("mul", x, axis)


class Sort(Op):
    """``np.sort`` along ``axis`` (NaNs last, as NumPy and XLA)."""

    __props__ = ("axis",)

    def __init__(self, axis: int) -> None:
        self.axis = axis

    def make_node(self, x: Variable) -> Apply:
        x = as_tensor_variable(x)
        return Apply(self, [x], [x.type])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [np.sort(inputs[0], axis=self.axis)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[0]]

    def L_op(self, inputs, outputs, output_grads):
        (x,), (g,) = inputs, output_grads
        if not is_float(x.dtype):
            return [None]
        # Sorting permutes: each input receives the gradient of the place it moved to.
        order = Argsort(self.axis)(x)
        return [inc_subtensor(getitem(zeros_like(x), along_axis(order, self.axis)), g)]


class Argsort(Op):
    """``np.argsort(x, axis, kind='stable')`` (int64): ties keep their order, as XLA's
    stable sort does, so both paths give the same indices."""

    __props__ = ("axis",)

    def __init__(self, axis: int) -> None:
        self.axis = axis

    def make_node(self, x: Variable) -> Apply:
        x = as_tensor_variable(x)
        return Apply(self, [x], [TensorType("int64", x.type.shape)])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [np.argsort(inputs[0], axis=self.axis, kind="stable").astype("int64")]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[0]]

    def L_op(self, inputs, outputs, output_grads):
        return [None]


def along_axis(indices: Variable, axis: int) -> tuple:
    """The advanced index ``idx`` such that ``a[idx]`` is ``np.take_along_axis(a,
    indices, axis)``: ``indices`` at ``axis``, broadcast ranges elsewhere."""
    ndim = indices.ndim
    index = []
    for d in range(ndim):
        if d == axis:
            index.append(indices)
            continue
        pattern = ["x"] * ndim
        pattern[d] = 0
        index.append(arange(indices.shape[d]).dimshuffle(*pattern))
    return tuple(index)


def _sorting(op_class: type, x: Any, axis: Any, name: str) -> Variable:
    x = as_tensor_variable(x)
    if axis is None:
        x, axis = flatten(x), 0
    if x.ndim == 0:
        raise build_error(f"{name}: {label(x)!r} is a scalar; there is no axis to sort along",
                          ValueError, inputs=[x])
    return op_class(normalize_axis(axis, x.ndim, x))(x)


def sort(a: Any, axis: Any = -1, kind: str = "quicksort", order: Any = None) -> Variable:
    """``np.sort(a, axis)``; ``axis=None`` sorts the flattened input. ``kind`` is accepted
    (every kind gives the same values); ``order`` (structured arrays) is not supported."""
    if order is not None:
        raise NotImplementedError("sort: order= applies to structured arrays, which symnb lacks")
    return _sorting(Sort, a, axis, "sort")


def argsort(a: Any, axis: Any = -1, kind: str = "quicksort", order: Any = None) -> Variable:
    """``np.argsort(a, axis, kind='stable')`` as int64; ``axis=None`` on the flattened
    input. Ties keep their order whatever ``kind`` says (Theano's quicksort did not
    promise an order for ties)."""
    if order is not None:
        raise NotImplementedError("argsort: order= applies to structured arrays, which symnb lacks")
    return _sorting(Argsort, a, axis, "argsort")


class GradClip(ViewOp):
    """``x`` for values; for differentiation, the gradient reaching it clipped to
    ``[lower, upper]`` (Theano's ``theano.gradient.GradClip``, a ``ViewOp`` as there: the
    value rules, and the lowering, are the view's)."""

    __props__ = ("lower", "upper")

    def __init__(self, lower: float, upper: float) -> None:
        if not lower <= upper:
            raise build_error(f"grad_clip: the lower bound {lower!r} must not exceed the upper "
                              f"bound {upper!r}", ValueError)
        self.lower, self.upper = float(lower), float(upper)

    def L_op(self, inputs, outputs, output_grads):
        return [m.clip(output_grads[0], self.lower, self.upper)]


def grad_clip(x: Any, lower_bound: float, upper_bound: float) -> Variable:
    """``x``, through which the gradient flows clipped to ``[lower_bound, upper_bound]``
    (Theano's ``theano.gradient.grad_clip``; the bounds are numbers)."""
    return GradClip(lower_bound, upper_bound)(x)


def _distinct_count(x: Variable, axis: int | None) -> Variable:
    """How many distinct values (``axis=None``: elements, NaNs counted once, as NumPy's
    ``unique`` does) or distinct slices along ``axis`` ``x`` holds (int64)."""
    from symnb.core.tensor.reduction import all as all_, any as any_, sum as sum_

    if axis is None:
        ordered = sort(flatten(x, 1), axis=0)
        first, rest = ordered[:-1], ordered[1:]
        changes = m.neq(rest, first)
        if is_float(x.dtype):
            changes = m.and_(changes, m.invert(m.and_(m.isnan(rest), m.isnan(first))))
        return m.switch(m.gt(ordered.shape[0], 0), 1 + sum_(m.cast(changes, "int64")), 0)
    axis = normalize_axis(axis, x.ndim)
    moved = x.dimshuffle(axis, *(i for i in range(x.ndim) if i != axis))
    # one row per slice along ``axis`` (a vector's slices are its elements: rows of one)
    rows = flatten(moved, 2) if x.ndim > 1 else moved.dimshuffle(0, "x")
    same = all_(m.eq(rows.dimshuffle(0, "x", 1), rows.dimshuffle("x", 0, 1)), axis=2)
    earlier = m.lt(arange(rows.shape[0]).dimshuffle("x", 0), arange(rows.shape[0]).dimshuffle(0, "x"))
    return sum_(m.cast(m.invert(any_(m.and_(same, earlier), axis=1)), "int64"))


class Unique(Op):
    """``np.unique`` (Theano's ``T.extra_ops.Unique``): the sorted distinct values, then,
    as asked, the index of each one's first occurrence (``return_index``), the index of
    each element's value among them (``return_inverse``, over the flattened input when
    ``axis`` is None, as in Theano) and how often each occurs (``return_counts``).

    How many values are distinct depends on the values: a compiled function runs it on
    the host between two programs (``symnb.compile.split_program``)."""

    __props__ = ("return_index", "return_inverse", "return_counts", "axis")
    differentiable = False
    #: The outputs' lengths depend on the input's values (see ``Op.length_from_values``).
    length_from_values = True

    def __init__(self, return_index: bool = False, return_inverse: bool = False,
                 return_counts: bool = False, axis: int | None = None) -> None:
        self.return_index = bool(return_index)
        self.return_inverse = bool(return_inverse)
        self.return_counts = bool(return_counts)
        self.axis = axis

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        if self.axis is None:
            values = TensorType(x.dtype, (None,))
        else:
            axis = normalize_axis(self.axis, x.ndim)
            values = TensorType(x.dtype, tuple(None if i == axis else n
                                                for i, n in enumerate(x.type.shape)))
        outputs = [values]
        outputs += [TensorType("int64", (None,))] * (self.return_index + self.return_inverse
                                                      + self.return_counts)
        return Apply(self, [x], outputs)

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        # How many values are distinct, computed from the input as np.unique counts them
        # (NaNs as one value, for axis=None); the inverse has one entry per element.
        x = node.inputs[0]
        count = _distinct_count(x, self.axis)
        if self.axis is None:
            shapes = [(count,)]
            size = functools.reduce(operator.mul, input_shapes[0], 1)
        else:
            axis = normalize_axis(self.axis, x.ndim)
            shapes = [tuple(count if i == axis else n for i, n in enumerate(input_shapes[0]))]
            size = input_shapes[0][axis]
        shapes += [(count,)] * self.return_index
        shapes += [(size,)] * self.return_inverse
        shapes += [(count,)] * self.return_counts
        return shapes

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        found = np.unique(inputs[0], return_index=self.return_index,
                          return_inverse=self.return_inverse, return_counts=self.return_counts,
                          axis=self.axis)
        if not isinstance(found, tuple):
            found = (found,)
        outputs = [np.asarray(found[0], dtype=node.outputs[0].dtype)]
        # NumPy 2.0 shaped the inverse like the input; Theano's is flat (as NumPy 1's).
        outputs += [np.asarray(a, dtype=np.int64).reshape(-1) for a in found[1:]]
        return outputs

