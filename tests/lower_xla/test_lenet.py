"""LeNet as the Theano tutorial writes it (two conv + max-pool layers, a tanh layer, a
softmax output), trained on synthetic 28x28 seven-segment digits; its gradients
against ``jax.grad`` of the same network written by hand in JAX."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

import symnb as sn
import symnb.tensor as T
from symnb.tensor.signal.pool import pool_2d

NKERNS, HIDDEN, BATCH = (6, 12), 64, 64

# Seven-segment digits: (row, col, height, width) of each segment on a 20x12 glyph.
SEGMENTS = {"a": (0, 2, 2, 8), "b": (2, 10, 8, 2), "c": (11, 10, 8, 2), "d": (18, 2, 2, 8),
            "e": (11, 0, 8, 2), "f": (2, 0, 8, 2), "g": (9, 2, 2, 8)}
DIGITS = ["abcdef", "bc", "abged", "abgcd", "fgbc", "afgcd", "afgedc", "abc", "abcdefg", "abfgcd"]


def synthetic_digits(rng, count):
    """Images ``(count, 1, 28, 28)`` of random digits, shifted by up to 3 pixels, with noise."""
    labels = rng.integers(0, 10, size=count).astype("int32")
    images = rng.normal(scale=0.1, size=(count, 1, 28, 28))
    for image, label in zip(images, labels):
        top, left = 4 + rng.integers(-3, 4), 8 + rng.integers(-3, 4)
        for segment in DIGITS[label]:
            r, c, h, w = SEGMENTS[segment]
            image[0, top + r:top + r + h, left + c:left + c + w] += 1.0
    return images.astype("float32"), labels


def initial_params(rng):
    shapes = [(NKERNS[0], 1, 5, 5), (NKERNS[0],), (NKERNS[1], NKERNS[0], 5, 5), (NKERNS[1],),
              (NKERNS[1] * 4 * 4, HIDDEN), (HIDDEN,), (HIDDEN, 10), (10,)]
    params = []
    for shape in shapes:
        fan_in = int(np.prod(shape[1:])) if len(shape) == 4 else shape[0]
        scale = 0.0 if len(shape) == 1 else fan_in ** -0.5
        params.append((rng.normal(size=shape) * scale).astype("float32"))
    return params


def symnb_lenet(shared, x, y):
    """The cost, as in the Theano tutorial (``-mean(log(softmax)[arange, y])``)."""
    w0, b0, w1, b1, w2, b2, w3, b3 = shared
    h = x
    for w, b in ((w0, b0), (w1, b1)):
        h = T.tanh(pool_2d(T.nnet.conv2d(h, w), (2, 2), ignore_border=True) + b.dimshuffle("x", 0, "x", "x"))
    h = T.tanh(T.dot(h.flatten(2), w2) + b2)
    p = T.nnet.softmax(T.dot(h, w3) + b3)
    return -T.mean(T.log(p)[T.arange(y.shape[0]), y])


def jax_lenet(params, x, y):
    """The same network written directly with lax (filters flipped: a true convolution)."""
    w0, b0, w1, b1, w2, b2, w3, b3 = params
    h = x
    for w, b in ((w0, b0), (w1, b1)):
        h = lax.conv_general_dilated(h, w[:, :, ::-1, ::-1], (1, 1), "VALID", precision=lax.Precision.HIGHEST,
                                     dimension_numbers=("NCHW", "OIHW", "NCHW"))
        h = lax.reduce_window(h, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")
        h = jnp.tanh(h + b[None, :, None, None])
    h = jnp.tanh(jnp.dot(h.reshape(h.shape[0], -1), w2, precision=lax.Precision.HIGHEST) + b2)
    logits = jnp.dot(h, w3, precision=lax.Precision.HIGHEST) + b3
    return -jnp.mean(jax.nn.log_softmax(logits)[jnp.arange(y.shape[0]), y])


def test_first_step_gradients_match_jax(rng):
    params = initial_params(rng)
    params[1] += 0.1  # nonzero biases, so their gradients are checked through the pooling
    images, labels = synthetic_digits(rng, BATCH)
    shared = [sn.shared(p, name=f"p{i}") for i, p in enumerate(params)]
    x = T.tensor4("x", shape=(None, 1, 28, 28), test_value=images)
    y = T.ivector("y", test_value=labels)
    cost = symnb_lenet(shared, x, y)
    grads = sn.grad(cost, shared)
    compiled = sn.function([x, y], [cost] + grads)(images, labels)
    expected_cost, expected = jax.jit(jax.value_and_grad(jax_lenet))(params, images, labels)
    np.testing.assert_allclose(compiled[0], expected_cost, rtol=1e-5)
    np.testing.assert_allclose(cost.test_value, expected_cost, rtol=1e-5)
    for i, (g, xla, reference) in enumerate(zip(grads, compiled[1:], expected)):
        scale = float(np.abs(reference).max())
        np.testing.assert_allclose(xla, reference, rtol=1e-4, atol=1e-4 * scale, err_msg=f"XLA p{i}")
        np.testing.assert_allclose(g.test_value, reference, rtol=1e-4, atol=1e-4 * scale,
                                   err_msg=f"perform p{i}")


def test_lenet_trains(rng):
    params = initial_params(rng)
    shared = [sn.shared(p, name=f"p{i}") for i, p in enumerate(params)]
    x = T.tensor4("x", shape=(None, 1, 28, 28))
    y = T.ivector("y")
    with sn.config.change_flags(compute_test_value="off"):
        cost = symnb_lenet(shared, x, y)
        updates = [(p, p - 0.3 * g) for p, g in zip(shared, sn.grad(cost, shared))]
    step = sn.function([x, y], cost, updates=updates)
    costs = []
    for _ in range(20):
        images, labels = synthetic_digits(rng, BATCH)
        costs.append(float(step(images, labels)))
    assert np.all(np.isfinite(costs))
    assert np.mean(costs[-5:]) < 0.6 * np.mean(costs[:5]), costs
