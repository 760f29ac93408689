"""The seeds' code (theano renamed to symnb) that needs only the foundation and grad."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T


def test_seed000_test_values_on_the_fly():
    sn.config.optimizer = "fast_compile"
    sn.config.exception_verbosity = "high"
    sn.config.compute_test_value = "warn"
    x = T.matrix("features")
    x.tag.test_value = np.random.rand(3, 2)
    y = x * 2
    np.testing.assert_allclose(y.tag.test_value, x.tag.test_value * 2)
    b = T.ones((3, 2))
    c = sn.shared(np.ones((3, 2)))
    expected = y.tag.test_value.astype("float64") * 1 + 1
    np.testing.assert_allclose((y * b + c).tag.test_value, expected, rtol=1e-6)
    assert (y * b + c).dtype == "float64"  # float32 * float32 + float64 shared, as NumPy


def test_seed001_grad_of_two_x():
    x = T.scalar("x")
    y = 2. * x
    g = T.grad(y, x)
    assert g.eval({x: np.float32(5.0)}) == 2.0
    assert g.test_value == 2.0


def test_seed002_call_time_shape_error_names_the_line():
    x = T.vector()
    y = T.vector()
    z = x + x
    z = z + y
    f = sn.function([x, y], z)
    np.testing.assert_array_equal(f(np.array([1, 2], dtype=sn.config.floatX),
                                    np.array([3, 4], dtype=sn.config.floatX)), [5, 8])
    with pytest.raises(sn.GraphRuntimeError) as info:
        f(np.array([1, 2], dtype=sn.config.floatX), np.array([3, 4, 5], dtype=sn.config.floatX))
    message = str(info.value)
    assert "z = z + y" in message and "(2,)" in message and "(3,)" in message
    assert "z = x + x" in message


def test_seed003_set_subtensor_with_a_mask_zeroes_the_diagonal():
    data = T.matrix("data")
    mask = T.matrix("mask", dtype="int8")
    indices = mask.nonzero()
    output = T.set_subtensor(data[indices], 0)
    f = sn.function([data, mask], output)
    toy_data = np.arange(9).reshape(3, 3)  # int64 values, exactly representable in float32
    toy_mask = np.zeros((3, 3), dtype="int8")
    np.fill_diagonal(toy_mask, 1)
    np.testing.assert_array_equal(f(toy_data, toy_mask), [[0, 1, 2], [3, 0, 5], [6, 7, 0]])


def test_seed003_max_of_an_int64_matrix():
    sn.config.compute_test_value = "warn"
    data = T.matrix("data", dtype="int64")
    data.tag.test_value = np.random.randint(0, 10, size=(100, 100))
    maximum = data.max()
    assert maximum.tag.test_value == 9


def test_seed003_identity_like_shape_and_assert():
    data = T.matrix("data", dtype="int64")
    identity = T.identity_like(data)
    assert_op = T.Assert("Shape mismatch!")
    # The seed's condition compares two Python ints (the ndims): it holds for any input.
    output = assert_op(identity, T.eq(identity.ndim, data.ndim))
    f = sn.function([data], output)
    toy_data = np.arange(9).reshape(3, 3)
    np.testing.assert_array_equal(f(toy_data), np.eye(3, dtype="int64"))
    # A condition on what the call receives holds for a square matrix, fails for another.
    square = sn.function([data], assert_op(identity, T.eq(data.shape[0], data.shape[1])))
    np.testing.assert_array_equal(square(toy_data), np.eye(3, dtype="int64"))
    with pytest.raises(sn.GraphRuntimeError, match="Shape mismatch!"):
        square(np.arange(12).reshape(3, 4))


def test_seed001_fgraph_of_x_over_x_has_no_division():
    x = T.scalar()
    y = x / x
    f = sn.function([x], y)
    text = sn.printing.debugprint(f.maker.fgraph.outputs[0], file="str")
    assert "true_div" not in text and "1.0" in text
    assert f(np.float32(3.0)) == 1.0
