"""A short tour of symnb: ``python -m symnb.tour``.

It builds a small classifier with test values, shows a shape bug failing on the
line that wrote it, compiles the graph to one XLA program, trains it a few steps,
prints the optimized graph and profiles it. Run as the main program, the tour is user code
like any script: its errors point at this file's lines.
"""

from __future__ import annotations

import numpy as np

import symnb as sn
import symnb.tensor as T
from symnb import printing


def _section(title: str) -> None:
    print(f"\n=== {title} ===")


def main() -> None:
    rng = np.random.default_rng(0)
    features = rng.normal(size=(6, 4)).astype("float32")
    labels = np.array([0, 1, 2, 0, 1, 2], dtype="int64")

    _section("1. Build a graph: every variable carries a test value")
    x = T.matrix("x", shape=(None, 4), test_value=features)
    y = T.lvector("y", test_value=labels)
    w1 = sn.shared(rng.normal(scale=0.5, size=(4, 8)).astype("float32"), name="w1")
    b1 = sn.shared(np.zeros(8, dtype="float32"), name="b1")
    w2 = sn.shared(rng.normal(scale=0.5, size=(8, 3)).astype("float32"), name="w2")
    b2 = sn.shared(np.zeros(3, dtype="float32"), name="b2")
    hidden = T.tanh(T.dot(x, w1) + b1)
    print("hidden.test_value.shape =", hidden.test_value.shape, hidden.dtype)
    probabilities = T.softmax(T.dot(hidden, w2) + b2)
    print("probabilities.test_value[0] =", np.round(probabilities.test_value[0], 3))

    _section("2. A shape bug fails on the line that wrote it")
    try:
        scores = T.dot(hidden, w1)  # bug: w1 is the first layer's (4, 8) weight
    except sn.TestValueError as error:
        print(error)
    else:
        raise AssertionError(f"the shape bug was not caught: {scores}")

    _section("3. Compile to one XLA program and run it")
    loss = -T.mean(T.log(probabilities)[T.arange(y.shape[0]), y])
    params = [w1, b1, w2, b2]
    grads = sn.grad(loss, params)
    train = sn.function([x, y], loss, updates=[(p, p - 0.5 * g) for p, g in zip(params, grads)],
                        name="train")
    for step in range(31):
        value = train(features, labels)
        if step % 10 == 0:
            print(f"step {step:2d}: loss {float(value):.4f}")

    _section("4. The graph the function runs (optimized: note the fused Composite)")
    predict = sn.function([x], probabilities.argmax(axis=1), name="predict", profile=True)
    print("predictions:", predict(features), "labels:", labels)
    printing.debugprint(predict)

    _section("5. A profile that names your lines")
    big_batch = rng.normal(size=(4096, 4)).astype("float32")
    for _ in range(20):  # the first call with this batch's shape compiles: counted apart
        predict(big_batch)
    predict.profile.overview(n_lines=3)
    print("(predict.profile.summary() prints the full tables: by line, class, op and node)")


if __name__ == "__main__":
    main()
