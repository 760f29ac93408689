"""Theano's logistic-regression tutorial, written as a Theano user would (``theano``
renamed ``symnb``): shared parameters with ``borrow=True``, ``T.nnet`` and updates."""

import numpy as np
import pytest

import symnb as theano
import symnb.tensor as T


@pytest.fixture(autouse=True)
def _float64_program():
    """The tutorial's program is float64 (Theano's default floatX): its Python floats
    (the learning rate) are float64 constants under floatX=float64 (README: one flag)."""
    with theano.config.change_flags(floatX="float64"):
        yield

rng = np.random.RandomState(1234)
N, feats, steps = 60, 8, 25
D = (rng.randn(N, feats), rng.randint(size=N, low=0, high=2).astype("float64"))


def numpy_reference(w, b):
    """The same training, by hand in NumPy."""
    x, y = D
    for _ in range(steps):
        p_1 = 1 / (1 + np.exp(-(x @ w + b)))
        g = (p_1 - y) / N                         # d mean(xent) / d logits
        w = w - 0.1 * (x.T @ g + 0.02 * w)
        b = b - 0.1 * g.sum()
    return w, b, (1 / (1 + np.exp(-(x @ w + b))) > 0.5)


def test_logistic_regression_with_borrow_and_nnet():
    w0 = rng.randn(feats)
    x = T.dmatrix("x")
    y = T.dvector("y")
    w = theano.shared(w0.copy(), name="w", borrow=True)
    b = theano.shared(np.float64(0.0), name="b", borrow=True)

    p_1 = T.nnet.sigmoid(T.dot(x, w) + b)
    prediction = p_1 > 0.5
    xent = T.nnet.binary_crossentropy(p_1, y)
    cost = xent.mean() + 0.01 * (w ** 2).sum()
    gw, gb = T.grad(cost, [w, b])

    train = theano.function(inputs=[x, y], outputs=[prediction, xent],
                            updates=((w, w - 0.1 * gw), (b, b - 0.1 * gb)))
    predict = theano.function(inputs=[x], outputs=prediction)
    for _ in range(steps):
        pred, err = train(D[0], D[1])
    w_ref, b_ref, pred_ref = numpy_reference(w0, 0.0)
    np.testing.assert_allclose(w.get_value(borrow=True), w_ref, rtol=1e-10)
    np.testing.assert_allclose(b.get_value(), b_ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(predict(D[0]), pred_ref)
    assert err.shape == (N,) and np.all(err >= 0)
