"""Training loops: gradients compiled with shared-variable updates, against jax.grad."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T

L2 = 0.01
LEARNING_RATE = 0.5


def _classification_data(rng, n=200, d=5):
    """Noisy labels of a linear rule: not separable, so the loss has a finite minimum."""
    x = rng.normal(size=(n, d))
    true_w = rng.normal(size=d)
    y = (x @ true_w + 0.5 * rng.normal(size=n) > 0).astype("float64")
    return x, y


def _logistic_regression(d):
    """The model as a symnb user writes it: shared w and b, cross-entropy plus L2."""
    w = sn.shared(np.zeros(d), name="w")
    b = sn.shared(np.array(0.0), name="b")  # a 0-d float64 array
    x, y = T.dmatrix("x"), T.dvector("y")
    p = T.sigmoid(T.dot(x, w) + b)
    xent = -y * T.log(p) - (1 - y) * T.log(1 - p)
    cost = xent.mean() + L2 * (w ** 2).sum()
    gw, gb = sn.grad(cost, [w, b])
    return w, b, x, y, cost, gw, gb


def _jax_cost(w, b, x, y):
    p = jax.nn.sigmoid(x @ w + b)
    xent = -y * jnp.log(p) - (1 - y) * jnp.log(1 - p)
    return xent.mean() + L2 * jnp.sum(w ** 2)


def test_logistic_regression_loss_falls_steadily(rng):
    # float64 data and parameters: floatX=float64, so that the Python floats of the
    # program are float64 constants (Theano's rule makes them floatX).
    with sn.config.change_flags(floatX="float64"):
        _logistic_regression_loss_falls_steadily(rng)


def _logistic_regression_loss_falls_steadily(rng):
    xv, yv = _classification_data(rng)
    w, b, x, y, cost, gw, gb = _logistic_regression(xv.shape[1])
    train = sn.function([x, y], cost,
                        updates=[(w, w - LEARNING_RATE * gw), (b, b - LEARNING_RATE * gb)])
    losses = np.array([train(xv, yv) for _ in range(100)])
    assert losses.dtype == np.float64
    np.testing.assert_allclose(losses[0], np.log(2), rtol=1e-12)  # w = 0, b = 0: p = 1/2
    assert np.all(np.diff(losses) < 0), losses
    assert losses[-1] < 0.6 * losses[0]

    # the same 100 steps of gradient descent with jax.grad, in float64
    with jax.enable_x64(True):
        step = jax.jit(jax.value_and_grad(_jax_cost, argnums=(0, 1)))
        wj, bj = jnp.zeros(xv.shape[1]), jnp.float64(0.0)
        reference = []
        for _ in range(100):
            loss, (dw, db) = step(wj, bj, xv, yv)
            reference.append(float(loss))
            wj, bj = wj - LEARNING_RATE * dw, bj - LEARNING_RATE * db
    np.testing.assert_allclose(losses, reference, rtol=1e-10)
    np.testing.assert_allclose(w.get_value(), np.asarray(wj), rtol=1e-8)
    np.testing.assert_allclose(b.get_value(), float(bj), rtol=1e-8)


def test_logistic_regression_gradients_equal_jax_grad(rng):
    xv, yv = _classification_data(rng)
    w, b, x, y, cost, gw, gb = _logistic_regression(xv.shape[1])
    # a point away from the start, where every term of the gradient matters
    wv, bv = rng.normal(size=xv.shape[1]), 0.3
    w.set_value(wv)
    b.set_value(np.array(bv))
    compiled = sn.function([x, y], [cost, gw, gb])(xv, yv)
    with jax.enable_x64(True):
        loss, (dw, db) = jax.value_and_grad(_jax_cost, argnums=(0, 1))(wv, bv, xv, yv)
    assert all(a.dtype == np.float64 for a in compiled)
    np.testing.assert_allclose(compiled[0], float(loss), rtol=1e-5)
    np.testing.assert_allclose(compiled[1], np.asarray(dw), rtol=1e-5, atol=1e-12)
    np.testing.assert_allclose(compiled[2], float(db), rtol=1e-5, atol=1e-12)


def _mlp_params(rng, sizes):
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        params.append(rng.normal(scale=fan_in ** -0.5, size=(fan_in, fan_out)).astype("float32"))
        params.append(rng.normal(scale=0.1, size=fan_out).astype("float32"))
    return params


def _jax_mlp_cost(params, x, labels):
    h = x
    for i in range(0, len(params), 2):
        h = h @ params[i] + params[i + 1]
        if i < len(params) - 2:
            h = jnp.tanh(h)
    return -jnp.mean(jax.nn.log_softmax(h)[jnp.arange(labels.shape[0]), labels])


@pytest.mark.parametrize("one_hot", [False, True], ids=["label-index", "one-hot"])
def test_float32_mlp_training_step_equals_jax_value_and_grad(one_hot, rng):
    sizes, batch, lr = [12, 16, 8, 4], 10, np.float32(0.1)
    params = _mlp_params(rng, sizes)
    xv = rng.normal(size=(batch, sizes[0])).astype("float32")
    labels = rng.integers(0, sizes[-1], size=batch).astype("int32")

    shared = [sn.shared(p.copy(), name=f"p{i}") for i, p in enumerate(params)]
    x = T.matrix("x")
    h = x
    for i in range(0, len(shared), 2):
        h = T.dot(h, shared[i]) + shared[i + 1]
        if i < len(shared) - 2:
            h = T.tanh(h)
    if one_hot:
        y = T.matrix("y")
        cost = -T.mean(T.sum(T.log_softmax(h) * y, axis=1))
        y_value = np.eye(sizes[-1], dtype="float32")[labels]
    else:
        y = T.ivector("y")
        cost = -T.mean(T.log_softmax(h)[T.arange(y.shape[0]), y])
        y_value = labels
    grads = sn.grad(cost, shared)
    assert cost.dtype == "float32" and all(g.dtype == "float32" for g in grads)
    step = sn.function([x, y], [cost, *grads],
                       updates=[(p, p - lr * g) for p, g in zip(shared, grads)])
    loss, *symnb_grads = step(xv, y_value)

    loss_ref, grads_ref = jax.value_and_grad(_jax_mlp_cost)([jnp.asarray(p) for p in params], xv, labels)
    assert loss.dtype == np.float32
    np.testing.assert_allclose(loss, np.asarray(loss_ref), rtol=1e-5)
    for p, ours, theirs, updated in zip(params, symnb_grads, grads_ref, shared):
        assert ours.dtype == np.float32
        np.testing.assert_allclose(ours, np.asarray(theirs), rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(updated.get_value(), p - lr * np.asarray(theirs), rtol=1e-5, atol=1e-6)


def _tutorial_logistic_regression(dtype, w0):
    """Theano's tutorial logistic regression, as written there (in ``dtype``)."""
    x = T.tensor(dtype, (None, None), name="x")
    y = T.tensor(dtype, (None,), name="y")
    w = sn.shared(w0.copy(), name="w")
    b = sn.shared(np.zeros((), dtype=dtype), name="b")
    p_1 = 1 / (1 + T.exp(-T.dot(x, w) - b))   # Probability that target = 1
    prediction = p_1 > 0.5                    # The prediction thresholded
    xent = -y * T.log(p_1) - (1 - y) * T.log(1 - p_1)  # Cross-entropy loss function
    cost = xent.mean() + 0.01 * (w ** 2).sum()  # The cost to minimize
    gw, gb = sn.grad(cost, [w, b])
    train = sn.function([x, y], [prediction, xent], updates=[(w, w - 0.1 * gw), (b, b - 0.1 * gb)])
    return train, w, b


def _numpy_logistic_regression_steps(x, y, w, b, steps):
    """The same updates with stable NumPy formulas, in x's dtype."""
    for _ in range(steps):
        t = x @ w + b
        p_1 = np.exp(-np.logaddexp(0, -t))                     # sigmoid(t), never overflowing
        xent = y * np.logaddexp(0, -t) + (1 - y) * np.logaddexp(0, t)
        error = p_1 - y                                         # d xent / dt
        gw = x.T @ error / len(y) + 0.02 * w
        gb = error.mean()
        w, b = w - 0.1 * gw, b - 0.1 * gb
    return w, b, xent


def _train_tutorial(dtype):
    """10 steps on the tutorial's data (400 examples, 784 features); the trained w, b and
    last cross-entropies, and the NumPy reference (in float64) of the same 10 steps."""
    rng = np.random.RandomState(0)
    x_value = rng.randn(400, 784).astype(dtype)
    y_value = rng.randint(0, 2, 400).astype(dtype)
    w0 = rng.randn(784).astype(dtype)
    train, w, b = _tutorial_logistic_regression(dtype, w0)
    for _ in range(10):
        prediction, xent = train(x_value, y_value)
    reference = _numpy_logistic_regression_steps(
        x_value.astype("float64"), y_value.astype("float64"), w0.astype("float64"), 0.0, 10)
    return (w.get_value(), b.get_value(), xent), reference


def _assert_close_to_scale(trained, reference, tolerance):
    (w, b, xent), (w_ref, b_ref, xent_ref) = trained, reference
    scale = np.abs(w_ref).max()
    np.testing.assert_allclose(w, w_ref, rtol=0, atol=tolerance * scale)
    np.testing.assert_allclose(b, b_ref, rtol=0, atol=tolerance * scale)
    np.testing.assert_allclose(xent, xent_ref, rtol=0, atol=tolerance * np.abs(xent_ref).max())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_theano_tutorial_logistic_regression_trains_with_finite_weights(dtype):
    # 1 / (1 + exp(-t)) rounds to 1 where t > 37 (float64): log(1 - p_1) was -inf and
    # every weight NaN after one step. The issue's bar: 1e-5 of the weights' scale.
    trained, reference = _train_tutorial(dtype)
    w, b, xent = trained
    assert w.dtype == dtype and np.all(np.isfinite(w)) and np.isfinite(b)
    assert xent.dtype == dtype and np.all(np.isfinite(xent))
    _assert_close_to_scale(trained, reference, 1e-5)


# Relative to the scale, from rounding alone: float32 measured 1.1e-7 (as NumPy's own
# float32 run of these steps), float64 reassociated sums of 784 products.
ROUNDING = {"float32": 1e-6, "float64": 1e-12}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_theano_tutorial_logistic_regression_matches_numpy_to_rounding(dtype):
    # A float64 program runs with floatX=float64 (the README's one flag): its Python floats
    # (the learning rate 0.1, the penalty 0.02) are then float64 constants, as in Theano;
    # under floatX=float32 they are float32 constants (Theano's rule), rounded.
    with sn.config.change_flags(floatX=dtype):
        trained, reference = _train_tutorial(dtype)
    _assert_close_to_scale(trained, reference, ROUNDING[dtype])
