"""``log1p`` and fused multiply-add as XLA's CPU backend evaluates them, in NumPy.

``jax.random.normal`` goes through ``erf_inv``, which starts with ``log1p(-x * x)``.
XLA does not call libm's ``log1p``: it emits its own (``xla.log1p`` in
``xla/codegen/intrinsic``), and LLVM then contracts its multiplies and adds into fused
multiply-adds. These functions replay that evaluation step by step (read from the
optimized LLVM IR and the x86 code JAX 0.10.2 produces, ``XLA_FLAGS=--xla_dump_to=DIR
--xla_dump_hlo_as_text``), so that a draw's test value agrees with the compiled program
to the bit (checked over millions of values in float32 and float64; float64's emulated
fused multiply-add may be an ulp off in rare near-halfway cases):

- ``|x| < sqrt(2) - 1``: ``x + fma(-0.5, x², x·x²·P(x)/Q(x))``, ``P`` and ``Q`` of
  degree 6 evaluated by fused Horner steps;
- otherwise ``log(1 + x)`` with ``1 + x`` rounded: float32 with Eigen's ``plog_float``
  polynomial (fused as LLVM fuses it), float64 with libm's scalar ``log``.

Subnormal arguments and results are flushed to zero, as XLA's CPU threads do. This
assumes a CPU with FMA (x86-64 since Haswell, every AArch64); on one without, XLA
rounds each multiply and each add, and the agreement falls back to a few ulp.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

__all__ = ["fused_multiply_add", "log1p"]


def fused_multiply_add(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``a * b + c`` rounded once, as XLA's CPU and GPU backends compute it (they fuse
    the multiply and the add). Float32 and float16 through float64 (the product is exact
    there; a double rounding can only differ in a halfway case); float64 through
    error-free transformations (exact product and sum, then one final addition of the
    rounding errors: correctly rounded except in rare near-halfway cases)."""
    dtype = np.result_type(a, b, c)
    if dtype.itemsize < 8:
        wide = np.asarray(a, np.float64) * np.asarray(b, np.float64) + np.asarray(c, np.float64)
        return wide.astype(dtype)
    a, b, c = (np.asarray(v, np.float64) for v in (a, b, c))
    with np.errstate(over="ignore", invalid="ignore"):
        product, product_error = _two_product(a, b)
        total, sum_error = _two_sum(product, c)
        fused = total + (sum_error + product_error)
        # An exact zero: then a * b == -c is representable, and the plain sum has its sign.
        fused = np.where(fused == 0, product + c, fused)
    # Infinite or NaN terms: the plain expression has the right special value.
    return np.where(np.isfinite(fused), fused, a * b + c).astype(dtype)


def _two_product(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    # Dekker: p + e == a * b exactly (barring overflow), halves split by Veltkamp.
    p = a * b
    a_hi, a_lo = _split(a)
    b_hi, b_lo = _split(b)
    e = ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo
    return p, e


def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    t = a * 134217729.0  # 2**27 + 1
    hi = t - (t - a)
    return hi, a - hi


def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    # Knuth: s + e == a + b exactly.
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _horner(coefficients: Sequence[float], x: np.ndarray) -> np.ndarray:
    p = np.full_like(x, coefficients[0])
    for c in coefficients[1:]:
        p = fused_multiply_add(p, x, x.dtype.type(c))
    return p


# XLA's log1p near zero: x - x²/2 + x³·P(x)/Q(x), highest degree first; the same
# decimal constants, rounded to the dtype, for float32 and float64.
_LOG1P_P = (4.52700008624452e-05, 0.49854102823193375, 6.578732594206104, 29.911919328553072,
            60.94966798098779, 57.11296359058554, 20.039553499201283)
_LOG1P_Q = (1.0, 15.062909083469192, 83.04756596796722, 221.76239823732857, 309.09872225312057,
            216.42788614495947, 60.11866049760384)

# Eigen's plog_float (Cephes logf): log(m) = r - r²/2 + r³·Y(r) + e·ln2, ln2 in two parts.
_LOGF_Y = ((7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1),
           (-1.2420140846e-1, 1.4249322787e-1, -1.6668057665e-1),
           (2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1))
_LOGF_LN2_LO, _LOGF_LN2_HI = -2.12194440e-4, 0.693359375


def log1p(x: np.ndarray) -> np.ndarray:
    """``log(1 + x)`` for a float32 or float64 array, as XLA on CPU computes it."""
    x = np.asarray(x)
    dtype = x.dtype.type
    if dtype not in (np.float32, np.float64):
        raise TypeError(f"log1p: XLA's evaluation is replayed for float32 and float64, not {x.dtype}")
    x = _flush_subnormals(x)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        x2 = x * x
        ratio = _horner(_LOG1P_P, x) / _horner(_LOG1P_Q, x)
        near_zero = x + fused_multiply_add(dtype(-0.5), x2, (x * x2) * ratio)
        one_plus_x = dtype(1) + x
        far = _logf(one_plus_x) if dtype == np.float32 else _libm_log(one_plus_x)
    return _flush_subnormals(np.where(np.abs(x) < dtype(math.sqrt(2) - 1), near_zero, far).astype(dtype))


def _flush_subnormals(x: np.ndarray) -> np.ndarray:
    # XLA's CPU threads run with flush-to-zero and denormals-are-zero set.
    return np.where(np.abs(x) < np.finfo(x.dtype).tiny, np.copysign(x.dtype.type(0), x), x)


def _libm_log(y: np.ndarray) -> np.ndarray:
    # XLA calls the C library's scalar ``log`` for float64, which NumPy's SIMD log may
    # not match to the bit; Python's math.log is that same C function.
    flat = y.ravel()
    out = np.empty_like(flat)
    for i, v in enumerate(flat.tolist()):
        out[i] = math.log(v) if v > 0 else (-math.inf if v == 0 else math.nan)
    return out.reshape(y.shape)


def _logf(y: np.ndarray) -> np.ndarray:
    """Natural log of float32 ``y`` as Eigen's ``plog_float``, fused as XLA's LLVM fuses it."""
    f32 = np.float32
    clamped = np.maximum(y, f32(np.finfo(np.float32).tiny))  # subnormals count as the smallest normal
    bits = clamped.view(np.uint32)
    exponent = ((bits >> np.uint32(23)).astype(np.int32) - 127).astype(f32) + f32(1)
    mantissa = ((bits & np.uint32(0x807FFFFF)) | np.uint32(0x3F000000)).view(f32)  # in [0.5, 1)
    below = mantissa < f32(0.70710677)
    r = (mantissa + f32(-1)) + np.where(below, mantissa, f32(0))
    exponent = np.where(below, exponent - f32(1), exponent)
    r2 = r * r
    r3 = r2 * r
    y0, y1, y2 = (_horner(c, r) for c in _LOGF_Y)
    poly = fused_multiply_add(fused_multiply_add(y0, r3, y1), r3, y2)
    tail = fused_multiply_add(poly, r3, exponent * f32(_LOGF_LN2_LO))
    result = fused_multiply_add(exponent, f32(_LOGF_LN2_HI), fused_multiply_add(f32(-0.5), r2, r) + tail)
    result = np.where(y == np.inf, f32(np.inf), result)
    result = np.where(y == 0, f32(-np.inf), result)
    return np.where((y < 0) | np.isnan(y), f32(np.nan), result).astype(f32)
