"""Reductions: ``sum prod max min mean var std argmax argmin any all`` (NumPy signatures).

One base class, ``Reduce``, holds what they share: the reduced axes (normalized to a
sorted tuple of non-negative ints) and ``keepdims`` are props, and the output dtype is
NumPy's own answer for the input dtype (asked once per op and dtype), so the sum of
int32 is int64, the sum of bool is int64 and the mean of an integer is float64, as in
NumPy 2 on 64-bit Linux. ``sum``, ``prod`` and ``mean`` accumulate in Theano's
``acc_dtype`` (a float32 sum in float64, then cast back: :class:`Accumulate`).

Gradients (``L_op``) follow JAX at non-differentiable points: ``max``/``min`` split the
gradient equally between tied maxima; ``prod`` is exact where the input has zeros
(the product of the other elements at a lone zero, 0 when a slice has two zeros).
"""

from __future__ import annotations

import copy
import operator
import warnings
from functools import lru_cache
from typing import Callable, Sequence

import numpy as np

from symnb.core.graph.errors import build_error, label
from symnb.core.graph.basic import Apply, Variable
from symnb.core.graph.op import Op
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.graph.type import TensorType, describe_shape, is_float

__all__ = ["sum", "prod", "max", "min", "mean", "var", "std", "argmax", "argmin", "any", "all",
           "Reduce", "normalize_axes", "CAReduce", "ProdWithoutZeros"]


def normalize_axes(axis: object, x: Variable, fn_name: str) -> tuple[int, ...]:
    """NumPy's ``axis`` argument (None, int or sequence; negative allowed) as sorted axes."""
    ndim = x.ndim
    if axis is None:
        return tuple(range(ndim))
    # Theano took any sequence of ints: a range (PyMC3: axis=range(1, x.ndim)), an array.
    is_sequence = isinstance(axis, (tuple, list, range)) or (isinstance(axis, np.ndarray) and axis.ndim == 1)
    raw = tuple(axis) if is_sequence else (axis,)
    axes = []
    for a in raw:
        try:
            a = operator.index(a)
        except TypeError:
            raise build_error(f"{fn_name}: axis must be None, an int or a tuple of ints, "
                              f"got {axis!r}", TypeError) from None
        if not -ndim <= a < ndim:
            raise build_error(f"{fn_name}: axis {a} is out of bounds for {label(x)!r}, which has "
                              f"{ndim} dimension(s) ({x.type.short()})", np.exceptions.AxisError)
        axes.append(a % ndim)
    if len(set(axes)) != len(axes):
        raise build_error(f"{fn_name}: duplicate value in axis={axis!r} for {label(x)!r}")
    return tuple(sorted(axes))


def _reduced_shape(shape: Sequence[object], axes: tuple[int, ...], keepdims: bool) -> tuple:
    if keepdims:
        return tuple(1 if i in axes else n for i, n in enumerate(shape))
    return tuple(n for i, n in enumerate(shape) if i not in axes)


def empty_reduction_message(op: "Reduce", name: str, shape: Sequence[int | None]) -> str | None:
    """Why ``op`` cannot reduce an input of ``shape`` (None when it can).

    Max, min, argmax and argmin have no identity: like NumPy, they refuse to reduce an
    axis of length 0.
    """
    if not op.needs_nonempty:
        return None
    axes = op.reduced_axes(len(shape))
    empty = [a for a in axes if shape[a] == 0]
    if not empty:
        return None
    return (f"{op.fn_name} of {name} (shape {describe_shape(shape)}) over axis "
            f"{empty[0]}, which has length 0: {op.fn_name} of an empty sequence is undefined "
            f"(NumPy raises too). Reduce a non-empty axis, or use a reduction with an "
            f"identity (e.g. sum), or guard the empty case.")


class Reduce(Op):
    """Base class: a NumPy reduction over ``axis`` (sorted non-negative ints)."""

    __props__: tuple[str, ...] = ("axis", "keepdims")
    #: The NumPy reference function, called as ``numpy_fn(x, axis=, keepdims=, **kwargs)``.
    numpy_fn: Callable[..., object]
    #: The public function's name, for messages.
    fn_name: str = ""
    #: True when an empty reduction is an error (no identity: max, min, argmax, argmin).
    needs_nonempty = False
    #: ``axis`` may be given as Theano's ops took it (None, an int, a list; negative
    #: allowed): ``make_node`` builds the node with the op of the sorted axes.
    normalizes_axis = True

    def __init__(self, axis: object = None, keepdims: bool = False) -> None:
        self.axis = axis
        self.keepdims = bool(keepdims)

    def display_name(self) -> str:
        parts = [f"axis={_axis_str(self.axis)}"]
        # dtype and ddof, when not their defaults (None, 0)
        parts += [f"{k}={getattr(self, k)}" for k in self.__props__[2:] if getattr(self, k) not in (None, 0)]
        if self.keepdims:
            parts.append("keepdims")
        return f"{type(self).__name__}{{{', '.join(parts)}}}"

    def reduced_axes(self, ndim: int) -> tuple[int, ...]:
        return self.axis

    def numpy_kwargs(self) -> dict[str, object]:
        """Extra keyword arguments of ``numpy_fn`` (dtype, ddof)."""
        return {}

    def computes_in(self, node: Apply) -> str:
        """The dtype the input is cast to before reducing (NumPy's accumulator dtype)."""
        return node.inputs[0].type.dtype

    def output_dtype(self, in_dtype: str) -> str:
        return _numpy_result_dtype(self, in_dtype)

    def make_node(self, x: object) -> Apply:
        x = as_tensor_variable(x)
        if self.normalizes_axis:
            axes = normalize_axes(self.axis, x, self.fn_name or type(self).__name__)
            if axes != self.axis:  # Theano's Prod(axis=1)(x), CAReduce(add, axis=-1)(x)
                op = copy.copy(self)
                op.__dict__["axis"] = axes  # a new op, not shared yet (props are immutable)
                return op.make_node(x)
        message = empty_reduction_message(self, repr(label(x)), x.type.shape)
        if message is not None:
            raise build_error(message)
        shape = _reduced_shape(x.type.shape, self.reduced_axes(x.ndim), self.keepdims)
        return Apply(self, [x], [TensorType(self.output_dtype(x.dtype), shape)])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        (x,) = inputs
        message = empty_reduction_message(self, repr(label(node.inputs[0])), x.shape)
        if message is not None:
            raise ValueError(message)
        result = self.numpy_fn(x, axis=self.axis, keepdims=self.keepdims, **self.numpy_kwargs())
        return [np.asarray(result, dtype=node.outputs[0].type.dtype)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        (shape,) = input_shapes
        return [_reduced_shape(shape, self.reduced_axes(len(shape)), self.keepdims)]

    # -- helpers of the gradient rules --------------------------------------------------
    def expand(self, reduced: Variable, x: Variable) -> Variable:
        """A reduced value with its reduced axes put back (length 1), for broadcasting."""
        from symnb.core.tensor import shape as sh

        if self.keepdims:
            return reduced
        axes = self.reduced_axes(x.ndim)
        kept = iter(range(reduced.ndim))
        return sh.dimshuffle(reduced, ["x" if i in axes else next(kept) for i in range(x.ndim)])

    def spread(self, g: Variable, x: Variable) -> Variable:
        """The output gradient ``g`` broadcast back to ``x``'s shape."""
        from symnb.core.tensor.broadcast import broadcast_like

        return broadcast_like(self.expand(g, x), x)


class CAReduce(Op):
    """Theano's ``CAReduce(scalar_op, axis=None)``: the reduction of ``axis`` (None: all;
    an int or a list, negative allowed) with a binary scalar op, in the input's dtype.

    Also the base class of the reductions that are one in Theano (``Sum``, ``Prod``,
    ``Max``, ``Min``, ``Any``, ``All``: ``isinstance(op, CAReduce)`` holds as there).
    Called itself, it builds a ``careduce.ScalarOpReduce``, which reduces with ``add``,
    ``mul``, ``maximum``, ``minimum``, ``and_``, ``or_`` or ``xor``.
    """

    #: The class ``CAReduce(scalar_op, axis)`` makes: installed by careduce.py, which builds
    #: on this module (as Elemwise(scalar_op)'s is).
    _from_scalar_op: type | None = None

    def __new__(cls, *args: object, **kwargs: object) -> "CAReduce":
        if cls is CAReduce:
            if CAReduce._from_scalar_op is None:
                raise TypeError("CAReduce(scalar_op) needs symnb.core.tensor imported")
            cls = CAReduce._from_scalar_op
        return super().__new__(cls)


def _axis_str(axis: object) -> str:
    if isinstance(axis, tuple) and len(axis) == 1:
        return f"({axis[0]},)"
    return str(axis)


@lru_cache(maxsize=None)
def _numpy_result_dtype(op: Reduce, in_dtype: str) -> str:
    probe = np.zeros((1,), dtype=in_dtype)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")  # e.g. var with ddof >= the probe's length
        result = op.numpy_fn(probe, axis=0, **op.numpy_kwargs())
    return str(np.asarray(result).dtype)


# -- sum, prod, mean: NumPy's dtype= argument -----------------------------------------

#: Theano's default accumulators (``CAReduceDtype._acc_dtype``): integers and bools in
#: 64 bits, float16 in float32, float32 in float64, complex64 in complex128; the wider
#: dtypes in themselves. (Theano's GPU reductions accumulate so too.)
_THEANO_ACC_DTYPES = {"bool": "int64", "int8": "int64", "int16": "int64", "int32": "int64",
                      "uint8": "uint64", "uint16": "uint64", "uint32": "uint64",
                      "float16": "float32", "float32": "float64", "complex64": "complex128"}


def default_acc_dtype(in_dtype: str) -> str:
    """The dtype Theano's ``sum``/``prod``/``mean`` of ``in_dtype`` accumulates in."""
    return _THEANO_ACC_DTYPES.get(in_dtype, in_dtype)


class Accumulate(Reduce):
    """A reduction with NumPy's ``dtype`` argument (the output dtype; None: NumPy's, so
    integers and bools in (u)int64) and Theano's ``acc_dtype``.

    Theano's signature: ``Sum(axis=None, dtype=None, acc_dtype=None)``. ``acc_dtype`` is
    the dtype the reduction accumulates in, then cast to the output dtype; None is
    Theano's default (:func:`default_acc_dtype`: a float32 sum accumulates in float64),
    filled in when the node is built (``node.op.acc_dtype`` says it, as in Theano). One
    given may not lose precision of the input (Theano's TypeError), except an integer
    input in a floating-point accumulator.
    """

    __props__ = ("axis", "keepdims", "dtype", "acc_dtype")

    def __init__(self, axis: object = None, dtype: object = None, acc_dtype: object = None,
                 keepdims: bool = False) -> None:
        Reduce.__init__(self, axis, keepdims)
        self.dtype = None if dtype is None else str(np.dtype(dtype))
        self.acc_dtype = None if acc_dtype is None else str(np.dtype(acc_dtype))
        # Shown by display_name only when the user chose it (not a prop: the same op).
        self.acc_dtype_given = acc_dtype is not None

    def display_name(self) -> str:
        name = super().display_name()
        if self.acc_dtype_given:
            return name
        return name.replace(f", acc_dtype={self.acc_dtype}", "")

    def numpy_kwargs(self) -> dict[str, object]:
        return {} if self.acc_dtype is None else {"dtype": self.acc_dtype}

    def output_dtype(self, in_dtype: str) -> str:
        return self.dtype or _numpy_default_dtype(type(self), in_dtype)

    def computes_in(self, node: Apply) -> str:
        return self.acc_dtype or default_acc_dtype(node.inputs[0].type.dtype)

    def make_node(self, x: object) -> Apply:
        x = as_tensor_variable(x)
        if self.acc_dtype is None:  # Theano's default, in the node's op
            op = copy.copy(self)
            op.__dict__["acc_dtype"] = default_acc_dtype(x.dtype)  # a new op (props are immutable)
            return op.make_node(x)
        if self.acc_dtype_given:
            _check_acc_dtype(self, x)
        return super().make_node(x)


def _check_acc_dtype(op: Accumulate, x: Variable) -> None:
    """Theano's rule: an accumulator that would lose the input's precision is refused."""
    kind = np.dtype(x.dtype).kind
    upcast = str(np.result_type(x.dtype, op.acc_dtype))
    if upcast != op.acc_dtype and not (kind in "biu" and np.dtype(op.acc_dtype).kind in "fc"):
        raise build_error(f"{op.fn_name}: cannot accumulate {label(x)!r} ({x.dtype}) in "
                          f"acc_dtype={op.acc_dtype}: precision would be lost (Theano's rule); "
                          f"use acc_dtype={upcast}", TypeError)


@lru_cache(maxsize=None)
def _numpy_default_dtype(op_class: type, in_dtype: str) -> str:
    """The dtype of NumPy's reduction of ``in_dtype`` without a dtype argument."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return str(np.asarray(op_class.numpy_fn(np.zeros((1,), dtype=in_dtype), axis=0)).dtype)


class Sum(Accumulate, CAReduce):
    """``np.sum``."""

    numpy_fn = staticmethod(np.sum)
    fn_name = "sum"

    def L_op(self, inputs, outputs, output_grads):
        (x,) = inputs
        # (An integer x summed to a float dtype gets the float gradient, as in Theano;
        # an integer sum passes zeros: sn.grad's rule for integer-valued outputs.)
        return [self.spread(output_grads[0], x)]


class Prod(Accumulate, CAReduce):
    """``np.prod``. Theano's ``Prod(axis=None, dtype=None, acc_dtype=None,
    no_zeros_in_input=False)``: ``no_zeros_in_input`` let Theano use a cheaper gradient
    (wrong where an input is 0); symnb's gradient is exact either way, the same numbers
    where no input is 0."""

    __props__ = ("axis", "keepdims", "dtype", "acc_dtype", "no_zeros_in_input")
    numpy_fn = staticmethod(np.prod)
    fn_name = "prod"

    def __init__(self, axis: object = None, dtype: object = None, acc_dtype: object = None,
                 no_zeros_in_input: bool = False, keepdims: bool = False) -> None:
        super().__init__(axis, dtype, acc_dtype, keepdims)
        self.no_zeros_in_input = bool(no_zeros_in_input)

    def L_op(self, inputs, outputs, output_grads):
        from symnb.core.tensor import math as m

        (x,) = inputs
        if not is_float(x.dtype):
            return [None]
        # d prod / d x_i is the product of the other elements: prod / x_i without zeros;
        # at a slice's lone zero the product of the non-zeros, elsewhere in that slice 0.
        is_zero = m.eq(x, 0)
        safe_x = m.switch(is_zero, 1, x)
        axes = self.reduced_axes(x.ndim)
        nonzero_prod = prod(safe_x, axis=axes, keepdims=True)
        zeros = sum(is_zero, axis=axes, keepdims=True)
        lone_zero = m.and_(is_zero, m.eq(zeros, 1))
        others = m.switch(m.eq(zeros, 0), m.true_div(nonzero_prod, safe_x),
                          m.switch(lone_zero, nonzero_prod, 0))
        return [m.mul(self.spread(output_grads[0], x), others)]


def _prod_without_zeros(x: np.ndarray, axis: object = None, keepdims: bool = False,
                        dtype: object = None) -> np.ndarray:
    return np.prod(np.where(x == 0, np.ones((), x.dtype), x), axis=axis, keepdims=keepdims, dtype=dtype)


class ProdWithoutZeros(Accumulate, CAReduce):
    """Theano's ``ProdWithoutZeros(axis=None, dtype=None, acc_dtype=None)``: the product
    of the non-zero elements (1 where all are 0). Not differentiable (as in Theano)."""

    numpy_fn = staticmethod(_prod_without_zeros)
    fn_name = "prod_without_zeros"

    def L_op(self, inputs, outputs, output_grads):
        from symnb.core.gradient_types import grad_not_implemented

        return [grad_not_implemented(self, 0, inputs[0], "Theano's ProdWithoutZeros has no gradient; "
                                     "if the input has no zeros, use prod(x, no_zeros_in_input=True).")]


class Mean(Accumulate):
    """Theano's ``mean(x, axis, dtype, keepdims, acc_dtype)``: a sum, in ``dtype`` (None:
    the sum's default, float32 for float16), accumulated in ``acc_dtype`` (as :class:`Sum`),
    then divided by each reduced length in turn, in float32 when that sum is float16,
    float32 or complex64, else float64; float16 asked (or given, without ``dtype``) comes
    back as float16. So an integer mean is float64 whatever ``dtype`` says, and a float32
    mean sums in float64 and divides in float32, Theano's numbers."""

    numpy_fn = staticmethod(np.mean)
    fn_name = "mean"

    def sum_dtype(self, in_dtype: str) -> str:
        """The dtype of the sum divided (Theano's ``sum_dtype``)."""
        if self.dtype is not None:
            return self.dtype
        return "float32" if in_dtype == "float16" else _numpy_default_dtype(Sum, in_dtype)

    def divides_in(self, in_dtype: str) -> str:
        """The dtype of the divisions: the sum's, with the lengths cast to float32 or float64."""
        summed = self.sum_dtype(in_dtype)
        lengths = "float32" if summed in ("float16", "float32", "complex64") else "float64"
        return str(np.result_type(summed, lengths))

    def output_dtype(self, in_dtype: str) -> str:
        return "float16" if (self.dtype or in_dtype) == "float16" else self.divides_in(in_dtype)

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        (x,) = inputs
        in_dtype = node.inputs[0].type.dtype
        with np.errstate(all="ignore"):  # integers cast to a narrower sum_dtype wrap, as in Theano
            total = np.sum(x, axis=self.axis, keepdims=self.keepdims, dtype=self.acc_dtype)
            total = np.asarray(total).astype(self.sum_dtype(in_dtype)).astype(self.divides_in(in_dtype))
            for a in self.axis:  # one division per axis, as Theano's graph
                total = total / np.asarray(x.shape[a], total.dtype)
        return [np.asarray(total, dtype=node.outputs[0].type.dtype)]

    def L_op(self, inputs, outputs, output_grads):
        (x,) = inputs  # (an integer x too: its mean is a float, as its gradient)
        count = reduced_count(x, self.reduced_axes(x.ndim))
        return [_divide(self.spread(output_grads[0], x), count)]


def reduced_count(x: Variable, axes: tuple[int, ...]) -> int | Variable:
    """How many elements of ``x`` each output of a reduction over ``axes`` gathers.

    A Python int when the static shape knows those lengths, else an int64 scalar built
    from ``x``'s shape (static at trace time, so it costs nothing in the compiled program).
    """
    from symnb.core.tensor import math as m
    from symnb.core.tensor import shape as sh

    known = 1
    unknown = []
    for a in axes:
        if x.type.shape[a] is None:
            unknown.append(sh.shape_i(x, a))
        else:
            known *= x.type.shape[a]
    if not unknown:
        return known
    count = unknown[0]
    for length in unknown[1:]:
        count = m.mul(count, length)
    return count if known == 1 else m.mul(count, known)


def _divide(value: Variable, count: int | Variable) -> Variable:
    """``value / count`` in ``value``'s dtype (a symbolic count is int64)."""
    from symnb.core.tensor import math as m

    if isinstance(count, Variable):
        count = m.cast(count, value.dtype)
    return m.true_div(value, count)


# -- max, min ----------------------------------------------------------------------------

class Extremum(Reduce):
    """Max or min: the gradient goes to the positions of the extremum, split among ties."""

    needs_nonempty = True

    def L_op(self, inputs, outputs, output_grads):
        from symnb.core.tensor import math as m

        (x,) = inputs
        if not is_float(x.dtype):
            return [None]
        # JAX's convention (reduce_max's JVP): equal shares for tied extrema.
        at_extremum = m.cast(m.eq(x, self.expand(outputs[0], x)), x.dtype)
        ties = sum(at_extremum, axis=self.reduced_axes(x.ndim), keepdims=True)
        return [m.true_div(m.mul(self.spread(output_grads[0], x), at_extremum), ties)]


class Max(Extremum, CAReduce):
    """``np.max``."""

    numpy_fn = staticmethod(np.max)
    fn_name = "max"


class Min(Extremum, CAReduce):
    """``np.min``."""

    numpy_fn = staticmethod(np.min)
    fn_name = "min"


# -- var, std ------------------------------------------------------------------------------

class Moment(Reduce):
    """Var or std with NumPy's ``ddof`` (divide by ``N - ddof``)."""

    __props__ = ("axis", "keepdims", "ddof")

    def __init__(self, axis: object, keepdims: bool = False, ddof: int = 0) -> None:
        super().__init__(axis, keepdims)
        self.ddof = operator.index(ddof)

    def numpy_kwargs(self) -> dict[str, object]:
        return {"ddof": self.ddof}

    def computes_in(self, node: Apply) -> str:
        # complex stays complex
        return str(np.result_type(node.inputs[0].type.dtype, node.outputs[0].type.dtype))

    def variance_grad(self, x: Variable, g: Variable) -> Variable:
        """``g * d var / d x = g * 2 (x - mean) / (N - ddof)``, broadcast to ``x``."""
        from symnb.core.tensor import math as m

        axes = self.reduced_axes(x.ndim)
        centered = m.sub(x, mean(x, axis=axes, keepdims=True))
        count = reduced_count(x, axes)
        dof = m.sub(count, self.ddof) if isinstance(count, Variable) else count - self.ddof
        return m.mul(self.spread(g, x), _divide(m.mul(centered, 2), dof))


class Var(Moment):
    """``np.var``."""

    numpy_fn = staticmethod(np.var)
    fn_name = "var"

    def L_op(self, inputs, outputs, output_grads):
        (x,) = inputs
        return [self.variance_grad(x, output_grads[0])]  # (integer x: a float gradient)


class Std(Moment):
    """``np.std``."""

    numpy_fn = staticmethod(np.std)
    fn_name = "std"

    def L_op(self, inputs, outputs, output_grads):
        from symnb.core.tensor import math as m

        (x,) = inputs  # (integer x: a float gradient)
        # d std = d var / (2 std)
        g = m.true_div(output_grads[0], m.mul(outputs[0], 2))
        return [self.variance_grad(x, g)]


# -- argmax, argmin, any, all: integer-valued, so zeros for the gradient -------------------
# (sn.grad passes zeros through every integer-valued output, as Theano's Argmax.grad and
# All/Any.L_op return; the inputs stay connected.)

class ArgReduce(Reduce):
    """Argmax or argmin: ``axis`` is None (index into the flattened input) or one int."""

    needs_nonempty = True
    discrete_outputs = True
    normalizes_axis = False

    def reduced_axes(self, ndim: int) -> tuple[int, ...]:
        return tuple(range(ndim)) if self.axis is None else (self.axis,)


class Argmax(ArgReduce):
    """``np.argmax``."""

    numpy_fn = staticmethod(np.argmax)
    fn_name = "argmax"


class Argmin(ArgReduce):
    """``np.argmin``."""

    numpy_fn = staticmethod(np.argmin)
    fn_name = "argmin"


class Any(Reduce, CAReduce):
    """``np.any``."""

    numpy_fn = staticmethod(np.any)
    fn_name = "any"
    discrete_outputs = True


class All(Reduce, CAReduce):
    """``np.all``."""

    numpy_fn = staticmethod(np.all)
    fn_name = "all"
    discrete_outputs = True


# -- the public functions -------------------------------------------------------------------

def _reduce(op_class: type[Reduce], x: object, axis: object, keepdims: bool,
            **params: object) -> Variable:
    x = as_tensor_variable(x)
    axes = normalize_axes(axis, x, op_class.fn_name)
    return op_class(axes, keepdims=keepdims, **params)(x)


def sum(x: object, axis: object = None, keepdims: bool = False, dtype: object = None,
        acc_dtype: object = None) -> Variable:
    """Sum over ``axis`` (None: all; int or tuple, negative allowed), as ``np.sum``.

    Integers and bools accumulate in (u)int64 unless ``dtype`` says otherwise;
    ``acc_dtype`` (Theano's): the dtype to accumulate in, then cast to the output's.
    """
    return _reduce(Sum, x, axis, keepdims, dtype=dtype, acc_dtype=acc_dtype)


def prod(x: object, axis: object = None, keepdims: bool = False, dtype: object = None,
         acc_dtype: object = None, no_zeros_in_input: bool = False) -> Variable:
    """Product over ``axis``, as ``np.prod`` (integers and bools in (u)int64); ``acc_dtype``
    as for :func:`sum`; ``no_zeros_in_input`` (Theano's) changes nothing: the gradient is
    exact either way."""
    return _reduce(Prod, x, axis, keepdims, dtype=dtype, acc_dtype=acc_dtype,
                   no_zeros_in_input=no_zeros_in_input)


def max(x: object, axis: object = None, keepdims: bool = False) -> Variable:
    """Maximum over ``axis``, as ``np.max`` (NaN propagates; an empty axis is an error)."""
    return _reduce(Max, x, axis, keepdims)


def min(x: object, axis: object = None, keepdims: bool = False) -> Variable:
    """Minimum over ``axis``, as ``np.min`` (NaN propagates; an empty axis is an error)."""
    return _reduce(Min, x, axis, keepdims)


def mean(x: object, axis: object = None, keepdims: bool = False, dtype: object = None,
         acc_dtype: object = None) -> Variable:
    """Mean over ``axis``, Theano's: float64 for integer inputs (whatever ``dtype``, the
    dtype of the sum divided, says); ``acc_dtype`` as for :func:`sum` (a float32 mean sums
    in float64). See :class:`Mean`."""
    return _reduce(Mean, x, axis, keepdims, dtype=dtype, acc_dtype=acc_dtype)


def var(x: object, axis: object = None, ddof: int = 0, keepdims: bool = False,
        corrected: bool = False) -> Variable:
    """Variance over ``axis``, dividing by ``N - ddof``, as ``np.var``; Theano's
    signature (``ddof`` before ``keepdims``; a bool ``ddof`` is refused as Theano did).
    ``corrected``: Theano's corrected two-pass algorithm, the variance less the square of
    the centered values' sum, divided by ``(N - ddof) * N`` (their mean's square when
    ``ddof`` is 0), which rounding leaves non-zero."""
    _check_ddof(ddof)
    v = _reduce(Var, x, axis, keepdims, ddof=ddof)
    return v - _centering_error(x, axis, ddof, keepdims) if corrected else v


def std(x: object, axis: object = None, ddof: int = 0, keepdims: bool = False,
        corrected: bool = False) -> Variable:
    """Standard deviation over ``axis``, dividing by ``N - ddof``, as ``np.std``; Theano's
    signature, ``corrected`` as :func:`var`'s (the root of that variance)."""
    _check_ddof(ddof)
    if corrected:
        from symnb.core.tensor import math as m

        return m.sqrt(var(x, axis, ddof, keepdims, corrected=True))
    return _reduce(Std, x, axis, keepdims, ddof=ddof)


def _check_ddof(ddof: object) -> None:
    if isinstance(ddof, bool):  # Theano 0.9's keepdims was the third argument
        raise build_error("var/std: ddof is a bool; keepdims is the fourth argument: "
                          "(x, axis=None, ddof=0, keepdims=False, corrected=False)", ValueError)


def _centering_error(x: object, axis: object, ddof: int, keepdims: bool) -> Variable:
    """Theano's correction term of the two-pass variance (see :func:`var`)."""
    from symnb.core.tensor import math as m
    from symnb.core.tensor.shape import shape_i

    x = as_tensor_variable(x)
    axes = normalize_axes(axis, x, "var")
    centered = x - mean(x, axes, keepdims=True)
    if ddof == 0:
        return m.pow(mean(centered, axes, keepdims=keepdims), 2)
    error = m.pow(sum(centered, axes, keepdims=keepdims), 2)
    for i in axes:
        error = m.true_div(error, (shape_i(x, i) - ddof) * shape_i(x, i))
    return error


def _arg_reduce(op_class: type[ArgReduce], x: object, axis: object, keepdims: bool) -> Variable:
    x = as_tensor_variable(x)
    if axis is None:
        return op_class(None, keepdims)(x)
    axes = normalize_axes(axis, x, op_class.fn_name)
    if len(axes) == 1:
        return op_class(axes[0], keepdims)(x)
    if len(axes) == x.ndim:  # every axis: the index into the flattened input, as axis=None
        return op_class(None, keepdims)(x)
    return _arg_reduce_axes(op_class, x, axes, keepdims)


def _arg_reduce_axes(op_class: type[ArgReduce], x: Variable, axes: tuple[int, ...],
                     keepdims: bool) -> Variable:
    """Theano's argmax/argmin over several axes (NumPy takes one): the index into those
    axes flattened in C order (sorted), as Theano's ``Argmax.perform`` computes it: the
    other axes moved in front, the reduced ones joined into one, reduced along it."""
    from symnb.core.tensor.shape import reshape  # shape.py builds on this module

    kept = [i for i in range(x.ndim) if i not in axes]
    moved = x.dimshuffle(kept + list(axes))
    block = x.shape[axes[0]]
    for i in axes[1:]:
        block = block * x.shape[i]  # not -1, undefined when a kept axis is empty
    joined = reshape(moved, [x.shape[i] for i in kept] + [block], ndim=len(kept) + 1)
    index = op_class(len(kept), False)(joined)
    if not keepdims:
        return index
    pattern, next_axis = [], 0
    for i in range(x.ndim):
        if i in axes:
            pattern.append("x")
        else:
            pattern.append(next_axis)
            next_axis += 1
    return index.dimshuffle(pattern)


def argmax(x: object, axis: object = None, keepdims: bool = False) -> Variable:
    """Index (int64) of the first maximum along ``axis``; with None, into the flattened input;
    with several axes (Theano's), into those axes flattened (C order, sorted)."""
    return _arg_reduce(Argmax, x, axis, keepdims)


def argmin(x: object, axis: object = None, keepdims: bool = False) -> Variable:
    """Index (int64) of the first minimum along ``axis``; with None, into the flattened input;
    with several axes (Theano's), into those axes flattened (C order, sorted)."""
    return _arg_reduce(Argmin, x, axis, keepdims)


def any(x: object, axis: object = None, keepdims: bool = False) -> Variable:
    """True where some element along ``axis`` is non-zero (a bool tensor), as ``np.any``."""
    return _reduce(Any, x, axis, keepdims)


def all(x: object, axis: object = None, keepdims: bool = False) -> Variable:
    """True where every element along ``axis`` is non-zero (a bool tensor), as ``np.all``."""
    return _reduce(All, x, axis, keepdims)
