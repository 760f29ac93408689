"""Theano's complex parts (``T.real``, ``T.imag``, ``T.angle``, ``T.complex``, ``x.real``,
``x.imag``) against NumPy: Theano's output dtypes (complex64's parts float32, ``angle``
float64), the compiled program computing what the test value computes, and their
gradients against finite differences."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from tests.reference import check_paths


def _complex(rng, dtype):
    return (rng.normal(size=(2, 3)) + 1j * rng.normal(size=(2, 3))).astype(dtype)


@pytest.mark.parametrize("dtype", ["complex64", "complex128", "float32", "int16"])
def test_parts_and_angle(dtype, rng):
    v = _complex(rng, dtype) if dtype.startswith("complex") else (rng.normal(size=(2, 3)) * 5).astype(dtype)
    check_paths(T.real, [v], np.real)
    check_paths(T.imag, [v], np.imag)
    check_paths(lambda x: x.real, [v], lambda x: x.real)
    check_paths(lambda x: x.imag, [v], lambda x: x.imag)
    check_paths(T.angle, [v], lambda x: np.angle(x).astype("float64"), rtol=1e-6)


@pytest.mark.parametrize("dtypes, expected", [(("float32", "float32"), "complex64"),
                                              (("float64", "float32"), "complex128"),
                                              (("int32", "int8"), "complex128"),
                                              (("int16", "int8"), "complex64")])
def test_complex_of_two_parts(dtypes, expected, rng):
    x = (rng.normal(size=(2, 3)) * 3).astype(dtypes[0])
    y = (rng.normal(size=(3,)) * 3).astype(dtypes[1])
    check_paths(T.complex, [x, y], lambda x, y: (x + 1j * y).astype(expected), rtol=0)
    inf = np.array([np.inf, -np.inf], "float32")
    check_paths(T.complex, [inf, inf], lambda a, b: np.array([complex(np.inf, np.inf), complex(-np.inf, -np.inf)],
                                                              "complex64"), rtol=0)  # not NaN
    with pytest.raises(TypeError):
        T.complex(T.cvector("c"), T.vector("v"))


def test_gradients_against_finite_differences(rng):
    x, y = rng.normal(size=(4,)), rng.normal(size=(4,))
    a, b = T.dvector("a"), T.dvector("b")
    z = T.complex(a, b)
    cost = (T.angle(z) + 2 * T.real(z) - 3 * T.imag(z) ** 2).sum()
    grads = sn.function([a, b], sn.grad(cost, [a, b]))(x, y)
    r2 = x * x + y * y
    # d angle / dx = -y / r2, d angle / dy = x / r2
    np.testing.assert_allclose(grads[0], -y / r2 + 2, rtol=1e-10)
    np.testing.assert_allclose(grads[1], x / r2 - 6 * y, rtol=1e-10)
    eps = 1e-6
    numeric = (np.angle((x + eps) + 1j * y) - np.angle((x - eps) + 1j * y)) / (2 * eps)
    np.testing.assert_allclose(numeric, -y / r2, rtol=1e-5)


def test_imag_of_a_real_tensor_has_a_zero_gradient(rng):
    x = T.dvector("x")
    g = sn.grad((T.imag(x) + T.real(x)).sum(), x)
    np.testing.assert_array_equal(sn.function([x], g)(rng.normal(size=3)), np.ones(3))


def test_erf_of_a_complex_test_value_is_scipy_erf(rng):
    # Theano's erf is SciPy's, which takes complex numbers: not the erf of the real part
    from scipy.special import erf

    v = _complex(rng, "complex128")
    z = T.zmatrix("z", test_value=v)
    np.testing.assert_allclose(T.erf(z).test_value, erf(v), rtol=1e-12)
