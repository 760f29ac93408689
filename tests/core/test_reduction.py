"""Reductions: NumPy perform path and XLA path against NumPy itself, dtypes included."""

import warnings

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.graph.errors import TestValueError
from tests.reference import check_paths, small_values

AXES = [None, 0, -1, (0, 2), (-1, 0), ()]
DTYPES = ["float32", "float64", "int32"]


def _values(rng, shape, dtype):
    return small_values(rng, shape, dtype, bound=3)


# name, NumPy function; each symnb function has NumPy's name and signature
ACCUMULATING = ["sum", "prod", "mean"]
PLAIN = ["max", "min", "any", "all"]
MOMENTS = ["var", "std"]


@pytest.mark.parametrize("dtype", DTYPES + ["bool"])
@pytest.mark.parametrize("name", ACCUMULATING + PLAIN + MOMENTS)
def test_axes_and_keepdims(name, dtype, rng):
    fn, ref = getattr(T, name), getattr(np, name)
    x = _values(rng, (2, 3, 4), dtype)
    for axis in AXES:
        for keepdims in (False, True):
            check_paths(lambda v: fn(v, axis, keepdims=keepdims), [x],
                        lambda v: ref(v, axis=axis, keepdims=keepdims))


@pytest.mark.parametrize("name", ACCUMULATING + PLAIN + MOMENTS)
def test_methods_match_functions(name, rng):
    x = _values(rng, (3, 4), "float64")
    check_paths(lambda v: getattr(v, name)(axis=-1, keepdims=True), [x],
                lambda v: getattr(v, name)(axis=-1, keepdims=True))
    check_paths(lambda v: getattr(v, name)(), [x], lambda v: getattr(v, name)())


@pytest.mark.parametrize("name", ["sum", "prod", "mean", "any", "all", "var", "std"])
def test_edge_shapes(name):
    fn, ref = getattr(T, name), getattr(np, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # mean/var of empty slices are NaN
        for shape, axis in [((0, 3), 0), ((0, 3), 1), ((0, 3), None), ((1, 1), None), ((1,), 0),
                            ((), None), ((), ())]:
            x = np.full(shape, 1.5, dtype="float64")
            check_paths(lambda v: fn(v, axis), [x], lambda v: ref(v, axis=axis))


@pytest.mark.parametrize("name", ["max", "min", "argmax", "argmin"])
def test_scalar_and_size_one_inputs(name):
    fn, ref = getattr(T, name), getattr(np, name)
    for x in [np.float32(2.5), np.full((1, 1), 7, "int32")]:
        for keepdims in (False, True):
            check_paths(lambda v: fn(v, keepdims=keepdims), [x], lambda v: ref(v, keepdims=keepdims))


def test_output_dtypes():
    # NumPy 2 on 64-bit Linux: (u)int sums and products accumulate in (u)int64; bool too.
    cases = {
        ("sum", "int32"): "int64", ("sum", "int8"): "int64", ("sum", "uint8"): "uint64",
        ("sum", "bool"): "int64", ("sum", "float32"): "float32", ("prod", "int16"): "int64",
        ("mean", "int32"): "float64", ("mean", "bool"): "float64", ("mean", "float32"): "float32",
        ("mean", "float16"): "float16", ("var", "int64"): "float64", ("std", "float32"): "float32",
        ("max", "int8"): "int8", ("min", "bool"): "bool", ("argmax", "float32"): "int64",
        ("argmin", "int8"): "int64", ("any", "float32"): "bool", ("all", "int32"): "bool",
    }
    for (name, dtype), expected in cases.items():
        out = getattr(T, name)(T.vector("x", dtype=dtype))
        assert out.dtype == expected, (name, dtype, out.dtype)
        assert expected == str(getattr(np, name)(np.ones(3, dtype)).dtype)


def test_int_and_bool_inputs_on_both_paths(rng):
    for dtype in ["int8", "uint8", "bool", "int64"]:
        x = _values(rng, (3, 5), dtype)
        for name in ["sum", "prod", "mean", "var", "max", "argmax"]:
            fn, ref = getattr(T, name), getattr(np, name)
            check_paths(lambda v: fn(v, axis=0), [x], lambda v: ref(v, axis=0))


# Theano's default accumulators (CAReduceDtype._acc_dtype), written out again here.
THEANO_ACC = {"int8": "int64", "int16": "int64", "int32": "int64", "bool": "int64",
              "uint8": "uint64", "float16": "float32", "float32": "float64", "complex64": "complex128"}


def _theano_sum(fn, v, axis, dtype=None, acc_dtype=None):
    """Theano's Sum/Prod: accumulate in acc_dtype, then cast to the output dtype."""
    acc = acc_dtype or THEANO_ACC.get(str(v.dtype), str(v.dtype))
    out = dtype or str(fn(np.zeros(1, v.dtype)).dtype)
    return np.asarray(fn(v, axis=axis, dtype=acc)).astype(out)


def _theano_mean(v, axis, dtype=None, acc_dtype=None):
    """Theano's mean: the sum in ``dtype`` divided by the length in float32 or float64
    (float32 for a float16/float32/complex64 sum); integers come back as float64."""
    summed = _theano_sum(np.sum, v, axis, dtype or ("float32" if v.dtype == "float16" else None), acc_dtype)
    lengths = "float32" if summed.dtype in ("float16", "float32", "complex64") else "float64"
    result = summed.astype(np.result_type(summed.dtype, lengths)) / np.asarray(v.shape[axis], lengths)
    return result.astype("float16") if (dtype or v.dtype) == "float16" else result


def test_dtype_argument(rng):
    # Theano's rule: the output dtype is dtype, the accumulator still Theano's default
    # (a float32 input summed to int32 is summed in float64, then truncated).
    x32 = _values(rng, (4, 5), "float32")
    i8 = _values(rng, (4, 5), "int8")
    references = {"sum": lambda v, d: _theano_sum(np.sum, v, 1, d), "prod": lambda v, d: _theano_sum(np.prod, v, 1, d),
                  "mean": lambda v, d: _theano_mean(v, 1, d)}
    for name in ACCUMULATING:
        fn = getattr(T, name)
        for x, dtype in [(x32, "float64"), (i8, "int8"), (i8, "float32"), (x32, "int32"), (i8, "int16")]:
            check_paths(lambda v: fn(v, axis=1, dtype=dtype), [x], lambda v: references[name](v, dtype))
            expected = "float64" if name == "mean" and np.dtype(dtype).kind in "biu" else dtype
            assert fn(T.matrix("m", dtype=str(x.dtype)), dtype=dtype).dtype == expected


@pytest.mark.parametrize("dtype", ["float16", "float32", "int8", "uint8", "bool", "complex64", "float64"])
def test_theano_default_acc_dtype(dtype):
    # Theano's defaults, in the node's op: a float32 sum accumulates in float64.
    m = T.matrix("m", dtype=dtype)
    for name in ACCUMULATING:
        assert getattr(m, name)(axis=0).owner.op.acc_dtype == THEANO_ACC.get(dtype, dtype), name


def test_float32_reductions_accumulate_in_float64():
    # 1e8 + 1 - 1e8 is 0 in float32, 1 in float64 (Theano's test_reduce_precision).
    x = np.asarray([1e8, 1, -1e8], dtype="float32")
    check_paths(T.sum, [x], lambda v: np.float32(1))
    check_paths(T.mean, [x], lambda v: np.float32(1) / np.float32(3))
    check_paths(lambda v: T.sum(v, acc_dtype="float32"), [x], lambda v: np.sum(v))  # as asked
    assert np.sum(x) == 0  # (NumPy's float32 sum loses it)


@pytest.mark.parametrize("name", ACCUMULATING)
def test_acc_dtype_argument(name, rng):
    # The int8 accumulator wraps, as Theano's (products of small values wrap already;
    # kept exact in float32)
    x = _values(rng, (4, 5), "int8") * (1 if name == "prod" else 20)
    references = {"sum": lambda v, a: _theano_sum(np.sum, v, 1, acc_dtype=a),
                  "prod": lambda v, a: _theano_sum(np.prod, v, 1, acc_dtype=a),
                  "mean": lambda v, a: _theano_mean(v, 1, acc_dtype=a)}
    for acc in ["int8", "int16", "float32", "float64"]:
        out = getattr(T, name)(T.matrix("m", dtype="int8"), axis=1, acc_dtype=acc)
        assert out.owner.op.acc_dtype == acc
        with np.errstate(all="ignore"):
            check_paths(lambda v: getattr(T, name)(v, axis=1, acc_dtype=acc), [x], lambda v: references[name](v, acc))
    with pytest.raises(TypeError, match="precision would be lost"):
        getattr(T, name)(T.matrix("m", dtype="int32"), acc_dtype="int8")


def test_theano_mean_dtypes():
    # Theano's mean: integers in float64 whatever dtype says; float16 stays float16.
    m = T.matrix("m", dtype="int32")
    assert [m.mean(dtype=d).dtype for d in ["bool", "int8", "float32", "float64"]] == \
        ["float64", "float64", "float32", "float64"]
    h = T.matrix("h", dtype="float16")
    assert (h.mean().dtype, h.mean(dtype="float32").dtype) == ("float16", "float32")
    x = np.arange(12, dtype="float16").reshape(3, 4) / 7
    check_paths(lambda v: T.mean(v, axis=1), [x], lambda v: _theano_mean(v, 1))


@pytest.mark.parametrize("ddof", [0, 1, 2])
def test_var_std_ddof(ddof, rng):
    x = _values(rng, (3, 4), "float64")
    for name in MOMENTS:
        fn, ref = getattr(T, name), getattr(np, name)
        for axis in [None, 0, (0, 1), -1]:
            check_paths(lambda v: fn(v, axis, ddof=ddof), [x], lambda v: ref(v, axis=axis, ddof=ddof))
            check_paths(lambda v: getattr(v, name)(axis, keepdims=True, ddof=ddof), [x],
                        lambda v: ref(v, axis=axis, keepdims=True, ddof=ddof))


@pytest.mark.parametrize("dtype", DTYPES + ["bool"])
@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_argmax_argmin(name, dtype, rng):
    fn, ref = getattr(T, name), getattr(np, name)
    x = _values(rng, (3, 4, 2), dtype)  # small integers: ties, where the first index wins
    for axis in [None, 0, 1, -1]:
        for keepdims in (False, True):
            check_paths(lambda v: fn(v, axis, keepdims=keepdims), [x],
                        lambda v: ref(v, axis=axis, keepdims=keepdims))
            check_paths(lambda v: getattr(v, name)(axis, keepdims=keepdims), [x],
                        lambda v: ref(v, axis=axis, keepdims=keepdims))


def test_nan_propagates_like_numpy():
    x = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, 6.0]])
    for name in ["max", "min", "argmax", "argmin", "sum"]:
        check_paths(lambda v: getattr(T, name)(v, axis=1), [x], lambda v: getattr(np, name)(v, axis=1))


def test_seed_max_of_int64_matrix(capsys):
    data = T.matrix("data", dtype="int64")
    data.tag.test_value = np.random.randint(0, 10, size=(100, 100))
    maximum = data.max()
    print(maximum.tag.test_value)
    assert capsys.readouterr().out == "9\n"
    assert maximum.dtype == "int64"


def test_static_shapes():
    x = T.tensor("float32", shape=(None, 3, 4), name="x")
    assert T.sum(x, axis=1).type.shape == (None, 4)
    assert T.sum(x, axis=(0, -1), keepdims=True).type.shape == (1, 3, 1)
    assert x.max().type.shape == ()
    assert x.mean(axis=-1).type.shape == (None, 3)
    assert T.argmax(x, axis=1).type.shape == (None, 4)
    assert T.argmax(x, keepdims=True).type.shape == (1, 1, 1)
    assert T.argmax(x).type.shape == ()
    assert T.any(x, axis=()).type.shape == (None, 3, 4)


def test_infer_shape():
    x = T.tensor("float32", shape=(None, 3, 4), name="x")
    for out, expected in [(T.sum(x, axis=1), (7, 4)), (T.var(x, (0, 2), keepdims=True), (1, 3, 1)),
                          (T.argmax(x), ()), (T.argmin(x, 2, keepdims=True), (7, 3, 1))]:
        assert out.owner.op.infer_shape(out.owner, [(7, 3, 4)]) == [expected]


def test_bad_axes_raise_at_build_time():
    x = T.matrix("x")
    with pytest.raises(np.exceptions.AxisError, match="axis 2 is out of bounds for 'x'"):
        x.sum(axis=2)
    with pytest.raises(np.exceptions.AxisError, match="axis -3"):
        T.mean(x, axis=(0, -3))
    with pytest.raises(ValueError, match="duplicate"):
        T.max(x, axis=(1, -1))
    with pytest.raises(TypeError, match="axis must be"):
        T.sum(x, axis=1.5)


def test_empty_max_raises_at_build_time_with_static_shape():
    x = T.matrix("x", shape=(0, 3))
    with pytest.raises(ValueError, match="max of 'x' \\(shape \\(0, 3\\)\\) over axis 0, which has length 0"):
        x.max(axis=0)
    assert x.max(axis=1).type.shape == (0,)  # no empty axis is reduced: fine, as in NumPy
    with pytest.raises(ValueError, match="argmin of 'x'"):
        T.argmin(x)


def test_empty_max_raises_at_test_value_time():
    x = T.matrix("x", test_value=np.zeros((0, 3), "float32"))
    for name in ["max", "min", "argmax", "argmin"]:
        with pytest.raises(TestValueError, match=f"{name} of 'x' \\(shape \\(0, 3\\)\\) over axis 0"):
            getattr(T, name)(x)
        assert getattr(T, name)(x, axis=1).test_value.shape == (0,)


def test_empty_max_raises_when_compiled():
    x = T.matrix("x", test_value=np.ones((2, 3), "float32"))
    f = sn.function([x], [x.max(axis=0), x.argmax(axis=0)])
    assert [r.shape for r in f(np.ones((2, 0), "float32"))] == [(0,), (0,)]
    message = "max of 'x' \\(shape \\(0, 3\\)\\) over axis 0, which has length 0(.|\\n)*#0 x "
    with pytest.raises(sn.GraphRuntimeError, match=message):
        f(np.zeros((0, 3), "float32"))


def test_display_names():
    x = T.tensor3("x")
    assert x.sum(axis=1).owner.op.display_name() == "Sum{axis=(1,)}"
    assert x.max(keepdims=True).owner.op.display_name() == "Max{axis=(0, 1, 2), keepdims}"
    assert x.var(0, ddof=1).owner.op.display_name() == "Var{axis=(0,), ddof=1}"
    assert x.mean(dtype="float64").owner.op.display_name() == "Mean{axis=(0, 1, 2), dtype=float64}"
    # Theano's acc_dtype shows when asked for, not when it is the default
    assert x.sum(acc_dtype="float64").owner.op.display_name() == "Sum{axis=(0, 1, 2), acc_dtype=float64}"
    assert x.argmax().owner.op.display_name() == "Argmax{axis=None}"
    assert x.sum(axis=-1).owner.op == T.sum(x, axis=2).owner.op


def _theano_arg_reduce(fn, value, axes):
    """Theano's Argmax.perform over several axes: the other axes in front, the reduced
    ones (sorted) flattened into one, reduced along it (written here from Theano's code)."""
    axes = sorted(a % value.ndim for a in axes)
    kept = [d for d in range(value.ndim) if d not in axes]
    moved = np.transpose(value, kept + axes)
    return fn(moved.reshape(moved.shape[:len(kept)] + (int(np.prod(moved.shape[len(kept):])),)), axis=-1)


@pytest.mark.parametrize("axes", [[0, 2], [2, 0], [1, -1], [0, 1], [0, 1, 2], [1]])
@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_arg_reduce_over_several_axes_as_theano(name, axes):
    value = np.random.default_rng(5).normal(size=(2, 3, 4)).astype("float32")
    fn = getattr(np, name)
    check_paths(lambda x: getattr(T, name)(x, axes), [value],
                lambda v: _theano_arg_reduce(fn, v, axes))
    expected = _theano_arg_reduce(fn, value, axes)
    kept_dims = tuple(1 if d in [a % 3 for a in axes] else n for d, n in enumerate(value.shape))
    check_paths(lambda x: getattr(T, name)(x, axes, keepdims=True), [value],
                lambda v: expected.reshape(kept_dims))


def test_arg_reduce_over_several_axes_of_an_empty_kept_axis():
    value = np.zeros((0, 2, 3), "float32")
    check_paths(lambda x: T.argmax(x, [1, 2]), [value], lambda v: np.zeros((0,), "int64"))


def test_var_std_take_theanos_signature_and_corrected():
    # Theano: var(input, axis=None, ddof=0, keepdims=False, corrected=False); the corrected
    # two-pass form subtracts (sum of centered)**2 / ((N - ddof) * N), written here in NumPy.
    value = np.random.default_rng(9).normal(size=(3, 4, 5)) * 3 + 100
    check_paths(lambda x: T.var(x, 1, 1), [value], lambda v: np.var(v, 1, ddof=1))
    check_paths(lambda x: x.std(2, 1, True), [value], lambda v: np.std(v, 2, ddof=1, keepdims=True))

    def corrected(v, axis, ddof):
        centered = v - v.mean(axis, keepdims=True)
        n = v.shape[axis]
        if ddof == 0:
            return np.var(v, axis) - centered.mean(axis) ** 2
        return np.var(v, axis, ddof=ddof) - centered.sum(axis) ** 2 / ((n - ddof) * n)

    for axis, ddof in [(0, 0), (2, 1), (1, 2)]:
        check_paths(lambda x: T.var(x, axis, ddof, corrected=True), [value],
                    lambda v: corrected(v, axis, ddof))
        check_paths(lambda x: x.std(axis, ddof, corrected=True), [value],
                    lambda v: np.sqrt(corrected(v, axis, ddof)))
    with pytest.raises(ValueError, match="keepdims is the fourth argument"):
        T.var(T.dmatrix("m"), 0, True)


def test_mean_divides_exactly_in_the_compiled_program():
    # Theano's float32 mean: the sum divided by each length in turn, each an IEEE division
    # (XLA alone multiplies by the rounded reciprocal: 600 / 20 / 30 gave 1.0000001)
    x = np.ones((20, 30), dtype="float32")
    m = T.matrix("m")
    assert sn.function([m], T.mean(m))(x) == np.float32(1)
    check_paths(T.mean, [x * 3], lambda v: np.float32(3))
