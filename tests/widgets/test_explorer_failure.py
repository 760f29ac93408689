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
