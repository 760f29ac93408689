"""Dropout under a learning-phase ``ifelse`` (issue 42): Keras-style training steps
against hand-written ``jax.jit``, and against the same network with the phase fixed.

    python bench/bench_ifelse_dropout.py [--quick]

Keras's Theano backend builds Dropout as ``ifelse(learning_phase, dropped, inputs)``
with the learning phase a uint8 scalar the training function takes (fed 1). Two
networks, written that way (``RandomStreams`` masks, inverted scaling, log-softmax
cross-entropy, plain SGD):

- ``dense``: Keras's mnist_mlp, 784-512-512-10 relu, Dropout 0.2 after each hidden
  layer, batch 128;
- ``conv``: Keras's mnist_cnn, narrowed for a 2-core machine: 3x3 convolutions to 16
  and 32 maps (relu), 2x2 max pooling, Dropout 0.25, a 128-unit relu layer, Dropout
  0.5, 10 classes; batch 64 of 28x28 images.

For each: compile time (graph built, ``sn.function``, first call; the persistent
compilation cache off) against ``jax.jit``'s lower + compile + first call; time per
step against ``jax.jit`` of ``jax.value_and_grad`` of the same network with dropout
always on (target: at most 1.10x, as for the other training steps), and against
symnb's step with the phase fixed (dropout written without ``ifelse``); the number of
products and convolutions in each program. Both start from the same keys: the first
steps are checked to give the same loss and parameters.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

sys.path.insert(0, str(Path(__file__).parent))
import symnb as sn  # noqa: E402
import symnb.tensor as T  # noqa: E402
from symnb.tensor.shared_randomstreams import RandomStreams  # noqa: E402
from symnb.tensor.signal.pool import pool_2d  # noqa: E402
from timing import QUICK, clock, compare  # noqa: E402

LEARNING_RATE = 0.01
HIGHEST = lax.Precision.HIGHEST
NETWORKS = {
    "dense": dict(batch=128, shapes=[(784, 512), (512,), (512, 512), (512,), (512, 10), (10,)],
                  rates=(0.2, 0.2)),
    "conv": dict(batch=64, shapes=[(16, 1, 3, 3), (16,), (32, 16, 3, 3), (32,), (32 * 12 * 12, 128),
                                   (128,), (128, 10), (10,)], rates=(0.25, 0.5)),
}


def initial_params(kind: str, rng: np.random.Generator) -> list[np.ndarray]:
    params = []
    for shape in NETWORKS[kind]["shapes"]:
        fan_in = int(np.prod(shape[1:])) if len(shape) == 4 else shape[0]
        scale = 0.0 if len(shape) == 1 else fan_in ** -0.5
        params.append((rng.normal(size=shape) * scale).astype("float32"))
    return params


def data(kind: str, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    batch = NETWORKS[kind]["batch"]
    shape = (batch, 784) if kind == "dense" else (batch, 1, 28, 28)
    return rng.normal(size=shape).astype("float32"), rng.integers(0, 10, size=batch).astype("int32")


# -- symnb, written as Keras's Theano backend builds it -------------------------------------

def symnb_step(kind: str, params: list[np.ndarray], learning_phase: bool):
    """The step; ``learning_phase``: Dropout as ``ifelse(phase, dropped, inputs)`` with
    the phase an input, else dropout always on. Returns (function, shared, streams)."""
    srng = RandomStreams(seed=1234)
    shared = [sn.shared(p.copy(), name=f"p{i}") for i, p in enumerate(params)]
    phase = T.scalar("keras_learning_phase", dtype="uint8")
    rates = iter(NETWORKS[kind]["rates"])

    def dropout(h):
        keep = 1 - next(rates)
        dropped = h * srng.binomial(h.shape, p=keep, dtype="float32") / keep
        return sn.ifelse(phase, dropped, h) if learning_phase else dropped

    if kind == "dense":
        x = T.matrix("x", shape=(None, 784))
        w0, b0, w1, b1, w2, b2 = shared
        h = dropout(T.nnet.relu(T.dot(x, w0) + b0))
        h = dropout(T.nnet.relu(T.dot(h, w1) + b1))
        logits = T.dot(h, w2) + b2
    else:
        x = T.tensor4("x", shape=(None, 1, 28, 28))
        w0, b0, w1, b1, w2, b2, w3, b3 = shared
        h = T.nnet.relu(T.nnet.conv2d(x, w0) + b0.dimshuffle("x", 0, "x", "x"))
        h = T.nnet.relu(T.nnet.conv2d(h, w1) + b1.dimshuffle("x", 0, "x", "x"))
        h = dropout(pool_2d(h, (2, 2), ignore_border=True))
        h = dropout(T.nnet.relu(T.dot(h.flatten(2), w2) + b2))
        logits = T.dot(h, w3) + b3
    y = T.ivector("y")
    cost = -T.mean(T.log_softmax(logits)[T.arange(y.shape[0]), y])
    updates = [(p, p - LEARNING_RATE * g) for p, g in zip(shared, sn.grad(cost, shared))]
    inputs = [x, y, phase] if learning_phase else [x, y]
    return sn.function(inputs, cost, updates=updates), shared, srng


# -- the reference: jax.jit, dropout always on, keys threaded --------------------------------

def _dropout(h, key_data, rate):
    key = jax.random.wrap_key_data(key_data, impl="threefry2x32")
    next_key, draw_key = jax.random.split(key)
    keep = 1 - rate
    mask = jax.random.bernoulli(draw_key, np.float32(keep), h.shape).astype(h.dtype)
    return h * mask / keep, jax.random.key_data(next_key)


def _conv(h, w, b):
    h = lax.conv_general_dilated(h, w[:, :, ::-1, ::-1], (1, 1), "VALID", precision=HIGHEST,
                                 dimension_numbers=("NCHW", "OIHW", "NCHW"))
    return jax.nn.relu(h + b[None, :, None, None])


def _jax_loss(kind, params, keys, x, y):
    rates = NETWORKS[kind]["rates"]
    if kind == "dense":
        w0, b0, w1, b1, w2, b2 = params
        h, k0 = _dropout(jax.nn.relu(jnp.dot(x, w0, precision=HIGHEST) + b0), keys[0], rates[0])
        h, k1 = _dropout(jax.nn.relu(jnp.dot(h, w1, precision=HIGHEST) + b1), keys[1], rates[1])
        logits = jnp.dot(h, w2, precision=HIGHEST) + b2
    else:
        w0, b0, w1, b1, w2, b2, w3, b3 = params
        h = _conv(_conv(x, w0, b0), w1, b1)
        h = lax.reduce_window(h, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")
        h, k0 = _dropout(h, keys[0], rates[0])
        h = jax.nn.relu(jnp.dot(h.reshape(h.shape[0], -1), w2, precision=HIGHEST) + b2)
        h, k1 = _dropout(h, keys[1], rates[1])
        logits = jnp.dot(h, w3, precision=HIGHEST) + b3
    loss = -jnp.mean(jax.nn.log_softmax(logits)[jnp.arange(y.shape[0]), y])
    return loss, [k0, k1]


def jax_step(kind: str):
    def step(params, keys, x, y):
        (loss, next_keys), grads = jax.value_and_grad(
            lambda p: _jax_loss(kind, p, keys, x, y), has_aux=True)(params)
        return loss, [p - LEARNING_RATE * g for p, g in zip(params, grads)], next_keys

    return jax.jit(step, donate_argnums=(0, 1))


# -- measuring -----------------------------------------------------------------------------------

def _count(text: str) -> str:
    return f"{text.count('dot_general')} products, {text.count('conv_general_dilated')} convolutions"


def _compile_times(kind: str, params, x, y) -> tuple[float, float]:
    start = clock()
    f, _, _ = symnb_step(kind, params, learning_phase=True)
    f(x, y, 1)
    ours = clock() - start
    start = clock()
    step = jax_step(kind)
    keys = [jax.device_put(np.array([0, i], "uint32")) for i in range(2)]
    jax.block_until_ready(step([jax.device_put(p) for p in params], keys, x, y))
    return ours, clock() - start


def network(kind: str) -> dict:
    rng = np.random.default_rng(0)
    params = initial_params(kind, rng)
    x, y = data(kind, rng)
    ours_compile, jax_compile = _compile_times(kind, params, x, y)
    print(f"{kind}: compile + first call: symnb {ours_compile:.2f} s, jax.jit {jax_compile:.2f} s "
          f"(ratio {ours_compile / jax_compile:.2f})")
    f, shared, srng = symnb_step(kind, params, learning_phase=True)
    fixed, *_ = symnb_step(kind, params, learning_phase=False)
    reference_step = jax_step(kind)
    keys = [jax.device_put(state.get_value()) for state, _ in srng.state_updates]
    loss = f(x, y, 1)
    ref_loss, ref_params, _ = reference_step([jax.device_put(p) for p in params], keys, x, y)
    np.testing.assert_allclose(loss, np.asarray(ref_loss), rtol=1e-5)
    for s, p in zip(shared, ref_params):
        np.testing.assert_allclose(s.get_value(), np.asarray(p), rtol=1e-4, atol=1e-5)
    print(f"  programs: ifelse {_count(f.lowered_text('jaxpr', x, y, 1))}; phase fixed "
          f"{_count(fixed.lowered_text('jaxpr', x, y))}; jax.jit "
          f"{_count(str(jax.make_jaxpr(reference_step)(params, keys, x, y)))}")
    state = {"params": [jax.device_put(p) for p in params],
             "keys": [jax.device_put(s.get_value()) for s, _ in srng.state_updates]}

    def reference() -> np.ndarray:
        loss, state["params"], state["keys"] = reference_step(state["params"], state["keys"], x, y)
        return np.asarray(loss)

    number, rounds = (10, 8) if kind == "dense" else (2, 3)
    against_jax = compare(f"{kind} step, Dropout under ifelse", lambda: f(x, y, 1), reference,
                          number=number, target=1.10, rounds=rounds)
    against_fixed = compare(f"{kind} step, ifelse against phase fixed", lambda: f(x, y, 1),
                            lambda: fixed(x, y), number=number, target=1.10, rounds=rounds,
                            labels=("ifelse", "fixed"))
    return {"compile": (ours_compile, jax_compile), "jax": against_jax, "fixed": against_fixed}


def main() -> None:
    # Every compile a real one: no program read back from the persistent cache.
    sn.config.compile_cache_dir = ""
    print(f"jax {jax.__version__} on {jax.default_backend()}; numpy {np.__version__}"
          + (" (quick: one round)" if QUICK or "--quick" in sys.argv else ""))
    for kind in NETWORKS:
        network(kind)


if __name__ == "__main__":
    start = time.perf_counter()
    main()
    print(f"total {time.perf_counter() - start:.0f} s")
