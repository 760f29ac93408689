"""Theano's ``TensorType.values_eq`` / ``values_eq_approx`` / ``may_share_memory``, checked
on NumPy arrays built by hand."""

import numpy as np

import symnb.tensor as T
from symnb.tensor.basic import _allclose


def test_values_eq_is_exact_and_matches_nans():
    x = np.array([[1.0, np.nan], [3.0, 4.0]])
    assert T.dmatrix.values_eq(x, x.copy())
    assert not T.dmatrix.values_eq(x, x[::-1])
    assert not T.dmatrix.values_eq(x, x.astype("float32"))
    assert T.dmatrix.values_eq(x, x.astype("float32"), force_same_dtype=False)
    assert not T.dmatrix.values_eq(x, x[:1])


def test_values_eq_approx_uses_theanos_tolerances():
    x = np.linspace(1, 2, 5).astype("float32")
    assert T.fvector.values_eq_approx(x, x + np.float32(5e-6))  # float32: rtol 1e-5
    assert not T.fvector.values_eq_approx(x, x + np.float32(1e-3))
    y = np.array([1.0, np.nan, np.inf, -np.inf])
    assert T.dvector.values_eq_approx(y, y.copy())
    assert not T.dvector.values_eq_approx(y, -y)
    assert T.dvector.values_eq_approx(y, np.array([1.0, 7.0, 7.0, 7.0]), allow_remove_inf=True,
                                      allow_remove_nan=True)
    assert T.ivector.values_eq_approx(np.arange(3, dtype="int32"), np.arange(3, dtype="int32"))
    assert not T.ivector.values_eq_approx(np.arange(3, dtype="int32"), np.arange(3))
    assert _allclose(np.float16(1.0), np.float16(1.0009)) and not _allclose(1.0, 1.0009)


def test_may_share_memory_of_arrays():
    a = np.arange(6.0)
    assert T.dvector.may_share_memory(a, a[1:]) and not T.dvector.may_share_memory(a, a.copy())
    assert not T.dvector.may_share_memory(a, [1.0])
