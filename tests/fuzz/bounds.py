"""Error bounds for the differential fuzz: how far two correct implementations may be.

Every value of a generated program carries, next to its NumPy reference ``ref``, an
array ``err`` (float64, ``ref``'s shape): a bound on the distance between ``ref`` and
what any correct implementation computes from the same inputs. It is propagated op by
op, the way an error analysis does it by hand:

- the inputs' errors, carried through the op: exactly (interval end points, in
  float64) for monotone functions, through a Lipschitz bound for the others;
- plus the op's own rounding: ``k`` units in the last place of the result, ``k`` 1 for
  correctly rounded operations (+, -, *, /, sqrt, casts), 8 for transcendental ones
  (XLA's approximations are not NumPy's), plus the dtype's smallest normal number
  (XLA on CPU may flush subnormals to zero).

``err`` is 0 where a value is determined exactly (integers, comparisons of separated
values, shape and indexing ops) and ``inf`` where a value is *unstable*: a floor, a
comparison, a cast to an integer or an argmax whose input interval straddles a jump,
a log whose input interval reaches 0, a result within its error of overflowing. An
unstable element is not compared (another correct implementation may differ there by
a whole step); everything else is, NaN and infinities exactly.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

__all__ = ["is_float", "ulp", "rounding", "through_unary", "through_binary", "jump_free", "guard_overflow",
           "difference"]

#: Units in the last place an op of each kind may add (both implementations together).
CORRECTLY_ROUNDED = 1.0
TRANSCENDENTAL = 8.0


def is_float(dtype) -> bool:
    return np.dtype(dtype).kind == "f"


def ulp(ref: np.ndarray) -> np.ndarray:
    """The spacing of floats at ``ref`` (0 where ``ref`` is not finite), as float64."""
    ref = np.asarray(ref)
    if not is_float(ref.dtype):
        return np.zeros(ref.shape)
    with np.errstate(all="ignore"):
        spacing = np.spacing(np.abs(ref)).astype(np.float64)
    return np.where(np.isfinite(ref), spacing, 0.0)


def rounding(ref: np.ndarray, k: float = CORRECTLY_ROUNDED) -> np.ndarray:
    """The rounding an op adds to its result: ``k`` ulps, plus the smallest normal
    number of the dtype (subnormals may be flushed to zero); 0 for exact dtypes."""
    ref = np.asarray(ref)
    if not is_float(ref.dtype):
        return np.zeros(ref.shape)
    return k * ulp(ref) + k * float(np.finfo(ref.dtype).tiny)


def _as64(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float64)


def _deviation(values: list[np.ndarray], center: np.ndarray) -> np.ndarray:
    """The largest distance from ``center`` to ``values``: 0 where all are equal (the
    same infinity, or all NaN), inf where some are NaN and others not."""
    with np.errstate(all="ignore"):
        worst = np.zeros(np.broadcast(center, *values).shape)
        for v in values:
            same = (v == center) | (np.isnan(v) & np.isnan(center))
            gap = np.where(same, 0.0, np.abs(v - center))
            worst = np.maximum(worst, np.where(np.isnan(gap), np.inf, gap))
    return worst


def through_unary(f64: Callable, x: np.ndarray, e: np.ndarray, lipschitz: float | None = None) -> np.ndarray:
    """The error of ``f(x)`` caused by the error ``e`` of ``x``: from the end points of
    ``[x - e, x + e]`` (monotone ``f``), or ``lipschitz * e`` when given."""
    e = _as64(e)
    if lipschitz is not None:
        return lipschitz * e
    x = _as64(x)
    with np.errstate(all="ignore"):
        center = f64(x)
        spread = _deviation([f64(x - e), f64(x + e)], center)
    # An unstable operand may be anything, NaN included: so may the result.
    return np.where(e == 0, 0.0, np.where(np.isfinite(e), spread, np.inf))


def through_binary(f64: Callable, a, ea, b, eb) -> np.ndarray:
    """The error of ``f(a, b)`` caused by the errors of ``a`` and ``b``: from the four
    corners of the box (``f`` monotone in each argument on it)."""
    a, b, ea, eb = _as64(a), _as64(b), _as64(ea), _as64(eb)
    with np.errstate(all="ignore"):
        center = f64(a, b)
        corners = [f64(a + sa * ea, b + sb * eb) for sa in (-1, 1) for sb in (-1, 1)]
        spread = _deviation(corners, center)
    exact = (ea == 0) & (eb == 0)
    return np.where(exact, 0.0, np.where(np.isfinite(ea) & np.isfinite(eb), spread, np.inf))


def jump_free(step: Callable, x, e) -> np.ndarray:
    """True where the discontinuous ``step`` (floor, a comparison...) has the same value
    at both ends of ``[x - e, x + e]``: there its result is exact."""
    x, e = _as64(x), _as64(e)
    with np.errstate(all="ignore"):
        low, high = step(x - e), step(x + e)
        same = (low == high) | (np.isnan(low) & np.isnan(high))
    return (e == 0) | (same & np.isfinite(e))


def guard_overflow(ref: np.ndarray, err: np.ndarray) -> np.ndarray:
    """``err``, made inf where the result is within its error of the dtype's largest
    value (another implementation may round it to inf, or not)."""
    ref = np.asarray(ref)
    if not is_float(ref.dtype):
        return err
    top = float(np.finfo(ref.dtype).max)
    with np.errstate(all="ignore"):
        near = np.isfinite(ref) & (np.abs(ref.astype(np.float64)) + 2 * err >= top)
        # A result that overflowed to inf from a finite exact value is unstable too.
        near |= np.isinf(ref) & (err > 0)
    return np.where(near, np.inf, err)


def difference(actual: np.ndarray, ref: np.ndarray, err: np.ndarray) -> str | None:
    """Why ``actual`` is not ``ref`` within ``err`` (dtype and shape included), or None.

    Elements with an infinite ``err`` are not compared; a NaN must be matched by a
    NaN, an infinity by the same infinity, an integer exactly.
    """
    actual = np.asarray(actual)
    if actual.dtype != ref.dtype:
        return f"dtype {actual.dtype}, reference {ref.dtype}"
    if actual.shape != ref.shape:
        return f"shape {actual.shape}, reference {ref.shape}"
    compared = np.isfinite(err)
    if is_float(ref.dtype):
        a, r = actual.astype(np.float64), ref.astype(np.float64)
        with np.errstate(all="ignore"):
            same_special = (np.isnan(a) & np.isnan(r)) | ((a == r) & np.isinf(r))
            close = np.isfinite(r) & np.isfinite(a) & (np.abs(a - r) <= 2 * err)
        ok = same_special | close
    else:
        ok = actual == ref
    bad = compared & ~ok
    if not bad.any():
        return None
    where = tuple(int(i) for i in np.argwhere(bad)[0])
    return (f"{int(bad.sum())} of {bad.size} values differ; first at {where}: {actual[where]!r}, "
            f"reference {ref[where]!r} (allowed error {2 * err[where]:.3g})")
