"""Theano's small functions and types of ``theano.tensor.basic`` that test_basic.py
imports (issue 38): each against NumPy on both paths (test value and compiled program)."""

import warnings

import numpy as np
import pytest

import symnb as sn
import symnb.scalar
import symnb.tensor as T
from tests.reference import check_paths

RNG = np.random.default_rng(38)
M64 = RNG.normal(size=(3, 4))
I32 = RNG.integers(-9, 10, size=(3, 4)).astype("int32")


@pytest.mark.parametrize("name, dtype, ndim", [
    ("wscalar", "int16", 0), ("wvector", "int16", 1), ("wmatrix", "int16", 2),
    ("cscalar", "complex64", 0), ("cvector", "complex64", 1), ("zscalar", "complex128", 0),
    ("zvector", "complex128", 1), ("ztensor3", "complex128", 3),
])
def test_int16_and_complex_typed_constructors(name, dtype, ndim):
    # Theano: wvector = TensorType('int16', (False,)), zvector complex128, cscalar complex64.
    ttype = getattr(T, name)
    assert ttype == T.TensorType(dtype, (False,) * ndim)
    x = ttype("x")
    assert x.dtype == dtype and x.ndim == ndim
    value = np.arange(2 ** ndim, dtype=dtype).reshape((2,) * ndim)
    check_paths(lambda v: v * 2, [value], lambda v: v * np.asarray(2, "int8"), rtol=1e-6)


@pytest.mark.parametrize("axis", [None, 0, 1])
@pytest.mark.parametrize("value", [M64, I32])
def test_ptp(value, axis):
    check_paths(lambda x: T.ptp(x, axis), [value], lambda v: np.ptp(v, axis))


def test_smallest():
    a, b, c = M64, M64[::-1].copy(), M64 * 0.5
    check_paths(lambda x, y: T.smallest(x, y), [a, b], np.minimum)
    check_paths(lambda x, y, z: T.smallest(x, y, z), [a, b, c],
                lambda x, y, z: np.minimum(np.minimum(x, y), z))


@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "uint8"])
def test_ceil_intdiv(dtype):
    a = np.array([7, 8, 0, 1, 100, 9], dtype)
    b = np.array([2, 2, 3, 5, 7, 9], dtype)
    # Non-negative operands: ceil(a / b) is (a + b - 1) // b, computed in Python ints.
    check_paths(T.ceil_intdiv, [a, b], lambda x, y: np.array([(int(p) + int(q) - 1) // int(q)
                                                                for p, q in zip(x, y)], dtype))
    big = np.array([2 ** 62 + 1], "int64")  # exact: a float division would round
    check_paths(T.ceil_intdiv, [big, np.array([2], "int64")], lambda x, y: -(-x // y))


def test_swapaxes():
    x = RNG.normal(size=(2, 3, 4))
    check_paths(lambda v: T.swapaxes(v, 0, 2), [x], lambda v: np.swapaxes(v, 0, 2))
    check_paths(lambda v: T.swapaxes(v, 1, -1), [x], lambda v: np.swapaxes(v, 1, -1))


def test_horizontal_and_vertical_stack():
    a, b = M64, RNG.normal(size=(3, 2))
    check_paths(T.horizontal_stack, [a, b], lambda x, y: np.hstack([x, y]))
    check_paths(lambda x, y: T.vertical_stack(x, y, x), [a, M64[:1].copy()],
                lambda x, y: np.vstack([x, y, x]))
    with pytest.raises(TypeError, match="matrices"):
        T.horizontal_stack(T.dvector("v"), T.dvector("w"))


@pytest.mark.parametrize("rowvar, bias, ddof", [(True, False, None), (False, False, None),
                                                 (True, True, None), (False, False, 3)])
def test_cov(rowvar, bias, ddof):
    # Theano's normalization 1 / (N - ddof) divides integers, which gives floatX (float32
    # here): float64 data are scaled by a float32 factor, hence rtol 1e-6.
    x64, y64 = M64, RNG.normal(size=(3, 4))
    check_paths(lambda x: T.cov(x, rowvar=rowvar, bias=bias, ddof=ddof), [x64],
                lambda v: np.cov(v, rowvar=rowvar, bias=bias, ddof=ddof), rtol=1e-6)
    check_paths(lambda x, y: T.cov(x, y=y, rowvar=rowvar, bias=bias, ddof=ddof), [x64, y64],
                lambda v, w: np.cov(v, y=w, rowvar=rowvar, bias=bias, ddof=ddof), rtol=1e-6)


def test_cov_keeps_theanos_shape_and_dtype():
    # Theano squeezes only the axes known to be 1: one variable gives (1, 1) (NumPy: 0-d),
    # and the normalization 1 / (N - ddof) of integers is floatX, so float32 stays float32.
    one = RNG.normal(size=(1, 5)).astype("float32")
    got = check_paths(T.cov, [one], lambda v: np.cov(v).astype("float32").reshape(1, 1), rtol=1e-5)
    assert got.shape == (1, 1)
    with pytest.raises(NotImplementedError, match="fweights"):
        T.cov(T.fmatrix("m"), fweights=T.fvector("w"))


def test_get_vector_length():
    x = T.dmatrix("x")
    assert T.get_vector_length(x.shape) == 2
    assert T.get_vector_length(T.constant(np.arange(5))) == 5
    assert T.get_vector_length(T.stack([T.dscalar(), T.dscalar(), T.dscalar()])) == 3
    with pytest.raises(ValueError, match="length not known"):
        T.get_vector_length(T.dvector("v"))
    with pytest.raises(TypeError, match="vector"):
        T.get_vector_length(x)


def test_is_flat():
    assert T.is_flat(T.dvector())
    assert not T.is_flat(T.dmatrix())
    assert T.is_flat(T.dmatrix(), ndim=2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert T.is_flat(T.dtensor3(), outdim=3)
    assert "deprecated" in str(caught[0].message)
    with pytest.raises(ValueError):
        T.is_flat(T.dvector(), ndim=1, outdim=1)


def test_extract_constant_and_empty_constant_error():
    assert T.extract_constant(T.constant(3) + 4) == 7
    x = T.dscalar("x")
    assert T.extract_constant(x) is x
    with pytest.raises(T.EmptyConstantError):
        T.get_scalar_constant_value(T.constant(np.zeros(0)))
    assert issubclass(T.EmptyConstantError, T.NotScalarConstantError)


def test_get_scalar_constant_value_looks_through_structure():
    # Theano's walk: an Alloc's value, a true Assert's input, a known element of a
    # stack of scalars, a length the type knows; not a false or unknown condition.
    b, x = T.iscalar("b"), T.dscalar("x")
    stacked = T.stack([b, 2, 3])
    assert T.get_scalar_constant_value(stacked[1]) == 2
    assert T.get_scalar_constant_value(stacked[T.constant(-1)]) == 3
    with pytest.raises(T.NotScalarConstantError):
        T.get_scalar_constant_value(stacked[0])
    with pytest.raises(T.NotScalarConstantError):
        T.get_scalar_constant_value(stacked[b])
    assert T.get_scalar_constant_value(T.second(T.dmatrix("m"), 0.4)) == 0.4
    assert T.get_scalar_constant_value(T.alloc(np.float32(1.5), b, 3)) == 1.5
    c = T.constant(2)
    assert T.get_scalar_constant_value(T.Assert()(c, c > 1)) == 2
    with sn.change_flags(compute_test_value="off"):
        with pytest.raises(T.NotScalarConstantError):
            T.get_scalar_constant_value(T.Assert()(c, c > 2))
    with pytest.raises(T.NotScalarConstantError):
        T.get_scalar_constant_value(T.Assert()(c, c > x))
    assert T.get_scalar_constant_value(T.row("r").shape[0]) == 1
    with pytest.raises(T.NotScalarConstantError):
        T.get_scalar_constant_value(T.row("r").shape[1])


def test_theano_aliases():
    x = T.dmatrix("x")
    check_paths(lambda v: T.second(v, 2.5), [M64], lambda v: np.full(v.shape, 2.5, "float32"))
    check_paths(T.isnan_, [np.array([1.0, np.nan])], np.isnan)
    assert T.scal is symnb.scalar
    assert x.ndim == 2


def test_theano_op_classes():
    # Theano's ARange(dtype)(start, stop, step); T.argmax and T.mean build Argmax and Mean.
    start, stop, step = T.lscalars("start", "stop", "step")
    out = T.ARange("int64")(start, stop, step)
    assert out.dtype == "int64"
    np.testing.assert_array_equal(sn.function([start, stop, step], out)(2, 11, 4), np.arange(2, 11, 4))
    x = T.dmatrix("x")
    assert isinstance(T.argmax(x, axis=0).owner.op, T.Argmax)
    assert isinstance(T.mean(x, axis=1).owner.op, T.Mean)
    np.testing.assert_allclose(T.mean(x, axis=1).eval({x: M64}), M64.mean(axis=1))


@pytest.mark.parametrize("dtype, out", [("int8", "float32"), ("uint16", "float32"), ("int64", "float64"),
                                        ("float16", "float16"), ("float32", "float32"),
                                        ("float64", "float64")])
def test_inv_is_theanos_elemwise_op(dtype, out):
    # Theano: T.inv is Elemwise(scalar.inv), upgrade_to_float (int8 float32, int64 float64)
    assert isinstance(T.inv, T.Elemwise) and str(T.inv) == "Elemwise{inv,no_inplace}"
    assert T.inv.scalar_op is symnb.scalar.inv and isinstance(symnb.scalar.inv, symnb.scalar.Inv)
    value = np.array([[1, 2, 5], [4, 8, -3 if dtype[0] != "u" else 3]], dtype)
    check_paths(T.inv, [value], lambda v: np.reciprocal(v.astype(out)),
                rtol=1e-3 if dtype == "float16" else None)
    x = T.dvector("x")
    g = sn.function([x], T.grad(T.inv(x).sum(), x))(np.array([2.0, -4.0]))
    np.testing.assert_allclose(g, [-0.25, -1 / 16])


def test_tensor_from_scalar_and_back():
    # Theano's test_basic: t = tensor_from_scalar(s); t.owner.op is tensor_from_scalar.
    s = T.dscalar("s")
    t = T.tensor_from_scalar(s)
    assert t.owner.op is T.tensor_from_scalar and t.ndim == 0 and t.dtype == "float64"
    back = T.ScalarFromTensor()(t)
    assert isinstance(back.owner.op, T.ScalarFromTensor)
    assert sn.function([s], back * 2)(3.5) == 7.0
    assert T.TensorFromScalar()(T.iscalar()).dtype == "int32"
    # The gradient passes through, as Theano's (scalar_from_tensor of the output gradient).
    np.testing.assert_allclose(sn.grad(T.tensor_from_scalar(s) ** 2, s).eval({s: 3.0}), 6.0)
    with pytest.raises(TypeError, match="0-d tensor"):
        T.tensor_from_scalar(T.dvector("v"))


@pytest.mark.parametrize("fn, numpy_fn", [(T.trunc, np.trunc), (T.floor, np.floor), (T.ceil, np.ceil)])
def test_trunc_floor_ceil_upgrade_integers(fn, numpy_fn):
    # Theano: trunc/floor/ceil = Op(upgrade_to_float_no_complex): int8 -> float32,
    # int32 -> float64 (NumPy 2 keeps the integer dtype).
    check_paths(fn, [np.array([-2.5, -0.5, 0.5, 1.7])], numpy_fn)
    check_paths(fn, [np.array([-3, 0, 7], "int8")], lambda v: numpy_fn(v.astype("float32")))
    check_paths(fn, [np.array([-3, 0, 7], "int32")], lambda v: numpy_fn(v.astype("float64")))


@pytest.mark.parametrize("dtype", ["float32", "int32", "float64"])
@pytest.mark.parametrize("n, m_, k", [(3, None, 0), (3, 5, 1), (4, 2, -1), (3, 3, -5), (2, 3, 7)])
def test_tri(dtype, n, m_, k):
    # Theano's test_basic: function([N, M, k], tri(N, M, k, dtype=dtype)), all symbolic.
    ns, ms, ks = T.iscalars("N", "M", "k")
    f = sn.function([ns, ms, ks], T.tri(ns, ms, ks, dtype=dtype))
    expected = np.tri(n, m_ if m_ is not None else n, k, dtype=dtype)
    result = f(n, m_ if m_ is not None else n, k)
    assert result.dtype == dtype
    np.testing.assert_array_equal(result, expected)
    out = T.tri(n, m_, k, dtype=dtype)
    assert isinstance(out.owner.op, T.Tri)
    np.testing.assert_array_equal(out.eval(), expected)


def test_scalar_constant_takes_theanos_dtypes():
    # theano.scalar.constant: autocast as T.constant (56 int8, 56.0 floatX), dtype= forced
    assert symnb.scalar.constant(56).dtype == "int8"
    assert symnb.scalar.constant(300).dtype == "int16"
    assert symnb.scalar.constant(56.0).dtype == sn.config.floatX
    c = symnb.scalar.constant(3, name="three", dtype="float64")
    assert c.dtype == "float64" and c.name == "three" and c.ndim == 0
    np.testing.assert_array_equal(T.tensor_from_scalar(symnb.scalar.constant(56)).eval(), np.int8(56))
    with pytest.raises(TypeError, match="not a scalar"):
        symnb.scalar.constant([1, 2])


@pytest.mark.parametrize("offset, axis1, axis2", [(0, 0, 1), (1, 0, 1), (-1, 0, 1), (0, 1, 0),
                                                  (-2, 1, 0), (7, 0, 1), (1, 2, 0)])
def test_diagonal(offset, axis1, axis2):
    value = RNG.normal(size=(3, 4, 5))
    check_paths(lambda x: T.diagonal(x, offset, axis1, axis2), [value],
                lambda v: np.diagonal(v, offset, axis1, axis2).copy())
    if axis1 < 2 and axis2 < 2:
        check_paths(lambda x: x.diagonal(offset, axis1, axis2), [M64],
                    lambda v: np.diagonal(v, offset, axis1, axis2).copy())


def test_theanos_methods_of_tensor_functions():
    # Theano's TensorVariable methods: sort, argsort, ptp, trace, choose, conj/conjugate
    check_paths(lambda x: x.argsort(), [M64], lambda v: v.argsort())
    check_paths(lambda x: x.argsort(0), [M64], lambda v: v.argsort(0))
    check_paths(lambda x: x.sort(0), [M64], lambda v: np.sort(v, 0))
    check_paths(lambda x: x.ptp(1), [M64], lambda v: np.ptp(v, 1))
    check_paths(lambda x: x.trace(), [M64], lambda v: np.asarray(v.trace()))
    z = (M64 + 1j * M64[::-1]).astype("complex128")
    zm = T.zmatrix("z")
    for out in (zm.conj(), zm.conjugate()):
        np.testing.assert_array_equal(sn.function([zm], out)(z), np.conj(z))
    index = np.array([0, 1, 0, 1], "int64")
    check_paths(lambda i, c: i.choose(c), [index, M64[:2]], lambda i, c: i.choose(c))


def test_round_half_away_from_zero_vec_is_theanos_reference():
    from symnb.scalar.basic import round_half_away_from_zero_vec

    for dtype in ("float32", "float64"):
        a = np.array([-2.5, -1.5, -0.5, -0.2, 0.0, 0.5, 1.5, 2.5, 3.7], dtype)
        got = round_half_away_from_zero_vec(a)
        assert got.dtype == dtype
        np.testing.assert_array_equal(got, np.copysign(np.floor(np.abs(a) + 0.5), a))
    check_paths(T.round_half_away_from_zero, [np.array([-2.5, 0.5, 1.5, 2.4])],
                lambda v: round_half_away_from_zero_vec(v))


def test_divmod_and_transpose_name():
    # Theano: divmod(x, y) is (x // y, x % y), Python's; x.T of a named x is named 'x.T'
    a = np.array([0, 1, 0, 1, -1, 1, -1, 1, -1, 5, -5, 5, -5], "float32")
    b = np.array([1, 1, -1, -1, -1, 2, 2, -2, -2, 3, 3, -3, -3], "float32")
    check_paths(lambda x, y: divmod(x, y)[0], [a, b], lambda x, y: np.divmod(x, y)[0])
    check_paths(lambda x, y: divmod(x, y)[1], [a, b], lambda x, y: np.divmod(x, y)[1])
    check_paths(lambda y: divmod(7, y)[1], [b], lambda y: np.mod(np.int8(7), y))
    m = T.matrix("x1")
    assert m.T.name == "x1.T" and T.transpose(m).name == "x1.T"
    assert T.transpose(m, (0, 1)).name is None and T.matrix().T.name is None
