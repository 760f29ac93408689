"""Gradients of the creation ops: a filled value gets the sum of the output gradient;
shapes, arange, eye and *_like results carry none."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.gradient import verify_grad


def test_alloc_full_fill_gradients(rng):
    verify_grad(lambda v: T.alloc(v, 2, 3), [rng.normal(size=(3,))], rng=rng)
    verify_grad(lambda v: T.alloc(v, 4, 1, 3) * 2, [rng.normal(size=(1, 3))], rng=rng)
    verify_grad(lambda s: T.full((2, 3), s), [np.array(0.7)], rng=rng)
    verify_grad(lambda x, v: T.fill(x, v) * x, [rng.normal(size=(2, 3)), rng.normal(size=(3,))], rng=rng)
    verify_grad(lambda x, s: T.full_like(x, s) + x, [rng.normal(size=(2, 2)), np.array(1.5)], rng=rng)


def test_alloc_gradient_with_symbolic_shape(rng):
    verify_grad(lambda x, v: T.alloc(v, x.shape[0], 3) * x, [rng.normal(size=(4, 3)), rng.normal(size=(3,))],
                rng=rng)


@pytest.mark.parametrize("make", [T.zeros_like, T.ones_like, T.identity_like,
                                  lambda x: T.arange(x.shape[0]) * 1.0,
                                  lambda x: T.eye(x.shape[0], dtype="float64")])
def test_shape_only_results_are_disconnected(make, rng):
    x = T.matrix("x", dtype="float64", test_value=rng.normal(size=(3, 3)))
    cost = (make(x) * 2).sum()
    with pytest.raises(sn.gradient.DisconnectedInputError):
        sn.grad(cost, x)
    g = sn.grad(cost, x, disconnected_inputs="ignore")
    np.testing.assert_array_equal(g.test_value, np.zeros((3, 3)))
