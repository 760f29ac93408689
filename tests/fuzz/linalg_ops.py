"""Linear-algebra steps for the differential fuzz, where LAPACK's conventions decide the
value: ``lstsq``'s ``rcond`` (``gelsd`` reads one at or below 0 or at or above 1 as its
epsilon) and ``eigh``'s eigenvectors, whose signs are LAPACK's choice.

References are NumPy's ``lstsq`` and SciPy's ``eigh`` (``driver='evd'``: the LAPACK
routine and build XLA's CPU programs call, so the signs are defined and shared). Each step
takes a function input (exact values) that is square and well conditioned (condition
number under 100; the eigenvalues apart by 0.05 of the largest for ``eigh``; made when
no input drawn so far is), so the
bounds are those of a backward-stable solver: ``(n + 2) * 10 * eps`` times the condition
number (the eigenvalue gap for eigenvectors) times the result's magnitude.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from symnb.tensor import nlinalg
from tests.fuzz.program import Builder
from tests.fuzz.shapes import pick

__all__ = ["lstsq", "eigh_vectors"]

#: ``rcond`` values LAPACK reads as its epsilon (-1, 0, 1, 2.5) and one it reads as given
#: (0.001: below every well-conditioned matrix's smallest relative singular value here).
_RCONDS = [-1.0, 0.0, 1.0, 2.5, 1e-3]


def _square_float_input(draw, b: Builder) -> int | None:
    """A function input that is a square, finite, well-conditioned float matrix: one
    drawn already, or a new one (values in [-2, 2] plus 4 on the diagonal)."""
    def fits(i: int) -> bool:
        ref = b.ref(i)
        return (b.is_input(i) and ref.dtype.kind == "f" and ref.ndim == 2 and ref.shape[0] == ref.shape[1]
                and ref.shape[0] > 0 and bool(np.all(np.isfinite(ref))) and np.linalg.cond(ref) < 100)

    found = pick(draw, b, fits)
    if found is not None or draw(st.integers(0, 3)) == 0:
        return found
    n = draw(st.sampled_from([1, 2, 3]))
    dtype = b.dtype or draw(st.sampled_from(["float32", "float64"]))
    values = draw(hnp.arrays(dtype, (n, n), elements=st.floats(-2, 2, width=np.dtype(dtype).itemsize * 8)))
    value = (values + 4 * np.eye(n)).astype(dtype)
    static = tuple(draw(st.sampled_from([n, None])) for _ in range(2))
    return b.add_input(dtype, value, static) if np.linalg.cond(value) < 100 else None


def _bound(ref: np.ndarray, amplification: float) -> np.ndarray:
    eps = float(np.finfo(ref.dtype).eps)
    return np.full(ref.shape, (ref.shape[0] + 2) * 10 * eps * amplification * max(np.abs(ref).max(), 1.0))


def lstsq(draw, b: Builder) -> int | None:
    """``nlinalg.lstsq()(x, x.T, rcond)[0]``: the solution of ``x a = x.T``."""
    x = _square_float_input(draw, b)
    if x is None:
        return None
    rcond = draw(st.sampled_from(_RCONDS))
    xr = b.ref(x)

    def numpy_fn(v):
        return np.linalg.lstsq(v, v.T, rcond=rcond)[0]

    ref = numpy_fn(xr)
    return b.add_step(f"nlinalg.lstsq()({{0}}, {{0}}.T, {rcond!r})[0]", [x],
                      lambda v: nlinalg.lstsq()(v, v.T, rcond)[0], numpy_fn, ref,
                      _bound(ref, np.linalg.cond(xr)))


def eigh_vectors(draw, b: Builder) -> int | None:
    """``nlinalg.eigh(x, uplo)[1]``: the eigenvectors of the triangle ``uplo`` names."""
    x = _square_float_input(draw, b)
    if x is None:
        return None
    uplo = draw(st.sampled_from(["L", "U"]))
    xr = b.ref(x)

    def numpy_fn(v):
        return scipy.linalg.eigh(v, lower=uplo == "L", driver="evd")[1]

    w = scipy.linalg.eigh(xr, lower=uplo == "L", driver="evd", eigvals_only=True)
    scale = max(np.abs(w).max(), 1.0)
    gap = np.diff(w).min() if len(w) > 1 else scale
    if gap < 0.05 * scale:
        return None
    ref = numpy_fn(xr)
    return b.add_step(f"nlinalg.eigh({{0}}, {uplo!r})[1]", [x], lambda v: nlinalg.eigh(v, uplo)[1],
                      numpy_fn, ref, _bound(ref, scale / gap))
