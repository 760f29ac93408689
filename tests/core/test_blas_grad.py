"""Gradients of dot, matmul, tensordot and outer against finite differences (float64)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.gradient import verify_grad

DOT_SHAPES = [((), ()), ((), (3,)), ((2, 3), ()), ((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)),
              ((2, 3), (3, 4)), ((2, 5, 3), (3, 4)), ((2, 3), (4, 3, 5)), ((2, 4, 3), (2, 3, 2)),
              ((1, 1), (1, 1))]


@pytest.mark.parametrize("sx,sy", DOT_SHAPES, ids=str)
def test_dot(sx, sy, rng):
    verify_grad(T.dot, [rng.normal(size=sx), rng.normal(size=sy)], rng=rng)


MATMUL_SHAPES = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)),
                 ((5, 2, 3), (3, 4)), ((2, 3), (5, 3, 4)), ((3, 1, 2, 3), (4, 3, 2)),
                 ((1, 2, 3), (4, 3, 2)), ((3,), (2, 3, 4)), ((2, 2, 3), (3,)), ((1, 1), (1, 1))]


@pytest.mark.parametrize("sx,sy", MATMUL_SHAPES, ids=str)
def test_matmul_with_batch_broadcasting(sx, sy, rng):
    verify_grad(T.matmul, [rng.normal(size=sx), rng.normal(size=sy)], rng=rng)


TENSORDOT_CASES = [((3, 4), (4, 5), 1), ((2, 3, 4), (3, 4, 5), 2), ((2, 3), (4,), 0),
                   ((2, 3, 4), (4, 2), ([0, 2], [1, 0])), ((2, 3, 4), (3, 5), (1, 0)),
                   ((2, 3, 4), (4, 3, 2), ([-1, 1, 0], [0, -2, 2])), ((3,), (3,), 1),
                   ((4, 3), (2, 4), ([0], [1])), ((2, 3, 4), (4, 5, 3), ([1, 2], [2, 0]))]


@pytest.mark.parametrize("sx,sy,axes", TENSORDOT_CASES, ids=str)
def test_tensordot_axes(sx, sy, axes, rng):
    verify_grad(lambda a, b: T.tensordot(a, b, axes), [rng.normal(size=sx), rng.normal(size=sy)], rng=rng)


@pytest.mark.parametrize("sx,sy", [((3,), (4,)), ((2, 3), (2,)), ((), (3,)), ((1,), (1,))], ids=str)
def test_outer(sx, sy, rng):
    verify_grad(T.outer, [rng.normal(size=sx), rng.normal(size=sy)], rng=rng)


def test_integer_operand_gets_the_continuous_extensions_gradient(rng):
    """Theano: the gradient with respect to an integer operand is the float one."""
    w = rng.integers(-3, 4, size=(3, 2)).astype("int32")
    xv, gv = rng.normal(size=(4, 3)), rng.normal(size=(4, 2))
    for fn in [T.dot, T.matmul, lambda a, b: T.tensordot(a, b, 1)]:
        verify_grad(lambda x: fn(x, T.constant(w)), [rng.normal(size=(4, 3))], rng=rng)
        x, wi = T.dmatrix("x"), T.imatrix("w")
        gw = sn.grad((fn(x, wi) * T.constant(gv)).sum(), wi)
        assert gw.dtype == "float64"
        np.testing.assert_allclose(sn.function([x, wi], gw)(xv, w), xv.T @ gv, rtol=1e-12)


def test_matmul_gradients_equal_jax(rng):
    a, b = rng.normal(size=(3, 1, 2, 4)), rng.normal(size=(5, 4, 2))
    r = rng.normal(size=(3, 5, 2, 2))
    x, y = T.dtensor4("x", test_value=a), T.dtensor3("y", test_value=b)
    grads = sn.grad(T.sum((x @ y) * r), [x, y])
    with jax.enable_x64(True):
        expected = jax.grad(lambda u, v: jnp.sum((u @ v) * r), argnums=(0, 1))(a, b)
    for g, e in zip(grads, expected):
        np.testing.assert_allclose(g.test_value, e, rtol=1e-12)
    for g, e in zip(sn.function([x, y], grads)(a, b), expected):
        np.testing.assert_allclose(g, e, rtol=1e-12)


def test_float32_gradient_stays_float32(rng):
    x = T.fmatrix("x", test_value=rng.normal(size=(4, 3)).astype("float32"))
    w = T.fmatrix("w", test_value=rng.normal(size=(3, 2)).astype("float32"))
    gx, gw = sn.grad(T.dot(x, w).sum(), [x, w])
    assert gx.dtype == gw.dtype == "float32"
    np.testing.assert_allclose(gx.test_value, np.tile(w.test_value.sum(1), (4, 1)), rtol=1e-6)
