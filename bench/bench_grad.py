"""Gradient benchmark (issue 3): an MLP training step against hand-written ``jax.jit``.

    python bench/bench_grad.py [--hlo]

The step is a 256x784-512-512-10 tanh MLP with a log-softmax cross-entropy on integer
labels and plain SGD on the six parameters. symnb's version is written the way a user
writes it: shared weights, ``sn.grad``, and ``updates=[(p, p - lr * g), ...]``; symnb
donates the shared variables' buffers. The reference is ``jax.value_and_grad`` of the
same loss with the SGD update inside the same ``jax.jit`` and the parameters donated,
so both do the same work per call: one forward, one backward, six in-place updates,
and the loss copied back to the host. Target: at most 1.05x.

``--hlo`` also prints how many operations of each kind XLA's optimized programs hold,
side by side (the first thing to look at when the ratio is over target).

``--check-cost`` also times the step with ``config.index_checks=False``: the loss
indexes the log-softmax by the labels ``y``, known only at run time, so the default
program checks them (and keeps the old parameters when a check fails).
"""

from __future__ import annotations

import sys
from pathlib import Path

import jax
import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import symnb as sn  # noqa: E402
import symnb.tensor as T  # noqa: E402
from timing import compare  # noqa: E402
from mlp import BATCH, LEARNING_RATE, SIZES, initial_params, jax_loss  # noqa: E402,F401
from training import check_same_step, compare_steps, print_hlo_comparison, sgd_step  # noqa: E402


def symnb_step(params: list[np.ndarray]):
    """The training step as a symnb user writes it; returns (function, shared params)."""
    shared = [sn.shared(p.copy(), name=f"p{i}") for i, p in enumerate(params)]
    x = T.matrix("x", shape=(None, SIZES[0]))
    y = T.ivector("y")
    h = x
    for i in range(0, len(shared), 2):
        h = T.dot(h, shared[i]) + shared[i + 1]
        if i < len(shared) - 2:
            h = T.tanh(h)
    cost = -T.mean(T.log_softmax(h)[T.arange(y.shape[0]), y])
    grads = sn.grad(cost, shared)
    updates = [(p, p - LEARNING_RATE * g) for p, g in zip(shared, grads)]
    return sn.function([x, y], cost, updates=updates), shared


jax_step = sgd_step(jax_loss, LEARNING_RATE)


def mlp_training_step(show_hlo: bool = False) -> dict:
    rng = np.random.default_rng(0)
    params = initial_params(rng)
    x = rng.normal(size=(BATCH, SIZES[0])).astype("float32")
    y = rng.integers(0, SIZES[-1], size=BATCH).astype("int32")

    f, shared = symnb_step(params)
    check_same_step(f, shared, jax_step, params, x, y)
    if show_hlo:
        print_hlo_comparison(f, jax_step, params, x, y)
    return compare_steps("MLP training step 256x784-512-512-10 (tanh, SGD)", f, jax_step, params,
                         x, y, number=20, target=1.05)


def index_check_cost() -> dict:
    """The step with its run-time index checks against the same step without them."""
    rng = np.random.default_rng(0)
    params = initial_params(rng)
    x = rng.normal(size=(BATCH, SIZES[0])).astype("float32")
    y = rng.integers(0, SIZES[-1], size=BATCH).astype("int32")
    checked, _ = symnb_step(params)
    with sn.config.change_flags(index_checks=False):
        unchecked, _ = symnb_step(params)
    assert checked._program.checked and not unchecked._program.checked
    return compare("MLP training step, cost of the index checks", lambda: checked(x, y),
                   lambda: unchecked(x, y), number=20, target=1.02,
                   labels=("checks on", "index_checks=False"))


def main() -> None:
    print(f"jax {jax.__version__} on {jax.default_backend()}; numpy {np.__version__}")
    mlp_training_step(show_hlo="--hlo" in sys.argv)
    if "--check-cost" in sys.argv:
        index_check_cost()


if __name__ == "__main__":
    main()
