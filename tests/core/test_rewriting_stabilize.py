"""Stabilization and specialization: each rewrite fires, keeps values on ordinary inputs,
and gives finite, accurate results where the expression as written overflows."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.compile import Mode
from symnb.core.graph.fgraph import FunctionGraph
from symnb.core.graph.basic import clone_replace
from symnb.core.tensor.stable_forms import FORMS
from tests.reference import assert_same
from tests.rewriting_helpers import applied, compile_and_check, op_names

pytestmark = pytest.mark.filterwarnings("error::symnb.core.rewriting.RewriteFailureWarning")


def _logsumexp(z, axis):
    m = z.max(axis=axis, keepdims=True)
    return m + np.log(np.exp(z - m).sum(axis=axis, keepdims=True))


def _normal(rng, shape, dtype, scale=1.0):
    return (rng.normal(size=shape) * scale).astype(dtype)


def _as_written(outer, inner):
    """``outer(inner(x))`` with its nodes made by ``clone_replace``, not by the public
    functions: the graph as the stabilize pass meets it after ``givens`` or
    ``clone_replace`` (the same as built: the public functions build what is written)."""
    def build(x):
        placeholder = T.tensor(x.dtype, (None,) * x.ndim, name="placeholder")
        return clone_replace([outer(placeholder)], {placeholder: inner(x)})[0]

    return build


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("outer, inner, rewrite, gone", [
    (T.log, T.softmax, "local_log_softmax", "Softmax"),
    (lambda s: T.log(s[:, ::2]), T.softmax, "local_log_softmax", "Softmax"),
    (lambda e: e / e.sum(axis=1, keepdims=True), T.exp, "local_softmax", "TrueDiv"),
    (lambda e: e / e.sum(axis=1).dimshuffle(0, "x"), T.exp, "local_softmax", "TrueDiv"),
    (lambda e: 1 / (1 + e), lambda x: T.exp(-x), "local_sigmoid", "TrueDiv"),
    (lambda e: 1 / (e + 1), T.exp, "local_sigmoid", "TrueDiv"),
    (lambda e: e / (1 + e), T.exp, "local_exp_over_1_plus_exp", "TrueDiv"),
    (lambda x: T.exp(x) / (T.exp(x) + 1), lambda x: x, "local_exp_over_1_plus_exp", "TrueDiv"),
    (T.log, T.sigmoid, "local_log_sigmoid", "Sigmoid"),
    (lambda s: T.log(1 - s), T.sigmoid, "local_log1m_sigmoid", "Sigmoid"),
    (lambda s: T.log1p(-s), T.sigmoid, "local_log1p_neg_sigmoid", "Sigmoid"),
    (lambda e: T.log(1 + e), T.exp, "local_log1p_exp", "Exp"),
    (lambda e: T.log(e + 1), T.exp, "local_log1p_exp", "Exp"),
    (T.log1p, T.exp, "local_log1p_of_exp", "Exp"),
    (lambda s: T.log(1 + s), lambda x: x * x, "local_log1p", "Log"),
    (lambda e: e - 1, T.exp, "local_expm1", "Exp"),
], ids=["log_softmax", "log_softmax_indexed", "manual_softmax", "manual_softmax_dimshuffle",
        "sigmoid", "sigmoid_commuted", "exp_over_1_plus_exp", "exp_over_exp_plus_1", "log_sigmoid", "log1m_sigmoid", "log1p_neg_sigmoid",
        "softplus", "softplus_commuted", "log1p_of_exp", "log1p", "expm1"])
def test_stabilizations_fire_and_keep_values(outer, inner, rewrite, gone, dtype, rng):
    f = compile_and_check(_as_written(outer, inner), [_normal(rng, (4, 5), dtype)])
    assert rewrite in applied(f.maker.fgraph)
    assert gone not in op_names(f.maker.fgraph)


_FORM_REWRITES = {f"local_{form.name}" for form in FORMS}


@pytest.mark.parametrize("written, stable_op", [
    (lambda x: 1 / (1 + T.exp(-x)), "Sigmoid"), (lambda x: T.log(T.sigmoid(x)), "Softplus"),
    (lambda x: T.log(T.softmax(x)), "LogSoftmax"), (lambda x: T.log(1 + T.exp(x)), "Softplus"),
], ids=["sigmoid", "log_sigmoid", "log_softmax", "softplus"])
def test_graphs_built_by_the_public_functions_are_stabilized_when_compiled(written, stable_op,
                                                                          rng):
    # The graph as built is the graph as written; the stabilize pass rewrites it, and
    # its history (what RewriteStepper steps through) names the form.
    x = T.matrix("x")
    as_built = FunctionGraph([x], [written(x)], clone=False)
    assert stable_op not in op_names(as_built)
    for mode in ("FAST_RUN", "FAST_COMPILE"):
        f = compile_and_check(written, [_normal(rng, (4, 5), "float32")], mode=mode)
        assert stable_op in op_names(f.maker.fgraph)
        assert set(applied(f.maker.fgraph)) & _FORM_REWRITES


def test_log_softmax_cross_entropy_stays_finite_on_large_logits(rng):
    z = _normal(rng, (8, 10), "float32", scale=300)
    onehot = np.eye(10, dtype="float32")[rng.integers(0, 10, size=8)]
    expected = -(onehot * (z - _logsumexp(z.astype("float64"), 1))).sum(axis=1).mean()
    zv, yv = T.matrix("z"), T.matrix("y")

    def loss(probs):
        return -(yv * T.log(probs)).sum(axis=1).mean()

    manual = _as_written(lambda e: e / e.sum(axis=1, keepdims=True), T.exp)
    for probs in (T.softmax(zv), T.exp(zv) / T.exp(zv).sum(axis=1, keepdims=True)):
        # Built through T.log and /, the loss is as written: the levels that rewrite
        # make it finite; as written (no rewrites) the log of an underflowed
        # probability is -inf, as in its test value.
        for optimizer in ("fast_run", "fast_compile"):
            f = sn.function([zv, yv], loss(probs), mode=Mode(optimizer=optimizer))
            np.testing.assert_allclose(f(z, onehot), expected, rtol=1e-5)
        naive = sn.function([zv, yv], loss(probs), mode=Mode(optimizer=None))
        assert not np.isfinite(naive(z, onehot))
    # Written by clone_replace: the same.
    written = _as_written(lambda p: -(onehot * T.log(p)).sum(axis=1).mean(), manual)
    f = sn.function([zv], written(zv))
    np.testing.assert_allclose(f(z), expected, rtol=1e-5)
    naive = sn.function([zv], written(zv), mode=Mode(optimizer=None))
    assert not np.isfinite(naive(z))


@pytest.mark.parametrize("build_as", ["built", "written"])
@pytest.mark.parametrize("outer, inner, reference, x", [
    (T.log, T.sigmoid, lambda x: -np.logaddexp(0, -x), [-200.0, -30.0, 0.0, 40.0]),
    (lambda s: T.log(1 - s), T.sigmoid, lambda x: -np.logaddexp(0, x), [-40.0, 0.0, 30.0, 200.0]),
    (lambda e: T.log(1 + e), T.exp, lambda x: np.logaddexp(0, x), [-200.0, 0.0, 100.0, 200.0]),
    (lambda e: 1 / (1 + e), lambda x: T.exp(-x), lambda x: np.exp(-np.logaddexp(0, -x)),
     [-200.0, -100.0, 0.0, 200.0]),
    (lambda e: e / (1 + e), T.exp, lambda x: np.exp(-np.logaddexp(0, -x)),
     [-200.0, -100.0, 0.0, 200.0]),
    (lambda s: T.log(1 + s), lambda x: x, np.log1p, [1e-10, -1e-12, 3e-8, 0.5]),
    (lambda e: e - 1, T.exp, np.expm1, [1e-10, -1e-12, 3e-8, 0.5]),
], ids=["log_sigmoid", "log1m_sigmoid", "softplus", "sigmoid", "exp_over_1_plus_exp", "log1p", "expm1"])
def test_stabilized_forms_are_accurate_where_the_written_form_is_not(outer, inner, reference, x,
                                                                      build_as):
    values = np.array(x, dtype="float32")
    v = T.vector("v")
    out = outer(inner(v)) if build_as == "built" else _as_written(outer, inner)(v)
    f = sn.function([v], out)
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


@pytest.mark.parametrize("exponent", [-1, -0.5, -2])
def test_negative_powers_of_floats_specialize(exponent, rng):
    f = compile_and_check(lambda v: v ** exponent, [rng.uniform(0.5, 4, size=5).astype("float64")])
    assert "Pow" not in op_names(f.maker.fgraph)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_minus_two_is_one_over_the_square_as_in_theano(dtype):
    # PyMC3's precision, tau = sigma ** -2: Theano's local_pow_specialize made it
    # inv(sqr(sigma)); one rounding more than NumPy's pow, declared inexact.
    x = np.array([0.3, 1.7, -2.5, 1e-3, 4e10 if dtype == "float64" else 4e6], dtype=dtype)
    f = compile_and_check(lambda v: v ** -2.0, [x])
    assert "local_pow_inv_sqr" in applied(f.maker.fgraph)
    assert "Pow" not in op_names(f.maker.fgraph) and "Square" in op_names(f.maker.fgraph)
    np.testing.assert_allclose(f(x), x.astype("float64") ** -2.0, rtol=2 * np.finfo(dtype).eps)
    from symnb.core.rewriting import specialize

    assert not specialize.local_pow_inv_sqr.exact and "subnormal" in specialize.local_pow_inv_sqr.domain


def test_minus_two_of_integers_computes_in_float64():
    # int32 ** -2.0 is float64 (NumPy's): the square is taken after the cast, so 46341 ** 2
    # does not wrap around in int32.
    x = np.array([1, 2, 46341], dtype="int32")
    f = compile_and_check(lambda v: v ** -2.0, [x])
    assert "local_pow_inv_sqr" in applied(f.maker.fgraph)
    np.testing.assert_allclose(f(x), x.astype("float64") ** -2.0, rtol=3e-16)


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
