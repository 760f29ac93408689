"""``sn.gradient``: differentiation (from the core) and the numeric gradient checker.

``verify_grad`` compiles (it compares the symbolic gradient, computed both with the
NumPy reference and with XLA, against central finite differences), so it lives
above the core.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from symnb.core.graph.error_base import SymnbError
from symnb.core.graph.traceback_filter import entry_points as _entry_points
from symnb.core.gradient import DisconnectedInputError, NullGradientError, disconnected_grad, grad
from symnb.core.jacobian import hessian, jacobian
from symnb.core.tensor.extra_ops import grad_clip

__all__ = ["grad", "jacobian", "hessian", "disconnected_grad", "grad_clip", "verify_grad",
           "DisconnectedInputError", "NullGradientError", "GradientError"]


class GradientError(SymnbError, AssertionError):
    """``verify_grad``: the symbolic gradient differs from finite differences."""


_DEFAULT_EPS = {"float64": 1e-6, "float32": 1e-3, "float16": 1e-1}
_DEFAULT_TOL = {"float64": 1e-5, "float32": 1e-2, "float16": 1e-1}


def verify_grad(fn: Callable[..., Any], points: Sequence[Any], eps: float | None = None,
                rng: np.random.Generator | None = None, abs_tol: float | None = None,
                rel_tol: float | None = None) -> None:
    """Check ``sn.grad`` of ``fn`` against central finite differences at ``points``.

    ``fn`` takes symbolic tensors (one per point) and returns a tensor; the check
    differentiates a random projection ``sum(fn(*inputs) * r)``. Both the gradient's test
    value (NumPy reference path) and its compiled value (XLA path) are compared. Raises
    :class:`GradientError` with the largest absolute and relative errors and where.
    """
    from symnb.compile.function import function  # imports JAX: only when a check runs
    from symnb.core.tensor.basic import constant, tensor

    rng = rng if rng is not None else np.random.default_rng(42)
    points = [np.array(p, copy=True) for p in points]
    dtype = str(np.result_type(*points))
    eps = eps if eps is not None else _DEFAULT_EPS.get(dtype, 1e-6)
    abs_tol = abs_tol if abs_tol is not None else _DEFAULT_TOL.get(dtype, 1e-5)
    rel_tol = rel_tol if rel_tol is not None else _DEFAULT_TOL.get(dtype, 1e-5)

    inputs = [tensor(p.dtype, shape=(None,) * p.ndim, name=f"input{i}", test_value=p)
              for i, p in enumerate(points)]
    output = fn(*inputs)
    projection = rng.uniform(0.5, 1.5, size=np.shape(output.test_value)).astype(output.dtype)
    cost = (output * constant(projection)).sum()
    grads = grad(cost, inputs)
    cost_fn = function(inputs, cost, on_unused_input="ignore")
    grad_fn = function(inputs, grads, on_unused_input="ignore")
    compiled = grad_fn(*points)
    for i, (point, g, xla) in enumerate(zip(points, grads, compiled)):
        numeric = _finite_differences(cost_fn, points, i, eps)
        _compare(f"input #{i} (NumPy reference path)", g.test_value, numeric, abs_tol, rel_tol)
        _compare(f"input #{i} (XLA path)", xla, numeric, abs_tol, rel_tol)


def _finite_differences(cost_fn: Callable, points: list[np.ndarray], i: int, eps: float) -> np.ndarray:
    point = points[i]
    numeric = np.zeros(point.shape, dtype=np.float64)
    for index in np.ndindex(point.shape):
        original = point[index]
        point[index] = original + eps
        plus = float(cost_fn(*points))
        point[index] = original - eps
        minus = float(cost_fn(*points))
        point[index] = original
        numeric[index] = (plus - minus) / (2 * eps)
    return numeric


def _compare(what: str, analytic: Any, numeric: np.ndarray, abs_tol: float, rel_tol: float) -> None:
    analytic = np.asarray(analytic, dtype=np.float64)
    if analytic.shape != numeric.shape:
        raise GradientError(f"gradient of {what} has shape {analytic.shape}, expected {numeric.shape}")
    if analytic.size == 0:
        return
    abs_err = np.abs(analytic - numeric)
    rel_err = abs_err / np.maximum(np.abs(analytic) + np.abs(numeric), 1e-8)
    # NaN fails every comparison: a NaN on one side only is an error in itself.
    bad = ((abs_err > abs_tol) & (rel_err > rel_tol)) | (np.isnan(analytic) != np.isnan(numeric))
    abs_err = np.where(np.isnan(abs_err), np.inf, abs_err)
    rel_err = np.where(np.isnan(rel_err), np.inf, rel_err)
    if bad.any():
        worst_abs = tuple(int(i) for i in np.unravel_index(np.argmax(abs_err), abs_err.shape))
        worst_rel = tuple(int(i) for i in np.unravel_index(np.argmax(np.where(bad, rel_err, 0)),
                                                           rel_err.shape))
        raise GradientError(
            f"verify_grad: the gradient of {what} differs from finite differences at "
            f"{int(bad.sum())} of {bad.size} positions.\n"
            f"  largest absolute error {abs_err[worst_abs]:.3g} at index {worst_abs}: "
            f"analytic {analytic[worst_abs]:.6g}, numeric {numeric[worst_abs]:.6g}\n"
            f"  largest relative error {rel_err[worst_rel]:.3g} at index {worst_rel}: "
            f"analytic {analytic[worst_rel]:.6g}, numeric {numeric[worst_rel]:.6g}\n"
            f"  tolerances: abs_tol={abs_tol:g}, rel_tol={rel_tol:g}")


# The functions above are public entry points: an error they raise shows the user's line
# first, without symnb's frames (symnb.core.graph.traceback_filter).
_entry_points(globals())
