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
from symnb.core.gradient import (DisconnectedInputError, NullGradientError, NullTypeGradError,
                                 disconnected_grad, grad)
from symnb.core.gradient_types import (DisconnectedType, NullType, disconnected_type,
                                       grad_not_implemented, grad_undefined, null_type)
from symnb.core.jacobian import hessian, jacobian
from symnb.core.rop import Lop, Rop  # Theano 1.0 defines them here (tensor re-exports them)
from symnb.core.tensor.extra_ops import GradClip, grad_clip
from symnb.core.tensor.gradient_views import (
    ConsiderConstant, DisconnectedGrad, GradScale, UndefinedGrad, ZeroGrad, consider_constant,
    consider_constant_, disconnected_grad_, grad_scale, undefined_grad, undefined_grad_, zero_grad,
    zero_grad_,
)

__all__ = ["numeric_grad", "grad", "Rop", "Lop", "jacobian", "hessian", "disconnected_grad", "grad_clip", "verify_grad",
           "zero_grad", "zero_grad_", "ZeroGrad", "consider_constant", "consider_constant_",
           "ConsiderConstant", "disconnected_grad_", "DisconnectedGrad", "undefined_grad",
           "undefined_grad_", "UndefinedGrad", "grad_scale", "GradScale", "GradClip",
           "DisconnectedInputError", "NullGradientError", "NullTypeGradError", "GradientError",
           "DisconnectedType", "disconnected_type", "NullType", "null_type", "grad_undefined",
           "grad_not_implemented", "subgraph_grad"]


class GradientError(SymnbError, AssertionError):
    """``verify_grad``: the symbolic gradient differs from finite differences."""


def subgraph_grad(wrt: list, end: list, start: dict | None = None, cost: Any = None,
                  details: bool = False) -> tuple:
    """Gradients of ``cost`` and/or of the known gradients ``start`` (``{variable: its
    gradient}``) with respect to ``wrt`` and to ``end``, backpropagating no further than
    the ``end`` variables (held constant): one piece of a backward pass, to chain with
    another ``subgraph_grad`` whose ``start`` is ``dict(zip(end, end_grads))`` (Theano's
    ``theano.subgraph_grad``; disconnected variables get zeros).

    Returns ``(wrt_grads, end_grads)``; with ``details``, also the gradients from
    ``start`` alone and from ``cost`` alone (each a list over ``wrt`` then ``end``, in
    the order of their first appearance, or None where not given).
    """
    if cost is None and start is None:
        raise ValueError("subgraph_grad: give a cost, or start (known gradients), or both")
    for what, given, kind in (("wrt", wrt, list), ("end", end, list), ("start", start, dict)):
        if given is not None and not isinstance(given, kind):
            raise TypeError(f"subgraph_grad: {what} must be a {kind.__name__}, got "
                            f"{type(given).__name__}")
    params = list({id(v): v for v in wrt + end}.values())  # each once, in order
    start_grads = cost_grads = None
    if start is not None:
        start_grads = list(grad(cost=None, wrt=params, known_grads=start, consider_constant=end,
                                disconnected_inputs="ignore"))
    if cost is not None:
        cost_grads = list(grad(cost=cost, wrt=params, consider_constant=end,
                               disconnected_inputs="ignore"))
    if start_grads is None:
        grads = cost_grads
    else:
        grads = list(start_grads)
        if cost_grads is not None:
            grads = [a + b for a, b in zip(grads, cost_grads)]
    by_param = {id(p): g for p, g in zip(params, grads)}
    wrt_grads, end_grads = [by_param[id(v)] for v in wrt], [by_param[id(v)] for v in end]
    if details:
        return wrt_grads, end_grads, start_grads, cost_grads
    return wrt_grads, end_grads


_DEFAULT_EPS = {"float64": 1e-6, "float32": 1e-3, "float16": 1e-1}
_DEFAULT_TOL = {"float64": 1e-5, "float32": 1e-2, "float16": 1e-1}


def verify_grad(fun: Callable[..., Any], pt: Sequence[Any], n_tests: int = 2, rng: Any = None,
                eps: float | None = None, out_type: str | None = None, abs_tol: float | None = None,
                rel_tol: float | None = None, mode: Any = None, cast_to_output_type: bool = False,
                no_debug_ref: bool = True) -> None:
    """Check ``sn.grad`` of ``fun`` against central finite differences at the points ``pt``
    (Theano's ``theano.gradient.verify_grad``, with its signature).

    ``fun`` takes symbolic tensors (one per point, each a float16/32/64 array) and returns one
    tensor; the check differentiates a random projection ``sum(u * fun(*inputs))``, ``u``
    uniform in [0.5, 1.5) drawn from ``rng`` (a ``numpy.random.RandomState``, a ``Generator``
    or the ``numpy.random`` module; symnb's default, where Theano demanded one, is
    ``default_rng(42)``), ``n_tests`` times with a new ``u`` each time. ``u`` is float64
    unless ``cast_to_output_type`` and the output is float32. Both the gradient's test value
    (NumPy reference path) and its compiled value (XLA path, compiled with ``mode``) are
    compared; with ``no_debug_ref`` the finite differences never run in DebugMode. Raises
    :class:`GradientError` (``verify_grad.E_grad``) with the largest absolute and relative
    errors and where.
    """
    from symnb.compile.function import function  # imports JAX: only when a check runs
    from symnb.core.tensor.basic import tensor

    if out_type is not None and not str(out_type).startswith("float"):
        raise NotImplementedError(f"verify_grad(out_type={out_type!r}): symnb checks real-valued "
                                  "outputs only (complex gradients are not supported)")
    rng = rng if rng is not None else np.random.default_rng(42)
    points = [np.array(p, copy=True) for p in pt]
    for i, p in enumerate(points):
        if p.dtype.kind != "f":
            raise TypeError(f"verify_grad can work only with floating point inputs, but input {i} "
                            f"has dtype {p.dtype}")
    dtype = str(np.result_type(*points))
    eps = eps if eps is not None else _DEFAULT_EPS.get(dtype, 1e-6)
    abs_tol = abs_tol if abs_tol is not None else _DEFAULT_TOL.get(dtype, 1e-5)
    rel_tol = rel_tol if rel_tol is not None else _DEFAULT_TOL.get(dtype, 1e-5)

    inputs = [tensor(p.dtype, shape=(None,) * p.ndim, name=f"input{i}", test_value=p)
              for i, p in enumerate(points)]
    output = fun(*inputs)
    if isinstance(output, (list, tuple)):
        raise NotImplementedError("verify_grad checks a function of one output; this one returned "
                                  f"{len(output)}")
    projection_dtype = "float32" if cast_to_output_type and output.dtype == "float32" else "float64"
    for _ in range(n_tests):
        projection = (rng.random(np.shape(output.test_value)) + 0.5).astype(projection_dtype)
        _check_projection(output, inputs, points, projection, eps, abs_tol, rel_tol,
                          _compiler(function, mode), _compiler(function, _mode_not_slow(mode, no_debug_ref)))


def _compiler(function: Callable, mode: Any) -> Callable:
    return lambda inputs, outputs: function(inputs, outputs, mode=mode, on_unused_input="ignore",
                                            allow_input_downcast=True)


def _mode_not_slow(mode: Any, no_debug_ref: bool) -> Any:
    """Theano's ``mode_not_slow``: the finite differences run thousands of calls, never in
    DebugMode when ``no_debug_ref``."""
    from symnb.compile.debugmode import DebugMode
    from symnb.compile.mode import get_mode

    if no_debug_ref and mode is not None and isinstance(get_mode(mode), DebugMode):
        return None
    return mode


def _check_projection(output: Any, inputs: list, points: list[np.ndarray], projection: np.ndarray,
                      eps: float, abs_tol: float, rel_tol: float, compile_grad: Callable,
                      compile_cost: Callable) -> None:
    from symnb.core.tensor.basic import constant

    cost = (output * constant(projection)).sum()
    grads = grad(cost, inputs, disconnected_inputs="ignore")
    cost_fn = compile_cost(inputs, cost)
    compiled = compile_grad(inputs, grads)(*points)
    for i, (g, xla) in enumerate(zip(grads, compiled)):
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


verify_grad.E_grad = GradientError  # type: ignore[attr-defined]  (Theano's spelling)

# The functions above are public entry points: an error they raise shows the user's line
# first, without symnb's frames (symnb.core.graph.traceback_filter).
_entry_points(globals())


class numeric_grad:  # noqa: N801  (Theano's name)
    """Theano's ``theano.gradient.numeric_grad``: the gradient of the scalar function
    ``f`` at ``pt`` (an array or a list of arrays) by one-sided finite differences of step
    ``eps`` (default: ``type_eps`` of the inputs' dtypes, the largest), in ``gf`` (one
    array per input, or the array when ``pt`` was one). ``max_err`` compares a gradient
    with it, as ``verify_grad`` does."""

    type_eps = {"float64": 1e-7, "float32": 3e-4, "float16": 1e-1,
                np.dtype("float64"): 1e-7, np.dtype("float32"): 3e-4, np.dtype("float16"): 1e-1}

    def __init__(self, f: Callable[..., Any], pt: Any, eps: float | None = None,
                 out_type: str | None = None) -> None:
        packed = not isinstance(pt, (list, tuple))
        points = [np.array(p) for p in ([pt] if packed else pt)]
        dtypes = [str(p.dtype) for p in points]
        # the inputs are computed in the dtype of the smallest step among them
        working = min((self.type_eps[d], d) for d in dtypes)[1]
        total = int(sum(p.size for p in points))
        x = np.empty((total,), dtype=working)
        out_dtype = out_type if out_type is not None and out_type.startswith("complex") else working
        gx = np.empty((total,), dtype=out_dtype)
        eps = eps if eps is not None else max(self.type_eps[d] for d in dtypes)
        views, self.gf, start = [], [], 0
        for p in points:  # each input a view of x, each gradient one of gx
            views.append(x[start:start + p.size].reshape(p.shape))
            self.gf.append(gx[start:start + p.size].reshape(p.shape))
            views[-1][...] = p
            start += p.size
        f_x = f(*[v.copy() for v in views])
        original = x.copy()
        for i in range(total):
            x[:] = original
            x[i] += eps
            gx[i] = (f(*views) - f_x) / eps
        if packed:
            self.gf = self.gf[0]

    @staticmethod
    def abs_rel_err(a: Any, b: Any) -> tuple[np.ndarray, np.ndarray]:
        """``(|a - b|, |a - b| / max(|a| + |b|, 1e-8))``."""
        abs_err = abs(a - b)
        rel_err = abs_err / np.maximum(abs(a) + abs(b), [1e-8])
        return np.asarray(abs_err), np.asarray(rel_err)

    def abs_rel_errors(self, g_pt: Sequence[np.ndarray]) -> list[tuple[np.ndarray, np.ndarray]]:
        """The absolute and relative errors of each array of ``g_pt`` against ``gf``."""
        if len(g_pt) != len(self.gf):
            raise ValueError("argument has wrong number of elements", len(g_pt))
        errors = []
        for i, (a, b) in enumerate(zip(g_pt, self.gf)):
            if a.shape != b.shape:
                raise ValueError(f"argument element {i} has wrong shape {(a.shape, b.shape)}")
            errors.append(numeric_grad.abs_rel_err(a, b))
        return errors

    def max_err(self, g_pt: Sequence[np.ndarray], abs_tol: float, rel_tol: float) -> tuple:
        """``(input, position, abs_err, rel_err)`` where ``min(abs_err / abs_tol, rel_err /
        rel_tol)`` is largest (above 1: both tolerances are exceeded)."""
        best = None
        for i, (abs_err, rel_err) in enumerate(self.abs_rel_errors(g_pt)):
            if not np.all(np.isfinite(abs_err)):
                raise ValueError("abs_err not finite", repr(abs_err))
            if not np.all(np.isfinite(rel_err)):
                raise ValueError("rel_err not finite", repr(rel_err))
            scaled = np.minimum(abs_err / abs_tol, rel_err / rel_tol)
            pos = int(np.argmax(scaled))
            candidate = (float(scaled.flatten()[pos]), i, pos, abs_err.flatten()[pos], rel_err.flatten()[pos])
            if best is None or candidate[0] > best[0]:
                best = candidate
        return best[1:]
