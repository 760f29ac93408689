"""Theano's ``theano.misc.safe_asarray``: ``_asarray``, bound as ``symnb._asarray``."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["_asarray"]


def _asarray(a: Any, dtype: Any, order: str | None = None) -> np.ndarray:
    """``numpy.asarray(a, dtype, order)`` whose result has exactly ``dtype`` (Theano 1.0's
    ``theano._asarray``; ``'floatX'`` is ``sn.config.floatX``). NumPy once returned an
    equivalent dtype of another number for the one asked: such a result is a view with
    the dtype asked for (the same bytes), and any other mismatch a TypeError."""
    from symnb.core.graph.config import config

    if str(dtype) == "floatX":
        dtype = config.floatX
    dtype = np.dtype(dtype)
    result = np.asarray(a, dtype=dtype, order=order)
    if result.dtype.num == dtype.num:
        return result
    if result.dtype.str == dtype.str:
        return result.view(dtype=dtype)
    raise TypeError(f"numpy.asarray did not return the dtype asked for ({dtype}, {dtype.str}), "
                    f"but {result.dtype} ({result.dtype.str})")
