"""Random ops -> ``jax.random``, the key threaded explicitly through the program.

Each rule splits its key input as ``jax.random.split`` does, returns the first half
as the next key and draws with the second through the ``jax.random`` sampler the op's
NumPy ``perform`` mirrors (``symnb.core.tensor.random.samplers``). Nothing is drawn on
the host: the keys are device values like any other. Sizes must be static (constants
or computed from input shapes).
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from symnb.core.tensor.random import samplers
from symnb.core.tensor.random.ops import (
    BinomialRV, ChoiceRV, MultinomialRV, NormalRV, PermutationRV, RandomIntegersRV, RandomOp,
    TruncatedNormalRV, UniformRV, multinomial_counts,
)
from symnb.lower_xla.registry import lower, static_inputs
from symnb.lower_xla.rules.shape import static_argument


def split_key(key_data):
    """``(next key data, key to draw with)`` from a threefry key's data."""
    key = jax.random.wrap_key_data(key_data, impl="threefry2x32")
    next_key, draw_key = jax.random.split(key)
    return jax.random.key_data(next_key), draw_key


def _size(size, node) -> tuple[int, ...]:
    return tuple(int(n) for n in static_argument(size, node, 1, "size"))


def _rule(draw):
    """A rule from ``draw(op, node, key, size, *params) -> sample``."""
    def rule(op, node):
        dtype = node.outputs[1].type.dtype

        def sample(key, size, *params):
            next_key, draw_key = split_key(key)
            out = draw(op, node, draw_key, _size(size, node), *params)
            return next_key, jnp.asarray(out).astype(dtype)

        return sample

    return rule


@static_inputs.register(RandomOp)
def _random_size(op, node) -> dict[int, str]:
    return {1: "a size"}


@static_inputs.register(ChoiceRV)
@static_inputs.register(PermutationRV)
def _random_size_and_count(op, node) -> dict[int, str]:
    return {1: "a size", 2: "a size"}


def _uniform(op, node, key, size, low, high):
    return jax.random.uniform(key, size, op.dtype, low, high)


def _normal(op, node, key, size, avg, std):
    return avg + std * jax.random.normal(key, size, op.dtype)


def _truncated_normal(op, node, key, size, avg, std):
    # samplers.standard_truncated_normal's steps, with its constants: the same draw.
    low, high = samplers.truncated_normal_bounds(op.dtype)
    u = jax.random.uniform(key, size, op.dtype, low, high)
    z = jnp.clip(np.array(np.sqrt(2), op.dtype) * lax.erf_inv(u), *samplers.truncation_clamp(op.dtype))
    return avg + std * z


def _binomial(op, node, key, size, p):
    if op.n == 1:
        return jax.random.bernoulli(key, p, size)
    trials = jax.random.bernoulli(key, p, (op.n, *size))
    return jnp.sum(trials, axis=0, dtype=op.dtype)


def _random_integers(op, node, key, size, low, high):
    return jax.random.randint(key, size, low, high + 1, op.dtype)


def _multinomial(op, node, key, size, pvals):
    u = jax.random.uniform(key, (op.n, *size), pvals.dtype)
    return multinomial_counts(u, pvals, jnp, op.dtype)


for _op_class, _draw in ((UniformRV, _uniform), (NormalRV, _normal),
                         (TruncatedNormalRV, _truncated_normal), (BinomialRV, _binomial),
                         (RandomIntegersRV, _random_integers), (MultinomialRV, _multinomial)):
    lower.register(_op_class)(_rule(_draw))


@lower.register(ChoiceRV)
def _choice(op, node):
    def choice(key, size, n, *p):
        next_key, draw_key = split_key(key)
        shape = _size(size, node)
        count = int(static_argument(n, node, 2, "size"))
        if not p and op.replace:  # jax's choice would use the default int type
            out = jax.random.randint(draw_key, shape, 0, count, op.dtype)
        elif math.prod(shape) == 0:
            out = jnp.zeros(shape, op.dtype)
        else:
            out = jax.random.choice(draw_key, count, shape, op.replace, p[0] if p else None)
        return next_key, jnp.asarray(out).astype(op.dtype)

    return choice


@lower.register(PermutationRV)
def _permutation(op, node):
    def permutation(key, size, n):
        next_key, draw_key = split_key(key)
        shape = (*_size(size, node), int(static_argument(n, node, 2, "size")))
        x = jnp.broadcast_to(jnp.arange(shape[-1], dtype=op.dtype), shape)
        return next_key, _shuffle(draw_key, x)

    return permutation


def _shuffle(key, x):
    """JAX's ``_shuffle`` along the last axis (``jax.random.permutation`` for one axis)."""
    for _ in range(samplers.num_rounds(x.size)):
        key, subkey = jax.random.split(key)
        sort_keys = jax.random.bits(subkey, x.shape, np.uint32)
        _, x = lax.sort_key_val(sort_keys, x, x.ndim - 1)
    return x
