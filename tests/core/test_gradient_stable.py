"""core/gradient_stable.py: sn.grad differentiates a stable copy of the cost graph,
leaving the user's graph as written, and keeps the variables asked about."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")  # written forms overflow

Z = np.array([-1000.0, -3.0, 0.0, 2.0, 1000.0])


def sigmoid(z):
    return np.exp(-np.logaddexp(0, -z))


def test_the_users_graph_is_left_as_written():
    z = T.dvector("z", test_value=Z)
    s = T.sigmoid(z)
    loss = T.log(s).sum()
    g = sn.grad(loss, z)
    assert type(loss.owner.inputs[0].owner.op).__name__ == "Log"
    assert loss.owner.inputs[0].owner.inputs[0] is s
    np.testing.assert_allclose(g.test_value, sigmoid(-Z), rtol=1e-12)  # d log(sigmoid) = sigmoid(-z)


def test_a_variable_inside_a_written_form_keeps_its_gradient():
    # wrt the sigmoid itself: the form log(sigmoid(z)) must not be replaced, or the
    # sigmoid would be disconnected; the gradient is 1 / s, as written.
    z = T.dvector("z", test_value=Z[1:4])
    s = T.sigmoid(z)
    gs, gz = sn.grad(T.log(s).sum(), [s, z])
    np.testing.assert_allclose(gs.test_value, 1 / sigmoid(Z[1:4]), rtol=1e-12)
    np.testing.assert_allclose(gz.test_value, sigmoid(-Z[1:4]), rtol=1e-12)


def test_consider_constant_and_terms_above_the_form():
    z, w = T.dvector("z", test_value=Z), T.dscalar("w", test_value=3.0)
    loss = (w * T.log(1 + T.exp(z))).sum()    # d/dw: the stable softplus, finite
    gw, gz = sn.grad(loss, [w, z])
    np.testing.assert_allclose(gw.test_value, np.logaddexp(0, Z).sum(), rtol=1e-12)
    np.testing.assert_allclose(gz.test_value, 3 * sigmoid(Z), rtol=1e-12)
    frozen = sn.grad(loss, w, consider_constant=[T.exp(z)])  # another exp node: no effect
    np.testing.assert_allclose(frozen.test_value, np.logaddexp(0, Z).sum(), rtol=1e-12)
    for optimizer in ("fast_run", "fast_compile", None):
        f = sn.function([z, w], [gw, gz], mode=sn.compile.Mode(optimizer=optimizer))
        got_w, got_z = f(Z, 3.0)
        np.testing.assert_allclose(got_w, np.logaddexp(0, Z).sum(), rtol=1e-12)
        np.testing.assert_allclose(got_z, 3 * sigmoid(Z), rtol=1e-12)


def test_a_form_read_through_a_reshape_is_stabilized_when_compiled_and_differentiated():
    # Theano's local_reshape_lift: log(1 - sigmoid(a).reshape(s)) is a softplus, so its
    # value and gradient stay finite where sigmoid(a) rounds to 1 (Theano issue 4086)
    a = T.tensor4("a")
    for cost in (T.nnet.binary_crossentropy(T.nnet.sigmoid(a.reshape((-1, 1))), 1).sum(),
                 T.nnet.binary_crossentropy(T.nnet.sigmoid(a).reshape((-1, 1)), 1).sum(),
                 -T.log(1 - T.nnet.sigmoid(a).reshape((-1,))).sum()):
        f = sn.function([a], [cost, sn.grad(cost, a)])
        for value in (30.0, -30.0, 0.5):
            v = np.full((1, 1, 1, 1), value, dtype=a.dtype)
            got_cost, got_grad = f(v)
            assert np.isfinite(got_cost) and np.all(np.isfinite(got_grad)), (value, got_cost, got_grad)
    # against NumPy: -log(1 - sigmoid(a)) = softplus(a), its gradient sigmoid(a)
    cost = -T.log(1 - T.nnet.sigmoid(a).reshape((-1,))).sum()
    f = sn.function([a], [cost, sn.grad(cost, a)])
    v = np.array([-30.0, -2.0, 0.0, 3.0, 30.0], dtype="float64").reshape(1, 1, 1, 5).astype(a.dtype)
    got_cost, got_grad = f(v)
    x = v.astype("float64")
    np.testing.assert_allclose(got_cost, np.logaddexp(0, x).sum(), rtol=1e-5)
    np.testing.assert_allclose(got_grad, 1 / (1 + np.exp(-x)), rtol=1e-5, atol=1e-7)
