"""Reductions -> jax.numpy.

The input is first cast to the accumulator dtype (``Reduce.computes_in``: Theano's
``acc_dtype`` for sum, prod and mean, so int64 for the sum of int32 or bool and float64
for that of float32), because JAX's defaults differ. Reductions without an identity
(max, min, argmax, argmin) check at trace time, where shapes are known, that no reduced
axis is empty.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import lax

from symnb.core.tensor import reduction as r
from symnb.core.tensor.careduce import ScalarOpReduce
from symnb.lower_xla.convert import as_dtype
from symnb.lower_xla.registry import lower
from symnb.lower_xla.rules.shape import refuse, with_input_names

_JAX_FUNCTIONS = {
    r.Sum: jnp.sum, r.Prod: jnp.prod, r.Max: jnp.max, r.Min: jnp.min,
    r.Var: jnp.var, r.Std: jnp.std, r.Argmax: jnp.argmax, r.Argmin: jnp.argmin,
    r.Any: jnp.any, r.All: jnp.all,
    r.ProdWithoutZeros: lambda x, axis, keepdims: jnp.prod(jnp.where(x == 0, jnp.ones((), x.dtype), x),
                                                           axis=axis, keepdims=keepdims),
}


@lower.register(r.Reduce)
def _reduce(op, node):
    fn = _JAX_FUNCTIONS[type(op)]
    out_dtype = node.outputs[0].type.dtype
    dtype = op.computes_in(node)
    extra = {"ddof": op.ddof} if isinstance(op, r.Moment) else {}

    def reduce(x):
        # Named by position (a compiled program may be shared by graphs whose variables
        # have other names); the error report says it again with the names.
        with_input_names(lambda names: refuse(r.empty_reduction_message(op, names[0], x.shape)), 1)
        result = fn(as_dtype(x, dtype), axis=op.axis, keepdims=op.keepdims, **extra)
        return result if dtype == out_dtype else as_dtype(result, out_dtype)  # (an acc_dtype)

    return reduce


@lower.register(r.Mean)
def _mean(op, node):
    """Theano's mean (``r.Mean``): a sum in ``acc_dtype``, cast to the sum's dtype, then
    divided by each reduced length in turn."""
    in_dtype = node.inputs[0].type.dtype
    summed, divides_in, out_dtype = op.sum_dtype(in_dtype), op.divides_in(in_dtype), node.outputs[0].type.dtype

    def mean(x):
        total = jnp.sum(as_dtype(x, op.acc_dtype), axis=op.axis, keepdims=op.keepdims)
        total = as_dtype(as_dtype(total, summed), divides_in)
        for a in op.axis:
            # The barrier keeps each division one: XLA would multiply by the length's
            # rounded reciprocal, or merge the divisions (600 / 20 / 30 gave 1.0000001).
            total, length = lax.optimization_barrier((total, jnp.asarray(x.shape[a], divides_in)))
            total = total / length
        return as_dtype(total, out_dtype)

    return mean


def _identity(row: str, dtype: np.dtype):
    """The value folding starts from: the scalar op's identity in ``dtype``."""
    if row in ("add", "or_", "xor"):
        return np.zeros((), dtype)
    if row == "mul":
        return np.ones((), dtype)
    if row == "and_":
        return np.bitwise_not(np.zeros((), dtype))  # all bits set; True for bool
    info = np.finfo(dtype) if dtype.kind in "fc" else None
    if row == "maximum":
        return np.array(-np.inf if info else (False if dtype.kind == "b" else np.iinfo(dtype).min), dtype)
    return np.array(np.inf if info else (True if dtype.kind == "b" else np.iinfo(dtype).max), dtype)


_LAX_FOLDS = {"add": lax.add, "mul": lax.mul, "maximum": lax.max, "minimum": lax.min,
              "and_": lax.bitwise_and, "or_": lax.bitwise_or, "xor": lax.bitwise_xor}
#: On bools NumPy's add and mul reductions, cast back to bool, are or and and.
_BOOL_FOLDS = {"add": "or_", "mul": "and_"}


@lower.register(ScalarOpReduce)
def _scalar_op_reduce(op, node):
    dtype = np.dtype(node.outputs[0].type.dtype)
    row = _BOOL_FOLDS.get(op.row, op.row) if dtype.kind == "b" else op.row
    fold, start = _LAX_FOLDS[row], _identity(row, dtype)

    def reduce(x):
        with_input_names(lambda names: refuse(r.empty_reduction_message(op, names[0], x.shape)), 1)
        result = lax.reduce(x, start, fold, op.axis)
        return jnp.expand_dims(result, op.axis) if op.keepdims else result

    return reduce
