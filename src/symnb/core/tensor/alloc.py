"""Array creation: ``zeros``, ``ones``, ``full``, the ``*_like`` family, ``fill``, ``alloc``,
``arange``, ``eye`` and ``identity_like``.

Lengths may be ints or symbolic int scalars; when they are known statically, so is
the result's shape. As in Theano, float results default to ``config.floatX``
(``T.ones((3, 2))`` is float32 by default) and integer ``arange`` to int64.

The ops here are not folded nor evaluated at trace time even when their inputs are
static (``costly_to_fold``, see ``symnb.core.graph.static``): a large constant is better made
on the device than baked into the program. Their lowering rules keep small results
static.
"""

from __future__ import annotations

import math
import numbers
from typing import Any, Sequence

import numpy as np

from symnb.core.graph.config import config
from symnb.core.graph.errors import build_error
from symnb.core.graph.basic import Apply, Variable
from symnb.core.graph.op import Op
from symnb.core.graph.static import static_value
from symnb.core.tensor import math as m
from symnb.core.tensor.basic import as_tensor_variable, constant
from symnb.core.tensor.broadcast import sum_to_shape
from symnb.core.tensor.shape import (
    as_shape_vector, named, shape, shape_i, static_entries, vector_entries,
)
from symnb.core.graph.type import TensorType, describe_shape, is_integer

__all__ = [
    "alloc", "zeros", "ones", "full", "zeros_like", "ones_like", "full_like", "fill",
    "arange", "eye", "tri", "identity_like", "Alloc", "Arange", "Eye", "Tri",
]


# -- Alloc: a value broadcast to a shape ------------------------------------------------------

def alloc_problem(name: str, value_shape: Sequence[int | None],
                  target: Sequence[int | None]) -> str | None:
    """Why a value of ``value_shape`` cannot fill ``target`` (None when it can; ``None``
    lengths are unknown and match anything)."""
    if any(n is not None and n < 0 for n in target):
        return f"negative dimensions are not allowed: shape {describe_shape(target)}"
    offset = len(target) - len(value_shape)
    if offset < 0 or any(v not in (None, 1) and target[offset + i] not in (None, v)
                         for i, v in enumerate(value_shape)):
        return (f"{name} of shape {describe_shape(value_shape)} cannot be broadcast to shape "
                f"{describe_shape(target)}")
    return None


class Alloc(Op):
    """``value`` broadcast to a shape given as an int64 vector: ``Alloc()(value, shape)``,
    or as Theano's ``Alloc()(value, *lengths)`` (ints or int scalars, made that vector)."""

    costly_to_fold = True  # the result may be far larger than its inputs

    def scalar_source(self, node: Apply, known: Any) -> Variable:
        return node.inputs[0]  # every element is the value's (a scalar's, Theano's look)

    def make_node(self, value: Any, *shape: Any) -> Apply:
        value = as_tensor_variable(value)
        vector = len(shape) == 1 and (isinstance(shape[0], (list, tuple))
                                      or isinstance(shape[0], Variable) and shape[0].ndim == 1)
        shape_vec = shape[0] if vector and isinstance(shape[0], Variable) else \
            as_shape_vector(shape[0] if vector else shape)
        entries = static_entries(shape_vec)
        problem = alloc_problem(named(value), value.type.shape, entries)
        if problem is not None:
            raise build_error(problem)
        offset = len(entries) - value.ndim
        out: list[int | None] = []
        for axis, length in enumerate(entries):
            inner = value.type.shape[axis - offset] if axis >= offset else None
            # A known value length other than 1 fixes the output's length too.
            out.append(length if length is not None else (inner if inner != 1 else None))
        return Apply(self, [value, shape_vec], [TensorType(value.dtype, out)])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        value, target = inputs
        target = tuple(int(n) for n in target)
        problem = alloc_problem(named(node.inputs[0]), value.shape, target)
        if problem is not None:
            raise ValueError(problem)
        return [np.array(np.broadcast_to(value, target), dtype=node.outputs[0].type.dtype)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        entries = vector_entries(node.inputs[1], node.outputs[0].ndim)
        static = node.outputs[0].type.shape
        return [tuple(s if s is not None else e for s, e in zip(static, entries))]

    def L_op(self, inputs, outputs, output_grads):
        value, _ = inputs
        return [sum_to_shape(output_grads[0], value), None]


def _value(fill_value: Any, dtype: Any) -> Variable:
    """``fill_value`` as a tensor; of ``dtype`` when given (a Python float alone is floatX,
    a Python int int64, as ``np.full``: ``T.full`` is NumPy's, not Theano's)."""
    if isinstance(fill_value, Variable):
        return fill_value if dtype is None else m.cast(fill_value, dtype)
    if dtype is None and isinstance(fill_value, int) and not isinstance(fill_value, bool):
        dtype = "int64"
    return constant(fill_value, dtype=dtype)


def alloc(value: Any, *shape: Any) -> Variable:
    """``value`` broadcast to the shape given by the ints or int scalars ``shape`` (Theano)."""
    return Alloc()(as_tensor_variable(value), as_shape_vector(shape, what="alloc shape"))


def full(shape: Any, fill_value: Any, dtype: Any = None) -> Variable:
    """An array of ``shape`` filled with ``fill_value`` (``np.full``; a Python float fill
    gives ``floatX``)."""
    return Alloc()(_value(fill_value, dtype), as_shape_vector(shape, what="full shape"))


def zeros(shape: Any, dtype: Any = None) -> Variable:
    """An array of zeros of ``shape`` (ints or int scalars); dtype defaults to floatX."""
    return full(shape, 0, config.floatX if dtype is None else dtype)


def ones(shape: Any, dtype: Any = None) -> Variable:
    """An array of ones of ``shape`` (ints or int scalars); dtype defaults to floatX."""
    return full(shape, 1, config.floatX if dtype is None else dtype)


def full_like(x: Any, fill_value: Any, dtype: Any = None) -> Variable:
    """An array shaped like ``x`` filled with ``fill_value``, of ``x``'s dtype by default."""
    x = as_tensor_variable(x)
    return Alloc()(_value(fill_value, x.dtype if dtype is None else dtype), shape(x))


def zeros_like(x: Any, dtype: Any = None) -> Variable:
    """Zeros shaped like ``x``, of ``x``'s dtype by default."""
    return full_like(x, 0, dtype)


def ones_like(x: Any, dtype: Any = None) -> Variable:
    """Ones shaped like ``x``, of ``x``'s dtype by default."""
    return full_like(x, 1, dtype)


def fill(model: Any, value: Any) -> Variable:
    """``value`` broadcast to ``model``'s shape (Theano's ``fill``, its elementwise
    ``second``: where ``value`` is the longer, or ``model`` has length 1, the two shapes
    broadcast together). The result has ``value``'s dtype, a Python number's Theano's
    constant dtype (``fill(x_float32, 1)`` is int8, ``fill(x_int32, 1.5)`` floatX)."""
    model, value = as_tensor_variable(model), as_tensor_variable(value)
    if value.ndim <= model.ndim and all(n == 1 for n in value.type.shape):
        return Alloc()(value, shape(model))  # (the usual case: a scalar or ones)
    return Alloc()(value, as_shape_vector(_broadcast_lengths(model, value)))


def _broadcast_lengths(a: Variable, b: Variable) -> list[Any]:
    """The lengths of ``a`` and ``b`` broadcast together (Theano's Elemwise rule): ints
    where the static shapes tell, else symbolic scalars (Alloc checks that ``b`` fits)."""
    ndim = max(a.ndim, b.ndim)
    lengths = []
    for axis in range(ndim):
        pair = [(v.type.shape[axis - ndim + v.ndim], v, axis - ndim + v.ndim)
                for v in (a, b) if axis - ndim + v.ndim >= 0]
        stretching = [p for p in pair if p[0] != 1]  # a length-1 axis takes the other's
        if not stretching:
            lengths.append(1)
        elif len(stretching) == 1 or stretching[0][0] is not None:
            n, v, i = stretching[0]
            lengths.append(n if n is not None else shape_i(v, i))
        elif stretching[1][0] is not None:
            lengths.append(stretching[1][0])
        else:  # both unknown: the other's where the first is 1 at run time
            (_, x, i), (_, y, j) = stretching
            lengths.append(m.switch(m.eq(shape_i(x, i), 1), shape_i(y, j), shape_i(x, i)))
    return lengths


# -- arange ---------------------------------------------------------------------------------

def _arange_dtype(bounds: Sequence[Any]) -> str:
    """int64 when every bound is an integer; else the floats' dtype, a Python float
    counting as floatX (Theano's rule; NumPy would say float64)."""
    floats = []
    for b in bounds:
        dtype = np.dtype(b.dtype) if isinstance(b, Variable) else np.asarray(b).dtype
        if dtype.kind == "c":
            raise build_error(f"arange: complex bounds are not supported, got {b!r}", TypeError)
        if dtype.kind == "f":
            floats.append(config.floatX if isinstance(b, float) else str(dtype))
    return str(np.result_type(*floats)) if floats else "int64"


def _bound(value: Any, what: str) -> Variable:
    if isinstance(value, Variable):
        if value.ndim != 0:
            raise build_error(f"arange: {what} must be a scalar; {named(value)} is "
                              f"{value.type.short()}", TypeError)
        return value
    # Python floats stay float64 here so the length matches np.arange on the same numbers.
    return constant(value, dtype="float64" if isinstance(value, float) else None)


def arange_length(start: Any, stop: Any, step: Any) -> int:
    """``len(np.arange(start, stop, step))``, without building the array."""
    if step == 0:
        raise ValueError("arange: step must not be zero")
    return max(int(math.ceil((stop - start) / step)), 0)


class Arange(Op):
    """``np.arange(start, stop, step, dtype=dtype)`` on scalar inputs."""

    __props__ = ("dtype",)
    costly_to_fold = True  # the result may be far larger than its inputs
    differentiable = False

    def __init__(self, dtype: Any) -> None:
        self.dtype = str(np.dtype(dtype))

    def make_node(self, start: Variable, stop: Variable, step: Variable) -> Apply:
        values = [static_value(v) for v in (start, stop, step)]
        length = None
        if all(v is not None for v in values):
            try:
                length = arange_length(*(v[()] for v in values))
            except ValueError as err:
                raise build_error(str(err)) from None
        return Apply(self, [start, stop, step], [TensorType(self.dtype, (length,))])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        start, stop, step = (v[()] for v in inputs)
        arange_length(start, stop, step)  # raises the clear error for step == 0
        return [np.arange(start, stop, step, dtype=self.dtype)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        static = node.outputs[0].type.shape
        if static[0] is not None:
            return [static]
        start, stop, step = (m.cast(v, "float64") for v in node.inputs)
        length = m.cast(m.ceil(m.true_div(m.sub(stop, start), step)), "int64")
        return [(m.maximum(length, 0),)]


def arange(start: Any, stop: Any = None, step: Any = 1, dtype: Any = None) -> Variable:
    """Evenly spaced values in ``[start, stop)`` (``np.arange``); bounds may be symbolic.

    dtype: int64 for integer bounds, else the float bounds' dtype (floatX for Python floats).
    """
    if stop is None:
        start, stop = 0, start
    bounds = (start, stop, step)
    chosen = _arange_dtype(bounds) if dtype is None else dtype
    return Arange(chosen)(*(_bound(b, n) for b, n in zip(bounds, ("start", "stop", "step"))))


# -- eye ------------------------------------------------------------------------------------

class _Diagonals(Op):
    """Base of ``Eye`` and ``Tri``: an N x M matrix made from the diagonals' offsets and
    ``k`` (Theano's ``Op(dtype)(N, M, k)``; ``k`` may be symbolic, the sizes must be known
    before the program runs, as every length)."""

    __props__ = ("dtype",)
    costly_to_fold = True  # the result may be far larger than its inputs
    differentiable = False
    #: NumPy's function, called as ``numpy_fn(N, M, k, dtype=)``.
    numpy_fn: Any
    fn_name = ""

    def __init__(self, dtype: Any = None) -> None:
        self.dtype = str(np.dtype(config.floatX if dtype is None else dtype))

    def make_node(self, n: Any, m_: Any, k: Any) -> Apply:
        n, m_, k = (_integer_scalar(v, what, self.fn_name) for v, what in ((n, "N"), (m_, "M"), (k, "k")))
        shape = [None if v is None else int(v) for v in (static_value(n), static_value(m_))]
        if any(s is not None and s < 0 for s in shape):
            raise build_error(f"{self.fn_name}: negative dimensions are not allowed: {describe_shape(shape)}")
        return Apply(self, [n, m_, k], [TensorType(self.dtype, shape)])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        n, m_, k = (int(v) for v in inputs)
        return [type(self).numpy_fn(n, m_, k, dtype=self.dtype)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        static = node.outputs[0].type.shape
        return [tuple(s if s is not None else v for s, v in zip(static, node.inputs[:2]))]


class Eye(_Diagonals):
    """``np.eye(N, M, k, dtype)``: ones on the ``k``-th diagonal of an N x M matrix
    (Theano's ``Eye(dtype)(N, M, k)``)."""

    numpy_fn = staticmethod(np.eye)
    fn_name = "eye"


class Tri(_Diagonals):
    """``np.tri(N, M, k, dtype)``: ones at and below the ``k``-th diagonal of an N x M
    matrix (Theano's ``Tri(dtype)(N, M, k)``)."""

    numpy_fn = staticmethod(np.tri)
    fn_name = "tri"


def tri(N: Any, M: Any = None, k: Any = 0, dtype: Any = None) -> Variable:  # noqa: N803  (Theano's names)
    """An ``N x M`` matrix (``M`` defaults to ``N``) with ones at and below diagonal ``k``
    and zeros elsewhere (``np.tri``); dtype defaults to floatX."""
    return Tri(dtype)(N, N if M is None else M, k)


def _integer_scalar(value: Any, what: str, fn: str) -> Variable:
    """``value`` (an int or an integer scalar) as an int64 scalar."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return constant(int(value), "int64")
    if isinstance(value, Variable) and value.ndim == 0 and is_integer(value.dtype):
        return m.cast(value, "int64")
    raise build_error(f"{fn}: {what} must be an int or an integer scalar, got {value!r}", TypeError)


def eye(n: Any, m: Any = None, k: Any = 0, dtype: Any = None) -> Variable:
    """An ``n x m`` matrix (``m`` defaults to ``n``) with ones on diagonal ``k`` (an int or
    an integer scalar, as in Theano); dtype defaults to floatX."""
    return Eye(dtype)(n, n if m is None else m, k)


def identity_like(x: Any) -> Variable:
    """An identity matrix of the shape and dtype of the matrix ``x`` (Theano)."""
    x = as_tensor_variable(x)
    if x.ndim != 2:
        raise build_error(f"identity_like: {named(x)} must be a matrix, got {x.type.short()}",
                          TypeError)
    return Eye(x.dtype)(shape_i(x, 0), shape_i(x, 1), 0)
