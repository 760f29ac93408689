"""Canonicalization: each rewrite fires on a small graph (seen in the optimized graph and
its history) and the compiled result equals the unoptimized graph's NumPy value."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.compile import Mode
from tests.rewriting_helpers import applied, compile_and_check, op_names

pytestmark = pytest.mark.filterwarnings("error::symnb.core.rewriting.RewriteFailureWarning")

DTYPES = ["float32", "float64", "int32"]


def _values(rng, shape, dtype, low=-3.0, high=3.0):
    if np.dtype(dtype).kind in "iu":
        return rng.integers(1, 6, size=shape).astype(dtype)
    return rng.uniform(low, high, size=shape).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("build, rewrite, gone", [
    (lambda x: x * 1, "local_mul_one", "Mul"),
    (lambda x: 1 * x, "local_mul_one", "Mul"),
    (lambda x: x + 0, "local_add_zero", "Add"),
    (lambda x: 0 + x, "local_add_zero", "Add"),
    (lambda x: x - 0, "local_sub_zero", "Sub"),
    (lambda x: x / 1, "local_div_one", "TrueDiv"),
    (lambda x: -(-x), "local_neg_neg", "Neg"),
], ids=["x*1", "1*x", "x+0", "0+x", "x-0", "x/1", "--x"])
def test_neutral_operations_disappear(build, rewrite, gone, dtype, rng):
    f = compile_and_check(build, [_values(rng, (3, 4), dtype)])
    assert rewrite in applied(f.maker.fgraph)
    assert gone not in op_names(f.maker.fgraph)


def test_a_neutral_constant_that_broadcasts_stays(rng):
    x = _values(rng, (1, 3), "float32")
    f = compile_and_check(lambda v: v * np.ones((2, 1, 1), "float32"), [x])
    assert "local_mul_one" not in applied(f.maker.fgraph)
    assert f(x).shape == (2, 1, 3)
    f = compile_and_check(lambda v: v + np.zeros(3, "float32"), [_values(rng, (1,), "float32")])
    assert f(np.ones(1, "float32")).shape == (3,)


def test_a_widening_neutral_constant_becomes_a_cast(rng):
    x = _values(rng, (5,), "int32")
    f = compile_and_check(lambda v: v * 1.0, [x])  # int32 * float -> float64, as NumPy
    assert f(x).dtype == np.float64 and op_names(f.maker.fgraph) == ["Cast"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_x_over_x_compiles_without_a_division(dtype, rng):
    for shape in [(), (4,), (2, 3), (0, 3), (100, 3)]:
        f = compile_and_check(lambda v: v / v, [_values(rng, shape, dtype)])
        assert "TrueDiv" not in op_names(f.maker.fgraph)
        assert "local_div_self" in applied(f.maker.fgraph)


def test_x_over_x_of_a_scalar_is_the_constant_one():
    # The seed's "accessing a function's fgraph": debugprint(f.maker.fgraph.outputs[0]).
    s = T.scalar()
    f = sn.function([s], s / s)
    assert sn.printing.debugprint(f.maker.fgraph.outputs[0], file="str") == "TensorConstant{1.0} [id A]\n"
    assert f(np.float32(3)) == np.float32(1) and f(np.float32(3)).dtype == np.float32


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_exp_log_and_log_exp_cancel(dtype, rng):
    f = compile_and_check(lambda v: T.exp(T.log(v)), [_values(rng, (4,), dtype, 0.1, 3)])
    assert not {"Exp", "Log"} & set(op_names(f.maker.fgraph))
    assert "local_exp_log" in applied(f.maker.fgraph)
    f = compile_and_check(lambda v: T.log(T.exp(v)), [_values(rng, (4,), dtype)])
    assert op_names(f.maker.fgraph) == [] and "local_log_exp" in applied(f.maker.fgraph)


SPECIAL = [-1.0, -0.0, 0.0, 2.5, 1e-30, np.inf, -np.inf, np.nan]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy on log(-1), log(0): the values tested
@pytest.mark.parametrize("optimizer", ["fast_run", "fast_compile", None])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_exp_log_keeps_nan_where_the_log_is_undefined(optimizer, dtype):
    # The README's example: exp(log(-1)) is NaN at every level, as in NumPy (it was -1
    # under fast_run); exp(log(-0.0)) is +0.0 since log(-0.0) is -inf.
    values = np.array(SPECIAL, dtype=dtype)
    with np.errstate(all="ignore"):
        expected = np.exp(np.log(values)) * 2
    f = compile_and_check(lambda v: T.exp(T.log(v)) * 2, [values], mode=Mode(optimizer=optimizer),
                          reference=lambda v: expected)
    result = f(values)
    numbers = ~np.isnan(expected)  # the sign of a NaN means nothing (XLA's are negative)
    np.testing.assert_array_equal(np.signbit(result[numbers]), np.signbit(expected[numbers]))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy on log(-1), log(0): the values tested
def test_exp_log_of_an_integer_is_nan_where_negative():
    values = np.array([-3, 0, 1, 7], dtype="int32")
    with np.errstate(all="ignore"):
        expected = np.exp(np.log(values))
    f = compile_and_check(lambda v: T.exp(T.log(v)), [values], reference=lambda v: expected)
    assert "local_exp_log" in applied(f.maker.fgraph)


def test_inexact_rewrites_declare_where_they_are_exact():
    from symnb.core.rewriting import algebra, specialize, stabilize

    assert algebra.local_div_self.domain.startswith("where x is finite and non-zero")
    assert not algebra.local_div_self.exact and not algebra.local_log_exp.exact
    assert algebra.local_mul_one.exact and algebra.local_mul_one.domain is None
    assert not specialize.local_pow_rsqrt.exact and specialize.local_pow_specialize.exact
    by_name = {rewrite.name: rewrite for rewrite in stabilize.REWRITES}
    assert not by_name["local_log_sigmoid"].exact and by_name["local_log_sigmoid"].domain
    assert stabilize.local_log1p.exact


def test_log_exp_of_an_integer_keeps_the_float_dtype(rng):
    x = _values(rng, (4,), "int32")
    f = compile_and_check(lambda v: T.log(T.exp(v)), [x])
    assert f(x).dtype == np.float64 and op_names(f.maker.fgraph) == ["Cast"]


def test_a_cast_through_a_rounding_float64_is_kept():
    # NumPy calls int64 -> float64 "safe", but it rounds: merging the two casts would
    # round once instead of twice and give another float32.
    x = np.array([2**60 + 2**36 + 1, 3], dtype="int64")
    expected = x.astype("float64").astype("float32")
    assert expected[0] != x.astype("float32")[0]
    f = compile_and_check(lambda v: T.cast(T.cast(v, "float64"), "float32"), [x],
                          reference=lambda v: expected)
    assert "local_cast_cast" not in applied(f.maker.fgraph)


def test_casts(rng):
    x = _values(rng, (4,), "int32")
    f = compile_and_check(lambda v: T.cast(T.cast(v, "float64"), "float32"), [x])
    assert op_names(f.maker.fgraph) == ["Cast"] and "local_cast_cast" in applied(f.maker.fgraph)
    # A lossy inner cast is kept: float64 -> int8 -> float64 truncates.
    y = _values(rng, (4,), "float64") * 50
    f = compile_and_check(lambda v: T.cast(T.cast(v, "int8"), "float64"), [y])
    assert op_names(f.maker.fgraph).count("Cast") == 2


def test_reshape_of_reshape_and_useless_reshape(rng):
    x = _values(rng, (2, 3, 4), "float32")
    f = compile_and_check(lambda v: v.reshape((6, 4)).reshape((4, 6)), [x])
    assert op_names(f.maker.fgraph).count("Reshape") == 1
    assert "local_reshape_reshape" in applied(f.maker.fgraph)
    fixed = T.tensor3("fixed", shape=(2, 3, 4))
    f = sn.function([fixed], fixed.reshape((2, 3, 4)) * 2)
    assert "Reshape" not in op_names(f.maker.fgraph)
    np.testing.assert_array_equal(f(x), x * 2)


def test_dimshuffle_of_dimshuffle_and_identity_dimshuffle(rng):
    x = _values(rng, (2, 3, 4), "float64")
    f = compile_and_check(lambda v: v.dimshuffle(2, "x", 0, 1).dimshuffle(3, 2, 0, 1), [x])
    assert op_names(f.maker.fgraph) == ["DimShuffle"]
    f = compile_and_check(lambda v: v.T.T + 1, [x])
    assert "DimShuffle" not in op_names(f.maker.fgraph)
    assert "local_useless_dimshuffle" in applied(f.maker.fgraph)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("inner, outer, keepdims", [
    ((0,), (1,), False), ((1,), (0, 1), False), ((0, 2), (0,), False), ((1,), (0,), True),
    ((0, 1), (2,), True), (None, None, False),
])
def test_sum_of_sum_is_one_sum(inner, outer, keepdims, dtype, rng):
    x = _values(rng, (2, 3, 4), dtype)
    f = compile_and_check(lambda v: v.sum(axis=inner, keepdims=keepdims).sum(axis=outer, keepdims=keepdims), [x])
    assert op_names(f.maker.fgraph) == ["Sum"] and "local_sum_sum" in applied(f.maker.fgraph)


def test_sum_of_a_sum_used_elsewhere_is_kept(rng):
    x = _values(rng, (2, 3), "float32")
    f = compile_and_check(lambda v: v.sum(axis=0).sum() + v.sum(axis=0), [x])
    assert "local_sum_sum" not in applied(f.maker.fgraph)


def test_dot_with_transposed_operands(rng):
    a, b = _values(rng, (3, 4), "float64"), _values(rng, (5, 3), "float64")
    f = compile_and_check(lambda u, v: T.dot(u.T, v.T), [a, b])
    assert op_names(f.maker.fgraph) == ["Dot", "DimShuffle"]  # one transpose, not two
    assert "local_dot_of_transposes" in applied(f.maker.fgraph)
    c = _values(rng, (3, 5), "float64")
    f = compile_and_check(lambda u, v: T.dot(u.T, v).T, [a, c])
    assert op_names(f.maker.fgraph).count("DimShuffle") == 1
    assert "local_transpose_of_dot" in applied(f.maker.fgraph)
    f = compile_and_check(lambda u, v: T.dot(u.T, v.T).T, [a, b])
    assert op_names(f.maker.fgraph) == ["Dot"]


def test_a_statically_known_shape_becomes_a_constant():
    x = T.matrix("x", shape=(2, 3))
    f = sn.function([x], x / x)  # ones shaped like x: a constant now, no Shape node
    assert op_names(f.maker.fgraph) == [] and f.maker.fgraph.outputs[0].data.shape == (2, 3)
    y = T.matrix("y", shape=(20, 30))
    f = sn.function([y], T.zeros(y.shape) + y)
    assert "Shape" not in op_names(f.maker.fgraph) and "local_static_shape" in applied(f.maker.fgraph)
    np.testing.assert_array_equal(f(np.ones((20, 30), "float32")), 1)
