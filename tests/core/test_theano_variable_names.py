"""Theano's names on variables and in ``theano.tensor`` that PyMC3 uses: ``Constant.value``,
``x.ravel()``, ``x.swapaxes``, ``x.norm(L, axis)``, reductions over ``axis=range(...)``,
``T.as_tensor``, ``T.Constant/Op/Apply``, ``T.var`` (the variance; ``symnb.tensor.var``
the module), a computed variable's test value set to the value it has, and ``clone``
calling a subclass as Theano did, ``cls(type, owner, index, name)``."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.graph.basic import Apply, Constant
from symnb.core.graph.op import Op

A = np.arange(24, dtype="float64").reshape(2, 3, 4) - 7.5


def _x():
    x = T.dtensor3("x")
    x.tag.test_value = A
    return x


def test_constant_value_is_its_data():
    c = T.constant([1.5, 2.5])
    assert c.value is c.data
    np.testing.assert_array_equal(c.value, [1.5, 2.5])


def test_ravel_swapaxes_and_norm_equal_numpy():
    x = _x()
    # floatX=float64 (a float64 program): norm's exponent 1 / L is a float64 constant.
    with sn.config.change_flags(floatX="float64"):
        f = sn.function([x], [x.ravel(), x.swapaxes(0, 2), x.swapaxes(-1, 1), x.norm(2, axis=1),
                              x.norm(1), x.norm(3, axis=(0, 2), keepdims=True)])
    ravel, swap02, swap21, norm2, norm1, norm3 = f(A)
    np.testing.assert_array_equal(ravel, A.ravel())
    np.testing.assert_array_equal(swap02, A.swapaxes(0, 2))
    np.testing.assert_array_equal(swap21, A.swapaxes(-1, 1))
    np.testing.assert_allclose(norm2, np.linalg.norm(A, 2, axis=1), rtol=1e-12)
    np.testing.assert_allclose(norm1, np.abs(A).sum(), rtol=1e-12)
    np.testing.assert_allclose(norm3, (np.abs(A) ** 3).sum(axis=(0, 2), keepdims=True) ** (1 / 3), rtol=1e-12)
    with pytest.raises(NotImplementedError, match="L=0"):
        x.norm(0)


def test_reductions_take_a_range_or_an_array_of_axes():
    x = _x()
    f = sn.function([x], [x.sum(axis=range(1, 3)), T.mean(x, axis=np.array([0, 2])),
                          x.max(axis=range(2))])
    got = f(A)
    np.testing.assert_allclose(got[0], A.sum(axis=(1, 2)))
    np.testing.assert_allclose(got[1], A.mean(axis=(0, 2)))
    np.testing.assert_allclose(got[2], A.max(axis=(0, 1)))


def test_theano_tensor_namespace_names():
    assert T.as_tensor is T.as_tensor_variable or T.as_tensor.__wrapped__ is T.as_tensor_variable.__wrapped__
    assert (T.Constant, T.Op, T.Apply) == (Constant, Op, Apply)
    from symnb.tensor.var import TensorConstant, TensorVariable

    assert TensorVariable is T.TensorVariable and TensorConstant is T.TensorConstant
    x = _x()  # T.var is still the variance after the module is imported
    np.testing.assert_allclose(sn.function([x], T.var(x))(A), A.var())


def test_a_computed_variable_takes_the_test_value_it_has_and_refuses_another():
    x = _x()
    y = x * 2
    y.tag.test_value = A * 2  # PyMC3 sets its observed view's value so
    np.testing.assert_array_equal(y.tag.test_value, A * 2)
    with pytest.raises(TypeError, match="differs"):
        y.tag.test_value = A * 3


@pytest.mark.parametrize("flag", ["off", "ignore"])
def test_with_test_values_off_a_computed_variable_keeps_its_own(flag):
    """Theano neither computed nor checked test values under these flags, and stored the
    one given; PyMC3's variational code sets a random stand-in of the right shape there.
    The computed value stays, the one the compiled function gives."""
    x = _x()
    y = x * 2
    with sn.configparser.change_flags(compute_test_value=flag):
        y.tag.test_value = A * 3 + 1.0
    np.testing.assert_array_equal(y.tag.test_value, A * 2)
    np.testing.assert_array_equal(sn.function([x], y)(A), A * 2)
    with sn.configparser.change_flags(compute_test_value=flag):
        y.tag.test_value = np.zeros((5, 3, 4))  # another length: Theano's types had none
        with pytest.raises(TypeError, match="kind"):
            y.tag.test_value = np.array([[["a"]]])  # Theano's filter refused these still
        with pytest.raises(ValueError, match="dimensions"):
            y.tag.test_value = np.zeros(3)
    np.testing.assert_array_equal(y.tag.test_value, A * 2)


class _TheanoStyleVariable(T.TensorVariable):
    """A library's variable subclass with Theano's positional constructor and more
    keywords (PyMC3's FreeRV): clone calls it as Theano did."""

    def __init__(self, type=None, owner=None, index=None, name=None, distribution=None):
        super().__init__(type, owner, index, name)
        self.distribution = distribution


def test_clone_calls_a_subclass_as_theano_did():
    v = _TheanoStyleVariable(T.dvector().type, name="v", distribution="normal")
    v.tag.test_value = np.array([1.0, 2.0])
    c = v.clone()
    assert type(c) is _TheanoStyleVariable and c.name == "v" and c.owner is None
    assert c.distribution is None  # as Theano: only type, name and tag are copied
    np.testing.assert_array_equal(c.tag.test_value, [1.0, 2.0])


@pytest.mark.parametrize("name", ["exp", "expm1", "log", "log1p", "sqrt", "sin", "cos", "tan",
                                  "tanh", "arccos", "arcsin", "arctan",
                                  "arctanh", "arcsinh", "cosh", "sinh", "deg2rad", "rad2deg",
                                  "exp2", "log2", "log10"])
def test_numpy_ufuncs_on_a_tensor_build_the_tensor_op(name):
    """Theano's elementwise methods: ``np.exp(x)`` calls ``x.exp()`` (x is an object to
    NumPy), so PyMC3's tests' ``exp(model.logpt)`` with NumPy's exp builds T.exp."""
    value = np.array([0.2, 0.45, 0.7])
    x = T.dvector("x")
    x.tag.test_value = value
    y = getattr(np, name)(x)
    assert isinstance(y, T.TensorVariable)
    np.testing.assert_allclose(sn.function([x], y)(value), getattr(np, name)(value), rtol=1e-12)


def test_floor_and_ceil_methods():
    # NumPy's object loop calls math.floor (not the method) for np.floor: the methods only.
    x = T.dvector("x")
    value = np.array([-1.5, 0.2, 2.7])
    f = sn.function([x], [x.floor(), x.ceil()])
    np.testing.assert_array_equal(f(value), [np.floor(value), np.ceil(value)])


def _numpy_fill_diagonal(a, val):
    out = np.array(a, copy=True)
    np.fill_diagonal(out, val)
    return out


@pytest.mark.parametrize("shape", [(3, 3), (2, 4), (4, 2), (3, 3, 3)])
def test_fill_diagonal_equals_numpy_and_its_gradient(shape):
    value = np.arange(np.prod(shape), dtype="float64").reshape(shape) + 0.5
    a = T.TensorType("float64", (False,) * len(shape))("a")
    v = T.dscalar("v")
    out = T.fill_diagonal(a, v)
    weights = np.random.default_rng(0).uniform(0.5, 1.5, size=shape)
    cost = (out * weights).sum()
    f = sn.function([a, v], [out, *sn.grad(cost, [a, v])])
    got, ga, gv = f(value, -2.0)
    np.testing.assert_array_equal(got, _numpy_fill_diagonal(value, -2.0))
    np.testing.assert_array_equal(ga, _numpy_fill_diagonal(weights, 0.0))  # off the diagonal
    diagonal = _numpy_fill_diagonal(np.zeros(shape), 1.0).astype(bool)
    assert gv == pytest.approx(weights[diagonal].sum())


def test_get_parents_and_power():
    x, y = T.dscalars("x", "y")
    z = T.power(x, y)
    assert z.get_parents() == [z.owner] and z.owner.get_parents() == [x, y]
    assert x.get_parents() == []
    np.testing.assert_allclose(sn.function([x, y], z)(2.0, 3.5), 2.0 ** 3.5)
