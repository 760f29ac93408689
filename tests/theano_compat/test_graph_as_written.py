"""The graph as written: Theano's logistic regression (seed 004) keeps
``1 / (1 + exp(-dot(x, w) - b))`` in its graph and printouts; compiling makes it
stable through rewrites the history and RewriteStepper show; ``sn.grad`` builds its
gradient from the stable forms, finite at every optimizer level. Where a stable
rewrite changed a value (the written form overflowed), DebugMode says so with a note
naming the rewrite and where it is exact."""

import warnings

import numpy as np
import pytest

import symnb as theano
import symnb.tensor as T
from symnb.compile import Mode
from symnb.compile.debugmode import DebugMode, DebugModeNote
from symnb.printing import debugprint
from symnb.widgets.stepper import RewriteStepper

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")  # the written form overflows

X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 1.0], [1.0, 1.0]], dtype="float32")
Y = np.array([1.0, 0.0, 1.0, 0.0], dtype="float32")
W0 = np.array([1e4, -1e4], dtype="float32")  # logits up to +-2e4: exp overflows in float32


def logistic_regression():
    x, y = T.fmatrix("x", test_value=X), T.fvector("y", test_value=Y)
    w = theano.shared(W0, name="w")
    b = theano.shared(np.float32(0.0), name="b")
    p_1 = 1 / (1 + T.exp(-T.dot(x, w) - b))
    xent = -y * T.log(p_1) - (1 - y) * T.log(1 - p_1)
    cost = xent.mean() + 0.01 * (w ** 2).sum()
    gw, gb = T.grad(cost, [w, b])
    return x, y, w, b, p_1, xent, gw, gb


def reference():
    """Stable NumPy (float64): the cross-entropy is softplus of the signed logits."""
    z = X.astype("float64") @ W0.astype("float64")
    xent = Y * np.logaddexp(0, -z) + (1 - Y) * np.logaddexp(0, z)
    sigmoid = np.exp(-np.logaddexp(0, -z))
    gz = (sigmoid - Y) / len(Y)
    return xent, X.T.astype("float64") @ gz + 0.02 * W0, gz.sum()


def test_debugprint_before_compiling_shows_what_was_written():
    *_, p_1, xent, gw, gb = logistic_regression()
    text = debugprint(p_1, file="str")
    assert text.splitlines()[0].startswith("Elemwise{true_div,no_inplace}")
    for written in ("Elemwise{add,no_inplace}", "Elemwise{exp,no_inplace}",
                    "Elemwise{sub,no_inplace}", "Elemwise{neg,no_inplace}"):
        assert written in text
    assert "sigmoid" not in text and "softplus" not in debugprint(xent, file="str")
    # The test value is the written expression's: NumPy overflows exp(2e4) to inf.
    with np.errstate(all="ignore"):
        written = np.float32(1) / (np.float32(1) + np.exp(-(X @ W0)))
    np.testing.assert_array_equal(p_1.test_value, written)


@pytest.mark.parametrize("optimizer", ["fast_run", "fast_compile", None])
def test_compiled_values_and_gradients(optimizer):
    x, y, w, b, p_1, xent, gw, gb = logistic_regression()
    f = theano.function([x, y], [xent, gw, gb], mode=Mode(optimizer=optimizer))
    got_xent, got_gw, got_gb = f(X, Y)
    expected_xent, expected_gw, expected_gb = reference()
    # The gradient is built from the stable forms: finite and accurate at every level.
    np.testing.assert_allclose(got_gw, expected_gw, rtol=1e-5)
    np.testing.assert_allclose(got_gb, expected_gb, rtol=1e-5, atol=1e-7)
    if optimizer is None:  # the graph as written: what NumPy computes for it
        with np.errstate(all="ignore"):
            p = np.float32(1) / (np.float32(1) + np.exp(-(X @ W0)))
            written = -Y * np.log(p) - (1 - Y) * np.log(1 - p)
        np.testing.assert_array_equal(got_xent, written)
        assert not np.all(np.isfinite(got_xent)) and not f.maker.fgraph.history
        return
    np.testing.assert_allclose(got_xent, expected_xent, rtol=1e-6)
    applied = {step.name for step in f.maker.fgraph.history}
    assert {"local_sigmoid", "local_log_sigmoid", "local_log1m_sigmoid"} <= applied
    steps = RewriteStepper(f)
    assert "local_sigmoid" in {record.name for record in steps.history}
    index = next(i for i, r in enumerate(steps.history) if r.name == "local_sigmoid")
    step = steps.step(index)
    assert "true_div" in step.before and "sigmoid" in step.after
    # The gradient already computes sigmoid(z) (its stable form): the rewrite's own
    # sigmoid(z) is one more, so it is added (nodes are matched one for one).
    assert [str(n.op) for n in steps.comparison(index).added] == ["Elemwise{add,no_inplace}",
                                                                 "Elemwise{sigmoid,no_inplace}"]


def test_debugmode_notes_the_values_the_stabilization_changed():
    x, y, w, b, p_1, xent, gw, gb = logistic_regression()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        f = theano.function([x, y], xent, mode=DebugMode(optimizer="fast_run"))
        got = f(X, Y)
    np.testing.assert_allclose(got, reference()[0], rtol=1e-6)
    notes = [str(c.message) for c in caught if issubclass(c.category, DebugModeNote)]
    assert any("local_log_sigmoid" in note or "local_log1m_sigmoid" in note for note in notes)
    assert f.maker.notes
