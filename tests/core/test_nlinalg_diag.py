"""Theano's nlinalg ops AllocDiag, ExtractDiag and TensorInv (core/tensor/nlinalg_diag.py):
values against NumPy, gradients against finite differences, shapes without the op."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.gradient import verify_grad
from symnb.tensor.nlinalg import (
    AllocDiag, ExtractDiag, TensorInv, _zero_disconnected, alloc_diag, diag, extract_diag, tensorinv,
    trace,
)

RNG = np.random.RandomState(0)


@pytest.mark.parametrize("n", [5, 0, 1])
def test_alloc_diag_equals_numpy(n):
    x = T.dvector("x")
    value = RNG.rand(n)
    np.testing.assert_array_equal(sn.function([x], alloc_diag(x))(value), np.diag(value))
    shape = sn.function([x], alloc_diag(x).shape)
    assert not any(isinstance(node.op, AllocDiag) for node in shape.maker.fgraph.toposort())
    np.testing.assert_array_equal(shape(value), [n, n])


@pytest.mark.parametrize("shape", [(2, 3), (3, 2), (3, 3), (1, 1), (0, 0), (3, 4, 2)])
def test_extract_diag_equals_numpy(shape):
    x = T.TensorType("float64", (None,) * len(shape))("x")
    value = RNG.rand(*shape)
    np.testing.assert_array_equal(sn.function([x], extract_diag(x))(value), np.diagonal(value))
    np.testing.assert_array_equal(sn.function([x], extract_diag(x).shape)(value), np.diagonal(value).shape)


def test_diag_builds_the_op_of_its_input_and_refuses_others():
    assert isinstance(diag(T.vector()).owner.op, AllocDiag)
    assert isinstance(diag(T.matrix()).owner.op, ExtractDiag)
    with pytest.raises(TypeError):
        alloc_diag(T.matrix())
    with pytest.raises(TypeError):
        extract_diag(T.vector())
    with pytest.raises(TypeError):
        diag(T.tensor3())


def test_diag_gradients_and_trace():
    verify_grad(alloc_diag, [RNG.rand(5)], rng=RNG)
    verify_grad(extract_diag, [RNG.rand(5, 4)], rng=RNG)
    verify_grad(extract_diag, [RNG.rand(3, 5, 2)], rng=RNG)
    m = T.dmatrix("m")
    value = RNG.rand(3, 4)
    np.testing.assert_allclose(sn.function([m], trace(m))(value), np.trace(value))


@pytest.mark.parametrize("shape, ind", [((4, 6, 8, 3), 2), ((2, 15, 30), 2), ((30, 2, 15), 1)])
def test_tensorinv_equals_numpy(shape, ind):
    a = T.TensorType("float64", (None,) * len(shape))("a")
    value = RNG.rand(*shape)
    got = sn.function([a], tensorinv(a, ind=ind))(value)
    np.testing.assert_allclose(got, np.linalg.tensorinv(value, ind=ind), rtol=1e-8, atol=1e-8)
    assert isinstance(tensorinv(a, ind=ind).owner.op, TensorInv)


def test_tensorinv_gradient_and_singular_input():
    verify_grad(lambda a: TensorInv()(a), [RNG.rand(2, 3, 6)], rng=RNG)
    verify_grad(lambda a: TensorInv(1)(a), [RNG.rand(6, 2, 3)], rng=RNG)
    a = T.dtensor4("a")
    with pytest.raises(np.linalg.LinAlgError, match="singular"):
        sn.function([a], tensorinv(a))(np.zeros((2, 2, 2, 2)))
    with pytest.raises(ValueError):  # not square for ind=2
        tensorinv(T.TensorType("float64", (2, 3, 4))("b"))


def test_zero_disconnected():
    x, g = T.dvector("x"), T.dvector("g")
    first, second = _zero_disconnected([x, x], [None, g])
    np.testing.assert_array_equal(sn.function([x], first)(np.ones(3)), np.zeros(3))
    assert second is g
