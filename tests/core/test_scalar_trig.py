"""The hyperbolic, inverse trigonometric, log2/log10/exp2 and angle ops (``T.cosh``,
``T.arctan2``, ``symnb.scalar.arctanh`` ...): values equal NumPy's, on the test-value path
and compiled; gradients equal NumPy's derivative formulas and central finite differences;
the output dtype is Theano's (``upgrade_to_float``). ``T.tanh`` and these functions are
Elemwise op instances, as in Theano: a class attribute ``fn = T.tanh`` stays the op."""

import numpy as np
import pytest

import symnb as sn
import symnb.scalar as S
import symnb.tensor as T
from symnb.core.tensor.elemwise import Elemwise

X = np.array([0.1, 0.35, -0.6, 0.8])
Y = np.array([1.3, 2.0, 1.1, 3.5])  # arccosh's domain: x > 1

#: name: (NumPy function, NumPy derivative, input)
UNARY = {
    "cosh": (np.cosh, np.sinh, X),
    "sinh": (np.sinh, np.cosh, X),
    "arcsin": (np.arcsin, lambda x: 1 / np.sqrt(1 - x ** 2), X),
    "arccos": (np.arccos, lambda x: -1 / np.sqrt(1 - x ** 2), X),
    "arctan": (np.arctan, lambda x: 1 / (1 + x ** 2), X),
    "arcsinh": (np.arcsinh, lambda x: 1 / np.sqrt(x ** 2 + 1), X),
    "arccosh": (np.arccosh, lambda x: 1 / np.sqrt(x ** 2 - 1), Y),
    "arctanh": (np.arctanh, lambda x: 1 / (1 - x ** 2), X),
    "log2": (np.log2, lambda x: 1 / (x * np.log(2)), Y),
    "log10": (np.log10, lambda x: 1 / (x * np.log(10)), Y),
    "exp2": (np.exp2, lambda x: np.exp2(x) * np.log(2), X),
    "deg2rad": (np.deg2rad, lambda x: np.full_like(x, np.pi / 180), X),
    "rad2deg": (np.rad2deg, lambda x: np.full_like(x, 180 / np.pi), X),
}


def _central_difference(fn, x, eps=1e-6):
    return (fn(x + eps) - fn(x - eps)) / (2 * eps)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_values_and_gradients(name):
    numpy_fn, derivative, value = UNARY[name]
    x = T.dvector("x")
    x.tag.test_value = value
    y = getattr(T, name)(x)
    np.testing.assert_allclose(y.tag.test_value, numpy_fn(value), rtol=1e-12)
    g = sn.grad(y.sum(), x)
    f = sn.function([x], [y, g])
    out, grad = f(value)
    np.testing.assert_allclose(out, numpy_fn(value), rtol=1e-12)
    np.testing.assert_allclose(grad, derivative(value), rtol=1e-12)
    np.testing.assert_allclose(grad, _central_difference(numpy_fn, value), rtol=1e-6)


def test_arctan2_values_and_gradients():
    y, x = T.dvectors("y", "x")
    out = T.arctan2(y, x)
    gy, gx = sn.grad(out.sum(), [y, x])
    f = sn.function([y, x], [out, gy, gx])
    got, got_gy, got_gx = f(X, Y)
    np.testing.assert_allclose(got, np.arctan2(X, Y), rtol=1e-12)
    np.testing.assert_allclose(got_gy, _central_difference(lambda v: np.arctan2(v, Y), X), rtol=1e-6)
    np.testing.assert_allclose(got_gx, _central_difference(lambda v: np.arctan2(X, v), Y), rtol=1e-6)


@pytest.mark.parametrize("dtype, expected", [("int8", "float32"), ("int32", "float64"),
                                             ("float32", "float32"), ("float64", "float64")])
def test_output_dtype_is_theanos_upgrade_to_float(dtype, expected):
    x = T.vector("x", dtype=dtype)
    x.tag.test_value = np.array([1, 2], dtype=dtype)
    y = T.cosh(x)
    assert y.dtype == expected
    np.testing.assert_allclose(sn.function([x], y)(np.array([1, 2], dtype=dtype)),
                               np.cosh(np.array([1, 2], dtype=expected)), rtol=1e-6)


def test_scalar_ops_are_theanos_names():
    assert S.arctanh.name == "arctanh" and isinstance(S.arctanh, S.ArcTanh)
    assert T.arctanh.scalar_op is S.arctanh
    x = T.dscalar("x")
    x.tag.test_value = 0.25
    assert T.Elemwise(S.arctanh)(x).tag.test_value == np.arctanh(0.25)


@pytest.mark.parametrize("name", ["tanh", "exp", "sigmoid", "erfc", "gammaln", "arctanh", "cosh"])
def test_public_functions_are_elemwise_ops_that_stay_ops_in_a_class(name):
    fn = getattr(T, name)
    assert isinstance(fn, Elemwise) and fn.__name__ == name

    class Flow:  # PyMC3's flows: ``fn = tt.tanh`` must not become a method
        op = fn

        def forward(self, z):
            return self.op(z)

    z = T.dvector("z")
    z.tag.test_value = np.array([0.2, 0.7])
    out = Flow().forward(z)
    np.testing.assert_array_equal(out.tag.test_value, fn(z).tag.test_value)


def test_elemwise_op_instances_promote_python_scalars_as_numpy():
    x = T.fvector("x")
    x.tag.test_value = np.array([1.0, 2.0], dtype="float32")
    assert T.add(x, 1.5).dtype == "float32"  # a Python float is a floatX constant (Theano)
    assert float(T.exp(0.5).tag.test_value) == pytest.approx(np.exp(0.5))
