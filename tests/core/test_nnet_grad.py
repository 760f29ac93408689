"""Gradients of softmax and log_softmax against finite differences (float64) and JAX."""

import jax
import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.gradient import verify_grad

CASES = [((5,), -1), ((3, 4), -1), ((3, 4), 0), ((2, 3, 4), 1), ((2, 3, 4), (0, 2)),
         ((2, 3), None), ((1, 1), -1), ((4, 1), 1)]


@pytest.mark.parametrize("shape,axis", CASES, ids=str)
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_finite_differences(name, shape, axis, rng):
    fn = getattr(T, name)
    verify_grad(lambda v: fn(v, axis=axis), [rng.normal(size=shape) * 2], rng=rng)


def test_cross_entropy_gradient_equals_jax(rng):
    logits = rng.normal(size=(6, 5)) * 3
    labels = np.eye(5)[rng.integers(0, 5, size=6)]
    x = T.dmatrix("x", test_value=logits)
    cost = -T.mean(T.sum(T.log_softmax(x) * labels, axis=1)) + T.sum(T.softmax(x, axis=0) ** 2)
    g = sn.grad(cost, x)

    def reference(v):
        return (-jax.numpy.mean(jax.numpy.sum(jax.nn.log_softmax(v) * labels, axis=1))
                + jax.numpy.sum(jax.nn.softmax(v, axis=0) ** 2))

    with jax.enable_x64(True):
        expected = jax.grad(reference)(logits)
    np.testing.assert_allclose(g.test_value, expected, rtol=1e-10)
    np.testing.assert_allclose(sn.function([x], g)(logits), expected, rtol=1e-10)


def test_gradient_of_large_logits_is_finite():
    x = T.dmatrix("x", test_value=np.array([[1000.0, 0.0, -1000.0]]))
    g = sn.grad(T.log_softmax(x)[0, 1] + T.softmax(x)[0, 0], x)
    assert np.isfinite(g.test_value).all()
    np.testing.assert_allclose(g.test_value, [[-1.0, 1.0, 0.0]], atol=1e-12)
