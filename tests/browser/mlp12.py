"""The issue's model: a 12-layer MLP's training function (``layer(x, W, b) =
relu(dot(x, W) + b)`` x 12, softmax cross-entropy, ``sn.grad``, SGD updates)."""

import numpy as np

import symnb as sn
import symnb.tensor as T


def layer(x, W, b):
    return T.nnet.relu(T.dot(x, W) + b)


def mlp12_train(layers: int = 12, width: int = 16, profile: bool = False):
    rng = np.random.default_rng(0)
    x = T.matrix("x", test_value=rng.random((8, width), dtype="float32"))
    y = T.ivector("y", test_value=rng.integers(0, 4, 8).astype("int32"))
    Ws = [sn.shared((rng.standard_normal((width, width)) / 4).astype("float32"), name=f"W{i}") for i in range(layers)]
    bs = [sn.shared(np.zeros(width, "float32"), name=f"b{i}") for i in range(layers)]
    h = x
    for W, b in zip(Ws, bs):
        h = layer(h, W, b)
    loss = T.nnet.categorical_crossentropy(T.nnet.softmax(h), y).mean()
    params = Ws + bs
    grads = sn.grad(loss, params)
    updates = [(p, p - np.float32(0.1) * g) for p, g in zip(params, grads)]
    f = sn.function([x, y], loss, updates=updates, profile=profile)
    if profile:  # a few calls: the profile's times
        for _ in range(5):
            f(x.test_value, y.test_value)
    return f
