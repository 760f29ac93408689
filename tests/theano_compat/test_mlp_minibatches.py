"""A multilayer perceptron in the style of the deep-learning tutorials: the data in
shared variables, minibatches taken with ``givens``, the learning rate an ``In``
with a default, ``T.nnet.softmax`` and the tutorial's negative log-likelihood."""

import numpy as np

import symnb as theano
import symnb.tensor as T
from symnb import In

rng = np.random.RandomState(7)
n_in, n_hidden, n_out, batch_size, n_batches = 6, 5, 3, 8, 4
data_x = rng.randn(batch_size * n_batches, n_in)
data_y = rng.randint(0, n_out, size=batch_size * n_batches)


def numpy_step(W1, b1, W2, b2, xb, yb, lr):
    h = np.tanh(xb @ W1 + b1)
    logits = h @ W2 + b2
    p = np.exp(logits - logits.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    cost = -np.mean(np.log(p[np.arange(len(yb)), yb]))
    d_logits = p.copy()
    d_logits[np.arange(len(yb)), yb] -= 1
    d_logits /= len(yb)
    d_h = (d_logits @ W2.T) * (1 - h ** 2)
    return cost, (W1 - lr * xb.T @ d_h, b1 - lr * d_h.sum(0), W2 - lr * h.T @ d_logits,
                  b2 - lr * d_logits.sum(0))


def test_mlp_with_in_defaults_and_givens():
    W1v, W2v = rng.uniform(-0.5, 0.5, (n_in, n_hidden)), rng.uniform(-0.5, 0.5, (n_hidden, n_out))
    train_set_x = theano.shared(data_x, borrow=True)
    train_set_y = T.cast(theano.shared(data_y.astype("float64"), borrow=True), "int32")

    index = T.lscalar("index")
    learning_rate = T.dscalar("learning_rate")
    x = T.dmatrix("x")
    y = T.ivector("y")
    W1 = theano.shared(W1v.copy(), name="W1")
    b1 = theano.shared(np.zeros(n_hidden), name="b1")
    W2 = theano.shared(W2v.copy(), name="W2")
    b2 = theano.shared(np.zeros(n_out), name="b2")
    hidden = T.tanh(T.dot(x, W1) + b1)
    p_y_given_x = T.nnet.softmax(T.dot(hidden, W2) + b2)
    cost = -T.mean(T.log(p_y_given_x)[T.arange(y.shape[0]), y])
    params = [W1, b1, W2, b2]
    updates = [(p, p - learning_rate * g) for p, g in zip(params, T.grad(cost, params))]
    train_model = theano.function(
        inputs=[index, In(learning_rate, value=0.1)], outputs=cost, updates=updates,
        givens={x: train_set_x[index * batch_size:(index + 1) * batch_size],
                y: train_set_y[index * batch_size:(index + 1) * batch_size]})

    ref = (W1v, np.zeros(n_hidden), W2v, np.zeros(n_out))
    for epoch, lr in enumerate([None, 0.05]):
        for i in range(n_batches):
            cost_value = train_model(i) if lr is None else train_model(i, lr)
            sl = slice(i * batch_size, (i + 1) * batch_size)
            ref_cost, ref = numpy_step(*ref, data_x[sl], data_y[sl], 0.1 if lr is None else lr)
            np.testing.assert_allclose(cost_value, ref_cost, rtol=1e-10)
    for p, r in zip(params, ref):
        np.testing.assert_allclose(p.get_value(), r, rtol=1e-9, atol=1e-12)
