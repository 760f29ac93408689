"""T.gammaln, T.psi, T.erfinv... (core/tensor/special.py): Theano's tensor functions of
the basic_scipy scalar ops, against SciPy, with Theano's output dtypes and gradients."""

import numpy as np
import pytest
import scipy.special

import symnb.tensor as T
from symnb.gradient import verify_grad
from tests.reference import check_paths

RNG = np.random.default_rng(1)


@pytest.mark.parametrize("name, reference, low, high", [
    ("gammaln", scipy.special.gammaln, 0.1, 30), ("psi", scipy.special.psi, 0.1, 30),
    ("gamma", scipy.special.gamma, 0.1, 8), ("erfc", scipy.special.erfc, -3, 3),
    ("erfcx", scipy.special.erfcx, -2, 8), ("erfinv", scipy.special.erfinv, -0.99, 0.99),
    ("erfcinv", scipy.special.erfcinv, 0.01, 1.99), ("i0", scipy.special.i0, -5, 5),
    ("i1", scipy.special.i1, -5, 5), ("j0", scipy.special.j0, -9, 9),
    ("tri_gamma", lambda v: scipy.special.polygamma(1, v).astype(v.dtype), 0.1, 9),
])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_unary_special_functions(name, reference, low, high, dtype):
    x = RNG.uniform(low, high, size=(2, 5)).astype(dtype)
    rtol = 2e-5 if dtype == "float32" else 1e-9
    check_paths(getattr(T, name), [x], lambda v: reference(v).astype(dtype), rtol=rtol)


@pytest.mark.parametrize("name, reference", [("gammainc", scipy.special.gammainc),
                                             ("gammaincc", scipy.special.gammaincc),
                                             ("iv", scipy.special.iv), ("jv", scipy.special.jv)])
def test_binary_special_functions_broadcast(name, reference):
    first = np.array([[0.5], [1.0], [2.5]])
    x = RNG.uniform(0.1, 6, size=4)
    check_paths(getattr(T, name), [first, x], reference, rtol=1e-9)


def test_integers_become_floats_as_in_theano():
    n = np.array([1, 3, 10], dtype="int8")
    check_paths(T.gammaln, [n], lambda v: scipy.special.gammaln(v).astype("float32"))
    check_paths(T.gammaln, [n.astype("int64")], lambda v: scipy.special.gammaln(v.astype("float64")))


@pytest.mark.parametrize("name, low, high", [("gammaln", 0.5, 5), ("psi", 0.5, 5), ("erfinv", -0.8, 0.8),
                                             ("erfcx", -1, 3), ("i1", 0.3, 3), ("j1", 0.3, 4)])
def test_gradients(name, low, high):
    verify_grad(getattr(T, name), [RNG.uniform(low, high, size=4)])


def test_second_derivative_of_gammaln_is_trigamma():
    import symnb as sn

    x = T.dvector("x", test_value=np.array([0.7, 2.0, 5.5]))
    (g,) = sn.grad(T.gammaln(x).sum(), [x])
    (h,) = sn.grad(g.sum(), [x])
    np.testing.assert_allclose(h.test_value, scipy.special.polygamma(1, x.test_value), rtol=1e-12)
    np.testing.assert_allclose(sn.function([x], h)(x.test_value),
                               scipy.special.polygamma(1, x.test_value), rtol=1e-12)
