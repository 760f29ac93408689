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
from symnb.core.tensor.autocast import python_number

__all__ = [
    "tensor", "scalar", "vector", "matrix", "tensor3", "tensor4",
    "typed_input", "TYPED_PREFIXES", "constant", "as_tensor_variable",
    "as_tensor_args", "result_dtype",
    "iscalar", "ivector", "imatrix", "itensor3", "itensor4",
    "lscalar", "lvector", "lmatrix", "ltensor3", "ltensor4",
    "bscalar", "bvector", "bmatrix", "btensor3", "btensor4",
    "fscalar", "fvector", "fmatrix", "ftensor3", "ftensor4",
    "dscalar", "dvector", "dmatrix", "dtensor3", "dtensor4",
    "wscalar", "wvector", "wmatrix", "wtensor3", "wtensor4",
    "cscalar", "cvector", "cmatrix", "ctensor3", "ctensor4",
    "zscalar", "zvector", "zmatrix", "ztensor3", "ztensor4",
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

#: Theano's dtype prefixes: i (int32), l (int64), b (int8), w (int16), f (float32),
#: d (float64), c (complex64), z (complex128).
TYPED_PREFIXES = {"i": "int32", "l": "int64", "b": "int8", "w": "int16", "f": "float32",
                  "d": "float64", "c": "complex64", "z": "complex128"}
# ``T.dmatrix`` is ``TensorType('float64', (False, False))``, as in Theano: calling it
# makes an input (``T.dmatrix('x')``), and it equals every type of that dtype and shape.
iscalar, ivector, imatrix, itensor3, itensor4 = (TensorType("int32", (None,) * n) for n in range(5))
lscalar, lvector, lmatrix, ltensor3, ltensor4 = (TensorType("int64", (None,) * n) for n in range(5))
bscalar, bvector, bmatrix, btensor3, btensor4 = (TensorType("int8", (None,) * n) for n in range(5))
fscalar, fvector, fmatrix, ftensor3, ftensor4 = (TensorType("float32", (None,) * n) for n in range(5))
dscalar, dvector, dmatrix, dtensor3, dtensor4 = (TensorType("float64", (None,) * n) for n in range(5))
wscalar, wvector, wmatrix, wtensor3, wtensor4 = (TensorType("int16", (None,) * n) for n in range(5))
cscalar, cvector, cmatrix, ctensor3, ctensor4 = (TensorType("complex64", (None,) * n) for n in range(5))
zscalar, zvector, zmatrix, ztensor3, ztensor4 = (TensorType("complex128", (None,) * n) for n in range(5))
# Theano 1.0's 5-d inputs (tensor5, and the typed ones as types, as above).
tensor5 = _constructor(5, "tensor5")
itensor5, ltensor5, btensor5, ftensor5, dtensor5 = (
    TensorType(dtype, (None,) * 5) for dtype in ("int32", "int64", "int8", "float32", "float64"))
__all__ += ["tensor5", "itensor5", "ltensor5", "btensor5", "ftensor5", "dtensor5"]


# -- constants and promotion -------------------------------------------------------

def constant(value: Any, dtype: Any = None, name: str | None = None) -> Variable:
    """A constant tensor (``T.constant``), the one place symnb makes a constant.

    Unless ``dtype`` says otherwise a Python number takes Theano 1.0's dtype
    (:mod:`symnb.core.tensor.autocast`): an int the smallest of int8, int16, int32, int64
    that holds it (``T.constant(1)`` is int8, so ``T.constant(1) - rho`` keeps ``rho``'s
    float32 and ``T.sqrt(9)`` is float32), a float ``floatX`` (or, when ``floatX`` is
    float64, the first of ``autocast_float.dtypes`` that holds it). An empty list is
    ``floatX``; other values take NumPy's dtype."""
    if dtype is None and name is None and isinstance(value, (bool, int, float)):
        return _small_number_constant(value)
    if dtype is None and isinstance(value, (bool, int, float, complex)):
        array = python_number(value)
    elif dtype is None and isinstance(value, (list, tuple)) and np.size(value) == 0:
        array = np.asarray(value, dtype=config.floatX)  # Theano's rule for []
    else:
        array = np.asarray(value, dtype=dtype)
    return TensorType.constant_type(TensorType(array.dtype, array.shape), array, name=name)


_number_constants: dict[tuple, Variable] = {}


def _small_number_constant(value: bool | int | float) -> Variable:
    """The constant of a Python number, one object per number from -10 to 10 (as Theano's
    constant cache: a model's few small constants are shared between the nodes using
    them, which the merge rewrite would otherwise have to merge)."""
    array = python_number(value)
    # -0.0 == 0.0 and nan != nan as dict keys: neither is cached; floatX and the
    # autocast dtypes decide the dtype, so the dtype is part of the key.
    cacheable = -10 <= value <= 10 and not (value == 0 and isinstance(value, float))
    key = (type(value), value, array.dtype.str)
    if cacheable:
        cached = _number_constants.get(key)
        if cached is not None:
            return cached
    result = TensorType.constant_type(TensorType(array.dtype, ()), array)
    if cacheable:
        _number_constants[key] = result
    return result


def as_tensor_variable(x: Any, dtype: Any = None, name: str | None = None,
                       ndim: int | None = None) -> Variable:
    """``x`` if it is already a tensor variable, else a constant holding it. An ``Apply``
    node gives its default output (Theano's ``Apply.default_output()``). ``ndim``
    (Theano's): leading axes of length 1 dropped, or leading broadcastable axes added, to
    get that many dimensions (a ``ValueError`` when the axes to drop are not of length 1)."""
    from symnb.core.graph.basic import Apply  # basic.py's node class

    if isinstance(x, Apply):
        if getattr(x.op, "default_output", None) is None and len(x.outputs) != 1:
            raise build_error(f"as_tensor_variable: {x.op.display_name()} has {len(x.outputs)} "
                              "outputs and no default_output: which one is meant is ambiguous",
                              ValueError)
        x = x.default_output()
    if isinstance(x, Variable):
        if dtype is not None and x.dtype != np.dtype(dtype):
            raise TypeError(f"{label(x)!r} has dtype {x.dtype}, expected {np.dtype(dtype)}")
        return x if ndim is None else _with_ndim(x, ndim)
    if isinstance(x, (list, tuple)) and any(isinstance(e, Variable) for e in x):
        out = _stack[0]([as_tensor_variable(e) for e in x])  # a list of variables: stacked
    else:
        out = constant(x, dtype=dtype, name=name)
    return out if ndim is None else _with_ndim(out, ndim)


def _with_ndim(x: Variable, ndim: int) -> Variable:
    """Theano's ``as_tensor_variable(x, ndim=...)``: leading length-1 axes dropped, or
    broadcastable axes added in front."""
    if x.ndim > ndim:
        leading = 0
        while leading < x.ndim - ndim and x.type.shape[leading] == 1:
            leading += 1
        if x.ndim - leading > ndim:
            raise build_error(f"{label(x)!r} ({x.type.short()}) cannot have {ndim} dimension(s): "
                              f"only its leading axes of length 1 can be dropped", ValueError)
        return x.dimshuffle(list(range(leading, x.ndim)))
    if x.ndim < ndim:
        return x.dimshuffle(["x"] * (ndim - x.ndim) + list(range(x.ndim)))
    return x


def as_tensor_args(*args: Any) -> list[Variable]:
    """Operands of an elementwise op: each Python number a constant of Theano's dtype
    (:func:`constant`), promoted with the other operands as any tensor is.

    ``x_int8 + 1`` stays int8 and ``x_float32 * 2.0`` float32 (the int is int8, the
    float floatX); ``x_int8 + 300`` is int16 and ``x_uint8 + 1`` int16 (uint8 with int8),
    as in Theano 1.0.
    """
    # Runs for every elementwise node built: loops, not generators (cheaper to start).
    for a in args:
        if not isinstance(a, Variable):
            break
    else:
        return list(args)
    return [a if isinstance(a, Variable) else as_tensor_variable(a) for a in args]


def result_dtype(*variables: Variable) -> str:
    """The dtype NumPy gives an elementwise operation on these operands."""
    return str(np.result_type(*(np.dtype(v.dtype) for v in variables)))



#: ``join.stack`` and its op class, installed by join.py (it builds on this module and on
#: shape.py): what a list of variables given as one tensor becomes, and what shape.py
#: reads shape vectors through.
_stack: list = []


def install_stack(stack: Callable[..., Variable], op_classes: tuple[type, ...]) -> None:
    """Install the function that stacks a list of variables into one tensor, and the
    classes of the ops it builds."""
    _stack[:] = [stack, op_classes]


def is_stack(node: Any) -> bool:
    """Whether ``node`` stacks its inputs along a new axis (join's Stack, or the
    MakeVector ``stack`` builds of scalars)."""
    if node is None:
        return False
    return isinstance(node.op, _stack[1])
