"""Theano's gradient views (core/tensor/gradient_views.py): the value is the input's, the
gradient is zeroed, disconnected, undefined or scaled; compiled graphs drop them; and
``subgraph_grad`` chains to the gradient of the whole cost."""

import warnings

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb import gradient

A = np.random.default_rng(38).normal(size=(3, 4))


def _grad_value(expr, x):
    return sn.function([x], gradient.grad(expr.sum(), x), on_unused_input="ignore")(A)


def test_values_are_the_input():
    x = T.dmatrix("x")
    for view in (gradient.zero_grad, gradient.disconnected_grad, gradient.undefined_grad,
                 lambda v: gradient.grad_scale(v, 3.)):
        np.testing.assert_array_equal(sn.function([x], view(x))(A), A)


@pytest.mark.parametrize("view", [gradient.zero_grad, gradient.disconnected_grad],
                         ids=["zero_grad", "disconnected_grad"])
def test_no_gradient_flows_through(view):
    x = T.dmatrix("x")
    np.testing.assert_allclose(_grad_value(x * view(T.exp(x)), x), np.exp(A))  # d/dx = exp(x) only
    np.testing.assert_allclose(_grad_value(x ** 2 * view(x), x), 2 * A ** 2)


def test_consider_constant_warns_as_theano_and_zeroes():
    x = T.dmatrix("x")
    with pytest.warns(UserWarning, match="consider_constant\\(\\) is deprecated"):
        y = x * gradient.consider_constant(x)
    np.testing.assert_allclose(_grad_value(y, x), A)


def test_zero_grad_is_connected_disconnected_grad_is_not():
    x = T.dmatrix("x")
    np.testing.assert_array_equal(_grad_value(gradient.zero_grad(x), x), np.zeros_like(A))
    with pytest.raises(gradient.DisconnectedInputError):
        gradient.grad(gradient.disconnected_grad(x).sum(), x)
    assert gradient.disconnected_grad(x).owner.op.connection_pattern(None) == [[False]]


def test_undefined_grad_raises_and_grad_scale_scales():
    x = T.dscalar("x")
    with pytest.raises(gradient.NullTypeGradError):
        gradient.grad(gradient.undefined_grad(x) ** 2, x)
    g = gradient.grad(gradient.grad_scale(T.sin(x), -2.), x)
    np.testing.assert_allclose(sn.function([x], g)(0.7), -2 * np.cos(0.7))


def test_compiled_graphs_drop_the_views():
    x = T.dmatrix("x")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        views = [gradient.zero_grad(x), gradient.disconnected_grad(x), gradient.consider_constant(x),
                 gradient.grad_scale(x, 2.), gradient.grad_clip(x, -1, 1)]
    f = sn.function([x], [v * x for v in views])
    ops = [type(node.op) for node in f.maker.fgraph.toposort()]
    assert not any(issubclass(o, (gradient.ZeroGrad, gradient.DisconnectedGrad, gradient.GradScale,
                                  gradient.GradClip)) for o in ops), ops
    for out in f(A):
        np.testing.assert_allclose(out, A * A)


def test_subgraph_grad_chains_to_the_full_gradient():
    rng = np.random.default_rng(5)
    x, t = T.dvector("x"), T.dvector("t")
    w1, w2 = sn.shared(rng.normal(size=(3, 4))), sn.shared(rng.normal(size=(4, 2)))
    a1 = T.tanh(T.dot(x, w1))
    a2 = T.tanh(T.dot(a1, w2))
    cost2 = T.sqr(a2 - t).sum() + T.sqr(w2.sum())
    cost1 = T.sqr(w1.sum())
    full = sn.function([t, x], sn.grad(cost2 + cost1, [w2, w1]))
    (g_w2,), (g_a1,) = sn.subgraph_grad(wrt=[w2], end=[a1], cost=cost2)
    (g_w1,), _ = sn.subgraph_grad(wrt=[w1], end=[x], start={a1: g_a1}, cost=cost1)
    chained = sn.function([t, x], [g_w2, g_w1])
    values = [rng.normal(size=2), rng.normal(size=3)]
    for want, got in zip(full(*values), chained(*values)):
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_the_gradient_at_a_consider_constant_variable_is_kept():
    x, y = T.dscalar("x"), T.dscalar("y")
    g = sn.grad(x * y, x, consider_constant=[x])  # Theano: y (nothing flows past x)
    np.testing.assert_allclose(sn.function([x, y], g)(2., 3.), 3.)
