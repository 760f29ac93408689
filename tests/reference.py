"""Checking an op's two paths (NumPy ``perform`` via test values, and XLA) against NumPy."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

import symnb as sn
import symnb.tensor as T

TOLERANCE = {"float16": 1e-2, "float32": 1e-5, "float64": 1e-12}


def symbolic_like(value: np.ndarray, name: str) -> Any:
    """A symbolic input of the value's dtype and ndim (unknown lengths), holding it as test value."""
    value = np.asarray(value)
    return T.tensor(value.dtype, shape=(None,) * value.ndim, name=name, test_value=value)


def assert_same(actual: np.ndarray, expected: np.ndarray, what: str, rtol: float | None = None) -> None:
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.dtype == expected.dtype, f"{what}: dtype {actual.dtype}, expected {expected.dtype}"
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape}, expected {expected.shape}"
    if expected.dtype.kind in "fc":
        tol = rtol if rtol is not None else TOLERANCE[str(expected.dtype)]
        np.testing.assert_allclose(actual, expected, rtol=tol, atol=tol, equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(actual, expected, err_msg=what)


def check_paths(build: Callable[..., Any], values: list[Any], reference: Callable[..., Any],
                rtol: float | None = None) -> np.ndarray:
    """Build ``build(*symbolic inputs)``, then compare its test value (NumPy perform) and
    its compiled XLA result with ``reference(*values)`` (NumPy), dtype included."""
    values = [np.asarray(v) for v in values]
    inputs = [symbolic_like(v, f"in{i}") for i, v in enumerate(values)]
    out = build(*inputs)
    expected = np.asarray(reference(*values))
    assert_same(out.test_value, expected, "perform (test value)", rtol)
    compiled = sn.function(inputs, out, on_unused_input="ignore")(*values)
    assert_same(compiled, expected, "XLA", rtol)
    return compiled


def scaled_normal(rng: np.random.Generator, shape: Any, dtype: Any) -> np.ndarray:
    """Normal values times 10 in ``dtype`` (integers truncated: negative ones too)."""
    return (rng.normal(size=shape) * 10).astype(dtype)


def small_values(rng: np.random.Generator, shape: Any, dtype: Any, bound: int = 4) -> np.ndarray:
    """Random values of any dtype: bools, integers in [-bound, bound], normal floats."""
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    if np.dtype(dtype).kind in "iu":
        return rng.integers(-bound, bound + 1, size=shape).astype(dtype)
    return rng.normal(size=shape).astype(dtype)


def theano_true_divide(a: Any, b: Any) -> np.ndarray:
    """Theano's ``x / y`` (``TrueDiv``): NumPy's quotient, but bool and integer operands
    only give ``floatX`` (the quotient computed in float64, then rounded, as its C code)."""
    quotient = np.true_divide(a, b)
    if all(np.asarray(v).dtype.kind in "biu" for v in (a, b)):
        return np.asarray(quotient).astype(sn.config.floatX)
    return quotient
