"""Elementwise ops -> jax.numpy, side by side.

Inputs are first cast to the dtype NumPy computes in (the output dtype, or for
comparisons the promoted input dtype), because JAX's promotion lattice differs from
NumPy's (``int32 + float32`` is float32 in JAX, float64 in NumPy).
"""

from __future__ import annotations

from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np

from symnb.core.tensor import elemwise as ew
from symnb.lower_xla.convert import as_dtype
from symnb.lower_xla.registry import lower


def _compute_dtype(node) -> np.dtype:
    out = node.outputs[0].type.dtype
    if out != "bool":
        return np.dtype(out)
    return np.result_type(*(np.dtype(v.type.dtype) for v in node.inputs))


def _check_broadcast(arrays) -> None:
    shapes = [tuple(a.shape) for a in arrays]
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        raise ew.DimensionMismatch(shapes) from None


def _elementwise(fn: Callable, node) -> Callable:
    dtype = _compute_dtype(node)
    # Cast only the inputs whose dtype differs (fewer operations to trace).
    casts = [np.dtype(v.type.dtype) != dtype for v in node.inputs]

    def apply(*arrays):
        _check_broadcast(arrays)
        return fn(*(as_dtype(a, dtype) if cast else a for a, cast in zip(arrays, casts)))

    return apply


def _register(op_class: type, fn: Callable) -> None:
    lower.register(op_class)(lambda op, node: _elementwise(fn, node))


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


_register(ew.Add, jnp.add)
_register(ew.Sub, jnp.subtract)
_register(ew.Mul, jnp.multiply)
_register(ew.TrueDiv, jnp.true_divide)
_register(ew.FloorDiv, jnp.floor_divide)
_register(ew.Mod, jnp.mod)
_register(ew.Pow, _power)
_register(ew.Maximum, jnp.maximum)
_register(ew.Minimum, jnp.minimum)
_register(ew.Neg, jnp.negative)
_register(ew.Abs, jnp.abs)
_register(ew.Sign, jnp.sign)
_register(ew.Round, jnp.round)
_register(ew.Floor, jnp.floor)
_register(ew.Ceil, jnp.ceil)
_register(ew.Exp, jnp.exp)
_register(ew.Log, jnp.log)
_register(ew.Log1p, jnp.log1p)
_register(ew.Expm1, jnp.expm1)
_register(ew.Sqrt, jnp.sqrt)
_register(ew.Square, jnp.square)
_register(ew.Sin, jnp.sin)
_register(ew.Cos, jnp.cos)
_register(ew.Tanh, jnp.tanh)
_register(ew.Sigmoid, jax.nn.sigmoid)
_register(ew.Softplus, jax.nn.softplus)
_register(ew.Erf, jax.scipy.special.erf)
_register(ew.Identity, lambda x: x)
_register(ew.StopGradient, jax.lax.stop_gradient)
_register(ew.Eq, jnp.equal)
_register(ew.Neq, jnp.not_equal)
_register(ew.Lt, jnp.less)
_register(ew.Le, jnp.less_equal)
_register(ew.Gt, jnp.greater)
_register(ew.Ge, jnp.greater_equal)
_register(ew.And, jnp.bitwise_and)
_register(ew.Or, jnp.bitwise_or)
_register(ew.Xor, jnp.bitwise_xor)
_register(ew.Invert, jnp.invert)
_register(ew.IsNan, jnp.isnan)
_register(ew.IsInf, jnp.isinf)
_register(ew.Clip, _clip)


@lower.register(ew.Switch)
def _switch(op, node):
    dtype = np.dtype(node.outputs[0].type.dtype)

    def switch(cond, a, b):
        _check_broadcast((cond, a, b))
        return jnp.where(cond.astype(bool), as_dtype(a, dtype), as_dtype(b, dtype))

    return switch


@lower.register(ew.Cast)
def _cast(op, node):
    return lambda x: as_dtype(x, op.dtype)
