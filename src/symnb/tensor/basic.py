"""Theano's ``theano.tensor.basic``: the tensor names of :mod:`symnb.tensor`, importable
from the module where Theano defined them (``import theano.tensor.basic as T``,
``from theano.tensor.basic import _allclose``), and Theano's comparison helper
``_allclose`` with its tolerances per dtype.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symnb.tensor._public import *  # noqa: F401,F403  (every public name of symnb.tensor)
from symnb.tensor._public import __getattr__  # noqa: F401  (Theano names symnb lacks: say so)

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
