"""Theano's rewrites of its T.nnet ops (core/rewriting/nnet.py): each fires on its pattern
(the compiled graph holds the fused op, the history names the rewrite) and keeps the values
of the graph as written (compiled with optimizer=None) and of NumPy; on huge logits, where
the written form overflows, the rewritten one stays finite and equals log-sum-exp."""

import numpy as np
import pytest
from scipy.special import log_softmax as np_log_softmax

import symnb as sn
import symnb.tensor as T
from symnb.compile import Mode
from symnb.gradient import verify_grad
from symnb.tensor import nnet as nn

RNG = np.random.default_rng(5)
XV = RNG.normal(size=(4, 5))
BV = RNG.normal(size=5)
YV = np.array([2, 4, 1, 0], "int64")
ROWS = np.arange(4)
AS_WRITTEN = Mode(optimizer=None)


def _compile(inputs, outputs, mode=None):
    return sn.function(inputs, outputs, mode=mode, on_unused_input="ignore")


def _ops(f):
    return [node.op for node in f.maker.fgraph.toposort()]


def _rewrites(f):
    return {step.name for step in f.maker.fgraph.history}


def _nll(logits):
    return -np_log_softmax(logits, axis=1)[ROWS, YV]


def _same_as_written(inputs, output, values, rewrite, present, absent=()):
    """Compile ``output``; check that ``rewrite`` ran, the ops ``present`` are in the graph
    and ``absent`` are not, and that the value equals the graph's as written."""
    f = _compile(inputs, output)
    assert rewrite in _rewrites(f)
    ops = _ops(f)
    assert all(_holds(ops, op) for op in present), ops
    assert not [op for op in absent if _holds(ops, op)], ops
    got, written = f(*values), _compile(inputs, output, AS_WRITTEN)(*values)
    for a, w in zip(*((got, written) if isinstance(output, list) else ([got], [written]))):
        np.testing.assert_allclose(a, w, rtol=1e-10, atol=1e-12)
    return f


def _holds(ops, what):
    """Whether ``ops`` hold the op ``what`` (an instance), or one of class ``what``."""
    return any(op == what or (isinstance(what, type) and isinstance(op, what)) for op in ops)


@pytest.fixture
def xby():
    return T.dmatrix("x"), T.dvector("b"), T.lvector("y")


def test_crossentropy_categorical_1hot_is_theanos_op_and_its_values():
    x, y = T.dmatrix("x"), T.lvector("y")
    p = np.exp(XV) / np.exp(XV).sum(1, keepdims=True)
    out = nn.crossentropy_categorical_1hot(x, y)
    assert out.owner.op == nn.crossentropy_categorical_1hot  # the op instance, as in Theano
    np.testing.assert_allclose(_compile([x, y], out, AS_WRITTEN)(p, YV), -np.log(p[ROWS, YV]))
    verify_grad(lambda a: nn.crossentropy_categorical_1hot(a, YV), [p], rng=np.random.RandomState(1))
    assert nn.softmax_with_bias(x, T.dvector()).owner.op == nn.softmax_with_bias
    # views name them in the user's words: Theano's names of the instances
    for name in ("crossentropy_softmax_argmax_1hot_with_bias", "crossentropy_softmax_1hot_with_bias_dx",
                 "crossentropy_categorical_1hot", "crossentropy_categorical_1hot_grad", "softmax_with_bias"):
        assert getattr(nn, name).public_name() == name


def test_crossentropy_to_crossentropy_with_softmax(xby):
    x, b, y = xby
    for sm, x_val in ((nn.softmax(x), XV), (nn.softmax(x + b), XV + BV),
                      (nn.softmax_with_bias(x, b), XV + BV)):
        nll = nn.crossentropy_categorical_1hot(sm, y)
        f = _same_as_written([x, b, y], [nll, sm], [XV, BV, YV],
                             "crossentropy_to_crossentropy_with_softmax",
                             [nn.crossentropy_softmax_argmax_1hot_with_bias],
                             [nn.softmax_op, nn.crossentropy_categorical_1hot])
        np.testing.assert_allclose(f(XV, BV, YV)[0], _nll(x_val))
    # the bias is split out of the sum: one node, as Theano's
    nll = nn.crossentropy_categorical_1hot(nn.softmax(x + b), y)
    assert len(_ops(_compile([x, b, y], nll))) == 1


def test_the_rewritten_crossentropy_is_stable_on_huge_logits(xby):
    x, b, y = xby
    big = XV * 1e4
    for level in ("fast_run", "fast_compile"):
        cost = T.sum(nn.crossentropy_categorical_1hot(nn.softmax(x), y))
        f = _compile([x, y], [cost, T.grad(cost, x)], Mode(optimizer=level))
        value, g = f(big, YV)
        np.testing.assert_allclose(value, _nll(big).sum())
        sm = np.exp(np_log_softmax(big, axis=1))
        np.testing.assert_allclose(g, sm - np.eye(5)[YV], atol=1e-12)
    written = _compile([x, y], nn.crossentropy_categorical_1hot(nn.softmax(x), y), AS_WRITTEN)
    assert np.isinf(written(big, YV)).any()  # where the rewrite is inexact (declared)


def test_the_gradient_becomes_crossentropy_softmax_1hot_with_bias_dx(xby):
    x, b, y = xby
    for sm in (nn.softmax(x), nn.softmax(x + b)):
        g = T.grad(T.sum(nn.crossentropy_categorical_1hot(sm, y)), x)
        _same_as_written([x, b, y], g, [XV, BV, YV],
                         "local_crossentropy_to_crossentropy_with_softmax_grad",
                         [nn.crossentropy_softmax_1hot_with_bias_dx],
                         [nn.softmax_grad, nn.crossentropy_categorical_1hot_grad,
                          nn.crossentropy_categorical_1hot,
                          nn.crossentropy_softmax_argmax_1hot_with_bias])
    # sn.grad seeds sum() with ones shaped like the cost: the forward op is not kept for it
    f = _compile([x, y], T.grad(T.sum(nn.crossentropy_categorical_1hot(nn.softmax(x), y)), x))
    assert _ops(f) == [nn.softmax_op, nn.crossentropy_softmax_1hot_with_bias_dx]
    assert {"local_broadcast_like_crossentropy",
            "local_useless_crossentropy_softmax_1hot_with_bias_dx_alloc"} <= _rewrites(f)


@pytest.mark.parametrize("written, count", [
    (lambda x, y: T.sum(-T.log(nn.softmax(x)[T.arange(y.shape[0]), y])), 1),
    (lambda x, y: -T.sum(T.log(nn.softmax(x))[T.arange(y.shape[0]), y]), 1),
    (lambda x, y: T.mean(-T.log(nn.softmax(x)[T.arange(y.shape[0]), y])), 4),
    (lambda x, y: T.sum(-T.log(nn.softmax(x)[T.arange(T.cast(y, "int32").shape[0]),
                                            T.cast(y, "int32")])), 1),
])
def test_advanced_indexing_crossentropy_onehot(written, count, xby):
    x, b, y = xby
    for logits, x_val in ((x, XV), (x + b, XV + BV)):
        cost = written(logits, y)
        _same_as_written([x, b, y], cost, [XV, BV, YV], "local_advanced_indexing_crossentropy_onehot",
                         [nn.crossentropy_softmax_argmax_1hot_with_bias], [T.AdvancedSubtensor])
        g = T.grad(cost, x)
        _same_as_written([x, b, y], g, [XV, BV, YV], "local_advanced_indexing_crossentropy_onehot_grad",
                         [nn.crossentropy_softmax_1hot_with_bias_dx], [T.AdvancedIncSubtensor])
    big = XV * 1e4
    f = _compile([x, y], [written(x, y), T.grad(written(x, y), x)])
    value, g = f(big, YV)
    np.testing.assert_allclose(value, _nll(big).sum() / count)
    assert np.all(np.isfinite(g))


def test_symnbs_own_softmax_keeps_its_ops(xby):
    x, b, y = xby
    cost = -T.mean(T.log(T.softmax(x))[T.arange(y.shape[0]), y])  # T.softmax: not Theano's op
    f = _compile([x, y], [cost, T.grad(cost, x)])
    assert not _rewrites(f) & {"local_advanced_indexing_crossentropy_onehot",
                               "local_advanced_indexing_crossentropy_onehot_grad"}
    np.testing.assert_allclose(f(XV, YV)[0], _nll(XV).mean())


def test_rows_must_be_arange_of_the_labels(xby):
    x, b, y = xby
    other = T.lvector("rows")
    cost = T.sum(-T.log(nn.softmax(x)[other, y]))
    f = _compile([x, y, other], cost)
    assert nn.crossentropy_softmax_argmax_1hot_with_bias not in _ops(f)
    np.testing.assert_allclose(f(XV, YV, ROWS[::-1]), -np_log_softmax(XV, axis=1)[ROWS[::-1], YV].sum())


def test_log_of_theanos_softmax_is_theanos_log_softmax():
    x = T.dmatrix("x")
    f = _compile([x], T.log(nn.softmax(x)))
    assert isinstance(f.maker.fgraph.outputs[0].owner.op, nn.LogSoftmax)
    np.testing.assert_allclose(f(XV * 1e4), np_log_softmax(XV * 1e4, axis=1))


def test_local_softmax_with_bias(xby):
    x, b, y = xby
    c = T.dvector("c")
    for sm in (nn.softmax(x + b), nn.softmax(b + x), nn.softmax(T.add(x, b, c))):
        _same_as_written([x, b, c], sm, [XV, BV, BV[::-1].copy()], "local_softmax_with_bias",
                         [nn.softmax_with_bias], [nn.softmax_op])
    f = _compile([x, b], nn.softmax(x + b))
    assert _ops(f) == [nn.softmax_with_bias]  # the bias read directly, no broadcast node
    np.testing.assert_allclose(f(XV, BV), np.exp(np_log_softmax(XV + BV, axis=1)))
    # a vector: one row, its bias split out too
    v = T.dvector("v")
    f = _same_as_written([v, b], nn.softmax(v + b), [XV[0], BV], "local_softmax_with_bias",
                         [nn.softmax_with_bias], [nn.softmax_op])
    # a bias of static length 1 is broadcast by the sum, which the fused op would not do
    one = T.tensor("float64", shape=(1,), name="one")
    f = _compile([x, one], nn.softmax(x + one))
    assert "local_softmax_with_bias" not in _rewrites(f)
    np.testing.assert_allclose(f(XV, BV[:1]), np.exp(np_log_softmax(XV + BV[0], axis=1)))


@pytest.mark.parametrize("f_of", [T.exp, T.tanh, T.nnet.sigmoid, T.nnet.softplus, nn.softmax,
                                  lambda v: T.log(T.exp(v) + 1.5)])
def test_argmax_pushdown(f_of):
    x = T.dmatrix("x")
    out = T.max_and_argmax(f_of(x), axis=-1)[1]
    f = _same_as_written([x], out, [XV], "local_argmax_pushdown", [], [])
    np.testing.assert_array_equal(f(XV), XV.argmax(axis=1))
    if f_of is not nn.softmax:  # elementwise: any axis
        g = _compile([x], T.argmax(f_of(x), axis=0))
        assert "local_argmax_pushdown" in _rewrites(g)
        np.testing.assert_array_equal(g(XV), XV.argmax(axis=0))


def test_argmax_pushdown_keeps_a_softmax_along_another_axis():
    x = T.dmatrix("x")
    sm = nn.softmax(x)  # rows
    f = _compile([x], T.argmax(sm, axis=0))
    assert "local_argmax_pushdown" not in _rewrites(f)
    np.testing.assert_array_equal(f(XV), np.exp(np_log_softmax(XV, axis=1)).argmax(axis=0))


def test_argmax_pushdown_through_softmax_with_bias(xby):
    x, b, y = xby
    f = _same_as_written([x, b], T.argmax(nn.softmax_with_bias(x, b), axis=-1), [XV, BV],
                         "local_argmax_pushdown", [], [nn.softmax_with_bias])
    np.testing.assert_array_equal(f(XV, BV), (XV + BV).argmax(axis=1))


def test_max_and_argmax_with_one_output_read():
    x = T.dmatrix("x")
    the_max, the_argmax = T.max_and_argmax(x, axis=1)
    for out, expected in ((the_max, XV.max(axis=1)), (the_argmax, XV.argmax(axis=1))):
        f = _compile([x], out)
        assert "local_max_and_argmax" in _rewrites(f)
        assert not [op for op in _ops(f) if isinstance(op, T.MaxAndArgmax)]
        np.testing.assert_array_equal(f(XV), expected)
    both = _compile([x], [the_max, the_argmax])
    assert "local_max_and_argmax" not in _rewrites(both)
