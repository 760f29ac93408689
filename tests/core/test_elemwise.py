"""Every elementwise op: NumPy perform path and XLA path against NumPy itself."""

import math

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from tests.reference import check_paths, small_values, theano_true_divide

_erf = np.vectorize(math.erf, otypes=[np.float64])


def _float_dtype(x):
    """Theano's upgrade_to_float: 8 and 16-bit integers and bools compute in float32,
    32 and 64-bit in float64 (NumPy's np.exp gives float16 for 8 bits)."""
    if x.dtype.kind in "biu":
        return np.dtype(np.float32 if x.dtype.itemsize <= 2 else np.float64)
    return x.dtype


def _theano_operand(v):
    """A Python number as the constant Theano makes of it (theano/scalar/basic.py's
    NumpyAutocaster, floatX float32): an int the smallest int dtype holding it, a float
    float32; anything else as it is."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return v
    if isinstance(v, float):
        return np.float32(v)
    for dtype in ("int8", "int16", "int32", "int64"):
        if np.iinfo(dtype).min <= v <= np.iinfo(dtype).max:
            return np.asarray(v, dtype)
    return np.asarray(v, "uint64")


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x.astype(np.float64)))


def _upgraded_to_float(np_fn):
    """``np_fn`` on integers upgraded to a float as Theano's ``upgrade_to_float`` does
    (8 and 16 bits to float32, wider to float64): NumPy 2 keeps floor/ceil integer."""
    def ref(x):
        if x.dtype.kind in "biu":
            x = x.astype("float32" if x.dtype.itemsize <= 2 else "float64")
        return np_fn(x)
    return ref


# name, symnb function, NumPy reference (result cast to NumPy's dtype for the inputs)
UNARY = [
    ("neg", T.neg, np.negative), ("abs", T.abs, np.abs), ("sign", T.sign, np.sign),
    ("round", T.round, np.round), ("floor", T.floor, _upgraded_to_float(np.floor)),
    ("ceil", T.ceil, _upgraded_to_float(np.ceil)),
    ("exp", T.exp, np.exp), ("log", T.log, np.log), ("log1p", T.log1p, np.log1p),
    ("expm1", T.expm1, np.expm1), ("sqrt", T.sqrt, np.sqrt), ("square", T.square, np.square),
    ("sin", T.sin, np.sin), ("cos", T.cos, np.cos), ("tanh", T.tanh, np.tanh),
    ("sigmoid", T.sigmoid, lambda x: _sigmoid(x).astype(_float_dtype(x))),
    ("softplus", T.softplus, lambda x: np.logaddexp(0, x.astype(np.float64)).astype(_float_dtype(x))),
    ("erf", T.erf, lambda x: _erf(x).astype(_float_dtype(x))),
    ("identity", T.identity, lambda x: x.copy()),
    ("isnan", T.isnan, np.isnan), ("isinf", T.isinf, np.isinf),
]
BINARY = [
    ("add", T.add, np.add), ("sub", T.sub, np.subtract), ("mul", T.mul, np.multiply),
    ("true_div", T.true_div, theano_true_divide), ("floor_div", T.floor_div, np.floor_divide),
    ("mod", T.mod, np.mod), ("pow", T.pow, np.power), ("maximum", T.maximum, np.maximum),
    ("minimum", T.minimum, np.minimum), ("eq", T.eq, np.equal), ("neq", T.neq, np.not_equal),
    ("lt", T.lt, np.less), ("le", T.le, np.less_equal), ("gt", T.gt, np.greater),
    ("ge", T.ge, np.greater_equal),
]
LOGIC = [("and_", T.and_, np.bitwise_and), ("or_", T.or_, np.bitwise_or),
         ("xor", T.xor, np.bitwise_xor)]
DTYPES = ["float32", "float64", "int32"]
SHAPES = [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1, 3), (4, 1)), ((), (5,)), ((0, 3), (3,)), ((1,), (1,))]


def _positive(rng, shape, dtype):
    if np.dtype(dtype).kind in "iu":
        return rng.integers(1, 5, size=shape).astype(dtype)
    return rng.uniform(0.2, 2.0, size=shape).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name,fn,ref", UNARY, ids=[u[0] for u in UNARY])
def test_unary(name, fn, ref, dtype, rng):
    for shape in [(3, 4), (), (0,), (1, 1)]:
        x = _positive(rng, shape, dtype)
        if name in ("neg", "abs", "sign", "round", "floor", "ceil", "sin", "tanh") and x.dtype.kind == "f":
            x = (x - 1.1).astype(dtype)  # negative values and halves too
        check_paths(fn, [x], ref)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name,fn,ref", BINARY, ids=[b[0] for b in BINARY])
def test_binary_broadcasting(name, fn, ref, dtype, rng):
    for shape_a, shape_b in SHAPES:
        a, b = _positive(rng, shape_a, dtype), _positive(rng, shape_b, dtype)
        check_paths(fn, [a, b], ref)


@pytest.mark.parametrize("name,fn,ref", LOGIC, ids=[b[0] for b in LOGIC])
@pytest.mark.parametrize("dtype", ["bool", "int8", "int32"])
def test_logic(name, fn, ref, dtype, rng):
    a = rng.integers(0, 2 if dtype == "bool" else 100, size=(3, 4)).astype(dtype)
    b = rng.integers(0, 2 if dtype == "bool" else 100, size=(4,)).astype(dtype)
    check_paths(fn, [a, b], ref)
    if dtype == "bool":
        check_paths(T.invert, [a], np.invert)
        check_paths(lambda x: ~x, [a], np.invert)


def test_mixed_dtypes_follow_numpy(rng):
    pairs = [("int32", "float32"), ("int8", "uint8"), ("float32", "float64"), ("bool", "int16"),
             ("int64", "float16")]
    for da, db in pairs:
        a, b = _positive(rng, (2, 3), da), _positive(rng, (3,), db)
        for fn, ref in [(T.add, np.add), (T.true_div, theano_true_divide), (T.lt, np.less)]:
            check_paths(fn, [a, b], ref)


def test_python_numbers_take_theanos_constant_dtype(rng):
    # A Python number is a constant of Theano's dtype (an int the smallest int dtype
    # holding it, a float floatX), then promoted as arrays are.
    x32 = rng.uniform(size=(3,)).astype("float32")
    assert (T.vector("x") * 2.0).dtype == "float32"
    assert (T.vector("x", dtype="int8") + 1).dtype == "int8"
    assert (T.vector("x", dtype="int32") * 2.5).dtype == "float64"  # int32 with float32
    assert (T.vector("x", dtype="bool") + 1).dtype == "int8"
    assert (T.vector("x", dtype="int8") + 300).dtype == "int16"
    assert (T.vector("x", dtype="uint8") + 1).dtype == "int16"
    check_paths(lambda x: 2.0 * x + 1, [x32], lambda x: 2.0 * x + 1)
    x8 = np.array([-128, 0, 127], "int8")
    check_paths(lambda x: x + 300, [x8], lambda x: x + np.int16(300))


def test_switch_clip_and_cast(rng):
    cond = rng.integers(0, 2, size=(3, 4)).astype(bool)
    a = rng.normal(size=(3, 4)).astype("float32")
    b = rng.normal(size=(4,)).astype("float64")
    check_paths(T.switch, [cond, a, b], np.where)
    check_paths(lambda x: T.switch(x > 0, x, 0.0), [a], lambda x: np.where(x > 0, x, np.float32(0)))
    check_paths(lambda x: T.clip(x, -0.5, 0.5), [a], lambda x: np.clip(x, np.float32(-0.5), np.float32(0.5)))
    for dtype in ["int32", "float64", "bool", "int8", "float16"]:
        check_paths(lambda x: T.cast(x, dtype), [a * 3], lambda x: x.astype(dtype))
        check_paths(lambda x: x.astype(dtype), [a * 3], lambda x: x.astype(dtype))


# (condition dtype, a, b): a or b a dtype (a symbolic input of it) or a Python scalar.
SWITCH_OPERANDS = [
    ("int32", "float32", 0.5), ("bool", 1, 2), ("int32", 1, 2), ("bool", "int8", 1),
    ("float32", "int8", 1), ("int32", 0.5, "float32"), ("float64", "float32", 2),
    ("bool", "int16", "uint8"), ("int8", True, 2), ("bool", "float16", 1.5),
]


@pytest.mark.parametrize("fn", [T.switch, T.where], ids=["switch", "where"])
@pytest.mark.parametrize("cond_dtype, a, b", SWITCH_OPERANDS, ids=str)
def test_switch_condition_takes_no_part_in_the_dtype(cond_dtype, a, b, fn, rng):
    # np.where promotes its branches only: switch(int32_cond, x_float32, 0.5) is float32,
    # switch(c, 1, 2) int8 (Theano's constants).
    cond = rng.integers(0, 2, size=(3, 4)).astype(cond_dtype)
    operands = [a, b]
    tensors = [small_values(rng, (3, 4), v) for v in operands if isinstance(v, str)]

    def fill(values):
        values = iter(values)
        return [next(values) if isinstance(v, str) else v for v in operands]

    check_paths(lambda c, *t: fn(c, *fill(t)), [cond, *tensors],
                lambda c, *t: np.where(c, *map(_theano_operand, fill(t))))


def test_clip_bounds_promote_like_numpy(rng):
    # Unlike switch's condition, clip's bounds take part (np.clip is a ufunc).
    x8, x32 = small_values(rng, (5,), "int8"), small_values(rng, (5,), "float32")
    check_paths(lambda x: T.clip(x, 0, 2), [x8], lambda x: np.clip(x, np.int8(0), np.int8(2)))
    # A Python float is floatX (Theano's rule; NumPy 2 gives float64): the bounds here
    # are float32 constants.
    check_paths(lambda x: T.clip(x, -0.5, 0.5), [x8],
                lambda x: np.clip(x, np.float32(-0.5), np.float32(0.5)))
    # An int bound is int8 (Theano's rule): uint8 with int8 and float32 is float32.
    u8 = np.array([0, 3, 200], dtype="uint8")
    check_paths(lambda x: T.clip(x, 0.0, -1), [u8],
                lambda x: np.clip(x, np.float32(0.0), np.int8(-1)))
    check_paths(lambda x: T.clip(x, 0, 1), [x32], lambda x: np.clip(x, 0, 1))
    bound = small_values(rng, (5,), "int32")
    check_paths(lambda x, lo: T.clip(x, lo, 3), [x32, bound], lambda x, lo: np.clip(x, lo, 3))


def _in_exp_dtype(x):
    return x.astype(_float_dtype(x))


def _sigmoid_in_exp_dtype(x):
    with np.errstate(over="ignore"):  # exp(128) is inf in float16: the result is 0
        return 1 / (1 + np.exp(-_in_exp_dtype(x)))


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int16"])
def test_sigmoid_and_softplus_of_bools_and_small_integers(dtype, rng):
    # Theano's upgrade_to_float: bool, int8, uint8 and int16 give float32; computed in
    # that dtype (-x is no bool operation, abs(int8(-128)) wraps).
    x = small_values(rng, (3, 4), dtype)
    if dtype == "int8":
        x[0, :2] = [-128, 127]
    check_paths(T.sigmoid, [x], _sigmoid_in_exp_dtype)
    check_paths(T.softplus, [x], lambda x: np.logaddexp(0, _in_exp_dtype(x)))


def test_static_shapes_broadcast():
    x = T.matrix("x", shape=(None, 3))
    y = T.vector("y", shape=(3,))
    assert (x + y).type.shape == (None, 3)
    assert (T.matrix("a", shape=(1, 4)) * T.matrix("b", shape=(5, 1))).type.shape == (5, 4)
    with pytest.raises(ValueError, match="mis-match"):
        T.vector("a", shape=(2,)) + T.vector("b", shape=(3,))


@pytest.mark.parametrize("build, reference", [
    (lambda u: T.true_div(-2, u), lambda u: theano_true_divide(np.int8(-2), u)),
    (lambda u: u / 300, lambda u: theano_true_divide(u, np.int16(300))),
    (lambda u: T.lt(u, -1), lambda u: np.less(u, np.int8(-1))),
    (lambda u: T.ge(u, 300), lambda u: np.greater_equal(u, np.int16(300))),
    (lambda u: T.eq(u, 2**63 + 5), lambda u: np.equal(u, np.uint64(2**63 + 5))),
    (lambda u: T.clip(u, -2, 5), lambda u: np.clip(u, np.int8(-2), np.int8(5))),
    (lambda u: T.clip(u, 3, 300), lambda u: np.clip(u, np.int8(3), np.int16(300))),
    (lambda u: u + (-2), lambda u: u + np.int8(-2)),
    (lambda u: T.maximum(u, -1), lambda u: np.maximum(u, np.int8(-1))),
    (lambda u: u // 300, lambda u: u // np.int16(300)),
])
def test_python_ints_outside_the_dtype(build, reference):
    # Theano's rule: the int is a constant of the smallest int dtype holding it, and the
    # operation promotes (uint8 with int8 is int16): no refusal, no wrap-around.
    values = np.array([0, 4, 200, 255], "uint8")
    check_paths(build, [values], reference)


def test_shape_of_a_broadcast_against_an_empty_axis():
    # A reshape to (1, 1, 1) gives its length 1 as a symbolic entry of its shape vector;
    # broadcast against a length-0 axis the result's length is 0, not max(1, 0) = 1
    # (found by tests/fuzz: flatten of such a product asked for a reshape to (1, 1, 2)).
    x = T.matrix("x", dtype="bool", shape=(None, 2))
    w = T.matrix("w", dtype="int8", shape=(None, 2))
    product = T.mul(T.constant(np.int8(3)).reshape((1, 1, 1)), T.matmul(x, w))
    f = sn.function([x, w], [T.flatten(product, 3), product.shape])
    for rows in (0, 3):
        xv, wv = np.ones((rows, 2), bool), np.arange(4, dtype="int8").reshape(2, 2)
        expected = np.int8(3) * np.matmul(xv, wv)[None]
        flat, shape = f(xv, wv)
        np.testing.assert_array_equal(flat, expected)
        np.testing.assert_array_equal(shape, expected.shape)
