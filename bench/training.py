"""What the training-step benchmarks share: the reference step (``jax.value_and_grad`` of
the loss, plain SGD, parameters donated, inside one ``jax.jit``), the check that symnb's
step and the reference take the same step, timing the two, and comparing the operations
XLA's optimized programs hold."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, Callable

import jax
import numpy as np

from timing import compare

__all__ = ["sgd_step", "check_same_step", "compare_steps", "print_hlo_comparison"]


def sgd_step(loss: Callable[..., Any], learning_rate: float) -> Callable[..., Any]:
    """``step(params, x, y) -> (loss, new params)``, jitted, the parameters donated."""
    def step(params, x, y):
        value, grads = jax.value_and_grad(loss)(params, x, y)
        return value, [p - learning_rate * g for p, g in zip(params, grads)]

    return jax.jit(step, donate_argnums=0)


def check_same_step(f, shared, jax_step, params, x, y) -> None:
    """One step of each from the same parameters: same loss, same updated parameters."""
    loss = f(x, y)
    reference_loss, reference_params = jax_step([jax.device_put(p) for p in params], x, y)
    np.testing.assert_allclose(loss, np.asarray(reference_loss), rtol=1e-5)
    # On a GPU the two programs may pick different cuDNN/cuBLAS algorithms (and TF32 for
    # float32 convolutions), which differ in the last bits of small updated weights.
    atol = 1e-6 if jax.default_backend() == "cpu" else 1e-5
    for s, p in zip(shared, reference_params):
        np.testing.assert_allclose(s.get_value(), np.asarray(p), rtol=1e-4, atol=atol)


def compare_steps(name: str, f, jax_step, params, x, y, number: int, target: float) -> dict:
    """Time symnb's step ``f`` against ``jax_step``, each updating its own parameters."""
    state = {"params": [jax.device_put(p) for p in params]}

    def reference() -> np.ndarray:
        loss, state["params"] = jax_step(state["params"], x, y)
        return np.asarray(loss)

    return compare(name, lambda: f(x, y), reference, number=number, target=target)


def _hlo_op_counts(text: str) -> Counter:
    """Operation kinds in an optimized HLO module (fusions counted by kind, not opened)."""
    entry = text[text.index("ENTRY"):]
    return Counter(re.findall(r"=\s*\S+\s+([a-z][a-z0-9-]*)\(", entry))


def print_hlo_comparison(f, jax_step, params, x, y) -> None:
    """How many operations of each kind the two optimized programs hold, side by side."""
    ours = _hlo_op_counts(f.lowered_text("hlo", x, y))
    theirs = _hlo_op_counts(
        jax_step.lower([jax.device_put(p) for p in params], x, y).compile().as_text())
    print(f"{'HLO ENTRY op':<24}{'symnb':>8}{'jax':>8}")
    for kind in sorted(set(ours) | set(theirs)):
        print(f"{kind:<24}{ours[kind]:>8}{theirs[kind]:>8}")
