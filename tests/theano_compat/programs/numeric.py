"""What the programs' tests share: central finite differences of a NumPy function."""

import numpy as np


def numeric_grads(loss, params, eps=1e-6):
    """The gradient of ``loss(params)`` (NumPy, float64) with respect to each array of
    ``params`` (a list of float64 arrays, changed in place and restored), by central
    differences."""
    grads = []
    for p in params:
        g = np.zeros_like(p)
        flat, gflat = p.reshape(-1), g.reshape(-1)
        for i in range(flat.size):
            old = flat[i]
            flat[i] = old + eps
            up = loss(params)
            flat[i] = old - eps
            down = loss(params)
            flat[i] = old
            gflat[i] = (up - down) / (2 * eps)
        grads.append(g)
    return grads


def softmax(z):
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def sigmoid(z):
    return 1 / (1 + np.exp(-z))
