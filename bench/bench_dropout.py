"""Dropout benchmark (issue 11): an MLP training step with dropout against hand-written
``jax.jit`` with ``jax.random``.

    python bench/bench_dropout.py [--repeat N]

The step is bench_grad.py's 256x784-512-512-10 tanh MLP (log-softmax cross-entropy on
integer labels, plain SGD), with dropout (keep probability 0.5, inverted scaling) on
both hidden layers. symnb's version is written the Theano way: ``RandomStreams``,
``srng.binomial(h.shape, p=0.5)``; each mask's stream state is a shared variable whose
default update advances it. The reference threads two threefry keys through one
``jax.jit`` (split, draw with ``jax.random.bernoulli``, return the next keys) with the
parameters and keys donated: the same work per call. Both start from the same keys,
so the first steps are checked to give the same loss and parameters. Target: at most
1.05x. The machine may be shared: ``--repeat`` runs the comparison several times and
prints the spread of the ratios.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import symnb as sn  # noqa: E402
import symnb.tensor as T  # noqa: E402
from symnb.tensor.shared_randomstreams import RandomStreams  # noqa: E402
from bench_grad import BATCH, LEARNING_RATE, SIZES, initial_params  # noqa: E402  (the same MLP)
from timing import compare  # noqa: E402

KEEP = 0.5


def symnb_step(params: list[np.ndarray]):
    """The step as a symnb user writes it; returns (function, shared params, streams)."""
    srng = RandomStreams(seed=1234)
    shared = [sn.shared(p.copy(), name=f"p{i}") for i, p in enumerate(params)]
    x = T.matrix("x", shape=(None, SIZES[0]))
    y = T.ivector("y")
    h = x
    for i in range(0, len(shared), 2):
        h = T.dot(h, shared[i]) + shared[i + 1]
        if i < len(shared) - 2:
            h = T.tanh(h)
            h = h * srng.binomial(h.shape, p=KEEP, dtype="float32") / KEEP
    cost = -T.mean(T.log_softmax(h)[T.arange(y.shape[0]), y])
    grads = sn.grad(cost, shared)
    updates = [(p, p - LEARNING_RATE * g) for p, g in zip(shared, grads)]
    return sn.function([x, y], cost, updates=updates), shared, srng


def _split(key_data):
    key = jax.random.wrap_key_data(key_data, impl="threefry2x32")
    next_key, draw_key = jax.random.split(key)
    return jax.random.key_data(next_key), draw_key


def _jax_loss(params, keys, x, y):
    h = x
    next_keys = []
    for i in range(0, len(params), 2):
        h = jnp.dot(h, params[i]) + params[i + 1]
        if i < len(params) - 2:
            h = jnp.tanh(h)
            next_key, draw_key = _split(keys[i // 2])
            next_keys.append(next_key)
            mask = jax.random.bernoulli(draw_key, np.float32(KEEP), h.shape).astype(h.dtype)
            h = h * mask / KEEP
    return -jnp.mean(jax.nn.log_softmax(h)[jnp.arange(y.shape[0]), y]), next_keys


def _jax_step(params, keys, x, y):
    (loss, next_keys), grads = jax.value_and_grad(_jax_loss, has_aux=True)(params, keys, x, y)
    return loss, [p - LEARNING_RATE * g for p, g in zip(params, grads)], next_keys


jax_step = jax.jit(_jax_step, donate_argnums=(0, 1))


def _check_same_step(f, shared, srng, params, x, y) -> None:
    """One step of each from the same parameters and keys: same loss and parameters."""
    keys = [jax.device_put(state.get_value()) for state, _ in srng.state_updates]
    loss = f(x, y)
    ref_loss, ref_params, ref_keys = jax_step([jax.device_put(p) for p in params], keys, x, y)
    np.testing.assert_allclose(loss, np.asarray(ref_loss), rtol=1e-5)
    for s, p in zip(shared, ref_params):
        np.testing.assert_allclose(s.get_value(), np.asarray(p), rtol=1e-4, atol=1e-6)
    for (state, _), k in zip(srng.state_updates, ref_keys):
        np.testing.assert_array_equal(state.get_value(), np.asarray(k))


def dropout_training_step() -> dict:
    rng = np.random.default_rng(0)
    params = initial_params(rng)
    x = rng.normal(size=(BATCH, SIZES[0])).astype("float32")
    y = rng.integers(0, SIZES[-1], size=BATCH).astype("int32")
    f, shared, srng = symnb_step(params)
    _check_same_step(f, shared, srng, params, x, y)
    state = {"params": [jax.device_put(p) for p in params],
             "keys": [jax.device_put(s.get_value()) for s, _ in srng.state_updates]}

    def reference() -> np.ndarray:
        loss, state["params"], state["keys"] = jax_step(state["params"], state["keys"], x, y)
        return np.asarray(loss)

    return compare("dropout MLP step 256x784-512-512-10 (p=0.5, SGD)", lambda: f(x, y),
                   reference, number=20, target=1.05)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    ratios = [dropout_training_step()["ratio"] for _ in range(args.repeat)]
    print(f"ratios over {len(ratios)} runs: min {min(ratios):.3f}  median "
          f"{np.median(ratios):.3f}  max {max(ratios):.3f}")


if __name__ == "__main__":
    main()
