"""Gradients of the reductions against finite differences (float64), and ties vs JAX."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.gradient import verify_grad

SHAPES_AND_AXES = [((5,), None), ((5,), 0), ((3, 4), None), ((3, 4), 0), ((3, 4), -1),
                   ((2, 3, 4), (0, 2)), ((2, 3, 4), (-1, 1)), ((2, 3, 4), ()), ((1, 3), 0), ((), None)]


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("name", ["sum", "prod", "mean", "var", "std", "max", "min"])
def test_reductions(name, keepdims, rng):
    for shape, axis in SHAPES_AND_AXES:
        if name == "std" and np.ones(shape).sum(axis=axis).min() == 1:
            continue  # the std of one element is 0 whatever it is: its gradient is 0/0 (NaN)
        x = rng.uniform(0.5, 2.0, size=shape) * rng.choice([-1, 1], size=shape)
        verify_grad(lambda v: getattr(T, name)(v, axis, keepdims=keepdims), [x], rng=rng)


@pytest.mark.parametrize("ddof", [1, 2])
def test_var_std_ddof(ddof, rng):
    x = rng.normal(size=(4, 5))
    for axis in [None, 0, (0, 1)]:
        verify_grad(lambda v: T.var(v, axis, ddof=ddof), [x], rng=rng)
        verify_grad(lambda v: v.std(axis, keepdims=True, ddof=ddof), [x], rng=rng)


def test_prod_with_zeros(rng):
    # prod is linear in each element, so central differences are exact even at zeros:
    # a slice with one zero (the product of the others there), two zeros (0), none.
    x = np.array([[0.0, 2.0, 3.0], [0.0, 0.0, 1.5], [1.0, -2.0, 0.5]])
    for axis in [None, 0, 1]:
        verify_grad(lambda v: T.prod(v, axis), [x], rng=rng)
    x_var = T.dmatrix("x", test_value=x)
    g = sn.grad(T.prod(x_var, axis=1).sum(), x_var)
    with jax.enable_x64(True):
        expected = jax.grad(lambda v: jnp.prod(v, axis=1).sum())(x)
    np.testing.assert_allclose(g.test_value, expected, rtol=1e-12)


def test_mean_with_static_shape():
    x = T.matrix("x", shape=(3, 4), dtype="float64")
    g = sn.grad(T.mean(x, axis=0).sum(), x)
    np.testing.assert_allclose(g.test_value, np.full((3, 4), 1 / 3))
    np.testing.assert_allclose(sn.function([x], g)(np.zeros((3, 4))), np.full((3, 4), 1 / 3))
    y = T.tensor("float32", shape=(None, 4), name="y", test_value=np.zeros((5, 4), "float32"))
    gy = sn.grad(T.var(y, axis=(0, 1), ddof=1), y)
    assert gy.dtype == "float32"  # no float64 creeps in from the int64 element count


@pytest.mark.parametrize("name", ["max", "min"])
def test_ties_split_equally_like_jax(name):
    x = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0], [-1.0, 5.0, 0.0]])
    weights = np.array([1.0, 2.0, 3.0])
    jfn = getattr(jnp, name)
    with jax.enable_x64(True):
        for axis, w in [(1, weights), (0, weights), (None, np.array(1.0))]:
            x_var = T.dmatrix("x", test_value=x)
            cost = (getattr(T, name)(x_var, axis) * w).sum()
            g = sn.grad(cost, x_var)
            expected = jax.grad(lambda v: (jfn(v, axis=axis) * w).sum())(x)
            np.testing.assert_allclose(g.test_value, expected, rtol=1e-12)
            np.testing.assert_allclose(sn.function([x_var], g)(x), expected, rtol=1e-12)


def test_integer_valued_reductions_pass_zeros():
    """Theano's Argmax.grad and Any/All.L_op: zeros, the input connected (no
    DisconnectedInputError)."""
    x = T.dmatrix("x", test_value=np.ones((2, 3)))
    for cost in [T.cast(x.argmax(), "float64"), T.cast(T.argmin(x, 0).sum(), "float64"),
                 T.cast(x.any(), "float64"), T.cast(T.all(x > 0), "float64")]:
        g = sn.grad(cost, x)
        assert g.dtype == "float64"
        np.testing.assert_array_equal(sn.function([x], g)(np.arange(6.0).reshape(2, 3)),
                                      np.zeros((2, 3)))


def test_integer_inputs_get_the_continuous_extensions_gradient():
    x = T.dvector("x", test_value=np.array([1.0, 2.0]))
    iv = np.array([3, 4, 8], "int32")
    i = T.ivector("i", test_value=iv)
    for reduce in [T.sum, T.prod, T.mean, T.max, T.var, T.std]:
        cost = T.sum(x) * reduce(i)
        g = sn.grad(cost, x)
        np.testing.assert_allclose(g.test_value, np.full(2, reduce(i).test_value))
    # float-valued reductions of integers: the float64 input's gradient (Theano)
    for reduce, reference in [(T.mean, np.full(3, 1 / 3)),
                              (T.var, 2 * (iv - iv.mean()) / 3),
                              (T.std, (iv - iv.mean()) / 3 / np.std(iv))]:
        g = sn.grad(reduce(i), i)
        assert g.dtype == "float64"
        np.testing.assert_allclose(sn.function([i], g)(iv), reference, rtol=1e-12)
    # integer-valued ones pass zeros (Theano's op contract)
    for reduce in [T.sum, T.prod, T.max]:
        g = sn.grad(reduce(i), i)
        np.testing.assert_array_equal(sn.function([i], g)(iv), np.zeros(3))


def test_sum_dtype_argument_gradient(rng):
    x = rng.normal(size=(3, 4))
    verify_grad(lambda v: T.sum(v, axis=0, dtype="float64"), [x], rng=rng)
    x_var = T.fmatrix("x", test_value=x.astype("float32"))
    g = sn.grad(T.mean(x_var, dtype="float64"), x_var)
    assert g.dtype == "float32"
    np.testing.assert_allclose(g.test_value, np.full((3, 4), 1 / 12, "float32"))
