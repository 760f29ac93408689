"""GraphExplorer(err) and the error's HTML show the error's message and the values of
the call that failed (its arguments, the failing node's inputs and outputs), computed
here independently with NumPy from the call's arguments."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.compile import NanGuardMode
from symnb.compile.nanguard import NanGuardError
from symnb.core.graph.errors import BuildError
from symnb.printing.values import value_stats
from symnb.widgets import GraphExplorer

TEST_VALUE = np.array([0.2, 0.5, 0.3], "float32")
CALL = np.array([0.0, 0.5, 0.5], "float32")


@pytest.fixture
def nan_error():
    p = T.vector("p", test_value=TEST_VALUE)
    entropy = -(p * T.log(p)).sum()
    guarded = sn.function([p], entropy, mode=NanGuardMode())
    with pytest.raises(NanGuardError) as info:
        guarded(CALL)
    return info.value


def test_the_explorer_of_a_nan_error_shows_that_calls_values(nan_error):
    explorer = GraphExplorer(nan_error)
    page = explorer.snapshot_body()
    with np.errstate(divide="ignore"):
        logged = np.log(CALL)
    assert "NanGuardMode: Inf in output #0" in page  # the message
    assert value_stats(CALL) in page  # the argument, and the failing node's input
    assert value_stats(logged) in page  # the failing node's output in that call
    assert "This call&#x27;s arguments" in page or "This call's arguments" in page
    details = explorer.details_html()  # the failing node is selected first
    assert explorer.selected == explorer.id_of(nan_error.node)
    assert "pending" not in details and value_stats(logged) in details
    assert "value in this call" in details and "test value" in details


def test_the_error_shows_as_html_in_a_notebook(nan_error):
    page = nan_error._repr_html_()
    assert "NanGuardError" in page and "NanGuardMode: Inf" in page
    assert value_stats(CALL) in page and value_stats(TEST_VALUE) not in page


def test_a_build_error_shows_test_values_labelled_as_such():
    x = T.vector("x", test_value=np.ones(3, "float32"))
    y = T.vector("y", test_value=np.ones(2, "float32"))
    with pytest.raises(BuildError) as info:
        x + y
    page = info.value._repr_html_()
    assert "Test values" in page and value_stats(np.ones(2, "float32")) in page
    assert "this call" not in page


def test_the_explorer_of_a_build_error_never_says_pending_for_its_node():
    x = T.vector("x", test_value=np.ones(3, "float32"))
    y = T.vector("y", test_value=np.ones(2, "float32"))
    with pytest.raises(BuildError) as info:
        x + y
    details = GraphExplorer(info.value).details_html()
    assert "pending" not in details and "computing it raised the error above" in details


# -- a failed call: every node shows that call's values ----------------------------------
X = np.random.RandomState(1).randn(16, 20).astype("float32")
W1 = np.random.RandomState(2).uniform(-0.5, 0.5, (20, 8)).astype("float32")
W2 = np.random.RandomState(3).uniform(-0.5, 0.5, (8, 3)).astype("float32")


@pytest.fixture
def index_error():
    x = T.matrix("x", test_value=X)
    idx = T.ivector("idx", test_value=np.array([0, 1], "int32"))
    h = T.nnet.relu(T.dot(x, sn.shared(W1, name="W1")))
    p_y = T.nnet.softmax(T.dot(h, sn.shared(W2, name="W2")))
    f = sn.function([x, idx], p_y[idx].sum())
    with pytest.raises(Exception) as info:
        f(X[:10], np.array([3, 12], "int32"))
    return info.value


def _softmax_of_the_call():
    logits = np.maximum(X[:10] @ W1, 0) @ W2
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_after_a_failed_call_every_node_shows_that_calls_value(index_error):
    explorer = GraphExplorer(index_error)
    x_id = explorer.search("x")[0]
    assert explorer.model_parts().obj_of(x_id).name == "x"
    details = explorer.select(x_id)
    # the call's x (10, 20) first, labelled; the test value (16, 20) after, as a summary
    assert value_stats(X[:10]) in details and "value in this call" in details
    assert details.index("value in this call") < details.index("test value (not this call")
    # the failing node's first input is the softmax: its owner's node shows the same value
    p_y = index_error.node.inputs[0]
    expected = value_stats(_softmax_of_the_call())
    softmax_details = explorer.select(explorer.picture.node_id(p_y.owner))
    assert expected in softmax_details
    failing = explorer.select(explorer.picture.node_id(index_error.node))
    assert expected in failing and "this node failed in this call" in failing
    assert failing.index("value in this call") < failing.index("test value")


def test_the_explorer_of_a_failed_call_shows_the_picture_first(index_error):
    explorer = GraphExplorer(index_error)
    assert "<img" not in explorer.header  # no heatmap above the picture
    assert "<details" in explorer.header and value_stats(X[:10]) in explorer.header  # folded
    # the failing node's values appear once: in its card (selected first), not the header
    assert "Failing node" not in explorer.header and "input #0" not in explorer.header
    assert explorer.selected == explorer.picture.node_id(index_error.node)
    assert value_stats(_softmax_of_the_call()) in explorer.details_html()
