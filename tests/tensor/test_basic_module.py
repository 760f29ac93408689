"""``symnb.tensor.basic`` (Theano's ``theano.tensor.basic``), ``T.Tensor`` and ``T._shared``."""

import numpy as np
import pytest

import symnb.tensor as T
import symnb.tensor.basic as B


def test_basic_holds_every_tensor_name():
    for name in ("dot", "TensorType", "verify_grad", "as_tensor_variable", "Elemwise", "grad"):
        assert getattr(B, name) is getattr(T, name)
    with pytest.raises(AttributeError, match="in-place"):
        B.inplace  # noqa: B018  (a name symnb lacks says why, as on T)


@pytest.mark.parametrize("a, b, close", [
    (np.float64(1.0), np.float64(1.0 + 2e-5), False),      # float64: rtol 1e-5
    (np.float64(1.0), np.float64(1.0 + 5e-6), True),
    (np.float32(1.0), np.float64(1.0 + 5e-6), True),       # either float32: rtol 1e-5, atol 1e-5
    (np.float32(0.0), np.float32(9e-6), True),
    (np.float64(0.0), np.float64(9e-6), False),            # float64 atol 1e-8
    (np.float16(1.0), np.float32(1.0009), True),           # either float16: 1e-3
    (np.float16(1.0), np.float32(1.003), False),
])
def test_allclose_tolerances_per_dtype(a, b, close):
    assert B._allclose(a, b) is close


def test_allclose_explicit_tolerances_win():
    assert B._allclose([1.0], [1.1], rtol=0.2)
    assert not B._allclose(np.float32(0), np.float32(1e-6), atol=1e-7, rtol=0)


def test_tensor_is_tensortype():
    assert T.Tensor is T.TensorType
    assert T.Tensor("float32", (False, True))("x").broadcastable == (False, True)


def test_shared_takes_ndarrays_only():
    value = np.arange(6, dtype="int32").reshape(2, 3)
    v = T._shared(value, name="v")
    assert v.dtype == "int32" and v.broadcastable == (False, False)
    np.testing.assert_array_equal(v.get_value(), value)
    assert T._shared(np.ones((1, 3)), broadcastable=(True, False)).broadcastable == (True, False)
    with pytest.raises(TypeError, match="numpy.ndarray"):
        T._shared(3.0)
    with pytest.raises(TypeError, match="target"):
        T._shared(value, target="cuda")


def test_int_div_is_floor_division_for_ints_and_floats():
    assert T.int_div is T.floor_div  # Theano 1.0: floor_div = int_div
    a, b = np.array([7, -7, 7, -7]), np.array([2, 2, -2, -2])
    x, y = T.lvector("x", test_value=a), T.lvector("y", test_value=b)
    np.testing.assert_array_equal(T.int_div(x, y).eval({x: a, y: b}), np.floor_divide(a, b))
    f = T.dvector("f", test_value=a / 1.0)
    np.testing.assert_array_equal(T.int_div(f, 2.0).test_value, np.floor_divide(a / 1.0, 2.0))


def test_get_scalar_constant_value():
    get = T.get_scalar_constant_value
    assert get(T.constant(3) * 2) == 6 and np.ndim(get(T.constant(3) * 2)) == 0
    assert get(T.constant(np.full((2, 2), 4.0))) == 4.0  # all elements equal: that scalar
    x = T.tensor("float64", shape=(5, 2), name="x", test_value=np.zeros((5, 2)))
    assert get(x.shape[0] + 1) == 6  # the static length
    y = T.dvector("y", test_value=np.zeros(3))
    for unknown in (y.shape[0], x.sum(), T.constant(np.arange(3.0))):
        with pytest.raises(B.NotScalarConstantError):
            get(unknown)
    with pytest.raises(T.NotScalarConstantError):
        get(T.constant(3) * 2, only_process_constants=True)
    assert get(T.constant(2.5), only_process_constants=True) == 2.5
    assert get(7) == 7


def test_dtype_lists_are_theanos():
    assert T.int_dtypes == ["int8", "int16", "int32", "int64"]
    assert T.uint_dtypes == ["uint8", "uint16", "uint32", "uint64"]
    assert T.integer_dtypes == T.int_dtypes + T.uint_dtypes
    assert T.discrete_dtypes == ["bool"] + T.integer_dtypes
    assert T.float_dtypes == ["float16", "float32", "float64"]
    assert T.complex_dtypes == ["complex64", "complex128"]
    assert T.continuous_dtypes == T.float_dtypes + T.complex_dtypes
    assert T.all_dtypes == T.discrete_dtypes + T.continuous_dtypes
    for name in T.all_dtypes:
        assert np.dtype(name).name == name


def test_tensor_takes_theanos_broadcastable_and_floatx():
    import numpy as np

    import symnb as sn
    import symnb.tensor as T

    x = T.tensor(dtype="floatX", broadcastable=(False, True))
    assert x.type == T.TensorType(sn.config.floatX, (None, 1))
    np.testing.assert_array_equal(sn.function([x], x * 2)(np.ones((3, 1), sn.config.floatX)),
                                  np.full((3, 1), 2, sn.config.floatX))


def test_tensor_keeps_a_numpy_dtype_object():
    # np.dtype('float64') == None is True in NumPy (np.dtype(None) is float64): the
    # default must be decided by identity, or a float64 input would become floatX.
    import symnb.tensor as T

    assert T.tensor(np.dtype("float64"), (None,)).dtype == "float64"
