"""Elementwise ops: NumPy broadcasting, NumPy 2 dtype rules, one small class per op.

The output dtype of each op is NumPy's own answer for the input dtypes (asked once
per dtype combination on empty arrays), so ``int32 / int32`` is float64 and
``x_float32 > 0.5`` is bool, exactly as in NumPy.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any, Callable, Sequence

import numpy as np

from symnb.core.errors import label
from symnb.core.graph import Apply, Variable
from symnb.core.op import Op
from symnb.core.source import capture_site
from symnb.core.config import config
from symnb.core.type import TensorType, describe_shape, is_float

__all__ = ["Elemwise", "DimensionMismatch", "broadcast_static_shapes", "dimension_mismatch_message",
           "ELEMWISE_OPS"]


class BroadcastError(ValueError):
    """Static shapes that cannot broadcast."""


class DimensionMismatch(ValueError):
    """Input shapes of an elementwise node that do not broadcast.

    Raised by lowering rules, which name inputs by position (a compiled program may
    serve several equal graphs); ``with_names`` rewords it for the graph that failed.
    """

    def __init__(self, shapes: Sequence[tuple]) -> None:
        self.shapes = [tuple(s) for s in shapes]
        super().__init__(dimension_mismatch_message(self.shapes, [f"input #{i}" for i in range(len(shapes))]))

    def with_names(self, names: Sequence[str]) -> str:
        return dimension_mismatch_message(self.shapes, names)


def broadcast_static_shapes(shapes: Sequence[tuple[int | None, ...]]) -> tuple[int | None, ...]:
    """NumPy broadcasting of static shapes (``None`` = unknown); raise when impossible."""
    # Fast paths for the common cases: one operand, or operands of one shape next to
    # scalars (``y * 2.0``), with no length-1 axis to broadcast.
    shaped = [s for s in shapes if s] or [shapes[0]]
    first = shaped[0]
    if len(shaped) == 1 or all(s == first for s in shaped):
        if 1 not in first:
            return tuple(first)
    ndim = max((len(s) for s in shapes), default=0)
    padded = [(1,) * (ndim - len(s)) + tuple(s) for s in shapes]
    result: list[int | None] = []
    for axis in range(ndim):
        known = {s[axis] for s in padded if s[axis] is not None and s[axis] != 1}
        if len(known) > 1:
            raise BroadcastError(axis)
        if known:
            result.append(known.pop())
        elif all(s[axis] == 1 for s in padded):
            result.append(1)
        else:
            result.append(None)
    return tuple(result)


def dimension_mismatch_message(shapes: Sequence[tuple], names: Sequence[str]) -> str:
    """Theano's wording, with names: which inputs disagree on which axis."""
    names = [f"({n})" if " " in n else n for n in names]  # (x * 2).shape, not x * 2.shape
    ndim = max(len(s) for s in shapes)
    padded = [(1,) * (ndim - len(s)) + tuple(s) for s in shapes]
    for axis in range(ndim):
        lengths = [(i, s[axis]) for i, s in enumerate(padded) if s[axis] not in (None, 1)]
        if len({n for _, n in lengths}) > 1:
            (i, a), (j, b) = lengths[0], next(x for x in lengths if x[1] != lengths[0][1])
            return (f"Input dimension mis-match: {names[i]}.shape{describe_shape(shapes[i])} and "
                    f"{names[j]}.shape{describe_shape(shapes[j])} differ on axis {axis - ndim} "
                    f"(input[{i}].shape[{axis - (ndim - len(shapes[i]))}] = {a}, "
                    f"input[{j}].shape[{axis - (ndim - len(shapes[j]))}] = {b})")
    return "shapes do not broadcast: " + ", ".join(describe_shape(s) for s in shapes)


class Elemwise(Op):
    """Base class: subclasses name a NumPy function and an arity."""

    nin: int = 2
    #: The NumPy reference function.
    numpy_fn: Callable[..., Any]
    #: The NumPy function whose dtype rule this op follows (default: ``numpy_fn``).
    dtype_like: Callable[..., Any] | None = None
    #: Theano's scalar-op name, shown as ``Elemwise{name,no_inplace}``.
    scalar_name: str = ""
    #: ``perform`` converts the inputs to the output dtype before calling ``numpy_fn``
    #: (as the lowering does), for functions written for floats only.
    float_inputs: bool = False

    def display_name(self) -> str:
        return f"Elemwise{{{self.scalar_name},no_inplace}}"

    def output_dtype(self, dtypes: tuple[str, ...]) -> str:
        return _numpy_result_dtype(type(self), dtypes)

    def make_node(self, *inputs: Variable) -> Apply:
        if len(inputs) != self.nin:
            raise TypeError(f"{self.scalar_name} takes {self.nin} input(s), got {len(inputs)}")
        types = [v.type for v in inputs]
        try:
            shape = broadcast_static_shapes([t.shape for t in types])
        except BroadcastError:
            raise _static_broadcast_error(self, inputs) from None
        dtype = self.output_dtype(tuple(t.dtype for t in types))
        return Apply(self, inputs, [TensorType(dtype, shape)])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        if self.float_inputs:
            dtype = node.outputs[0].type.numpy_dtype
            inputs = [np.asarray(a, dtype=dtype) for a in inputs]
        try:
            result = self.numpy_fn(*inputs)
        except ValueError as err:
            if "broadcast" in str(err):
                raise DimensionMismatch([a.shape for a in inputs]) from None
            raise
        return [np.asarray(result, dtype=node.outputs[0].type.numpy_dtype)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        from symnb.core.tensor.math import maximum

        out_static = node.outputs[0].type.shape
        ndim = len(out_static)
        padded = [(1,) * (ndim - len(s)) + tuple(s) for s in input_shapes]
        shape = []
        for axis in range(ndim):
            if out_static[axis] is not None:
                shape.append(out_static[axis])
                continue
            candidates = [s[axis] for s in padded if not (isinstance(s[axis], int) and s[axis] == 1)]
            length = candidates[0]
            for other in candidates[1:]:
                length = maximum(length, other)
            shape.append(length)
        return [tuple(shape)]

    def L_op(self, inputs, outputs, output_grads):
        from symnb.core.tensor.broadcast import sum_to_shape
        from symnb.core.tensor.elemwise_grad import GRADIENTS

        rule = GRADIENTS.get(type(self))
        if rule is None:
            return super().L_op(inputs, outputs, output_grads)
        grads = rule(inputs, outputs[0], output_grads[0])
        if self.nin == 1:  # nothing was broadcast
            return [g if g is None or is_float(inputs[0].dtype) else None
                    for g in grads]
        return [None if g is None or not is_float(x.dtype) else sum_to_shape(g, x)
                for g, x in zip(grads, inputs)]


@lru_cache(maxsize=None)
def _numpy_result_dtype(op_class: type, dtypes: tuple[str, ...]) -> str:
    fn = op_class.dtype_like or op_class.numpy_fn
    with np.errstate(all="ignore"):
        probe = fn(*(np.zeros(0, dtype=d) for d in dtypes))
    return str(np.asarray(probe).dtype)


def _static_broadcast_error(op: Elemwise, inputs: Sequence[Variable]) -> ValueError:
    names = [label(v) for v in inputs]
    site = capture_site(config.traceback__limit)
    text = dimension_mismatch_message([v.type.shape for v in inputs], names)
    detail = "\n".join(
        f"  #{i} {n}  {v.type.short()}  built at {v.site.short()}: {v.site.line}"
        for i, (n, v) in enumerate(zip(names, inputs)))
    return ValueError(f"{text} (static shapes) in {op.display_name()}\n{site.format(1)}\n"
                      f"Inputs:\n{detail}")


# -- the ops -------------------------------------------------------------------------

def _define(name: str, nin: int, numpy_fn: Callable, scalar_name: str | None = None,
            dtype_like: Callable | None = None, differentiable: bool = True,
            float_inputs: bool = False) -> type[Elemwise]:
    cls = type(name, (Elemwise,), {
        "__doc__": f"Elementwise ``{numpy_fn.__name__ if hasattr(numpy_fn, '__name__') else name}``.",
        "nin": nin,
        "numpy_fn": staticmethod(numpy_fn),
        "dtype_like": staticmethod(dtype_like) if dtype_like is not None else None,
        "scalar_name": scalar_name or name.lower(),
        "differentiable": differentiable,
        "float_inputs": float_inputs,
        "__module__": __name__,
    })
    return cls


def _sigmoid(x: np.ndarray) -> np.ndarray:
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


def _softplus(x: np.ndarray) -> np.ndarray:
    return np.logaddexp(np.zeros((), dtype=x.dtype), x)


_erf_scalar = np.frompyfunc(math.erf, 1, 1)


def _erf(x: np.ndarray) -> np.ndarray:
    return np.asarray(_erf_scalar(np.asarray(x, dtype=np.float64)), dtype=np.float64)


def _switch(cond: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.where(cond.astype(bool), a, b)


def _identity(x: np.ndarray) -> np.ndarray:
    return np.array(x, copy=True)


Add = _define("Add", 2, np.add)
Sub = _define("Sub", 2, np.subtract, "sub")
Mul = _define("Mul", 2, np.multiply, "mul")
TrueDiv = _define("TrueDiv", 2, np.true_divide, "true_div")
FloorDiv = _define("FloorDiv", 2, np.floor_divide, "int_div")
Mod = _define("Mod", 2, np.mod)
Pow = _define("Pow", 2, np.power)
Maximum = _define("Maximum", 2, np.maximum)
Minimum = _define("Minimum", 2, np.minimum)
Neg = _define("Neg", 1, np.negative)
Abs = _define("Abs", 1, np.absolute, "abs")
Sign = _define("Sign", 1, np.sign)
Round = _define("Round", 1, np.round, "round_half_to_even")
Floor = _define("Floor", 1, np.floor)
Ceil = _define("Ceil", 1, np.ceil)
Exp = _define("Exp", 1, np.exp)
Log = _define("Log", 1, np.log)
Log1p = _define("Log1p", 1, np.log1p)
Expm1 = _define("Expm1", 1, np.expm1)
Sqrt = _define("Sqrt", 1, np.sqrt)
Square = _define("Square", 1, np.square, "sqr")
Sin = _define("Sin", 1, np.sin)
Cos = _define("Cos", 1, np.cos)
Tanh = _define("Tanh", 1, np.tanh)
# Computed in the float dtype np.exp gives their input (bool -> float16, int32 ->
# float64): -x is an error for bools, and abs(int8(-128)) wraps.
Sigmoid = _define("Sigmoid", 1, _sigmoid, "sigmoid", dtype_like=np.exp, float_inputs=True)
Softplus = _define("Softplus", 1, _softplus, "softplus", dtype_like=np.exp, float_inputs=True)
Erf = _define("Erf", 1, _erf, "erf", dtype_like=np.exp)
Identity = _define("Identity", 1, _identity, "identity")
# The identity for values; for differentiation a constant (the seeds' block_gradient).
StopGradient = _define("StopGradient", 1, _identity, "disconnected_grad", differentiable=False)

Eq = _define("Eq", 2, np.equal, differentiable=False)
Neq = _define("Neq", 2, np.not_equal, differentiable=False)
Lt = _define("Lt", 2, np.less, differentiable=False)
Le = _define("Le", 2, np.less_equal, differentiable=False)
Gt = _define("Gt", 2, np.greater, differentiable=False)
Ge = _define("Ge", 2, np.greater_equal, differentiable=False)
And = _define("And", 2, np.bitwise_and, "and_", differentiable=False)
Or = _define("Or", 2, np.bitwise_or, "or_", differentiable=False)
Xor = _define("Xor", 2, np.bitwise_xor, "xor", differentiable=False)
Invert = _define("Invert", 1, np.invert, "invert", differentiable=False)
IsNan = _define("IsNan", 1, np.isnan, "isnan", differentiable=False)
IsInf = _define("IsInf", 1, np.isinf, "isinf", differentiable=False)

Switch = _define("Switch", 3, _switch, "switch", dtype_like=lambda c, a, b: np.where(c, a, b))
Clip = _define("Clip", 3, np.clip, "clip")


class Cast(Elemwise):
    """Convert to ``dtype`` (NumPy ``astype`` semantics)."""

    __props__ = ("dtype",)
    nin = 1
    scalar_name = "cast"

    def __init__(self, dtype: Any) -> None:
        self.dtype = str(np.dtype(dtype))

    def display_name(self) -> str:
        return f"Elemwise{{Cast{{{self.dtype}}}}}"

    @property
    def differentiable(self) -> bool:  # type: ignore[override]
        return is_float(self.dtype)

    def output_dtype(self, dtypes: tuple[str, ...]) -> str:
        return self.dtype

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [np.asarray(inputs[0]).astype(self.dtype)]


ELEMWISE_OPS: tuple[type[Elemwise], ...] = (
    Add, Sub, Mul, TrueDiv, FloorDiv, Mod, Pow, Maximum, Minimum, Neg, Abs, Sign, Round,
    Floor, Ceil, Exp, Log, Log1p, Expm1, Sqrt, Square, Sin, Cos, Tanh, Sigmoid, Softplus,
    Erf, Identity, StopGradient, Eq, Neq, Lt, Le, Gt, Ge, And, Or, Xor, Invert, IsNan, IsInf, Switch, Clip,
    Cast,
)
