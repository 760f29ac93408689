"""Gradients of concatenate, stack and Split against central finite differences (float64)."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.tensor.join import split
from symnb.gradient import verify_grad


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_concatenate_gradient(axis, rng):
    shapes = {0: [(2, 3), (1, 3), (0, 3)], 1: [(2, 1), (2, 4), (2, 2)], -1: [(2, 2), (2, 0), (2, 3)]}[axis]
    points = [rng.normal(size=s) for s in shapes]
    verify_grad(lambda a, b, c: T.concatenate([a, b * 2, T.tanh(c)], axis=axis), points, rng=rng)


def test_concatenate_same_input_twice(rng):
    verify_grad(lambda x: T.concatenate([x, T.square(x)]), [rng.normal(size=(3,))], rng=rng)


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_stack_gradient(axis, rng):
    points = [rng.normal(size=(2, 3)) for _ in range(3)]
    verify_grad(lambda a, b, c: T.stack([a, b, c * a], axis=axis), points, rng=rng)


def test_stack_scalars_gradient(rng):
    verify_grad(lambda s, t: T.stack([s, t * s, 1.0]), [np.array(0.5), np.array(-2.0)], rng=rng)


def test_split_gradient_with_unused_pieces(rng):
    x = rng.normal(size=(3, 6))
    verify_grad(lambda x: split(x, [2, 1, 3], 1)[2] * 3, [x], rng=rng)
    verify_grad(lambda x: split(x, [1, 2], 0)[0] + split(x, [1, 2], 0)[1][1:], [x], rng=rng)


def test_second_order_through_split(rng):
    def grad_of_concatenate(x):
        return sn.grad(T.square(T.concatenate([x, x * x * x])).sum(), x)

    verify_grad(grad_of_concatenate, [rng.normal(size=(4,))], rng=rng)


def test_integer_inputs_get_a_float_gradient(rng):
    x = T.vector("x", dtype="float64", test_value=rng.normal(size=3))
    i = T.vector("i", dtype="int32", test_value=np.arange(2, dtype="int32"))
    g = sn.grad(T.concatenate([x, i]).sum(), x)
    np.testing.assert_array_equal(g.test_value, np.ones(3))
    gi = sn.grad(T.concatenate([x, i]).sum(), i)  # the float64 output's: Theano's Join.grad
    assert gi.dtype == "float64"
    np.testing.assert_array_equal(sn.function([x, i], gi)(np.zeros(3), np.arange(2, dtype="int32")),
                                  np.ones(2))
