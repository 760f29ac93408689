"""Theano 1.0's dtype of a Python number made a constant, and of the float-valued ops on
integers (``upgrade_to_float``).

The expected dtypes are Theano 1.0.5's, read from its code (``theano/scalar/basic.py``:
``NumpyAutocaster``, ``convert``, ``upgrade_to_float``) and its own tests
(``theano/tensor/tests/test_basic.py``: ``_test_autocast_custom``,
``T_long_tensor.test_fit_int64``); the values are checked against NumPy.
"""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.scalar import autocast_float, autocast_float_as


@pytest.fixture(autouse=True)
def _float32():
    with sn.config.change_flags(floatX="float32", cast_policy="custom"):
        yield


@pytest.mark.parametrize("value, dtype", [
    (0, "int8"), (3, "int8"), (127, "int8"), (-128, "int8"), (128, "int16"), (-129, "int16"),
    (300, "int16"), (2 ** 15, "int32"), (2 ** 31 - 1, "int32"), (2 ** 31, "int64"),
    (-2 ** 63, "int64"), (2 ** 63, "uint64"), (True, "bool"),
    (1.5, "float32"), (1.1, "float32"), (1j, "complex128"),
])
def test_python_number_constant(value, dtype):
    c = T.constant(value)
    assert c.dtype == dtype
    assert c.value == value if dtype != "float32" else c.value == np.float32(value)


def test_as_tensor_variable_takes_the_same_rule():
    assert T.as_tensor_variable(3).dtype == "int8"
    assert T.as_tensor_variable(70000).dtype == "int32"
    assert T.as_tensor_variable([]).dtype == "float32"  # Theano: an empty list is floatX
    assert T.as_tensor_variable([1, 2]).dtype == "int64"  # a list: NumPy's dtype


def test_float64_floatx_keeps_floats_that_fit_float32():
    # floatX float64: the first of float32, float64 that holds the float exactly.
    with sn.config.change_flags(floatX="float64"):
        assert T.constant(1.5).dtype == "float32"
        assert T.constant(1.1).dtype == "float64"
        assert (T.fvector() + 1.1).dtype == "float64"
        assert (T.fvector() + 0.5).dtype == "float32"


@pytest.mark.parametrize("make, other, const, dtype", [
    (T.bvector, 3, "int8", "int8"), (T.bvector, 300, "int16", "int16"),
    (T.ivector, 3, "int8", "int32"), (T.fvector, 2, "int8", "float32"),
    (T.fvector, 1.1, "float32", "float32"),
    # Theano's "unsafe downcast": a Python float is floatX even next to float64.
    (T.dvector, 1.1, "float32", "float64"),
    (T.bvector, 1.5, "float32", "float32"), (lambda: T.vector(dtype="uint8"), 1, "int8", "int16"),
    (lambda: T.vector(dtype="float16"), 1.0, "float32", "float32"),
])
def test_arithmetic_with_a_python_number(make, other, const, dtype):
    # The number is a constant of dtype ``const``, then promoted as NumPy promotes arrays.
    x = make()
    assert (x + other).dtype == dtype
    assert (other * x).dtype == dtype
    value = np.array([1, 2, 3], dtype=x.dtype)
    expected = value + np.asarray(other, dtype=const)
    assert expected.dtype == dtype
    np.testing.assert_array_equal(sn.function([x], x + other)(value), expected)


def test_autocast_float_as_blocks():
    # theano/tensor/tests/test_basic.py's _test_autocast_custom, floatX float32
    orig = autocast_float.dtypes
    with autocast_float_as("float32"):
        assert autocast_float.dtypes == ("float32",)
        with autocast_float_as("float64"):
            assert autocast_float.dtypes == ("float64",)
            assert (T.fvector() + 1.0).dtype == "float64"
            assert (T.fvector() + 1).dtype == "float32"
        assert (T.dvector() + 1.1).dtype == "float64"
        assert (T.fvector() + 1.1).dtype == "float32"
    assert autocast_float.dtypes == orig
    with autocast_float_as("float32", "float64"):
        assert (T.fvector() + 1.1).dtype == "float32"
        assert (T.fvector() + np.float64(1.1)).dtype == "float64"
        assert (T.fvector() + np.float32(1.1)).dtype == "float32"
        assert (T.lvector() + np.int8(1)).dtype == "int64"
        assert (T.ivector() + np.int8(1)).dtype == "int32"
        assert (T.bvector() + np.int8(1)).dtype == "int8"


def test_autocast_float_as_needs_custom_policy():
    with sn.config.change_flags(cast_policy="numpy+floatX"):
        with pytest.raises(ValueError, match="cast_policy"):
            autocast_float_as("float64")


def test_numpy_floatx_policy():
    # Theano's 'numpy+floatX': NumPy's dtype, a Python float floatX.
    with sn.config.change_flags(cast_policy="numpy+floatX"):
        assert T.constant(3).dtype == "int64"
        assert T.constant(1.1).dtype == "float32"
        assert T.constant(np.float64(1.1)).dtype == "float64"


@pytest.mark.parametrize("fn, numpy_fn", [
    (T.sqrt, np.sqrt), (T.exp, np.exp), (T.log1p, np.log1p), (T.tanh, np.tanh), (T.cos, np.cos),
])
@pytest.mark.parametrize("dtype, out", [
    ("int8", "float32"), ("uint8", "float32"), ("int16", "float32"), ("bool", "float32"),
    ("int32", "float64"), ("int64", "float64"), ("float32", "float32"),
])
def test_float_ops_upgrade_integers(fn, numpy_fn, dtype, out):
    # Theano's upgrade_to_float: 8 and 16 bits compute in float32, 32 and 64 in float64.
    x = T.vector(dtype=dtype)
    y = fn(x)
    assert y.dtype == out
    value = np.array([0, 1, 1, 0, 1], dtype=dtype) if dtype == "bool" else \
        np.array([0, 1, 4, 9, 100], dtype=dtype)
    expected = numpy_fn(value.astype(out))
    result = sn.function([x], y)(value)
    assert result.dtype == out
    np.testing.assert_allclose(result, expected, rtol=2e-7 if out == "float32" else 1e-15)
    np.testing.assert_allclose(y.eval({x: value}), expected, rtol=2e-7 if out == "float32" else 1e-15)


def test_sqrt_of_a_python_int_is_float32():
    # The example: T.sqrt(9) is float32 (9 is int8).
    y = T.sqrt(9)
    assert y.dtype == "float32"
    assert y.eval() == np.float32(3.0)


def test_int8_update_stays_float32():
    # A float32 parameter updated with an int constant expression stays float32.
    w = sn.shared(np.ones(3, dtype="float32"))
    update = w - T.sqrt(4) * 0.5 * w
    assert update.dtype == "float32"
    f = sn.function([], update, updates=[(w, update)])
    np.testing.assert_array_equal(f(), np.zeros(3, dtype="float32"))


@pytest.mark.parametrize("floatx", ["float32", "float64"])
def test_integer_true_division_gives_floatx(floatx):
    # Theano's TrueDiv.output_types: only bool/integer inputs give config.floatX (its C
    # code divides in double, then rounds), so a sentence CNN's ``ivector / 2`` stays
    # float32; a float input keeps NumPy's rule (int32 / float32 is float64).
    with sn.config.change_flags(floatX=floatx):
        i, n, b = T.ivector("i"), T.iscalar("n"), T.bscalar("b")
        assert (i / n).dtype == (i / 2).dtype == (b / b).dtype == floatx
        assert (i / T.fscalar()).dtype == "float64" and (i / np.float64(2)).dtype == "float64"
        f = sn.function([i, n], [i / n, (i / n) * 2 + 1])
        values = np.array([1, 7, -5, 2 ** 24 + 1, 2 ** 31 - 1], "int32")
        quotient = values / 3                                   # NumPy, in float64
        got, fused = f(values, 3)
        assert got.dtype == fused.dtype == floatx
        # XLA's CPU division may be 1 ulp from the correctly rounded quotient (float64).
        np.testing.assert_array_max_ulp(got, quotient.astype(floatx), maxulp=1)
        np.testing.assert_array_max_ulp(fused, (quotient.astype(floatx) * 2 + 1).astype(floatx),
                                        maxulp=2)


@pytest.mark.parametrize("floatx", ["float32", "float64"])
def test_cast_to_floatx_by_name(floatx):
    # Theano's cast (and so .astype) reads the dtype 'floatX' as config.floatX: Kim's
    # sentence CNN and the deep-learning tutorials write T.cast(x, 'floatX').
    with sn.config.change_flags(floatX=floatx):
        i = T.ivector("i")
        f = sn.function([i], [T.cast(i, "floatX"), i.astype("floatX") / 2])
        values = np.array([3, -7, 2 ** 20], "int32")
        cast, half = f(values)
        assert cast.dtype == half.dtype == floatx
        np.testing.assert_array_equal(cast, values.astype(floatx))
        np.testing.assert_array_equal(half, values.astype(floatx) / 2)
