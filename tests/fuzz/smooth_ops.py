"""Differentiable float64 steps for the gradient fuzz.

Each step is drawn only where its function is smooth around the values drawn, with a
margin far larger than the finite-difference step: logs and square roots of values
above 0.1, divisions by values beyond 0.1 in magnitude, maxima, clips and absolute
values away from their kinks, unique maxima in max/min reductions, standard
deviations above 0.01, results below 1e6 in magnitude (see ``_MARGIN``); linear algebra
on square matrices whose condition number is below 100 (eigenvalues apart by more than
0.01, for ``eigh``).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.special
from hypothesis import strategies as st

import symnb.tensor as T
from symnb.tensor import nlinalg, slinalg
from tests.fuzz.program import Builder
from tests.fuzz.shapes import broadcast_partner, pick
from tests.reference import theano_true_divide

__all__ = ["unary", "binary", "reduction", "clip", "switch", "linalg"]

_MARGIN = 1e-3
_LARGEST = 1e6


def _add(b: Builder, text: str, operands, build, numpy_fn) -> int | None:
    with np.errstate(all="ignore"):
        ref = np.asarray(numpy_fn(*(b.ref(i) for i in operands)))
    if not np.all(np.isfinite(ref)) or np.any(np.abs(ref) > _LARGEST):
        return None
    return b.add_step(text, operands, build, numpy_fn, ref, np.zeros(ref.shape))


#: name, symbolic, NumPy, where the operand must lie.
_UNARY = [
    ("T.tanh", T.tanh, np.tanh, lambda x: True),
    ("T.exp", T.exp, np.exp, lambda x: np.all(x < 10)),
    ("T.sin", T.sin, np.sin, lambda x: True),
    ("T.cos", T.cos, np.cos, lambda x: True),
    ("T.sigmoid", T.sigmoid, scipy.special.expit, lambda x: True),
    ("T.softplus", T.softplus, lambda x: np.logaddexp(0.0, x), lambda x: True),
    ("T.erf", T.erf, scipy.special.erf, lambda x: True),
    ("T.square", T.square, np.square, lambda x: True),
    ("T.neg", T.neg, np.negative, lambda x: True),
    ("T.log", T.log, np.log, lambda x: np.all(x > 0.1)),
    ("T.sqrt", T.sqrt, np.sqrt, lambda x: np.all(x > 0.1)),
    ("T.log1p", T.log1p, np.log1p, lambda x: np.all(x > -0.9)),
    ("T.expm1", T.expm1, np.expm1, lambda x: np.all(x < 10)),
    ("T.abs", T.abs, np.abs, lambda x: np.all(np.abs(x) > _MARGIN)),
]


def unary(draw, b: Builder) -> int | None:
    name, symbolic, numpy_fn, domain = draw(st.sampled_from(_UNARY))
    x = pick(draw, b)
    if not domain(b.ref(x)):
        return None
    return _add(b, f"{name}({{}})", [x], symbolic, numpy_fn)


_BINARY = [("T.add", T.add, np.add), ("T.sub", T.sub, np.subtract), ("T.mul", T.mul, np.multiply),
           ("T.true_div", T.true_div, theano_true_divide), ("T.maximum", T.maximum, np.maximum),
           ("T.minimum", T.minimum, np.minimum), ("T.pow", T.pow, np.power)]


def binary(draw, b: Builder) -> int | None:
    name, symbolic, numpy_fn = draw(st.sampled_from(_BINARY))
    x = pick(draw, b)
    if draw(st.integers(0, 3)) == 0:
        scalar = draw(st.sampled_from([2.0, 0.5, -1.5, 3.0, 2]))
        xr = b.ref(x)
        if not _smooth_binary(name, xr, np.asarray(scalar)):
            return None
        return _add(b, f"{name}({{}}, {scalar!r})", [x], lambda v: symbolic(v, scalar),
                    lambda v: numpy_fn(v, scalar))
    y = broadcast_partner(draw, b, x)
    if not _smooth_binary(name, b.ref(x), b.ref(y)):
        return None
    return _add(b, f"{name}({{}}, {{}})", [x, y], symbolic, numpy_fn)


def _smooth_binary(name: str, x: np.ndarray, y: np.ndarray) -> bool:
    if name == "T.true_div":
        return bool(np.all(np.abs(y) > 0.1))
    if name in ("T.maximum", "T.minimum"):
        return bool(np.all(np.abs(x - y) > _MARGIN))
    if name == "T.pow":
        return bool(np.all(x > 0.1) and np.all(np.abs(y) < 4))
    return True


def reduction(draw, b: Builder) -> int | None:
    name = draw(st.sampled_from(["sum", "mean", "prod", "max", "min", "var", "std"]))
    x = pick(draw, b)
    xr = b.ref(x)
    if xr.ndim and draw(st.booleans()):
        axis = draw(st.integers(-xr.ndim, xr.ndim - 1))
    else:
        axis = None
    keepdims = draw(st.booleans())
    n = xr.size if axis is None else xr.shape[axis]
    if name in ("max", "min", "std", "var") and (n == 0 or xr.size == 0):
        return None
    if name in ("max", "min") and not _unique_extremes(xr, axis, name):
        return None
    if name == "std" and np.any(np.std(xr, axis=axis) < 1e-2):
        return None
    if name == "prod" and np.any(np.abs(xr) > 3):
        return None
    return _add(b, f"T.{name}({{}}, axis={axis!r}, keepdims={keepdims!r})", [x],
                lambda v: getattr(T, name)(v, axis=axis, keepdims=keepdims),
                lambda v: getattr(np, name)(v, axis=axis, keepdims=keepdims))


def _unique_extremes(x: np.ndarray, axis, name: str) -> bool:
    values = -x if name == "min" else x
    ordered = np.sort(values, axis=axis)
    if axis is None:
        ordered = ordered.reshape(-1)
        return ordered.size < 2 or ordered[-1] - ordered[-2] > _MARGIN
    if ordered.shape[axis] < 2:
        return True
    gap = np.take(ordered, -1, axis=axis) - np.take(ordered, -2, axis=axis)
    return bool(np.all(gap > _MARGIN))


def clip(draw, b: Builder) -> int | None:
    x = pick(draw, b)
    low, high = sorted(draw(st.lists(st.sampled_from([-1.0, -0.3, 0.2, 0.7, 1.5]), min_size=2, max_size=2,
                                     unique=True)))
    xr = b.ref(x)
    if np.any(np.abs(xr - low) < _MARGIN) or np.any(np.abs(xr - high) < _MARGIN):
        return None
    return _add(b, f"T.clip({{}}, {low!r}, {high!r})", [x], lambda v: T.clip(v, low, high),
                lambda v: np.clip(v, low, high))


def switch(draw, b: Builder) -> int | None:
    """``T.switch(x > y, a, c)`` with x and y apart (the condition does not flip)."""
    x = pick(draw, b)
    y = broadcast_partner(draw, b, x)
    if np.any(np.abs(b.ref(x) - b.ref(y)) < _MARGIN):
        return None
    a = broadcast_partner(draw, b, x)
    c = broadcast_partner(draw, b, x)
    try:
        np.broadcast_shapes(*(b.ref(i).shape for i in (x, y, a, c)))
    except ValueError:
        return None
    return _add(b, "T.switch(T.gt({}, {}), {}, {})", [x, y, a, c], lambda p, q, u, w: T.switch(T.gt(p, q), u, w),
                lambda p, q, u, w: np.where(p > q, u, w))


def _well_conditioned(x: np.ndarray) -> bool:
    return bool(np.linalg.cond(x) < 100)


def _spread(x: np.ndarray) -> bool:
    """Eigenvalues of the symmetric matrix ``eigh`` reads apart (their vectors smooth)."""
    w = np.linalg.eigvalsh(x)
    return bool(np.all(np.diff(w) > 1e-2))


#: the step's text, symbolic, NumPy, where the square matrix must lie.
_LINALG = [
    ("nlinalg.matrix_inverse({0})", nlinalg.matrix_inverse, np.linalg.inv, _well_conditioned),
    ("nlinalg.det({0})", nlinalg.det, np.linalg.det, _well_conditioned),
    ("nlinalg.eigh({0})[0]", lambda v: nlinalg.eigh(v)[0], lambda v: np.linalg.eigh(v)[0], _spread),
    ("nlinalg.eigh({0})[1]", lambda v: nlinalg.eigh(v)[1], lambda v: np.linalg.eigh(v)[1], _spread),
    ("slinalg.cholesky(T.dot({0}, {0}.T) + T.identity_like({0}))",
     lambda v: slinalg.cholesky(T.dot(v, v.T) + T.identity_like(v)),
     lambda v: np.linalg.cholesky(v @ v.T + np.eye(len(v))), lambda v: True),
    ("slinalg.solve({0}, {0}.T)", lambda v: slinalg.solve(v, v.T), lambda v: np.linalg.solve(v, v.T),
     _well_conditioned),
    ("slinalg.solve_lower_triangular({0}, {0})", lambda v: slinalg.solve_lower_triangular(v, v),
     lambda v: np.linalg.solve(np.tril(v), v), lambda v: _well_conditioned(np.tril(v))),
    ("slinalg.expm({0})", slinalg.expm, scipy.linalg.expm, lambda v: bool(np.linalg.norm(v, 1) < 4)),
]


def linalg(draw, b: Builder) -> int | None:
    """A linear-algebra step on a square matrix (see the module docstring): a matrix
    drawn, or ``dot(v, v.T)`` of a rectangular one."""
    x = pick(draw, b, accept=lambda i: b.ref(i).ndim == 2 and b.ref(i).shape[0] > 0)
    if x is None:
        return None
    text, symbolic, numpy_fn, domain = draw(st.sampled_from(_LINALG))
    if b.ref(x).shape[0] != b.ref(x).shape[1]:
        text = text.replace("{0}", "T.dot({0}, {0}.T)")
        symbolic = _of_gram(symbolic, lambda v: T.dot(v, v.T))
        numpy_fn = _of_gram(numpy_fn, lambda v: v @ v.T)
    square = np.asarray(b.ref(x)) if b.ref(x).shape[0] == b.ref(x).shape[1] else b.ref(x) @ b.ref(x).T
    if not domain(square):
        return None
    return _add(b, text, [x], symbolic, numpy_fn)


def _of_gram(fn, gram):
    return lambda v: fn(gram(v))
