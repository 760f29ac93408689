"""Reductions -> jax.numpy.

The input is first cast to NumPy's accumulator dtype (``Reduce.compute_dtype``: int64
for the sum of int32 or bool, float64 for the mean of an integer), because JAX's
defaults differ. Reductions without an identity (max, min, argmax, argmin) check at
trace time, where shapes are known, that no reduced axis is empty.
"""

from __future__ import annotations

import jax.numpy as jnp

from symnb.core.tensor import reduction as r
from symnb.lower_xla.convert import as_dtype
from symnb.lower_xla.registry import lower
from symnb.lower_xla.rules.shape import refuse, with_input_names

_JAX_FUNCTIONS = {
    r.Sum: jnp.sum, r.Prod: jnp.prod, r.Mean: jnp.mean, r.Max: jnp.max, r.Min: jnp.min,
    r.Var: jnp.var, r.Std: jnp.std, r.Argmax: jnp.argmax, r.Argmin: jnp.argmin,
    r.Any: jnp.any, r.All: jnp.all,
}


@lower.register(r.Reduce)
def _reduce(op, node):
    fn = _JAX_FUNCTIONS[type(op)]
    dtype = op.compute_dtype(node.inputs[0].type.dtype, node.outputs[0].type.dtype)
    extra = {"ddof": op.ddof} if isinstance(op, r.Moment) else {}

    def reduce(x):
        # Named by position (a compiled program may be shared by graphs whose variables
        # have other names); the error report says it again with the names.
        with_input_names(lambda names: refuse(r.empty_reduction_message(op, names[0], x.shape)), 1)
        return fn(as_dtype(x, dtype), axis=op.axis, keepdims=op.keepdims, **extra)

    return reduce
