"""Theano 1.0's dtype of a Python number made a constant (``theano.scalar``'s autocasters).

Under ``config.cast_policy = 'custom'`` (Theano's default, and symnb's):

- a Python int becomes the smallest of int8, int16, int32, int64 that holds it
  (``T.constant(3)`` is int8, so ``int8_var + 3`` stays int8 and ``T.sqrt(9)`` is
  float32), uint64 beyond int64;
- a Python float becomes ``floatX`` when ``floatX`` is float32 or float16, and otherwise
  the first of ``autocast_float.dtypes`` (float32, float64) that holds it exactly
  (``1.5`` float32, ``1.1`` float64), float16 only when ``floatX`` is float16.
  ``autocast_float_as('float64')`` changes those dtypes for a block.

Under ``'numpy+floatX'`` a Python number takes NumPy's dtype, a Python float ``floatX``.
A Python bool stays bool (Theano 1.0 made it int8; see docs/porting.md).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symnb.core.graph.config import config

__all__ = ["NumpyAutocaster", "autocast_int", "autocast_float", "autocast_float_as",
           "python_number"]


class NumpyAutocaster:
    """Casts a Python int or float (or a 0-d array) to an array of the dtype Theano
    gives it: the first of ``dtypes`` that holds it exactly (see the module's doc)."""

    def __init__(self, dtypes: tuple[str, ...]) -> None:
        self.dtypes = tuple(dtypes)

    def __call__(self, x: Any) -> np.ndarray:
        if config.cast_policy == "numpy+floatX":
            value = np.asarray(x)
            if not hasattr(x, "dtype") and value.dtype in ("float64", "float32"):
                value = np.asarray(x, dtype=config.floatX)
            return value
        if str(getattr(x, "dtype", "")) in self.dtypes:  # a NumPy scalar typed on purpose
            return np.asarray(x)
        # Theano's "unsafe downcast": a Python float is floatX when floatX is not float64.
        if isinstance(x, float) and config.floatX in self.dtypes and config.floatX != "float64":
            return np.asarray(x, dtype=config.floatX)
        tries = [d for d in self.dtypes if config.floatX == "float16" or d != "float16"]
        value = None
        for dtype in tries:
            if np.dtype(dtype).kind in "iu":
                info = np.iinfo(dtype)
                if not info.min <= x <= info.max:  # NumPy 2 refuses the cast itself
                    continue
                return np.asarray(x, dtype=dtype)
            with np.errstate(over="ignore"):
                value = np.asarray(x, dtype=dtype)
            # Exact? Compared as Python numbers: NumPy 2 would round x to the dtype first.
            if value.item() == x or x != x:  # (NaN is NaN in any float dtype)
                return value
        if value is None:
            raise OverflowError(f"Python int {x} does not fit in any of {self.dtypes}")
        return value  # the last dtype tried, as Theano


autocast_int = NumpyAutocaster(("int8", "int16", "int32", "int64"))
# The dtypes of Python floats; autocast_float_as changes them for a block.
autocast_float = NumpyAutocaster(("float16", "float32", "float64"))


class autocast_float_as:  # noqa: N801  (Theano's name)
    """``with autocast_float_as('float32', 'float64'): ...``: Python floats in the block
    take the first of these dtypes that holds them (``autocast_float.dtypes``), as in
    Theano 1.0 (``config.cast_policy`` must be 'custom')."""

    def __init__(self, *dtypes: str) -> None:
        self.dtypes = dtypes
        _require_custom()

    def __enter__(self) -> None:
        _require_custom()
        self.old_dtypes = autocast_float.dtypes
        autocast_float.dtypes = self.dtypes

    def __exit__(self, *exc: Any) -> None:
        autocast_float.dtypes = self.old_dtypes


def _require_custom() -> None:
    if config.cast_policy != "custom":
        raise ValueError(f"autocast_float_as needs config.cast_policy 'custom', not "
                         f"{config.cast_policy!r}")


def python_number(value: bool | int | float | complex) -> np.ndarray:
    """``value`` (a Python bool, int, float or complex) as a 0-d array of Theano's dtype."""
    if isinstance(value, bool):
        return np.asarray(value)
    if isinstance(value, int):
        if config.cast_policy == "numpy+floatX":
            return np.asarray(value)
        try:
            return autocast_int(value)
        except OverflowError:  # as NumPy: beyond int64, uint64 (or NumPy's OverflowError)
            return np.asarray(value, dtype="uint64")
    if isinstance(value, float):
        return autocast_float(value)
    return np.asarray(value)  # complex: complex128, as Theano's np.asarray
