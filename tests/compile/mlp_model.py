"""The small MLP the multi-device tests train (data parallel, several processes), and
its data: one definition, so every run trains the very same model."""

from __future__ import annotations

from typing import Any

import numpy as np

import symnb as sn
import symnb.tensor as T

SHAPES = {"W1": (5, 16), "b1": (16,), "W2": (16, 3), "b2": (3,)}
STEPS = 20
LEARNING_RATE = 0.1


def data(rows: int = 64) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(1)
    return (rng.normal(size=(rows, 5)).astype("float32"),
            rng.normal(size=(rows, 3)).astype("float32"))


def initial_parameters() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    return {name: (rng.normal(size=shape) * 0.3).astype("float32") for name, shape in SHAPES.items()}


def training_step(param_sharding: Any = None, **function_kwargs: Any) -> tuple[Any, list[Any]]:
    """``(step, params)``: a compiled SGD step on the mean squared error (returns the
    loss, updates the shared parameters, each created with ``param_sharding``)."""
    params = [sn.shared(value, name=name, sharding=param_sharding)
              for name, value in initial_parameters().items()]
    W1, b1, W2, b2 = params
    X, Y = T.matrix("X"), T.matrix("Y")
    X.tag.test_value, Y.tag.test_value = data()
    loss = ((T.dot(T.tanh(T.dot(X, W1) + b1), W2) + b2 - Y) ** 2).mean()
    grads = sn.grad(loss, params)
    updates = [(p, p - LEARNING_RATE * g) for p, g in zip(params, grads)]
    step = sn.function([X, Y], loss, updates=updates, name="train_step", **function_kwargs)
    return step, params


def reference_training(rows: int = 64) -> dict[str, np.ndarray]:
    """The same training written with NumPy (float64, from the same float32 start)."""
    p = {k: v.astype("float64") for k, v in initial_parameters().items()}
    X, Y = (a.astype("float64") for a in data(rows))
    for _ in range(STEPS):
        h = np.tanh(X @ p["W1"] + p["b1"])
        out = h @ p["W2"] + p["b2"]
        d_out = 2 * (out - Y) / out.size
        d_h = d_out @ p["W2"].T * (1 - h ** 2)
        grads = {"W2": h.T @ d_out, "b2": d_out.sum(0), "W1": X.T @ d_h, "b1": d_h.sum(0)}
        p = {k: p[k] - LEARNING_RATE * grads[k] for k in p}
    return p
