"""``as_dtype(x, dtype)``: the one way lowering rules convert traced arrays.

A bool becoming a float goes through int8. XLA's algebraic simplifier rewrites
``convert(pred) * y`` into ``select(pred, y, 0)`` and ``convert(pred) / y`` into
``select(pred, 1 / y, 0)``: 0 where NumPy gives NaN (``False * inf``, ``False / 0``).
Measured with jax 0.10.2 on CPU, ``jax.jit(lambda m, c: m.astype('float32') / c)`` on
``m = [False, True]``, ``c = 0.0`` gives ``[0., inf]`` (NumPy: ``[nan, inf]``); through
int8 it gives ``[nan, inf]``. Integer results are unaffected (0 * y is 0 there).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["as_dtype"]


def as_dtype(x: Any, dtype: Any) -> Any:
    """``x`` (a traced or NumPy array) converted to ``dtype`` as NumPy's ``astype``."""
    dtype = np.dtype(dtype)
    if x.dtype == dtype:
        return x
    if x.dtype == np.bool_ and dtype.kind in "fc":
        return x.astype(np.int8).astype(dtype)
    return x.astype(dtype)
