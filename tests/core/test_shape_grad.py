"""Gradients of the shape ops against central finite differences (float64)."""

import numpy as np
import pytest

import symnb.tensor as T
from symnb.gradient import verify_grad

RESHAPES = [((2, 3), (3, 2)), ((2, 3, 4), (4, -1)), ((6,), (1, 2, 3)), ((), (1, 1)), ((1,), ())]


@pytest.mark.parametrize("in_shape,target", RESHAPES)
def test_reshape_gradient(in_shape, target, rng):
    verify_grad(lambda x: x.reshape(target), [rng.normal(size=in_shape)], rng=rng)


def test_reshape_gradient_with_symbolic_shape(rng):
    x = rng.normal(size=(2, 3, 4))
    verify_grad(lambda x: x.reshape((x.shape[0] * x.shape[1], -1)), [x], rng=rng)
    verify_grad(lambda x, y: T.reshape(x, y.shape) * y, [x, rng.normal(size=(4, 6))], rng=rng)


@pytest.mark.parametrize("shape,pattern", [((2, 3), ("x", 1, 0)), ((1, 3), (1,)), ((2, 1, 3), (2, "x", 0)),
                                           ((), ("x",)), ((3,), (0, "x"))])
def test_dimshuffle_gradient(shape, pattern, rng):
    # T.square: the gradient of a linear function does not use x, and
    # verify_grad cannot compile a function with an unused input
    verify_grad(lambda x: T.square(x.dimshuffle(pattern)), [rng.normal(size=shape)], rng=rng)


def test_dimshuffle_gradient_through_broadcasting(rng):
    x, y = rng.normal(size=(3,)), rng.normal(size=(4, 3))
    verify_grad(lambda x, y: x.dimshuffle("x", 0) * y, [x, y], rng=rng)
    verify_grad(lambda x, y: T.exp(x.dimshuffle(0, "x")) + y.T, [x, y], rng=rng)


def test_transpose_flatten_squeeze_expand_dims_gradients(rng):
    x = rng.normal(size=(2, 3, 4))
    verify_grad(T.transpose, [x], rng=rng)
    verify_grad(lambda x: T.square(x.transpose(1, 2, 0)), [x], rng=rng)
    verify_grad(lambda x: x.T, [rng.normal(size=(3, 5))], rng=rng)
    for ndim in (1, 2, 3):
        verify_grad(lambda x: T.flatten(x, ndim) * 2, [x], rng=rng)
    verify_grad(lambda x: T.squeeze(x, (0, -1)), [rng.normal(size=(1, 3, 1))], rng=rng)
    verify_grad(lambda x: T.expand_dims(x, (0, -1)), [rng.normal(size=(2, 3))], rng=rng)


def test_empty_and_size_one(rng):
    verify_grad(lambda x: x.reshape((0, 2)), [np.zeros((2, 0))], rng=rng)
    verify_grad(lambda x: x.reshape(()) * 3, [rng.normal(size=(1, 1))], rng=rng)
