"""Elementwise ops on complex inputs (Theano's ``cvector``/``zvector``): the compiled
program computes what NumPy and the test value compute, a real result (``abs``) included."""

import warnings

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.tensor.elemwise_specs import SPECS

VALUES = {"complex64": np.array([1 + 2j, -3 + 0.5j, 0.25 - 0.75j], dtype="complex64"),
          "complex128": np.array([1 + 2j, -3 + 0.5j, 0.25 - 0.75j], dtype="complex128")}


def _vector(dtype):
    x = (T.cvector if dtype == "complex64" else T.zvector)("x")
    x.tag.test_value = VALUES[dtype]
    return x


@pytest.mark.parametrize("dtype", sorted(VALUES))
def test_abs_of_a_complex_vector_is_its_modulus(dtype):
    x = _vector(dtype)
    y = abs(x)
    assert y.dtype == np.abs(VALUES[dtype]).dtype.name
    np.testing.assert_allclose(sn.function([x], y)(VALUES[dtype]), np.abs(VALUES[dtype]), rtol=1e-6)
    np.testing.assert_allclose(y.test_value, np.abs(VALUES[dtype]), rtol=1e-6)


def test_sigmoid_of_a_complex_vector_keeps_its_imaginary_part():
    x = _vector("complex128")
    v = VALUES["complex128"]
    y = T.nnet.sigmoid(x)
    np.testing.assert_allclose(y.test_value, 1 / (1 + np.exp(-v)), rtol=1e-12)
    np.testing.assert_allclose(sn.function([x], y)(v), 1 / (1 + np.exp(-v)), rtol=1e-12)


@pytest.mark.parametrize("dtype", sorted(VALUES))
def test_every_unary_row_on_complex_inputs_agrees_with_its_test_value(dtype):
    """No silent wrong number: for each one-input row that takes a complex input, the
    compiled result equals the test value (NumPy's), or the program refuses."""
    checked = 0
    for spec in SPECS:
        fn = getattr(T, spec.name, None)
        if not callable(fn):
            continue
        x = _vector(dtype)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            try:
                y = fn(x)
            except Exception:  # noqa: BLE001 - a row refusing complex inputs when built
                continue
            if y.test_value is None:
                continue
            try:
                got = sn.function([x], y)(VALUES[dtype])
            except sn.SymnbError:  # refused, with its reason: not a wrong number
                continue
        np.testing.assert_allclose(np.asarray(got), y.test_value, rtol=1e-5, equal_nan=True,
                                   err_msg=spec.name)
        checked += 1
    assert checked >= 10
