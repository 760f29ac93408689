"""Tensor constructors, constants, and NumPy-2 promotion of mixed operands."""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from symnb.core.graph import test_value
from symnb.core.graph.config import config
from symnb.core.graph.errors import build_error, label
from symnb.core.graph.basic import Variable
from symnb.core.graph.source import capture_site
from symnb.core.graph.traceback_filter import api_boundary
from symnb.core.graph.type import TensorType

__all__ = [
    "tensor", "scalar", "vector", "matrix", "tensor3", "tensor4",
    "typed_input", "TYPED_PREFIXES", "constant", "theano_constant", "as_tensor_variable",
    "as_tensor_args", "result_dtype",
    "iscalar", "ivector", "imatrix", "itensor3", "itensor4",
    "lscalar", "lvector", "lmatrix", "ltensor3", "ltensor4",
    "bscalar", "bvector", "bmatrix", "btensor3", "btensor4",
    "fscalar", "fvector", "fmatrix", "ftensor3", "ftensor4",
    "dscalar", "dvector", "dmatrix", "dtensor3", "dtensor4",
]


@api_boundary  # the type's __call__ hands it over: errors show the user's line
def typed_input(ttype: TensorType, name: str | None = None, test_value: Any = None,
                shape: Sequence[int | None] | None = None) -> Variable:
    """``ttype(name)``: a symbolic input of the type ``ttype`` (``T.dmatrix('x')``), or of
    the type with the lengths ``shape`` gives where ``ttype``'s are unknown."""
    if shape is not None:
        shape = tuple(shape)
        if len(shape) != ttype.ndim or any(k is not None and n is not None and k != n
                                           for k, n in zip(ttype.shape, shape)):
            raise build_error(f"a {ttype.short()} input cannot have the shape {shape}: "
                              f"give a length for each of its {ttype.ndim} axes, None or "
                              f"the type's own where it has one", ValueError)
        shape = tuple(k if k is not None else n for k, n in zip(ttype.shape, shape))
    return tensor(ttype.dtype, ttype.shape if shape is None else shape, name=name,
                  test_value=test_value)


def tensor(dtype: Any = None, shape: Sequence[int | None] = (), name: str | None = None,
           test_value: Any = None, broadcastable: Sequence[bool] | None = None) -> Variable:
    """A symbolic input of the given dtype (default ``config.floatX``; Theano's ``'floatX'``
    names it too) and static shape, or Theano's ``broadcastable`` flags (True: length 1)."""
    # ``is``/isinstance, not ``in (None, "floatX")``: NumPy reads np.dtype(x) == None as
    # a comparison with np.dtype(None), float64
    floatx = dtype is None or (isinstance(dtype, str) and dtype == "floatX")
    ttype = TensorType(config.floatX if floatx else dtype, shape, broadcastable=broadcastable)
    var = TensorType.variable_type(ttype, name=name, site=capture_site(config.traceback__limit))
    if test_value is not None:
        var.test_value = test_value
    elif ttype.fully_known and config.compute_test_value != "off":
        var._test_value = _generated(var)
    return var


_generated = test_value.generated_test_value


def _shape_for(ndim: int, shape: Sequence[int | None] | None) -> tuple[int | None, ...]:
    if shape is None:
        return (None,) * ndim
    shape = tuple(shape)
    if len(shape) != ndim:
        raise ValueError(f"a {ndim}-d variable needs a shape of length {ndim}, got {shape}")
    return shape


def _constructor(ndim: int, kind: str):
    def make(name: str | None = None, dtype: Any = None, shape: Sequence[int | None] | None = None,
             test_value: Any = None) -> Variable:
        return tensor(dtype, _shape_for(ndim, shape), name=name, test_value=test_value)

    make.__name__ = kind
    make.__doc__ = (f"A symbolic {ndim}-d input ({kind}) named ``name``; ``dtype`` defaults to "
                    f"config.floatX.")
    return make


# Theano's constructors taking a dtype are functions; its typed ones are types.
scalar = _constructor(0, "scalar")
vector = _constructor(1, "vector")
matrix = _constructor(2, "matrix")
tensor3 = _constructor(3, "tensor3")
tensor4 = _constructor(4, "tensor4")

#: Theano's dtype prefixes: i (int32), l (int64), b (int8), f (float32), d (float64).
TYPED_PREFIXES = {"i": "int32", "l": "int64", "b": "int8", "f": "float32", "d": "float64"}
# ``T.dmatrix`` is ``TensorType('float64', (False, False))``, as in Theano: calling it
# makes an input (``T.dmatrix('x')``), and it equals every type of that dtype and shape.
iscalar, ivector, imatrix, itensor3, itensor4 = (TensorType("int32", (None,) * n) for n in range(5))
lscalar, lvector, lmatrix, ltensor3, ltensor4 = (TensorType("int64", (None,) * n) for n in range(5))
bscalar, bvector, bmatrix, btensor3, btensor4 = (TensorType("int8", (None,) * n) for n in range(5))
fscalar, fvector, fmatrix, ftensor3, ftensor4 = (TensorType("float32", (None,) * n) for n in range(5))
dscalar, dvector, dmatrix, dtensor3, dtensor4 = (TensorType("float64", (None,) * n) for n in range(5))
# Theano 1.0's 5-d inputs (tensor5, and the typed ones as types, as above).
tensor5 = _constructor(5, "tensor5")
itensor5, ltensor5, btensor5, ftensor5, dtensor5 = (
    TensorType(dtype, (None,) * 5) for dtype in ("int32", "int64", "int8", "float32", "float64"))
__all__ += ["tensor5", "itensor5", "ltensor5", "btensor5", "ftensor5", "dtensor5"]


# -- constants and promotion -------------------------------------------------------

def _is_python_scalar(x: Any) -> bool:
    return isinstance(x, (bool, int, float, complex)) and not isinstance(x, np.generic)


def constant(value: Any, dtype: Any = None, name: str | None = None) -> Variable:
    """A constant tensor. A Python float becomes ``floatX`` unless ``dtype`` says otherwise;
    a Python int int64, as in NumPy (``T.constant`` itself follows Theano's rule: see
    :func:`theano_constant`)."""
    if dtype is None and _is_python_scalar(value):
        dtype = _lone_python_scalar_dtype(value)
    array = np.asarray(value, dtype=dtype)
    return TensorType.constant_type(TensorType(array.dtype, array.shape), array, name=name)


def _lone_python_scalar_dtype(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int64"
    if isinstance(value, float):
        return config.floatX
    return "complex128"


def theano_constant(value: Any, dtype: Any = None, name: str | None = None) -> Variable:
    """``T.constant``: a constant tensor with Theano's dtype rule. Unless ``dtype`` says
    otherwise, a Python int becomes the smallest of int8, int16, int32, int64 that holds
    it (``T.constant(1)`` is int8, so ``T.constant(1) - rho`` keeps ``rho``'s float32),
    and a Python float ``floatX``. Elsewhere (``T.full``, ``T.arange``, ...) a Python int
    is int64, as in NumPy."""
    if dtype is None and isinstance(value, int) and not isinstance(value, bool):
        dtype = next((d for d in ("int8", "int16", "int32", "int64", "uint64")
                      if np.iinfo(d).min <= value <= np.iinfo(d).max), None)
        if dtype is None:
            raise OverflowError(f"T.constant: Python int {value} does not fit in int64 or uint64")
    return constant(value, dtype=dtype, name=name)


def as_tensor_variable(x: Any, dtype: Any = None, name: str | None = None) -> Variable:
    """``x`` if it is already a tensor variable, else a constant holding it."""
    if isinstance(x, Variable):
        if dtype is not None and x.dtype != np.dtype(dtype):
            raise TypeError(f"{label(x)!r} has dtype {x.dtype}, expected {np.dtype(dtype)}")
        return x
    if isinstance(x, (list, tuple)) and any(isinstance(e, Variable) for e in x):
        return _stack[0]([as_tensor_variable(e) for e in x])  # a list of variables: stacked
    return constant(x, dtype=dtype, name=name)


def as_tensor_args(*args: Any, numpy_fn: Callable[..., Any] | None = None) -> list[Variable]:
    """Operands of an elementwise op, with Python scalars taking NumPy 2's weak dtype.

    ``x_float32 * 2.0`` stays float32 and ``x_int8 + 1`` stays int8, as in NumPy 2:
    each Python scalar becomes a constant of the dtype NumPy gives it next to the
    other (strong) operands. A Python int that does not fit that dtype is an error
    (``x_int8 + 300``), unless ``numpy_fn`` (the op's NumPy function) accepts it, as
    NumPy 2 does for some operations: ``x_uint8 / -2`` (a float loop), ``x_uint8 < -1``
    (an exact comparison), ``np.clip(x_uint8, -2, 5)`` (the bound is clipped).
    """
    # Runs for every elementwise node built: loops, not generators (cheaper to start).
    for a in args:
        if not isinstance(a, Variable):
            break
    else:
        return list(args)
    strong = tuple([a.type.numpy_dtype if isinstance(a, Variable) else np.asarray(a).dtype
                    for a in args if not _is_python_scalar(a)])
    out = []
    for a in args:
        if isinstance(a, Variable):
            out.append(a)
        elif _is_python_scalar(a) and strong:
            out.append(_weak_constant(a, strong, numpy_fn, args))
        else:
            out.append(as_tensor_variable(a))
    return out


_weak_constants: dict[tuple, Variable] = {}


def _weak_constant(value: Any, strong: tuple[np.dtype, ...], numpy_fn: Callable[..., Any] | None,
                   args: tuple) -> Variable:
    """``value`` as a constant of the dtype NumPy gives it next to ``strong`` dtypes."""
    # Constants are immutable, so the few scalars a model uses are shared between
    # nodes. Zero and NaN are not cached: -0.0 == 0.0 and nan != nan as dict keys.
    key = (type(value), value, strong, config.floatX)  # floatX: see below
    cached = _weak_constants.get(key)
    if cached is not None:
        return cached
    dtype = np.result_type(*strong, value)
    if isinstance(value, float) and all(d.kind in "biu" for d in strong):
        # Next to integers only, a Python float is a floatX constant, as it is alone
        # (Theano's rule): T.constant(1) - 0.9 is float32 when floatX is, not float64.
        dtype = np.result_type(*strong, np.dtype(config.floatX))
    try:
        array = np.asarray(value, dtype=dtype)
    except OverflowError:
        array = _out_of_range_operand(value, dtype, numpy_fn, args)
        return TensorType.constant_type(TensorType(array.dtype, ()), array)
    result = TensorType.constant_type(TensorType(dtype, ()), array)
    if value == value and value != 0 and len(_weak_constants) < 4096:
        _weak_constants[key] = result
    return result


def _out_of_range_operand(value: int, dtype: np.dtype, numpy_fn: Callable[..., Any] | None,
                          args: tuple) -> np.ndarray:
    """The constant standing for a Python int outside ``dtype`` in an operation NumPy 2
    accepts it in: asked of NumPy itself, on empty arrays of the operands' dtypes."""
    refusal = OverflowError(f"Python integer {value} does not fit in {dtype}, the dtype of the "
                            f"other operand (NumPy 2 promotion); cast the tensor first")
    if numpy_fn is None:
        raise refusal
    probes = [_weak_probe(a, args) if _is_python_scalar(a) else np.zeros(0, dtype=_dtype_of(a))
              for a in args]
    try:
        with np.errstate(all="ignore"):
            result = np.asarray(numpy_fn(*probes)).dtype
    except OverflowError:
        raise refusal from None
    if result.kind in "fc":  # a float loop (x_uint8 / -2): the int is a float there
        return np.asarray(value, dtype=result)
    if result.kind == "b":  # an exact comparison: compare in a wide integer type
        for wide in ("int64", "uint64"):
            if np.can_cast(np.min_scalar_type(value), wide):
                return np.asarray(value, dtype=wide)
        raise refusal
    # np.clip: a bound outside the dtype clips nothing beyond the dtype's own range.
    info = np.iinfo(result)
    return np.asarray(min(max(value, info.min), info.max), dtype=result)


def _weak_probe(value: Any, args: tuple) -> Any:
    """What NumPy is asked with for the Python scalar ``value``: itself, except a float
    next to integers only, which is a floatX operand in symnb (see _weak_constant)."""
    strong = [_dtype_of(a) for a in args if not _is_python_scalar(a)]
    if isinstance(value, float) and strong and all(d.kind in "biu" for d in strong):
        return np.zeros(0, dtype=config.floatX)
    return value


def _dtype_of(a: Any) -> np.dtype:
    return a.type.numpy_dtype if isinstance(a, Variable) else np.asarray(a).dtype


def result_dtype(*variables: Variable) -> str:
    """The dtype NumPy gives an elementwise operation on these operands."""
    return str(np.result_type(*(np.dtype(v.dtype) for v in variables)))



#: ``join.stack`` and its op class, installed by join.py (it builds on this module and on
#: shape.py): what a list of variables given as one tensor becomes, and what shape.py
#: reads shape vectors through.
_stack: list = []


def install_stack(stack: Callable[..., Variable], op_class: type) -> None:
    """Install the function that stacks a list of variables into one tensor, and its op."""
    _stack[:] = [stack, op_class]


def is_stack(node: Any) -> bool:
    """Whether ``node`` stacks its inputs along a new axis (join's Stack)."""
    return node is not None and isinstance(node.op, _stack[1])
