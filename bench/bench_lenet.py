"""Convolutional benchmark (issue 12): a LeNet training step against hand-written ``jax.jit``.

    python bench/bench_lenet.py [--hlo]

The network is the Theano tutorial's LeNet at its batch size, 500: 28x28 images, a
5x5 convolution to 20 maps, 2x2 max pooling and tanh, a 5x5 convolution to 50 maps,
2x2 max pooling and tanh, a 500-unit tanh layer, a 10-way softmax, the mean negative
log-likelihood, and plain SGD on the eight parameters. symnb's version is written
the way a Theano user writes it (``T.nnet.conv2d``, ``pool_2d``, shared weights,
``sn.grad``, ``updates=``); the reference is ``jax.value_and_grad`` of the same
network written with ``lax`` (filters flipped: a true convolution, as Theano's), with
the SGD update inside the same ``jax.jit`` and the parameters donated. Both ask for
``Precision.HIGHEST`` (symnb does for float products; the same speed on CPU).
Target: at most 1.05x.

Also the test value of one convolution on a large batch (64x3x32x32 images by 32 5x5
filters, computed in NumPy as the graph is built), best of three. Target: 0.5 s (issue
12's bound; tests/core/test_conv.py asserts only its order of magnitude).

``--hlo`` also prints how many operations of each kind XLA's optimized programs hold.
"""

from __future__ import annotations

import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

sys.path.insert(0, str(Path(__file__).parent))
import symnb as sn  # noqa: E402
import symnb.tensor as T  # noqa: E402
from symnb.tensor.signal.pool import pool_2d  # noqa: E402
from timing import best_time  # noqa: E402
from training import check_same_step, compare_steps, print_hlo_comparison, sgd_step  # noqa: E402

BATCH, NKERNS, HIDDEN, LEARNING_RATE = 500, (20, 50), 500, 0.1
HIGHEST = lax.Precision.HIGHEST


def initial_params(rng: np.random.Generator) -> list[np.ndarray]:
    shapes = [(NKERNS[0], 1, 5, 5), (NKERNS[0],), (NKERNS[1], NKERNS[0], 5, 5), (NKERNS[1],),
              (NKERNS[1] * 4 * 4, HIDDEN), (HIDDEN,), (HIDDEN, 10), (10,)]
    params = []
    for shape in shapes:
        fan_in = int(np.prod(shape[1:])) if len(shape) == 4 else shape[0]
        scale = 0.0 if len(shape) == 1 else fan_in ** -0.5
        params.append((rng.normal(size=shape) * scale).astype("float32"))
    return params


def symnb_step(params: list[np.ndarray]):
    """The training step as a Theano user writes it; returns (function, shared params)."""
    shared = [sn.shared(p.copy(), name=f"p{i}") for i, p in enumerate(params)]
    w0, b0, w1, b1, w2, b2, w3, b3 = shared
    x = T.tensor4("x", shape=(None, 1, 28, 28))
    y = T.ivector("y")
    h = x
    for w, b in ((w0, b0), (w1, b1)):
        h = T.tanh(pool_2d(T.nnet.conv2d(h, w), (2, 2), ignore_border=True) + b.dimshuffle("x", 0, "x", "x"))
    h = T.tanh(T.dot(h.flatten(2), w2) + b2)
    p_y = T.nnet.softmax(T.dot(h, w3) + b3)
    cost = -T.mean(T.log(p_y)[T.arange(y.shape[0]), y])
    updates = [(p, p - LEARNING_RATE * g) for p, g in zip(shared, sn.grad(cost, shared))]
    return sn.function([x, y], cost, updates=updates), shared


def _jax_loss(params, x, y):
    w0, b0, w1, b1, w2, b2, w3, b3 = params
    h = x
    for w, b in ((w0, b0), (w1, b1)):
        h = lax.conv_general_dilated(h, w[:, :, ::-1, ::-1], (1, 1), "VALID", precision=HIGHEST,
                                     dimension_numbers=("NCHW", "OIHW", "NCHW"))
        h = lax.reduce_window(h, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")
        h = jnp.tanh(h + b[None, :, None, None])
    h = jnp.tanh(jnp.dot(h.reshape(h.shape[0], -1), w2, precision=HIGHEST) + b2)
    logits = jnp.dot(h, w3, precision=HIGHEST) + b3
    return -jnp.mean(jax.nn.log_softmax(logits)[jnp.arange(y.shape[0]), y])


jax_step = sgd_step(_jax_loss, LEARNING_RATE)


def lenet_training_step(show_hlo: bool = False) -> dict:
    rng = np.random.default_rng(0)
    params = initial_params(rng)
    x = rng.normal(size=(BATCH, 1, 28, 28)).astype("float32")
    y = rng.integers(0, 10, size=BATCH).astype("int32")

    f, shared = symnb_step(params)
    check_same_step(f, shared, jax_step, params, x, y)
    if show_hlo:
        print_hlo_comparison(f, jax_step, params, x, y)
    return compare_steps(f"LeNet training step, batch {BATCH} (conv 20-50, pool, tanh 500, SGD)",
                         f, jax_step, params, x, y, number=2, target=1.05)


CONV_TEST_VALUE_TARGET_S = 0.5


def conv_test_value() -> dict:
    """Building ``T.nnet.conv2d(x, w)`` with its test value: 64x3x32x32 by 32x3x5x5."""
    rng = np.random.default_rng(0)
    x = T.tensor4("x", test_value=rng.normal(size=(64, 3, 32, 32)).astype("float32"))
    w = T.tensor4("w", test_value=rng.normal(size=(32, 3, 5, 5)).astype("float32"))
    seconds = best_time(lambda: T.nnet.conv2d(x, w), number=1, repeat=3)
    verdict = "ok" if seconds <= CONV_TEST_VALUE_TARGET_S else "OVER TARGET"
    print(f"{'test value: conv2d, 64x3x32x32 by 32 5x5 filters':<52} {seconds:8.3f} s "
          f"(target <= {CONV_TEST_VALUE_TARGET_S}) {verdict}")
    return {"name": "conv2d test value", "seconds": seconds, "target": CONV_TEST_VALUE_TARGET_S}


def main() -> None:
    print(f"jax {jax.__version__} on {jax.default_backend()}; numpy {np.__version__}")
    lenet_training_step(show_hlo="--hlo" in sys.argv)
    conv_test_value()


if __name__ == "__main__":
    main()
