"""Scan benchmark (issue 6): a tanh RNN training step against jax.lax.scan + jax.grad.

    python bench/bench_scan.py

``h_t = tanh(x_t W + h_{t-1} U)`` over a float32 (T, B, H) = (200, 32, 128) sequence;
the cost is ``mean(h * h)``. Each side computes the cost and its gradients with
respect to W and U in one compiled call (forward and backward). Target: symnb at
most 1.05x hand-written ``jax.jit``. Both return NumPy arrays.
"""

from __future__ import annotations

import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import symnb as sn  # noqa: E402
import symnb.tensor as T  # noqa: E402
from symnb.core.scan import scan  # noqa: E402
from timing import compare  # noqa: E402

STEPS, BATCH, HIDDEN = 200, 32, 128


def _data(rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    x = rng.normal(size=(STEPS, BATCH, HIDDEN)).astype("float32")
    h0 = np.zeros((BATCH, HIDDEN), "float32")
    w = (rng.normal(size=(HIDDEN, HIDDEN)) * HIDDEN ** -0.5).astype("float32")
    u = (rng.normal(size=(HIDDEN, HIDDEN)) * HIDDEN ** -0.5).astype("float32")
    return x, h0, w, u


def _symnb_step(w_value: np.ndarray, u_value: np.ndarray):
    x = T.tensor3("x", shape=(None, BATCH, HIDDEN))
    h0 = T.matrix("h0", shape=(BATCH, HIDDEN))
    w = sn.shared(w_value, name="W")
    u = sn.shared(u_value, name="U")
    h, _ = scan(lambda xt, h, w, u: T.tanh(T.dot(xt, w) + T.dot(h, u)), sequences=x,
                outputs_info=h0, non_sequences=[w, u], name="rnn")
    cost = T.mean(h * h)
    g_w, g_u = sn.grad(cost, [w, u])
    return sn.function([x, h0], [cost, g_w, g_u])


def _jax_step():
    def loss(w, u, x, h0):
        def step(h, xt):
            h = jnp.tanh(xt @ w + h @ u)
            return h, h

        _, hs = jax.lax.scan(step, h0, x)
        return jnp.mean(hs * hs)

    return jax.jit(jax.value_and_grad(loss, argnums=(0, 1)))


def rnn_training_step() -> dict:
    x, h0, w, u = _data(np.random.default_rng(0))
    ours = _symnb_step(w, u)
    jitted = _jax_step()
    w_device, u_device = jax.device_put(w), jax.device_put(u)

    def reference():
        cost, (g_w, g_u) = jitted(w_device, u_device, x, h0)
        return np.asarray(cost), np.asarray(g_w), np.asarray(g_u)

    for a, b in zip(ours(x, h0), reference()):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)
    return compare(f"tanh RNN T={STEPS} B={BATCH} H={HIDDEN}, cost + grads", lambda: ours(x, h0),
                   reference, number=20, target=1.05)


if __name__ == "__main__":
    print(f"jax {jax.__version__}, backend {jax.default_backend()}")
    rnn_training_step()
