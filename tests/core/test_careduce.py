"""Theano's reduction classes (``theano.tensor.elemwise``): ``CAReduce(scalar_op, axis)``
in the input's dtype, ``Prod``/``Sum`` with Theano's signatures, ``ProdWithoutZeros``,
against NumPy."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb import scalar
from symnb.tensor.elemwise import CAReduce, Prod, ProdWithoutZeros, Sum

UFUNCS = {"add": np.add, "mul": np.multiply, "maximum": np.maximum, "minimum": np.minimum,
          "and_": np.bitwise_and, "or_": np.bitwise_or, "xor": np.bitwise_xor}


@pytest.mark.parametrize("name", list(UFUNCS))
@pytest.mark.parametrize("dtype", ["int8", "uint8", "bool"])
@pytest.mark.parametrize("axis", [None, -1, (0,), [0, 1], ()])
def test_careduce_of_integers_and_bools_keeps_the_dtype(name, dtype, axis):
    x = T.matrix("x", dtype=dtype)
    out = CAReduce(getattr(scalar, name), axis=axis)(x)
    value = (np.arange(12).reshape(3, 4) * 37 % 256).astype(dtype)
    axes = tuple(range(2)) if axis is None else tuple(axis) if isinstance(axis, (list, tuple)) else axis
    # Theano's CAReduce does not upcast: NumPy's reduction cast back (wrapping around)
    expected = UFUNCS[name].reduce(value, axis=axes).astype(dtype)
    assert out.dtype == dtype and isinstance(out.owner.op, CAReduce)
    np.testing.assert_array_equal(sn.function([x], out)(value), expected)


@pytest.mark.parametrize("name", ["add", "mul", "maximum", "minimum"])
def test_careduce_of_floats_and_its_gradient(name):
    x = T.dmatrix("x")
    value = np.random.default_rng(0).uniform(0.5, 2.0, (3, 4))
    out = CAReduce(getattr(scalar, name), axis=1)(x)
    grad = sn.grad(out.sum(), x)
    got, got_grad = sn.function([x], [out, grad])(value)
    np.testing.assert_allclose(got, UFUNCS[name].reduce(value, axis=1))
    # the gradient, by central differences of the NumPy reduction
    eps, numeric = 1e-6, np.zeros_like(value)
    for idx in np.ndindex(value.shape):
        up, down = value.copy(), value.copy()
        up[idx] += eps
        down[idx] -= eps
        numeric[idx] = (UFUNCS[name].reduce(up, axis=1).sum() - UFUNCS[name].reduce(down, axis=1).sum()) / (2 * eps)
    np.testing.assert_allclose(got_grad, numeric, rtol=1e-5, atol=1e-6)


def test_careduce_refusals():
    with pytest.raises(TypeError, match="reduces with the scalar ops"):
        CAReduce(scalar.sub, axis=0)
    with pytest.raises(TypeError, match="takes booleans or integers"):
        CAReduce(scalar.and_, axis=0)(T.dmatrix("d"))
    with pytest.raises(ValueError, match="empty"):  # max has no identity (as NumPy)
        sn.function([x := T.dmatrix("x")], CAReduce(scalar.maximum, axis=1)(x))(np.zeros((2, 0)))


def test_theano_signatures_of_prod_sum_and_prod_without_zeros():
    x = T.dmatrix("x")
    value = np.array([[1.0, 0.0, 3.0], [2.0, 0.0, 5.0], [0.0, 0.0, 0.0]])
    f = sn.function([x], [Prod(axis=1)(x), Prod(axis=-2, no_zeros_in_input=True)(x),
                          ProdWithoutZeros(axis=0)(x), ProdWithoutZeros()(x),
                          Sum(axis=[0, 1], dtype="float32", acc_dtype="float64")(x)])
    prod1, prod0, pwz0, pwz_all, total = f(value)
    np.testing.assert_array_equal(prod1, value.prod(axis=1))
    np.testing.assert_array_equal(prod0, value.prod(axis=0))
    no_zeros = np.where(value == 0, 1.0, value)
    np.testing.assert_array_equal(pwz0, no_zeros.prod(axis=0))
    np.testing.assert_array_equal(pwz_all, no_zeros.prod())
    assert total.dtype == np.float32 and total == np.float32(value.sum())
    assert all(isinstance(T.sum(x).owner.op, CAReduce) for _ in [0])


def test_acc_dtype_accumulates_and_refuses_a_loss_of_precision():
    x = T.fvector("x")
    value = np.array([1e8, 1, -1e8], dtype="float32")
    total = Sum(acc_dtype="float64")(x)
    assert total.dtype == "float32"
    assert sn.function([x], total)(value) == 1.0  # float32 accumulation would give 0
    assert sn.function([x], x.sum(acc_dtype="float64"))(value) == 1.0  # Theano's keyword
    assert sn.function([x], T.prod(x, acc_dtype="float64", no_zeros_in_input=True))(value) == \
        np.float32(np.prod(value.astype("float64")))
    with pytest.raises(TypeError, match="precision would be lost"):
        Sum(acc_dtype="float16")(x)
    assert Sum(acc_dtype="float32")(T.ivector("i")).dtype == "int64"  # int into float: allowed
