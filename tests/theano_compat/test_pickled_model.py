"""A trained model saved with pickle and loaded back, as the classic tutorials do:
the compiled functions and the shared parameters come back with their values."""

import io
import pickle

import numpy as np

import symnb as theano
import symnb.tensor as T

rng = np.random.RandomState(3)
X = rng.randn(40, 4)
Y = (X @ np.array([1.0, -2.0, 0.5, 0.0]) > 0).astype("float64")


def build():
    x, y = T.dmatrix("x"), T.dvector("y")
    w = theano.shared(np.zeros(4), name="w")
    b = theano.shared(np.float64(0.0), name="b")
    p = T.nnet.sigmoid(T.dot(x, w) + b)
    cost = T.nnet.binary_crossentropy(p, y).mean()
    gw, gb = T.grad(cost, [w, b])
    train = theano.function([x, y], cost, updates=[(w, w - 0.5 * gw), (b, b - 0.5 * gb)])
    predict = theano.function([x], p)
    return train, predict, w, b


def test_pickled_and_restored_trained_model():
    train, predict, w, b = build()
    for _ in range(10):
        train(X, Y)
    buffer = io.BytesIO()
    pickle.dump((train, predict, w, b), buffer, protocol=pickle.HIGHEST_PROTOCOL)
    buffer.seek(0)
    train2, predict2, w2, b2 = pickle.load(buffer)

    np.testing.assert_array_equal(w2.get_value(), w.get_value())
    np.testing.assert_array_equal(predict2(X), predict(X))
    # the restored functions share the restored parameters: training goes on identically
    for _ in range(5):
        assert train2(X, Y) == train(X, Y)
    np.testing.assert_array_equal(w2.get_value(), w.get_value())
    assert w2 is not w
    np.testing.assert_array_equal(predict2(X), predict(X))
