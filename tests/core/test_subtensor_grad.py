"""Gradients of indexing, set_subtensor and inc_subtensor against finite differences (float64)."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.tensor import subtensor as st
from symnb.gradient import verify_grad

BASIC = [
    1, -1, (1, 2), slice(1, 3), slice(None, None, -1), (slice(3, 0, -2), slice(None), 1),
    (Ellipsis, -1), (None, 0), (slice(None), None, slice(None, None, 2)), slice(5, 1), (),
]
ADVANCED = [
    ([0, 0, 2],), (slice(None), [1, 1, 4]), ([1, 2], slice(None), [0, 0]),
    (slice(None, None, -1), [[0], [4]], 1), (Ellipsis, [2, 0, 2]), ([],),
]


@pytest.mark.parametrize("index", BASIC + ADVANCED, ids=[repr(i) for i in BASIC + ADVANCED])
def test_indexing_gradient(index, rng):
    verify_grad(lambda x: x[index], [rng.normal(size=(4, 5, 3))], rng=rng)


def test_mask_indexing_gradient(rng):
    x = rng.normal(size=(4, 5))
    mask = x > 0
    verify_grad(lambda v: v[mask], [x], rng=rng)
    verify_grad(lambda v: v[:, mask[1]], [x], rng=rng)
    verify_grad(lambda v: v[T.constant(mask).nonzero()], [x], rng=rng)


SET_CASES = [
    # index, shape of y (broadcast to the indexed shape)
    (slice(1, 3), (5,)), (slice(1, 3), ()), ((slice(None, None, -1), 2), (4,)),
    ((slice(3, 0, -2), slice(None)), (2, 1)), ((1, None), (1, 5)), ((Ellipsis, -1), (1,)),
    (([0, 2, 3],), (3, 5)), (([0, 2, 3],), (5,)), ((slice(None), [4, 0]), (4, 1)),
    (([1, 2], [0, 3]), ()), ((slice(5, 1),), ()),
]


@pytest.mark.parametrize("index,y_shape", SET_CASES, ids=[repr(c) for c in SET_CASES])
def test_set_and_inc_subtensor_gradients(index, y_shape, rng):
    x, y = rng.normal(size=(4, 5)), rng.normal(size=y_shape)
    verify_grad(lambda a, b: T.set_subtensor(a[index], b), [x, y], rng=rng)
    verify_grad(lambda a, b: T.inc_subtensor(a[index], b), [x, y], rng=rng)
    # each value read twice: through the indexed result and through the update
    verify_grad(lambda a: T.set_subtensor(a[index], a[index] * 3), [x], rng=rng)


def test_inc_subtensor_gradient_with_repeated_indices(rng):
    x, y = rng.normal(size=(4, 3)), rng.normal(size=(5, 3))
    rows = [0, 2, 0, 0, 3]
    verify_grad(lambda a, b: T.inc_subtensor(a[rows], b), [x, y], rng=rng)
    verify_grad(lambda a, b: T.inc_subtensor(a[rows, 1:], b[:, :2] * 2), [x, y], rng=rng)


def test_set_subtensor_gradient_values(rng):
    """d/dx is zero where values were set; d/dy is the indexed gradient summed over broadcasting."""
    x = T.dmatrix("x", test_value=rng.normal(size=(3, 4)))
    y = T.dvector("y", test_value=rng.normal(size=(4,)))
    weights = rng.normal(size=(3, 4))
    cost = (T.set_subtensor(x[[0, 2]], y) * weights).sum()
    gx, gy = sn.grad(cost, [x, y])
    expected_gx = weights.copy()
    expected_gx[[0, 2]] = 0
    expected_gy = weights[[0, 2]].sum(axis=0)
    for computed in [(gx.test_value, gy.test_value), sn.function([x, y], [gx, gy])(x.test_value, y.test_value)]:
        np.testing.assert_allclose(computed[0], expected_gx)
        np.testing.assert_allclose(computed[1], expected_gy)


def test_gradients_with_symbolic_indices(rng):
    """Index inputs get no gradient; the gradient of x is np.add.at of the output gradient."""
    x = T.dmatrix("x", test_value=rng.normal(size=(4, 3)))
    rows = T.lvector("rows", test_value=np.array([3, 0, 3, 1]))
    k = T.lscalar("k", test_value=np.int64(-2))
    weights = rng.normal(size=(4, 3))
    cost = (x[rows] * weights).sum() + (x[k, ::-1] * weights[0]).sum()
    gx = sn.grad(cost, x)
    expected = np.zeros((4, 3))
    np.add.at(expected, np.array([3, 0, 3, 1]), weights)
    expected[-2, ::-1] += weights[0]
    np.testing.assert_allclose(gx.test_value, expected)
    compiled = sn.function([x, rows, k], gx)(x.test_value, rows.test_value, k.test_value)
    np.testing.assert_allclose(compiled, expected)
    node = x[rows].owner
    grads = node.op.L_op(node.inputs, node.outputs, [T.dmatrix("g")])
    assert grads[1] is None


def test_nonzero_is_not_differentiable_and_masked_set_compiles(rng):
    assert st.Nonzero.differentiable is False and st.FlatNonzero.differentiable is False
    x = T.dmatrix("x")
    mask = T.matrix("mask", dtype="int8")
    cost = (T.set_subtensor(x[mask.nonzero()], 0) ** 2).sum()
    gx = sn.grad(cost, x)
    f = sn.function([x, mask], gx)
    x_value, mask_value = rng.normal(size=(3, 3)), np.eye(3, dtype="int8")
    np.testing.assert_allclose(f(x_value, mask_value), 2 * x_value * (1 - mask_value))
