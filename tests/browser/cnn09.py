"""Notebook 09's convnet training function: conv2d, tanh, pool_2d, ``flatten(2)``, a dense
layer, softmax, the mean negative log-likelihood, ``sn.grad`` and SGD updates."""

import numpy as np

import symnb as sn
import symnb.tensor as T
from symnb.tensor.nnet import conv2d
from symnb.tensor.signal.pool import pool_2d


def cnn09_loss(images: int = 8):
    """The graph of notebook 09, on ``images`` test images: ``(inputs, parameters, loss)``."""
    rng = np.random.default_rng(0)
    x = T.tensor4("images", test_value=rng.standard_normal((images, 1, 12, 12)).astype("float32"))
    labels = T.ivector("labels", test_value=np.arange(images, dtype="int32") % 2)
    w1 = sn.shared((0.3 * rng.standard_normal((4, 1, 3, 3))).astype("float32"), name="w1")
    b1 = sn.shared(np.zeros(4, "float32"), name="b1")
    h1 = T.tanh(conv2d(x, w1) + b1.dimshuffle("x", 0, "x", "x"))
    p1 = pool_2d(h1, ws=(2, 2), ignore_border=True)
    w2 = sn.shared((0.1 * rng.standard_normal((100, 2))).astype("float32"), name="w2")
    b2 = sn.shared(np.zeros(2, "float32"), name="b2")
    scores = T.dot(p1.flatten(2), w2) + b2
    probabilities = T.softmax(scores)
    loss = -T.mean(T.log(probabilities)[T.arange(labels.shape[0]), labels])
    return [x, labels], [w1, b1, w2, b2], loss


def cnn09_train():
    inputs, params, loss = cnn09_loss()
    grads = sn.grad(loss, params)
    return sn.function(inputs, loss, updates=[(p, p - np.float32(0.2) * g) for p, g in zip(params, grads)])
