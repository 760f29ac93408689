"""Stabilization and specialization: each rewrite fires, keeps values on ordinary inputs,
and gives finite, accurate results where the expression as written overflows."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.compile import Mode
from tests.reference import assert_same
from tests.rewriting_helpers import applied, compile_and_check, op_names

pytestmark = pytest.mark.filterwarnings("error::symnb.core.rewriting.RewriteFailureWarning")


def _logsumexp(z, axis):
    m = z.max(axis=axis, keepdims=True)
    return m + np.log(np.exp(z - m).sum(axis=axis, keepdims=True))


def _normal(rng, shape, dtype, scale=1.0):
    return (rng.normal(size=shape) * scale).astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("build, rewrite, gone", [
    (lambda x: T.log(T.softmax(x)), "local_log_softmax", "Softmax"),
    (lambda x: T.exp(x) / T.exp(x).sum(axis=1, keepdims=True), "local_softmax", "TrueDiv"),
    (lambda x: T.exp(x) / T.exp(x).sum(axis=1).dimshuffle(0, "x"), "local_softmax", "TrueDiv"),
    (lambda x: T.log(T.sigmoid(x)), "local_log_sigmoid", "Sigmoid"),
    (lambda x: T.log(1 - T.sigmoid(x)), "local_log1m_sigmoid", "Sigmoid"),
    (lambda x: T.log(1 + T.exp(x)), "local_log1p_exp", "Exp"),
    (lambda x: T.log(T.exp(x) + 1), "local_log1p_exp", "Exp"),
    (lambda x: T.log(1 + x * x), "local_log1p", "Log"),
    (lambda x: T.exp(x) - 1, "local_expm1", "Exp"),
], ids=["log_softmax", "manual_softmax", "manual_softmax_dimshuffle", "log_sigmoid",
        "log1m_sigmoid", "softplus", "softplus_commuted", "log1p", "expm1"])
def test_stabilizations_fire_and_keep_values(build, rewrite, gone, dtype, rng):
    f = compile_and_check(build, [_normal(rng, (4, 5), dtype)])
    assert rewrite in applied(f.maker.fgraph)
    assert gone not in op_names(f.maker.fgraph)


def test_log_softmax_cross_entropy_stays_finite_on_large_logits(rng):
    z = _normal(rng, (8, 10), "float32", scale=300)
    onehot = np.eye(10, dtype="float32")[rng.integers(0, 10, size=8)]
    zv, yv = T.matrix("z"), T.matrix("y")
    for probs in (T.softmax(zv), T.exp(zv) / T.exp(zv).sum(axis=1, keepdims=True)):
        loss = -(yv * T.log(probs)).sum(axis=1).mean()
        f = sn.function([zv, yv], loss)
        expected = -(onehot * (z - _logsumexp(z.astype("float64"), 1))).sum(axis=1).mean()
        assert np.isfinite(f(z, onehot))
        np.testing.assert_allclose(f(z, onehot), expected, rtol=1e-5)
        # As written (no rewrites) the log of an underflowed probability is -inf.
        naive = sn.function([zv, yv], loss, mode=Mode(optimizer=None))
        assert not np.isfinite(naive(z, onehot))


@pytest.mark.parametrize("build, reference, x", [
    (lambda x: T.log(T.sigmoid(x)), lambda x: -np.logaddexp(0, -x), [-200.0, -30.0, 0.0, 40.0]),
    (lambda x: T.log(1 - T.sigmoid(x)), lambda x: -np.logaddexp(0, x), [-40.0, 0.0, 30.0, 200.0]),
    (lambda x: T.log(1 + T.exp(x)), lambda x: np.logaddexp(0, x), [-200.0, 0.0, 100.0, 200.0]),
    (lambda x: T.log(1 + x), np.log1p, [1e-10, -1e-12, 3e-8, 0.5]),
    (lambda x: T.exp(x) - 1, np.expm1, [1e-10, -1e-12, 3e-8, 0.5]),
], ids=["log_sigmoid", "log1m_sigmoid", "softplus", "log1p", "expm1"])
def test_stabilized_forms_are_accurate_where_the_written_form_is_not(build, reference, x):
    values = np.array(x, dtype="float32")
    v = T.vector("v")
    f = sn.function([v], build(v))
    expected = reference(values.astype("float64")).astype("float32")
    assert_same(f(values), expected, "stabilized", rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
@pytest.mark.parametrize("exponent, op", [(2, "Square"), (0.5, "Sqrt"), (1, None)])
def test_pow_specializes(exponent, op, dtype, rng):
    x = rng.uniform(0.5, 4, size=(3, 4)).astype(dtype) if dtype != "int32" else \
        rng.integers(0, 9, size=(3, 4)).astype(dtype)
    f = compile_and_check(lambda v: v ** exponent, [x])
    assert "Pow" not in op_names(f.maker.fgraph) and "local_pow_specialize" in applied(f.maker.fgraph)
    if op is not None:
        assert op in op_names(f.maker.fgraph)


@pytest.mark.parametrize("exponent", [-1, -0.5])
def test_negative_powers_of_floats_specialize(exponent, rng):
    f = compile_and_check(lambda v: v ** exponent, [rng.uniform(0.5, 4, size=5).astype("float64")])
    assert "Pow" not in op_names(f.maker.fgraph)


def test_pow_specialization_computes_in_the_result_dtype(rng):
    # float32 ** float64(2) is float64 in NumPy: squaring in float32 would lose digits.
    x = rng.uniform(1000, 5000, size=6).astype("float32")
    f = compile_and_check(lambda v: v ** np.float64(2), [x])
    assert f(x).dtype == np.float64 and op_names(f.maker.fgraph) == ["Composite", "Cast", "Square"]
    f = compile_and_check(lambda v: v ** 2.0, [rng.integers(0, 9, size=4).astype("int32")])
    assert f(np.arange(4, dtype="int32")).dtype == np.float64


def test_other_powers_are_left_alone(rng):
    f = compile_and_check(lambda v: v ** 3, [rng.uniform(0.5, 2, size=4).astype("float32")])
    assert "Pow" in op_names(f.maker.fgraph)


def test_mul_by_itself_is_a_square(rng):
    f = compile_and_check(lambda v: v * v, [_normal(rng, (5,), "float64")])
    assert op_names(f.maker.fgraph) == ["Square"] and "local_mul_to_square" in applied(f.maker.fgraph)


def test_a_softmax_also_read_elsewhere_reuses_the_log_softmax(rng):
    z = T.matrix("z")
    p = T.softmax(z)  # the softmax's line
    f = sn.function([z], [T.log(p), p.max(axis=1)])
    assert op_names(f.maker.fgraph).count("LogSoftmax") == 1 and "Softmax" not in op_names(f.maker.fgraph)
    exp_node = next(n for n in f.maker.fgraph.toposort() if type(n.op).__name__ == "Exp")
    assert exp_node.site.line == "p = T.softmax(z)  # the softmax's line"
    values = rng.normal(size=(3, 4)).astype("float32")
    log_p, top = f(values)
    expected = values - _logsumexp(values.astype("float64"), 1)
    np.testing.assert_allclose(log_p, expected, rtol=1e-5)
    np.testing.assert_allclose(top, np.exp(expected).max(axis=1), rtol=1e-5)
