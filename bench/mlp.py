"""The MLP of the training-step benchmarks (bench_grad, bench_dropout, bench_first_result):
sizes, initial parameters, and its loss written for JAX. JAX and NumPy only, so a
reference process need not import symnb."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

__all__ = ["SIZES", "BATCH", "LEARNING_RATE", "initial_params", "jax_loss"]

SIZES = [784, 512, 512, 10]
BATCH = 256
LEARNING_RATE = 0.01


def initial_params(rng: np.random.Generator) -> list[np.ndarray]:
    params = []
    for fan_in, fan_out in zip(SIZES[:-1], SIZES[1:]):
        params.append(rng.normal(scale=fan_in ** -0.5, size=(fan_in, fan_out)).astype("float32"))
        params.append(np.zeros(fan_out, dtype="float32"))
    return params


def jax_loss(params, x, y):
    """The tanh MLP's mean log-softmax cross-entropy on integer labels ``y``."""
    h = x
    for i in range(0, len(params), 2):
        h = jnp.dot(h, params[i]) + params[i + 1]
        if i < len(params) - 2:
            h = jnp.tanh(h)
    return -jnp.mean(jax.nn.log_softmax(h)[jnp.arange(y.shape[0]), y])
