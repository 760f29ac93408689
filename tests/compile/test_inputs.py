"""compile/inputs.py: how a compiled function checks and converts each argument."""

import jax.numpy as jnp
import numpy as np
import pytest

import symnb.tensor as T
from symnb.compile.inputs import ArgumentChecks, convert_argument, make_checker


def test_arrays_of_the_exact_type_are_passed_as_they_are():
    x = T.matrix("x")
    check = make_checker(x, allow_downcast=False)
    value = np.ones((2, 3), "float32")
    assert check(value) is value
    checks = ArgumentChecks([x, T.ivector("y")], allow_downcast=False)
    arguments = (value, np.arange(3, dtype="int32"))
    assert checks(arguments) is arguments  # all exact: no check called, nothing copied
    converted = checks([value, [1, 2]])  # a list: checked and converted
    assert converted[0] is value and converted[1].dtype == np.int32
    device_value = jnp.ones((2, 3), "float32")
    assert check(device_value) is device_value  # already on a device: no host copy


def test_static_lengths_are_checked_even_on_the_fast_path():
    x = T.matrix("x", shape=(None, 3))
    checks = ArgumentChecks([T.vector("v"), x], allow_downcast=False)
    with pytest.raises(ValueError, match=r"input 'x' has static shape \(\?, 3\), got float32 array of shape \(4, 2\)"):
        checks([np.zeros(2, "float32"), np.zeros((4, 2), "float32")])
    check = make_checker(x, allow_downcast=False)
    np.testing.assert_array_equal(check(np.zeros((4, 3), "float32")), np.zeros((4, 3)))
    with pytest.raises(ValueError, match=r"input 'x' has static shape \(\?, 3\), got float32 array of shape \(4, 2\)"):
        check(np.zeros((4, 2), "float32"))


def test_safe_casts_and_exact_integers_are_accepted():
    x = T.vector("x")  # float32
    converted = convert_argument(x, np.arange(4, dtype="int64"), allow_downcast=False)
    assert converted.dtype == np.float32
    np.testing.assert_array_equal(converted, np.arange(4))
    converted = convert_argument(x, [1, 2], allow_downcast=False)
    assert converted.dtype == np.float32 and converted.tolist() == [1.0, 2.0]
    assert convert_argument(T.dscalar("d"), 0.1, False) == np.float64(0.1)


def test_lossy_conversions_are_refused_with_the_fix():
    x = T.vector("x")
    with pytest.raises(TypeError, match=r"input 'x' expects .*float64 array of shape \(3,\): casting "
                                        r"float64 to float32 could lose information.*allow_input_downcast=True"):
        convert_argument(x, np.ones(3), allow_downcast=False)
    rounded = convert_argument(x, np.full(3, 0.1), allow_downcast=True)
    np.testing.assert_array_equal(rounded, np.full(3, 0.1).astype("float32"))
    n = T.iscalar("n")
    with pytest.raises(TypeError, match=r"the Python float 2.5 does not fit int32 exactly"):
        convert_argument(n, 2.5, allow_downcast=False)
    with pytest.raises(TypeError, match=r"the Python int 4294967296 does not fit int32 exactly"):
        convert_argument(n, 2 ** 32, allow_downcast=False)
    big = np.array([2 ** 40], dtype="int64")
    with pytest.raises(TypeError, match="casting int64 to int32 could lose information"):
        convert_argument(T.ivector("v"), big, allow_downcast=False)


def test_wrong_number_of_dimensions_and_non_numbers():
    x = T.matrix("x")
    with pytest.raises(TypeError, match=r"input 'x' expects 2 dimension\(s\) .*got float32 array of shape \(3,\)"):
        convert_argument(x, np.ones(3, "float32"), allow_downcast=False)
    with pytest.raises(TypeError, match="not a numeric array"):
        convert_argument(x, [["a", object()]], allow_downcast=False)


def test_booleans_take_only_zeros_and_ones():
    b = T.vector("b", dtype="bool")
    np.testing.assert_array_equal(convert_argument(b, np.array([0, 1, 1]), False), [False, True, True])
    with pytest.raises(TypeError, match="could lose information"):
        convert_argument(b, np.array([0, 2]), False)


def test_a_list_is_accepted_when_its_values_convert_exactly_as_in_theano():
    # Theano's TensorType.filter: a list has no dtype; it converts when no value changes.
    x = T.vector("x")  # float32
    converted = convert_argument(x, [1.0, 2.0, -3.0, 4.0], allow_downcast=False)
    assert converted.dtype == np.float32
    np.testing.assert_array_equal(converted, np.array([1.0, 2.0, -3.0, 4.0], "float32"))
    assert np.isnan(convert_argument(x, [float("nan")], False)[0])
    with pytest.raises(TypeError, match="float64 to float32 could lose information"):
        convert_argument(x, [0.1, 1.0], allow_downcast=False)  # 0.1 is not a float32
    with pytest.raises(TypeError, match="float64 to float32 could lose information"):
        convert_argument(x, np.array([1.0, 2.0]), allow_downcast=False)  # an array keeps its dtype
    assert convert_argument(T.ivector("i"), [1.0, 2.0], False).tolist() == [1, 2]
    with pytest.raises(TypeError, match="could lose information"):
        convert_argument(T.ivector("i"), [1.5], allow_downcast=False)
