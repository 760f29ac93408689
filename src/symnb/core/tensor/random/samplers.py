"""JAX's samplers in NumPy: from a threefry key to uniform, normal, truncated normal,
Bernoulli, integer, choice and permutation draws, with the same bits-to-value transforms as
``jax/_src/random/core.py`` (JAX 0.10). The random ops' ``perform`` uses these, so a
draw's test value is what the compiled program (which calls ``jax.random``) returns:
integers bit for bit; floats bit for bit in float32 and within an ulp in float64 on a
CPU with fused multiply-add (``xla_cpu_math`` replays XLA's ``log1p`` and its fused
multiply-adds).
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from symnb.core.tensor.random import threefry
from symnb.core.tensor.random.xla_cpu_math import fused_multiply_add, log1p

__all__ = ["fused_multiply_add", "uniform", "normal", "scaled_normal", "TRUNCATION",
           "truncated_normal_bounds", "truncation_clamp", "standard_truncated_normal",
           "truncated_normal", "bernoulli", "randint", "shuffle", "choice", "erf_inv", "gumbel"]


def uniform(key: np.ndarray, shape: Sequence[int], dtype: str,
            minval: float | np.ndarray = 0.0, maxval: float | np.ndarray = 1.0) -> np.ndarray:
    """``jax.random.uniform``: random mantissa bits under exponent 0, minus one, scaled."""
    dtype = np.dtype(dtype)
    finfo = np.finfo(dtype)
    nbits, nmant = finfo.bits, finfo.nmant
    uint = np.dtype(f"uint{nbits}")
    bits = threefry.random_bits(key, nbits, shape)
    float_bits = (bits >> uint.type(nbits - nmant)) | np.array(1.0, dtype).view(uint)
    floats = float_bits.view(dtype) - dtype.type(1.0)
    lo, hi = np.asarray(minval, dtype), np.asarray(maxval, dtype)
    return np.maximum(lo, fused_multiply_add(floats, hi - lo, lo)).reshape(tuple(shape))


def normal(key: np.ndarray, shape: Sequence[int], dtype: str) -> np.ndarray:
    """``jax.random.normal``: ``sqrt(2) * erfinv(u)`` with ``u`` uniform on (-1, 1)."""
    dtype = np.dtype(dtype)
    return (np.array(np.sqrt(2), dtype) * _erf_inv_of_uniform(key, shape, dtype)).astype(dtype)


def scaled_normal(key: np.ndarray, shape: Sequence[int], dtype: str, avg: np.ndarray,
                  std: np.ndarray) -> np.ndarray:
    """``avg + std * jax.random.normal(key, shape, dtype)`` as XLA computes it: one fused
    multiply-add, and where ``std`` is broadcast to ``shape``, XLA's algebraic simplifier
    first folds it into normal's constant (``erfinv(u) * (std * sqrt(2))``)."""
    dtype = np.dtype(dtype)
    avg, std = np.asarray(avg, dtype), np.asarray(std, dtype)
    erf_inv_u = _erf_inv_of_uniform(key, shape, dtype)
    sqrt_2 = np.array(np.sqrt(2), dtype)
    if std.shape == tuple(shape):
        return fused_multiply_add(std, (sqrt_2 * erf_inv_u).astype(dtype), avg)
    return fused_multiply_add(erf_inv_u, (std * sqrt_2).astype(dtype), avg)


def _erf_inv_of_uniform(key: np.ndarray, shape: Sequence[int], dtype: np.dtype) -> np.ndarray:
    lo = np.nextafter(np.array(-1.0, dtype), np.array(0.0, dtype))
    return erf_inv(uniform(key, shape, dtype, lo, 1.0))


#: Theano's truncated normal (``MRG_RandomStreams.normal(..., truncate=True)``) keeps
#: the draws within this many standard deviations of the mean.
TRUNCATION = 2.0


def truncated_normal_bounds(dtype: str) -> tuple[np.ndarray, np.ndarray]:
    """``(erf(-2 / sqrt(2)), erf(2 / sqrt(2)))`` rounded to ``dtype``: the interval of the
    uniform whose ``sqrt(2) * erfinv`` is the normal truncated at ``±TRUNCATION``
    (computed here, correctly rounded, and used as constants by both NumPy and the
    lowering, so they draw from the same interval)."""
    bound = math.erf(TRUNCATION / math.sqrt(2))
    return np.array(-bound, dtype), np.array(bound, dtype)


def standard_truncated_normal(key: np.ndarray, shape: Sequence[int], dtype: str) -> np.ndarray:
    """The standard normal truncated to ``(-2, 2)`` by inverse CDF, as
    ``jax.random.truncated_normal(key, -2, 2, shape, dtype)``: ``sqrt(2) * erfinv(u)``
    with ``u`` uniform between the bounds' ``erf`` values, clamped into the open
    interval (rounding may not push a draw onto or past a bound)."""
    dtype = np.dtype(dtype)
    lo, hi = truncated_normal_bounds(dtype)
    z = (np.array(np.sqrt(2), dtype) * erf_inv(uniform(key, shape, dtype, lo, hi))).astype(dtype)
    return np.clip(z, *truncation_clamp(dtype)).astype(dtype)


def truncation_clamp(dtype: str) -> tuple[np.ndarray, np.ndarray]:
    """The largest closed interval inside ``(-2, 2)`` in ``dtype``."""
    bound = np.array(TRUNCATION, dtype)
    return np.nextafter(-bound, bound), np.nextafter(bound, -bound)


def truncated_normal(key: np.ndarray, shape: Sequence[int], dtype: str, avg: np.ndarray,
                     std: np.ndarray) -> np.ndarray:
    """``avg + std * z``, ``z`` the :func:`standard_truncated_normal` draw, as XLA
    computes it (one fused multiply-add)."""
    dtype = np.dtype(dtype)
    z = standard_truncated_normal(key, shape, dtype)
    return fused_multiply_add(np.asarray(std, dtype), z, np.asarray(avg, dtype)).astype(dtype)


def bernoulli(key: np.ndarray, p: np.ndarray, shape: Sequence[int]) -> np.ndarray:
    """``jax.random.bernoulli``: ``uniform < p``, the uniform in ``p``'s dtype."""
    return uniform(key, shape, p.dtype) < p


def randint(key: np.ndarray, shape: Sequence[int], minval: np.ndarray, maxval: np.ndarray,
            dtype: str) -> np.ndarray:
    """``jax.random.randint`` in ``[minval, maxval)``: two words of random bits per value,
    reduced modulo the span (unsigned, wrapping, as JAX does); ``minval`` where the
    span is empty. ``minval`` and ``maxval`` must fit ``dtype``."""
    dtype = np.dtype(dtype)
    nbits = dtype.itemsize * 8
    unsigned = np.dtype(f"uint{nbits}")
    k1, k2 = threefry.split(key)
    higher = threefry.random_bits(k1, nbits, shape)
    lower = threefry.random_bits(k2, nbits, shape)
    minval = np.broadcast_to(np.asarray(minval).astype(dtype), tuple(shape))
    maxval = np.broadcast_to(np.asarray(maxval).astype(dtype), tuple(shape))
    with np.errstate(over="ignore"):
        span = (maxval - minval).astype(unsigned)
        span = np.where(maxval <= minval, unsigned.type(1), span)
        multiplier = unsigned.type(2 ** (nbits // 2)) % span
        multiplier = (multiplier * multiplier) % span
        offset = (higher % span) * multiplier + lower % span
        offset = offset % span
        return (minval + offset.astype(dtype)).astype(dtype)


def num_rounds(size: int) -> int:
    # JAX's heuristic: enough rounds of 32-bit sort keys that ties are unlikely.
    return int(np.ceil(3 * np.log(max(1, size)) / np.log(np.iinfo(np.uint32).max)))


def shuffle(key: np.ndarray, x: np.ndarray, axis: int) -> np.ndarray:
    """JAX's ``_shuffle``: sort ``x`` along ``axis`` by random 32-bit keys, in rounds."""
    for _ in range(num_rounds(x.size)):
        key, subkey = threefry.split(key)
        sort_keys = threefry.random_bits(subkey, 32, x.shape)
        order = np.argsort(sort_keys, axis=axis, kind="stable")
        x = np.take_along_axis(x, order, axis=axis)
    return x


def gumbel(key: np.ndarray, shape: Sequence[int], dtype: str) -> np.ndarray:
    """``jax.random.gumbel`` (mode "low"): ``-log(-log(u))``, ``u`` uniform on [tiny, 1)."""
    dtype = np.dtype(dtype)
    u = uniform(key, shape, dtype, np.finfo(dtype).tiny, 1.0)
    return -np.log(-np.log(u))


def choice(key: np.ndarray, n: int, shape: Sequence[int], replace: bool,
           p: np.ndarray | None, dtype: str) -> np.ndarray:
    """Indices into ``range(n)`` as ``jax.random.choice(key, n, shape, replace, p)``
    draws them (with ``dtype`` as its default integer)."""
    draws = math.prod(shape)
    if draws == 0:
        return np.zeros(tuple(shape), dtype)
    if p is None and replace:
        return randint(key, shape, 0, n, dtype)
    if p is None:
        return shuffle(key, np.arange(n, dtype=dtype), 0)[:draws].reshape(tuple(shape))
    if replace:
        cdf = np.cumsum(p)
        r = cdf[-1] * (p.dtype.type(1) - uniform(key, shape, p.dtype))
        return np.searchsorted(cdf, r, side="left").astype(dtype)
    g = gumbel(key, (n,), p.dtype) + np.log(p)
    # lax.top_k: largest first, the lower index first among equals.
    return np.argsort(-g, kind="stable")[:draws].astype(dtype).reshape(tuple(shape))


# -- erfinv: the polynomials XLA's ErfInv uses (M. Giles, "Approximating the erfinv
# function", GPU Computing Gems), so NumPy and the compiled program agree to an ulp. -----

_ERFINV32 = (  # (w < 5, w >= 5), highest degree first
    (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
     -0.00125372503, -0.00417768164, 0.246640727, 1.50140941),
    (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
     -0.0076224613, 0.00943887047, 1.00167406, 2.83297682),
)

_ERFINV64_LT_6_25 = (
    -3.6444120640178196996e-21, -1.685059138182016589e-19, 1.2858480715256400167e-18,
    1.115787767802518096e-17, -1.333171662854620906e-16, 2.0972767875968561637e-17,
    6.6376381343583238325e-15, -4.0545662729752068639e-14, -8.1519341976054721522e-14,
    2.6335093153082322977e-12, -1.2975133253453532498e-11, -5.4154120542946279317e-11,
    1.051212273321532285e-09, -4.1126339803469836976e-09, -2.9070369957882005086e-08,
    4.2347877827932403518e-07, -1.3654692000834678645e-06, -1.3882523362786468719e-05,
    0.0001867342080340571352, -0.00074070253416626697512, -0.0060336708714301490533,
    0.24015818242558961693, 1.6536545626831027356)
_ERFINV64_LT_16 = (
    2.2137376921775787049e-09, 9.0756561938885390979e-08, -2.7517406297064545428e-07,
    1.8239629214389227755e-08, 1.5027403968909827627e-06, -4.013867526981545969e-06,
    2.9234449089955446044e-06, 1.2475304481671778723e-05, -4.7318229009055733981e-05,
    6.8284851459573175448e-05, 2.4031110387097893999e-05, -0.0003550375203628474796,
    0.00095328937973738049703, -0.0016882755560235047313, 0.0024914420961078508066,
    -0.0037512085075692412107, 0.005370914553590063617, 1.0052589676941592334,
    3.0838856104922207635)
_ERFINV64_GE_16 = (
    -2.7109920616438573243e-11, -2.5556418169965252055e-10, 1.5076572693500548083e-09,
    -3.7894654401267369937e-09, 7.6157012080783393804e-09, -1.4960026627149240478e-08,
    2.9147953450901080826e-08, -6.7711997758452339498e-08, 2.2900482228026654717e-07,
    -9.9298272942317002539e-07, 4.5260625972231537039e-06, -1.9681778105531670567e-05,
    7.5995277030017761139e-05, -0.00021503011930044477347, -0.00013871931833623122026,
    1.0103004648645343977, 4.8499064014085844221)


def _horner(coefficients: Sequence[float], w: np.ndarray) -> np.ndarray:
    p = np.full_like(w, coefficients[0])
    for c in coefficients[1:]:
        p = fused_multiply_add(p, w, w.dtype.type(c))
    return p


def erf_inv(x: np.ndarray) -> np.ndarray:
    """The inverse error function as XLA computes it (float32: two branches of degree 8;
    float64: three branches), ``±inf`` at ``±1``."""
    x = np.asarray(x)
    dtype = x.dtype
    if dtype != np.float64:  # float16 and bfloat16 are computed in float32, as XLA does
        x = x.astype(np.float32)
    with np.errstate(divide="ignore", invalid="ignore"):
        w = -log1p(-x * x)
        if dtype == np.float64:
            lt_6_25, lt_16 = w < 6.25, w < 16.0
            sqrt_w = np.sqrt(w)
            p = np.where(lt_6_25, _horner(_ERFINV64_LT_6_25, w - 3.125),
                         np.where(lt_16, _horner(_ERFINV64_LT_16, sqrt_w - 3.25),
                                  _horner(_ERFINV64_GE_16, sqrt_w - 5.0)))
        else:
            lt_5 = w < 5
            p = np.where(lt_5, _horner(_ERFINV32[0], w - np.float32(2.5)),
                         _horner(_ERFINV32[1], np.sqrt(w) - np.float32(3.0)))
        result = p * x
        result = np.where(np.abs(x) == 1, x * np.inf, result)
    return result.astype(dtype)
