"""Theano's indexing classes and functions (``theano.tensor.subtensor``): which op each
index builds, Theano's signatures and errors, and values against NumPy."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.tensor.subtensor import (
    AdvancedBooleanIncSubtensor, AdvancedBooleanSubtensor, AdvancedIncSubtensor,
    AdvancedIncSubtensor1, AdvancedSubtensor, AdvancedSubtensor1, IncSubtensor, Subtensor,
    advanced_inc_subtensor, advanced_inc_subtensor1, advanced_set_subtensor,
    advanced_set_subtensor1, get_canonical_form_slice, take,
)

X = np.arange(24, dtype="float32").reshape(4, 6)
IDX = np.array([3, 0, 3, -1], dtype="int32")


def test_each_index_builds_theanos_class():
    x, i = T.matrix("x"), T.ivector("i")
    assert type(x[i].owner.op) is AdvancedSubtensor1
    assert type(x[i, :].owner.op) is AdvancedSubtensor1
    assert type(x[:, i].owner.op) is AdvancedSubtensor
    assert type(x[x > 0].owner.op) is AdvancedBooleanSubtensor
    assert type(x[1:].owner.op) is Subtensor
    assert type(T.inc_subtensor(x[i], 1).owner.op) is AdvancedIncSubtensor1
    assert type(T.set_subtensor(x[x > 0], 1).owner.op) is AdvancedBooleanIncSubtensor
    assert type(T.set_subtensor(x[:, i], 1).owner.op) is AdvancedIncSubtensor
    assert type(T.inc_subtensor(x[1:], 1).owner.op) is IncSubtensor
    # the gradient of x[i] is written back by the matching op
    assert type(sn.grad(x[i].sum(), x).owner.op) is AdvancedIncSubtensor1


def test_advanced_subtensor1_values_and_gradient_match_numpy():
    x, i = T.matrix("x"), T.ivector("i")
    f = sn.function([x, i], [x[i], AdvancedSubtensor1()(x, i), sn.grad((x[i] * 2).sum(), x)])
    got, direct, grad = f(X, IDX)
    np.testing.assert_array_equal(got, X[IDX])
    np.testing.assert_array_equal(direct, X[IDX])
    expected = np.zeros_like(X)
    np.add.at(expected, IDX, 2)
    np.testing.assert_array_equal(grad, expected)


def test_advanced_inc_subtensor1_theano_signature_matches_numpy():
    x, y, i = T.matrix("x"), T.vector("y"), T.ivector("i")
    y_value = np.arange(6, dtype="float32")
    f = sn.function([x, y, i], [AdvancedIncSubtensor1()(x, y, i),
                                AdvancedIncSubtensor1(set_instead_of_inc=True)(x, y, i),
                                advanced_inc_subtensor1(x, y, i), advanced_set_subtensor1(x, y, i)])
    inc, set_, inc2, set2 = f(X, y_value, IDX)
    expected_inc = X.copy()
    np.add.at(expected_inc, IDX, y_value)  # repeated indices accumulate
    expected_set = X.copy()
    expected_set[IDX] = y_value
    np.testing.assert_array_equal(inc, expected_inc)
    np.testing.assert_array_equal(inc2, expected_inc)
    np.testing.assert_array_equal(set_, expected_set)
    np.testing.assert_array_equal(set2, expected_set)


def test_theanos_errors():
    x, s = T.matrix("x"), T.iscalar("s")
    with pytest.raises(TypeError, match="index must be vector"):
        AdvancedSubtensor1()(x, T.imatrix("m"))
    with pytest.raises(TypeError, match="index must be integers"):
        AdvancedSubtensor1()(x, T.fvector("f"))
    with pytest.raises(IndexError, match="too many indices"):
        s[T.ivector("i")]  # a scalar has no axis to index (Theano: IndexError)
    for bad in (lambda: x[np.array([0.0, 1.0])], lambda: x[T.fscalar("a"):]):
        with pytest.raises(TypeError, match="integer"):  # Theano's TypeError, NumPy's IndexError
            bad()
        with pytest.raises(IndexError):
            bad()
    with pytest.raises(TypeError, match="cannot be broadcast"):  # more dimensions than x[i]
        T.inc_subtensor(T.vector("v")[T.ivector("i")], T.matrix("m"))
    with pytest.raises(IndexError, match="does not fit in int64"):
        x[:2 ** 63]


def test_advanced_inc_and_set_subtensor_functions_match_numpy():
    x = T.matrix("x")
    rows, cols = [1, 3, 1], [2, 4, 2]
    f = sn.function([x], [advanced_inc_subtensor(x, 1.0, rows, cols),
                          advanced_set_subtensor(x, -1.0, rows, cols)])
    inc, set_ = f(X)
    expected_inc = X.copy()
    np.add.at(expected_inc, (rows, cols), 1.0)
    expected_set = X.copy()
    expected_set[rows, cols] = -1.0
    np.testing.assert_array_equal(inc, expected_inc)
    np.testing.assert_array_equal(set_, expected_set)
    assert type(advanced_inc_subtensor(x, 1.0, rows, cols).owner.op) is AdvancedIncSubtensor


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("mode", ["raise", "clip", "wrap"])
def test_take_matches_numpy(axis, mode):
    x, i = T.matrix("x"), T.imatrix("i")
    indices = np.array([[0, 3], [-2, 1]], dtype="int32")
    if mode != "raise":
        indices = indices * 3  # out of range: clipped or wrapped
    f = sn.function([x, i], [take(x, i, axis=axis, mode=mode), x.take(i, axis=axis, mode=mode)])
    expected = np.take(X, indices, axis=axis, mode=mode)
    for got in f(X, indices):
        np.testing.assert_array_equal(got, expected)


def test_get_canonical_form_slice_matches_python_slicing():
    start, stop, step, length = (T.iscalar(n) for n in "abcl")
    canonical, direction = get_canonical_form_slice(slice(start, stop, step), length)
    f = sn.function([start, stop, step, length],
                    [T.as_tensor_variable(p) for p in (canonical.start, canonical.stop, canonical.step)]
                    + [T.as_tensor_variable(direction)])
    a = np.arange(5)
    for b in (-8, -5, -1, 0, 2, 5, 8):
        for e in (-8, -4, 0, 1, 4, 9):
            for s in (-6, -1, 1, 2):
                nb, ne, ns, d = (int(v) for v in f(b, e, s, 5))
                np.testing.assert_array_equal(a[nb:ne:ns][::d], a[b:e:s])
                assert 0 <= nb <= ne <= 5 and ns > 0
    # constant parts: a plain answer
    canonical, direction = get_canonical_form_slice(slice(None, None, None), 7)
    assert (canonical, direction) == (slice(0, 7, 1), 1)


def test_shape_of_two_masks_follows_numpy_broadcasting():
    n = T.dmatrix("n")
    picked = n[n[:, 0] > 2, n[0, :] > 2]  # counts 1 and 0 broadcast to 0
    value = np.arange(6.0).reshape(2, 3)
    f = sn.function([n], picked.shape)
    np.testing.assert_array_equal(f(value), value[value[:, 0] > 2, value[0, :] > 2].shape)
