"""A loop whose body fails while its graph is built (issue 40): its view is as good as
a failed call's -- the body open, the failing node marked, the failing iteration's
inputs, the iteration picker -- its values replayed from the test values and checked
against NumPy's recurrence."""

import re

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.failed_call import failure_values
from symnb.core.loop_values import values_at
from symnb.printing.values import value_stats
from symnb.printing.view_model import view_model
from symnb.widgets import GraphExplorer

XS = np.arange(48, dtype="float32").reshape(6, 2, 4) / 48
WR = np.full((4, 4), 0.1, "float32")
BIAS = np.array([0.1, 0.2, 0.3], "float32")  # 3 entries, 6 steps: bias[t] fails at t = 3
FAILING = 3


def make_build_error() -> BaseException:
    xs = T.tensor3("xs", test_value=XS)
    Wr = sn.shared(WR, name="Wr")
    bias = sn.shared(BIAS, name="bias")

    def step(x_t, t, h_prev):
        return T.tanh(T.dot(x_t, Wr) + h_prev + bias[t])

    with pytest.raises(sn.SymnbError) as info:
        sn.scan(step, sequences=[xs, T.arange(xs.shape[0])], outputs_info=[T.zeros((2, 4))])
    return info.value


@pytest.fixture(scope="module")
def build_error():
    return make_build_error()


def _states():
    """h_prev at each iteration (NumPy), up to the failing one."""
    h, states = np.zeros((2, 4), "float32"), []
    for t in range(FAILING + 1):
        states.append(h)
        h = np.tanh(XS[t] @ WR + h + BIAS[t]) if t < FAILING else None
    return states


def _text(page: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", re.sub(r"<img[^>]*>", "", page)))


def test_the_build_errors_values_are_the_failing_iterations(build_error):
    loop = build_error.node  # the loop the error names; its body's node failed
    values = failure_values(build_error)
    assert values is failure_values(build_error)  # replayed once
    assert values.node is build_error.original.node and values.loops == [(loop, FAILING)]
    bias, t = values.inputs
    np.testing.assert_array_equal(bias, BIAS)
    assert int(t) == FAILING and values.values_from == "the test values"
    # Any iteration on demand: h_prev at iteration 2, NumPy's recurrence.
    at_two = {var.name: value for var, value in values_at(values, [(loop, 2)]).values()}
    np.testing.assert_allclose(at_two["h_prev"], _states()[2], rtol=1e-6)
    # A build error's message and HTML stay its own: no call values attached.
    assert getattr(build_error, "call_values", None) is None


def test_the_model_opens_the_body_and_marks_the_failing_node(build_error):
    model = view_model(build_error)
    failing = {n["id"]: n for n in model["nodes"] if n["failing"]}
    holder = next(n for n in failing.values() if n["op"] == "scan(step)")
    inner = next(n for n in failing.values() if n["label"] == "bias[t]")
    body = next(g for g in model["groups"] if g["kind"] == "inner" and g["holder"] == holder["id"])
    assert inner["group"] == body["id"] and body["id"] in model["open"]
    # The boxes show the replayed values: the bias box, NumPy's.
    shared_bias = next(n for n in model["nodes"] if n["name"] == "bias" and n["kind"] == "shared")
    assert shared_bias["summary"] == value_stats(BIAS)


def test_the_explorer_shows_the_card_and_the_picker(build_error):
    widgets = pytest.importorskip("ipywidgets", reason="the live view needs ipywidgets")
    explorer = GraphExplorer(build_error)
    assert explorer.picked == [FAILING]
    card = _text(explorer.footer)
    assert f"Failed: bias[t] (getitem) at iteration {FAILING} of scan(step)" in card
    assert "replayed in NumPy from the test values" in card and f"t = {FAILING}" in card
    assert value_stats(BIAS) in explorer.footer
    # Selected first: the failing node in the loop's body (the model's id for it).
    assert explorer.selected == next(n["id"] for n in view_model(build_error)["nodes"] if n["label"] == "bias[t]")
    explorer.widget  # noqa: B018 -- the live view: the viewer and the picker under it
    slider = next(c for c in explorer._picker.children if isinstance(c, widgets.IntSlider))
    assert (slider.value, slider.max) == (FAILING, FAILING) and "scan(step)" in slider.description
    slider.value = 2
    shown = explorer._picker.children[-1].value
    assert "Values at iteration 2 of scan(step)" in _text(shown)
    assert value_stats(_states()[2]) in shown  # h_prev at iteration 2, NumPy's
    assert "tanh" in _text(shown) and "Elemwise" not in shown  # rows named in the user's words
