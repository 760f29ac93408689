"""Pooling -> ``lax.reduce_window``; its gradients -> JAX's own derivatives of it.

The forward pooling is one ``reduce_window`` (max or add) over the input padded as the
op's ``paddings`` say (the far side also makes room for Theano's partial windows),
divided by the window sizes for the averages (a constant computed by the op). The
gradient of max pooling is ``jax.vjp`` of that ``reduce_window`` max, which XLA
compiles to its select-and-scatter (the first maximum of each window gets the
gradient, as in the op's ``perform``); its second derivative is ``jax.jvp`` (XLA's
select-and-gather). The other gradients are ``jax.linear_transpose`` of the
(linear) forward pooling.
"""

from __future__ import annotations

from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from symnb.core.tensor import pool
from symnb.core.tensor.pool_from_values import PoolFromValues
from symnb.lower_xla.registry import lower, static_inputs
from symnb.lower_xla.rules.shape import static_argument


def pooling(op: pool.PoolBase, shape: tuple[int, ...], dtype: str) -> Callable[[Any], Any]:
    """The forward pooling of an input of this shape, as a JAX function."""
    lead = len(shape) - op.ndim
    spatial = shape[lead:]
    out_shape = shape[:lead] + op.out_lengths(spatial)
    counts = op.window_counts(spatial, dtype)
    init = np.array(op.fill_value(dtype), dtype=dtype)
    reducer = lax.max if op.mode == "max" else lax.add

    def apply(x):
        x = x.astype(dtype)
        if 0 in out_shape:
            return jnp.zeros(out_shape, dtype)  # no window: reduce_window would refuse
        pooled = lax.reduce_window(x, init, reducer, (1,) * lead + op.ws, (1,) * lead + op.stride,
                                   ((0, 0),) * lead + tuple(op.paddings(spatial)))
        if pooled.shape != out_shape:  # the padding's far side can leave a window too many
            pooled = pooled[(Ellipsis,) + tuple(slice(0, n) for n in out_shape[lead:])]
        return pooled if counts is None else pooled / counts

    return apply


@lower.register(pool.Pool)
def _pool(op, node):
    dtype = node.outputs[0].type.dtype
    return lambda x: pooling(op, x.shape, dtype)(x)


@lower.register(pool.MaxPoolGrad)
def _max_pool_grad(op, node):
    dtype = node.outputs[0].type.dtype

    def rule(x, g):
        _, backward = jax.vjp(pooling(op, x.shape, dtype), x.astype(dtype))
        return backward(g.astype(dtype))[0]

    return rule


@lower.register(pool.MaxPoolGradGrad)
def _max_pool_grad_grad(op, node):
    dtype = node.outputs[0].type.dtype

    def rule(x, t):
        return jax.jvp(pooling(op, x.shape, dtype), (x.astype(dtype),), (t.astype(dtype),))[1]

    return rule


@lower.register(pool.AveragePoolGrad)
def _average_pool_grad(op, node):
    dtype = node.outputs[0].type.dtype

    def rule(x, g):
        transpose = jax.linear_transpose(pooling(op, x.shape, dtype), jax.ShapeDtypeStruct(x.shape, dtype))
        return transpose(g.astype(dtype))[0]

    return rule


@lower.register(PoolFromValues)
def _pool_from_values(op, node):
    def rule(x, ws, stride, pad, *grad):
        values = [static_argument(v, node, i, "pooling window") for i, v in enumerate((ws, stride, pad), 1)]
        concrete, inner = op.concrete(node, *values)
        return lower(concrete, inner)(x, *grad)

    return rule


@static_inputs.register(PoolFromValues)
def _pool_window(op, node) -> dict[int, str]:
    return {1: "a size", 2: "a size", 3: "a size"}
