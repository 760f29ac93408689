"""Broadcasting helpers used by gradients -> jax.numpy (shapes are static under jit)."""

from __future__ import annotations

import jax.numpy as jnp

from symnb.core.tensor.broadcast import BroadcastLike, SumToShape, sum_array_to_shape
from symnb.lower_xla.registry import lower


@lower.register(SumToShape)
def _sum_to_shape(op, node):
    def sum_to_shape(g, like):
        return jnp.reshape(sum_array_to_shape(g, like.shape, xp=jnp), like.shape)

    return sum_to_shape


@lower.register(BroadcastLike)
def _broadcast_like(op, node):
    return lambda x, like: jnp.broadcast_to(x, like.shape)
