"""Elementwise ops -> jax.numpy, keyed by the name of each op's row in
``symnb.core.tensor.elemwise_specs``: ``jnp.<name>`` unless ``JAX_FUNCTIONS`` says
otherwise (a row with neither fails this module's import).

Inputs are first cast to the dtype NumPy computes in (the output dtype, or for
comparisons the promoted input dtype), because JAX's promotion lattice differs from
NumPy's (``int32 + float32`` is float32 in JAX, float64 in NumPy).
"""

from __future__ import annotations

from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from symnb.core.tensor import elemwise as ew
from symnb.core.tensor.elemwise import ELEMWISE_OPS
from symnb.lower_xla.convert import as_dtype
from symnb.lower_xla.registry import lower


def _compute_dtype(node) -> np.dtype:
    """The dtype the inputs are cast to (``Op.computes_in``, else the output's)."""
    return np.dtype(node.op.computes_in(node) or node.outputs[0].type.dtype)


def _check_broadcast(arrays) -> bool:
    """Raise ``DimensionMismatch`` when the inputs' shapes do not broadcast. Returns True
    when every input has the shape of the others or none (rank 0), which ``jax.lax``
    applies as it is; False when NumPy's broadcasting is needed."""
    shapes = [tuple(a.shape) for a in arrays]
    ranked = [s for s in shapes if s]
    if not ranked or ranked.count(ranked[0]) == len(ranked):
        return True  # equal shapes (most nodes): no need to ask NumPy
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        raise ew.DimensionMismatch(shapes) from None
    return False


def _elementwise(fn: Callable, node, primitive: Callable | None = None) -> Callable:
    """``fn`` applied to the inputs cast to the computing dtype; ``primitive`` (its
    ``jax.lax`` function, for float dtypes) instead when no input needs broadcasting:
    the same operation, but jax.numpy's functions are jitted wrappers whose tracing
    costs several times the primitive's (a chain of 10,000 nodes traces in about half
    the time)."""
    dtype = _compute_dtype(node)
    # Cast only the inputs whose dtype differs (fewer operations to trace).
    casts = [v.type.numpy_dtype != dtype for v in node.inputs]
    if dtype.kind != "f":  # NumPy's floating types (what np.issubdtype(dtype, np.floating) says)
        primitive = None

    # A float computed wider than the output (integers divided into floatX) is rounded to it.
    out_dtype = node.outputs[0].type.numpy_dtype
    narrow = dtype.kind == "f" and out_dtype.kind == "f" and out_dtype != dtype

    def apply(*arrays):
        direct = _check_broadcast(arrays)
        arrays = [as_dtype(a, dtype) if cast else a for a, cast in zip(arrays, casts)]
        if primitive is not None and direct and all(a.dtype == dtype for a in arrays):
            result = primitive(*arrays)
        else:
            result = fn(*arrays)
        return as_dtype(result, out_dtype) if narrow else result

    return apply


def _clip(x, low, high):
    return jnp.minimum(jnp.maximum(x, low), high)


def _power(x, y):
    """NumPy's power. For float32/float64 NumPy computes ``x ** y`` as ``sqrt(x)`` when
    the exponent is one value equal to 0.5 (its fast path), which differs from C's pow
    at -0.0 (-0.0, not +0.0) and -inf (NaN, not +inf); other exponents, float16 and
    exponent arrays of several values use C's pow, as XLA does."""
    result = jnp.power(x, y)
    if y.size == 1 and x.dtype in (jnp.float32, jnp.float64):
        half = y.reshape(()) == 0.5
        result = jnp.where(half, jnp.sqrt(x), result)
    return result


def _round_half_away_from_zero(x):
    """C's round (XLA's ``round``); integers are already round."""
    if jnp.issubdtype(x.dtype, jnp.complexfloating):  # each part rounded, as jnp.round does
        return lax.complex(_round_half_away_from_zero(x.real), _round_half_away_from_zero(x.imag))
    if not jnp.issubdtype(x.dtype, jnp.floating):
        return x
    return lax.round(x, lax.RoundingMethod.AWAY_FROM_ZERO)


def _erf(x):
    # Imported here: jax.scipy.special costs a fresh process a few milliseconds to load.
    from jax.scipy.special import erf

    return erf(x)


def _sign(x):
    """NumPy's sign: +0.0 for -0.0 too (JAX's keeps the zero's sign, and 1 / sign(-0.0)
    was then -inf where the test value said +inf)."""
    return jnp.where(x == 0, jnp.zeros_like(x), jnp.sign(x))


#: The JAX function of each row of ``elemwise_specs.SPECS`` whose function is not
#: ``jnp.<name>`` (a row named like its jax.numpy function needs no entry), by row name.
#: ``identity`` and ``clip`` have jnp namesakes that are other functions.
JAX_FUNCTIONS: dict[str, Callable] = {
    "sub": jnp.subtract,
    "mul": jnp.multiply,
    "true_div": jnp.true_divide,
    "floor_div": jnp.floor_divide,
    "pow": _power,
    "neg": jnp.negative,
    "sign": _sign,
    "sigmoid": jax.nn.sigmoid,
    "softplus": jax.nn.softplus,
    "erf": _erf,
    "identity": lambda x: x,
    "stop_gradient": jax.lax.stop_gradient,
    "eq": jnp.equal,
    "neq": jnp.not_equal,
    "lt": jnp.less,
    "le": jnp.less_equal,
    "gt": jnp.greater,
    "ge": jnp.greater_equal,
    "and_": jnp.bitwise_and,
    "or_": jnp.bitwise_or,
    "xor": jnp.bitwise_xor,
    "clip": _clip,
    "round_half_to_even": jnp.round,
    "round_half_away_from_zero": _round_half_away_from_zero,
}


#: The ``jax.lax`` primitive of a row, applied directly to float inputs of one shape
#: (where it computes exactly what the jax.numpy function does).
LAX_FUNCTIONS: dict[str, Callable] = {
    "add": lax.add, "sub": lax.sub, "mul": lax.mul, "true_div": lax.div, "neg": lax.neg,
    "maximum": lax.max, "minimum": lax.min, "abs": lax.abs,
    "floor": lax.floor, "ceil": lax.ceil, "exp": lax.exp, "log": lax.log,
    "log1p": lax.log1p, "expm1": lax.expm1, "sqrt": lax.sqrt, "sin": lax.sin,
    "cos": lax.cos, "tan": lax.tan, "tanh": lax.tanh,
    "eq": lax.eq, "neq": lax.ne, "lt": lax.lt, "le": lax.le, "gt": lax.gt, "ge": lax.ge,
}


def jax_function(name: str) -> Callable | None:
    """The JAX function of the row ``name``: its entry in ``JAX_FUNCTIONS``, else
    ``jnp.<name>``; None when neither exists."""
    return JAX_FUNCTIONS.get(name) or getattr(jnp, name, None)


def _switch(op, node):
    dtype = np.dtype(node.outputs[0].type.dtype)

    def switch(cond, a, b):
        _check_broadcast((cond, a, b))
        return jnp.where(cond.astype(bool), as_dtype(a, dtype), as_dtype(b, dtype))

    return switch


def _cast(op, node):
    return lambda x: as_dtype(x, op.dtype)


#: Rows whose rule is not a JAX function applied to inputs cast to the computing dtype.
_OWN_RULES = {"switch": _switch, "cast": _cast}


def _register_every_row() -> None:
    for op_class in ELEMWISE_OPS:
        name = op_class.spec.name
        if name in _OWN_RULES:
            lower.register(op_class)(_OWN_RULES[name])
        elif (fn := jax_function(name)) is not None:
            primitive = LAX_FUNCTIONS.get(name)
            lower.register(op_class)(
                lambda op, node, fn=fn, primitive=primitive: _elementwise(fn, node, primitive))
        else:
            raise NotImplementedError(f"elementwise row {name!r} ({op_class.__name__}) has no "
                                      f"lowering: jnp.{name} does not exist, so add its JAX "
                                      f"function to JAX_FUNCTIONS")


_register_every_row()
