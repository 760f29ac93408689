"""A length known only at run time (issue 39): a training step on the examples whose
label is given, against the same step written with ``T.switch``, in one process.

    python bench/bench_runtime_lengths.py

Softmax regression (784 -> 10, batch 256) where a label of -1 means "no label": the
masked step reads ``X[labelled]`` and ``y[labelled]`` (NumPy style, the count changes
at every call), the reference multiplies each example's loss by the mask with
``T.switch`` and divides by the count. 200 calls, each with a new count of labelled
examples. Targets: at most 8 programs compiled for the masked step (length buckets,
symnb/compile/split_buckets.py) and at most 1.3x the time per call of the switch step.
Both steps update the same weights from the same start, checked equal.
"""

from __future__ import annotations

import sys
from pathlib import Path

import jax
import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import symnb as sn  # noqa: E402
import symnb.tensor as T  # noqa: E402
from symnb.compile.split_buckets import bucket  # noqa: E402
from timing import QUICK, clock  # noqa: E402

BATCH, FEATURES, CLASSES, CALLS = 256, 784, 10, 200
PROGRAMS_TARGET, TIME_TARGET = 8, 1.3


def _step(masked: bool):
    W = sn.shared(np.zeros((FEATURES, CLASSES), "float32"), name="W")
    b = sn.shared(np.zeros(CLASSES, "float32"), name="b")
    X = T.matrix("X")
    y = T.lvector("y")
    labelled = T.ge(y, 0)
    if masked:
        probabilities = T.nnet.softmax(T.dot(X[labelled], W) + b)
        loss = T.nnet.categorical_crossentropy(probabilities, y[labelled]).mean()
    else:
        probabilities = T.nnet.softmax(T.dot(X, W) + b)
        each = T.nnet.categorical_crossentropy(probabilities, T.maximum(y, 0))
        loss = T.switch(labelled, each, 0).sum() / labelled.sum()
    gW, gb = T.grad(loss, [W, b])
    f = sn.function([X, y], loss, updates=[(W, W - 0.1 * gW), (b, b - 0.1 * gb)])
    return f, W


def _batches(rng: np.random.Generator, calls: int) -> list[tuple[np.ndarray, np.ndarray]]:
    batches = []
    for _ in range(calls):
        X = rng.standard_normal((BATCH, FEATURES)).astype("float32")
        y = rng.integers(0, CLASSES, BATCH)
        y[rng.random(BATCH) < rng.uniform(0.05, 0.95)] = -1  # a new count at every call
        y[0] = max(y[0], 0)  # never no label at all (the mean of nothing)
        batches.append((X, y))
    return batches


def _run(f, batches) -> float:
    start = clock()
    for X, y in batches:
        f(X, y)
    return (clock() - start) / len(batches)


def main() -> None:
    print(f"jax {jax.__version__} on {jax.default_backend()}; numpy {np.__version__}")
    calls = 20 if QUICK else CALLS
    batches = _batches(np.random.default_rng(0), calls)
    masked, W_masked = _step(True)
    switch, W_switch = _step(False)
    print(f"masked step: {masked!r}")
    if getattr(masked, "lengths_reason", ""):
        print(f"  not bucketed: {masked.lengths_reason}")
    # The first pass compiles (every bucket the batches reach); then both are timed.
    first_masked, first_switch = _run(masked, batches), _run(switch, batches)
    np.testing.assert_allclose(W_masked.get_value(), W_switch.get_value(), rtol=2e-3, atol=2e-5)
    lengths = {int((y >= 0).sum()) for _, y in batches}
    rounds = 1 if QUICK else 3
    masked_time = min(_run(masked, batches) for _ in range(rounds))
    switch_time = min(_run(switch, batches) for _ in range(rounds))
    programs = masked.compiled_programs()
    buckets = {bucket(n) for n in lengths}
    ratio = masked_time / switch_time
    print(f"{calls} calls, {len(lengths)} distinct label counts")
    print(f"programs compiled (masked step): {programs} (target <= {PROGRAMS_TARGET}) "
          f"{'OK' if programs <= PROGRAMS_TARGET else 'MISSED'}; length buckets reached: "
          f"{len(buckets)}{' (read back from the disk cache a run before wrote)' if not programs else ''}")
    print(f"first pass (compiling): masked {first_masked * 1e3:.2f} ms/call, "
          f"switch {first_switch * 1e3:.2f} ms/call")
    print(f"time per call: masked {masked_time * 1e3:.3f} ms, switch {switch_time * 1e3:.3f} ms, "
          f"ratio {ratio:.2f}x (target <= {TIME_TARGET}x) "
          f"{'OK' if ratio <= TIME_TARGET else 'MISSED'}")


if __name__ == "__main__":
    main()
