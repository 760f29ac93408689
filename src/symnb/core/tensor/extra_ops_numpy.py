"""Theano 1.0's ``theano.tensor.extra_ops`` ops named after NumPy's functions:
``SearchsortedOp`` (``np.searchsorted``), ``RepeatOp`` (``np.repeat``), ``DiffOp`` (``np.diff``), ``Bartlett``
(``np.bartlett``), ``FillDiagonal`` (``np.fill_diagonal``), ``FillDiagonalOffset`` (the
same on the ``offset``-th diagonal of a matrix) and ``CpuContiguous``
(``np.ascontiguousarray``), with Theano's functions that build them, and ``bincount`` and
``compress``, which Theano built from other ops.

Each op has its NumPy ``perform``, ``infer_shape`` and ``L_op``; the lowering rules are
in ``symnb/lower_xla/rules/extra_ops.py``. ``Bartlett``'s and ``RepeatOp``'s lengths are
their inputs' values: they run on the host between two programs, as ``Unique`` does.
"""

from __future__ import annotations

import functools
from typing import Any, Sequence

import numpy as np

from symnb.core.graph.basic import Apply, Variable
from symnb.core.graph.errors import build_error, label
from symnb.core.graph.op import Op
from symnb.core.graph.type import TensorType, is_float, is_integer
from symnb.core.tensor import math as m
from symnb.core.tensor.alloc import alloc, arange, zeros, zeros_like
from symnb.core.tensor.assertion import Assert
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.tensor.join import concatenate
from symnb.core.tensor.reduction import all as all_, max as max_, sum as sum_
from symnb.core.tensor.shape import flatten, normalize_axis, reshape, shape, shape_i
from symnb.core.tensor.subtensor import flatnonzero, getitem, inc_subtensor

__all__ = ["SearchsortedOp", "searchsorted", "RepeatOp", "DiffOp", "diff", "Bartlett", "bartlett",
           "FillDiagonal", "fill_diagonal", "FillDiagonalOffset", "fill_diagonal_offset",
           "CpuContiguous", "cpu_contiguous", "bincount", "compress", "diagonal_mask"]

#: Theano's ``int_vector_types``: the sorter of ``searchsorted`` is a signed integer vector.
_SIGNED_INTEGERS = ("int8", "int16", "int32", "int64")


class SearchsortedOp(Op):
    """``np.searchsorted(x, v, side, sorter)`` (int64, shaped as ``v``): where each
    value of ``v`` goes in the sorted vector ``x`` (``x[sorter]`` when ``sorter`` is
    given). Its gradient is zero for ``x`` and ``v``, as in Theano (piecewise constant).
    On a vector that is not sorted the result is undefined, as in NumPy, and XLA's search
    may give other positions than NumPy's."""

    __props__ = ("side",)

    def __init__(self, side: str = "left") -> None:
        if side not in ("left", "right"):
            raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
        self.side = side

    def make_node(self, x: Any, v: Any, sorter: Any = None) -> Apply:
        x, v = as_tensor_variable(x), as_tensor_variable(v)
        if x.ndim != 1:
            raise build_error(f"searchsorted: {label(x)!r} ({x.type.short()}) must be a vector",
                              ValueError, inputs=[x])
        inputs = [x, v]
        if sorter is not None:
            sorter = as_tensor_variable(sorter)
            if sorter.ndim != 1:
                raise build_error(f"searchsorted: the sorter {label(sorter)!r} "
                                  f"({sorter.type.short()}) must be a vector", ValueError,
                                  inputs=[sorter])
            if sorter.dtype not in _SIGNED_INTEGERS:
                raise build_error(f"searchsorted: the sorter {label(sorter)!r} must be a signed "
                                  f"integer vector, not {sorter.dtype}", TypeError, inputs=[sorter])
            inputs.append(sorter)
        return Apply(self, inputs, [TensorType("int64", v.type.shape)])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        sorter = inputs[2] if len(inputs) == 3 else None
        return [np.asarray(np.searchsorted(inputs[0], inputs[1], side=self.side, sorter=sorter),
                           dtype="int64")]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[1]]

    def L_op(self, inputs, outputs, output_grads):
        zero = [zeros_like(i) if is_float(i.dtype) else None for i in inputs[:2]]
        return zero + [None] * (len(inputs) - 2)


def searchsorted(x: Any, v: Any, side: str = "left", sorter: Any = None) -> Variable:
    """``np.searchsorted``: the indices where the values ``v`` go in the sorted vector
    ``x`` (``sorter``: the indices that sort ``x``), int64, shaped as ``v``."""
    return SearchsortedOp(side=side)(x, v, sorter)


class RepeatOp(Op):
    """``np.repeat(x, repeats, axis)`` (Theano's ``RepeatOp``): each slice of ``x`` along
    ``axis`` (None: each element of the flattened ``x``) repeated ``repeats`` times, an
    integer scalar or one count per slice. The result's length is the counts' values: a
    compiled function runs it on the host between two programs. ``T.repeat`` builds it
    for a vector of counts only (a scalar count needs no host: ``shape_extra.repeat``)."""

    __props__ = ("axis",)
    #: The output's length is the counts' values (see ``Op.length_from_values``).
    length_from_values = True

    def __init__(self, axis: int | None = None) -> None:
        self.axis = None if axis is None else int(axis)

    def make_node(self, x: Any, repeats: Any) -> Apply:
        x, repeats = as_tensor_variable(x), as_tensor_variable(repeats)
        if not is_integer(repeats.dtype) or repeats.dtype == "uint64":
            # NumPy's repeat casts the counts to its index type, which uint64 does not fit
            raise build_error(f"repeat: the counts {label(repeats)!r} must be integers of a "
                              f"signed type or uint8..uint32, not {repeats.dtype}", TypeError,
                              inputs=[repeats])
        if repeats.ndim > 1:
            raise build_error(f"repeat: the counts {label(repeats)!r} must be a scalar or a "
                              f"vector, not {repeats.type.short()}", ValueError, inputs=[repeats])
        if self.axis is None:
            return Apply(self, [x, repeats], [TensorType(x.dtype, (None,))])
        axis = normalize_axis(self.axis, x.ndim, x)
        shape = list(x.type.shape)
        count = _constant_int(repeats)
        shape[axis] = shape[axis] * count if count is not None and shape[axis] is not None else None
        return Apply(self, [x, repeats], [TensorType(x.dtype, tuple(shape))])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [np.repeat(inputs[0], inputs[1].astype("int64"), axis=self.axis)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        x, repeats = node.inputs
        lengths = input_shapes[0]
        if self.axis is None:
            along = functools.reduce(m.mul, lengths, 1)
        else:
            along = lengths[normalize_axis(self.axis, x.ndim)]
        total = m.mul(along, repeats) if repeats.ndim == 0 else sum_(repeats, dtype="int64")
        if self.axis is None:
            return [(m.cast(total, "int64"),)]
        shape = list(lengths)
        shape[normalize_axis(self.axis, x.ndim)] = m.cast(total, "int64")
        return [tuple(shape)]

    def L_op(self, inputs, outputs, output_grads):
        (x, repeats), (g,) = inputs, output_grads
        if not is_float(x.dtype):
            return [None, None]
        # Each output slice came from the input slice at its position in
        # repeat(arange(n), repeats): the gradient adds them up there.
        flat = self.axis is None
        target = flatten(x) if flat else x
        axis = 0 if flat else normalize_axis(self.axis, x.ndim, x)
        origin = RepeatOp(axis=0)(arange(shape_i(target, axis)), repeats)
        summed = inc_subtensor(getitem(zeros_like(target), (slice(None),) * axis + (origin,)), g)
        return [reshape(summed, shape(x)) if flat else summed, None]


def _constant_int(var: Variable) -> int | None:
    """The value of a constant integer scalar, else None."""
    data = getattr(var, "data", None)
    return int(data) if data is not None and np.ndim(data) == 0 else None


class DiffOp(Op):
    """``np.diff(x, n, axis)``: the ``n``-th discrete difference along ``axis`` (``n`` fewer
    entries along it, none when ``n`` reaches its length)."""

    __props__ = ("n", "axis")

    def __init__(self, n: int = 1, axis: int = -1) -> None:
        if int(n) < 0:
            raise ValueError(f"diff: the order n must be at least 0, got {n!r}")
        self.n, self.axis = int(n), int(axis)

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        axis = normalize_axis(self.axis, x.ndim, x)
        shape = list(x.type.shape)
        if shape[axis] is not None:
            shape[axis] = max(shape[axis] - self.n, 0)
        return Apply(self, [x], [TensorType(x.dtype, tuple(shape))])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [np.asarray(np.diff(inputs[0], n=self.n, axis=self.axis), dtype=node.outputs[0].dtype)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        shape = list(input_shapes[0])
        axis = normalize_axis(self.axis, len(shape))
        shape[axis] = m.maximum(m.sub(shape[axis], self.n), 0)
        return [tuple(shape)]

    def L_op(self, inputs, outputs, output_grads):
        (x,), (g,) = inputs, output_grads
        if not is_float(x.dtype):
            return [None]
        axis = normalize_axis(self.axis, x.ndim, x)
        if self.n and _static_length(x, axis) is not None and _static_length(x, axis) <= self.n:
            return [zeros_like(x)]  # no difference reaches the output
        # The adjoint of one difference (out[i] = x[i+1] - x[i]): pad the gradient with a
        # zero before and after along ``axis``, and subtract.
        for _ in range(self.n):
            lengths = [shape_i(g, d) for d in range(g.ndim)]
            lengths[axis] = 1
            pad = alloc(m.cast(0, g.dtype), *lengths)
            g = m.sub(concatenate([pad, g], axis), concatenate([g, pad], axis))
        return [g]


def _static_length(x: Variable, axis: int) -> int | None:
    return x.type.shape[axis]


def diff(x: Any, n: int = 1, axis: int = -1) -> Variable:
    """``np.diff``: the ``n``-th discrete difference of ``x`` along ``axis``."""
    return DiffOp(n=n, axis=axis)(x)


class Bartlett(Op):
    """``np.bartlett(M)``: the Bartlett (triangular) window of ``M`` points (float64;
    empty for ``M`` below 1). Its length is ``M``'s value: a compiled function runs it
    on the host between two programs."""

    __props__ = ()
    differentiable = False
    #: The output's length is the input's value (see ``Op.length_from_values``).
    length_from_values = True

    def make_node(self, M: Any) -> Apply:
        M = as_tensor_variable(M)
        if M.ndim != 0:
            raise build_error(f"bartlett: the number of points {label(M)!r} must be a scalar, "
                              f"not {M.type.short()}", TypeError, inputs=[M])
        if not is_integer(M.dtype):
            raise build_error(f"bartlett: the number of points {label(M)!r} must be an integer, "
                              f"not {M.dtype}", TypeError, inputs=[M])
        return Apply(self, [M], [TensorType("float64", (None,))])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [np.bartlett(int(inputs[0])).astype("float64")]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        M = node.inputs[0]
        return [(m.cast(m.maximum(M, 0), "int64"),)]

    def L_op(self, inputs, outputs, output_grads):
        return [None]


def bartlett(M: Any) -> Variable:
    """``np.bartlett(M)``: the Bartlett window of ``M`` points (float64)."""
    return Bartlett()(M)


def diagonal_mask(x: Variable, offset: Any = 0) -> Variable:
    """A bool tensor shaped as ``x``: true on its diagonal (every index equal; for a
    matrix, where ``column - row == offset``)."""
    ndim = x.ndim
    positions = []
    for d in range(ndim):
        pattern = ["x"] * ndim
        pattern[d] = 0
        positions.append(arange(shape_i(x, d)).dimshuffle(*pattern))
    if ndim == 2:
        return m.eq(m.sub(positions[1], positions[0]), offset)
    mask = m.eq(positions[0], positions[1])
    for position in positions[2:]:
        mask = m.and_(mask, m.eq(positions[0], position))
    return mask


def _diagonal_value(op_name: str, a: Variable, val: Any) -> Variable:
    """``val`` as a scalar of ``a``'s dtype, as Theano's ``FillDiagonal`` takes it (the
    two dtypes' upcast must be ``a``'s: a value that would widen ``a`` is refused)."""
    val = as_tensor_variable(val)
    if val.ndim != 0:
        raise build_error(f"{op_name}: the value {label(val)!r} must be a scalar, not "
                          f"{val.type.short()}", TypeError, inputs=[val])
    if str(np.result_type(a.dtype, val.dtype)) != a.dtype:
        raise build_error(f"{op_name}: the value {label(val)!r} ({val.dtype}) does not fit "
                          f"{label(a)!r} ({a.dtype}) without widening it", TypeError,
                          inputs=[a, val])
    return m.cast(val, a.dtype) if val.dtype != a.dtype else val


class FillDiagonal(Op):
    """``a`` with its main diagonal set to the scalar ``val`` (``np.fill_diagonal``, not in
    place); beyond 2 dimensions every axis has the same length, as NumPy requires."""

    __props__ = ()

    def make_node(self, a: Any, val: Any) -> Apply:
        a = as_tensor_variable(a)
        if a.ndim < 2:
            raise build_error(f"fill_diagonal: {label(a)!r} ({a.type.short()}) needs at least 2 "
                              f"dimensions", TypeError, inputs=[a])
        return Apply(self, [a, _diagonal_value("fill_diagonal", a, val)], [a.type])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        a = np.array(inputs[0], copy=True)
        np.fill_diagonal(a, inputs[1])
        return [a]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[0]]

    def L_op(self, inputs, outputs, output_grads):
        (a, val), (g,) = inputs, output_grads
        if not is_float(a.dtype):
            return [None, None]
        on_diagonal = diagonal_mask(g)
        return [FillDiagonal()(g, m.cast(0, g.dtype)),
                sum_(m.switch(on_diagonal, g, m.cast(0, g.dtype)))]


def fill_diagonal(a: Any, val: Any) -> Variable:
    """Theano's ``fill_diagonal(a, val)``: ``a`` with its main diagonal set to ``val``."""
    return FillDiagonal()(a, val)


class FillDiagonalOffset(Op):
    """The matrix ``a`` with its ``offset``-th diagonal (above the main one for a positive
    ``offset``, below for a negative one, as ``np.diag(a, offset)`` reads it) set to the
    scalar ``val``."""

    __props__ = ()

    def make_node(self, a: Any, val: Any, offset: Any) -> Apply:
        a, offset = as_tensor_variable(a), as_tensor_variable(offset)
        if a.ndim != 2:
            raise build_error(f"fill_diagonal_offset: {label(a)!r} ({a.type.short()}) must be a "
                              f"matrix", TypeError, inputs=[a])
        if offset.ndim != 0 or not is_integer(offset.dtype):
            raise build_error(f"fill_diagonal_offset: the offset {label(offset)!r} must be an "
                              f"integer scalar, not {offset.type.short()}", TypeError,
                              inputs=[offset])
        return Apply(self, [a, _diagonal_value("fill_diagonal_offset", a, val), offset], [a.type])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        a, val, offset = np.array(inputs[0], copy=True), inputs[1], int(inputs[2])
        rows = np.arange(max(0, -offset), min(a.shape[0], a.shape[1] - offset))
        a[rows, rows + offset] = val
        return [a]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[0]]

    def L_op(self, inputs, outputs, output_grads):
        (a, val, offset), (g,) = inputs, output_grads
        if not is_float(a.dtype):
            return [None, None, None]
        on_diagonal = diagonal_mask(g, offset)
        return [FillDiagonalOffset()(g, m.cast(0, g.dtype), offset),
                sum_(m.switch(on_diagonal, g, m.cast(0, g.dtype))), None]


def fill_diagonal_offset(a: Any, val: Any, offset: Any) -> Variable:
    """Theano's ``fill_diagonal_offset(a, val, offset)``: the matrix ``a`` with its
    ``offset``-th diagonal set to ``val``."""
    return FillDiagonalOffset()(a, val, offset)


class CpuContiguous(Op):
    """``x`` as a C-contiguous array (``np.ascontiguousarray``): the same values; every
    array a compiled function returns is C-contiguous already."""

    __props__ = ()

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        return Apply(self, [x], [x.type])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [np.ascontiguousarray(inputs[0])]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[0]]

    def L_op(self, inputs, outputs, output_grads):
        return [output_grads[0]]


def cpu_contiguous(x: Any) -> Variable:
    """Theano's ``cpu_contiguous(x)``: ``x``, C-contiguous."""
    return CpuContiguous()(x)


def bincount(x: Any, weights: Any = None, minlength: Any = None,
             assert_nonneg: bool = False) -> Variable:
    """``np.bincount`` (Theano's function): how often each value ``0..max(x)`` occurs in
    the integer vector ``x`` (the sum of ``weights`` at its positions when given), at
    least ``minlength`` entries, of ``x``'s dtype (``weights``' when given), as Theano.
    ``assert_nonneg``: raise when ``x`` has a negative value (Theano's ``Assert``);
    otherwise a negative value counts from the end, as Theano's indexing did."""
    x = as_tensor_variable(x)
    if x.ndim != 1:
        raise build_error(f"bincount: {label(x)!r} ({x.type.short()}) must be a vector",
                          TypeError, inputs=[x])
    if assert_nonneg:
        x = Assert("Input to bincount has negative values!")(x, all_(m.ge(x, 0)))
    length = m.cast(m.add(max_(x), 1), "int64")
    if minlength is not None:
        length = m.maximum(length, minlength)
    counted = as_tensor_variable(weights) if weights is not None else m.cast(1, x.dtype)
    out = zeros([length], dtype=counted.dtype)
    return inc_subtensor(getitem(out, x), counted)


def compress(condition: Any, x: Any, axis: Any = None) -> Variable:
    """``np.compress``: the slices of ``x`` along ``axis`` (None: of the flattened ``x``)
    where ``condition`` is true (Theano's function: ``x.take(flatnonzero(condition))``)."""
    x = as_tensor_variable(x)
    indices = flatnonzero(condition)
    if axis is None:
        return getitem(flatten(x), indices)
    axis = normalize_axis(axis, x.ndim, x)
    return getitem(x, (slice(None),) * axis + (indices,))
