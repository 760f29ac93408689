"""Theano's comparisons of two values of a tensor type (``TensorType.values_eq`` and
``values_eq_approx``) and its tolerances per dtype (``_allclose``, bound in
``symnb.tensor.basic`` as in Theano)."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["values_eq", "values_eq_approx", "_allclose", "_get_atol_rtol"]

# Theano 1.0's default tolerances (config.tensor.cmp_sloppy=0), per the narrowest dtype compared.
float16_atol, float16_rtol = 1e-3, 1e-3
float32_atol, float32_rtol = 1e-5, 1e-5
float64_atol, float64_rtol = 1e-8, 1.0000000000000001e-05


def _get_atol_rtol(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """Theano's tolerances for comparing ``a`` and ``b``: float16's if either is float16,
    else float32's if either is float32 or complex64, else float64's."""
    dtypes = {str(a.dtype), str(b.dtype)}
    if "float16" in dtypes:
        return float16_atol, float16_rtol
    if dtypes & {"float32", "complex64"}:
        return float32_atol, float32_rtol
    return float64_atol, float64_rtol


def _allclose(a: Any, b: Any, rtol: float | None = None, atol: float | None = None) -> bool:
    """Theano's ``_allclose``: ``numpy.allclose`` with the tolerances of the dtypes compared
    (:func:`_get_atol_rtol`) unless given."""
    a, b = np.asarray(a), np.asarray(b)
    default_atol, default_rtol = _get_atol_rtol(a, b)
    return bool(np.allclose(a, b, atol=default_atol if atol is None else atol,
                            rtol=default_rtol if rtol is None else rtol))


def values_eq(a: Any, b: Any, force_same_dtype: bool = True) -> bool:
    """Whether ``a`` and ``b`` are equal: same shape (and dtype, unless
    ``force_same_dtype=False``), the same entries, NaN where the other has NaN."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or (force_same_dtype and a.dtype != b.dtype):
        return False
    equal = a == b
    if np.all(equal):
        return True
    if a.dtype.kind in "fc":
        a_nan = np.isnan(a)
        if a_nan.any():
            return bool(np.all(equal | (a_nan & np.isnan(b))))
    return False


def values_eq_approx(a: Any, b: Any, allow_remove_inf: bool = False, allow_remove_nan: bool = False,
                     rtol: float | None = None, atol: float | None = None) -> bool:
    """Whether arrays ``a`` and ``b`` are close, as Theano 1.0 decides: same shape and
    dtype; integers equal; floats close by the dtype's tolerances (``_allclose``), NaN
    where the other has NaN, infinities of the same sign; ``allow_remove_inf`` /
    ``allow_remove_nan``: any value of ``b`` where ``a`` has one. Other values: False."""
    if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)):
        return False
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind not in "fc":
        return bool(np.all(a == b))
    if _allclose(a, b, rtol=rtol, atol=atol):
        return True
    a_nan, a_inf = np.isnan(a), np.isinf(a)
    if not (a_nan.any() or (allow_remove_inf and a_inf.any())):
        return False  # no missing value explains the difference
    with np.errstate(invalid="ignore"):
        close = np.abs(a - b) <= 1e-8 + 1e-5 * np.abs(b)  # numpy.allclose's defaults
    both_nan = a_nan & np.isnan(b)
    both_inf = a_inf & np.isinf(b)
    close = np.where(both_inf, a == b, close)
    both_inf = np.where(both_inf, a == b, both_inf)
    if allow_remove_inf:
        both_inf = both_inf | a_inf
    if allow_remove_nan:
        both_nan = both_nan | a_nan
    return bool(np.all(close | both_nan | both_inf))
