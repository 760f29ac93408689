"""GraphExplorer's Python API drives the live viewer: each state change sends the view one
``command`` naming the viewer's groups to open and to close (its model's groups, which fold
calls into series and hold a loop's node in the call that made it), added to the groups
the user opened in the browser. No browser (its messages simulated); the page's side is
tests/browser/test_viewer.py."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.printing.values import value_stats
from symnb.widgets import GraphExplorer
from tests.browser.mlp12 import mlp12_train


def live(explorer):
    """The commands the explorer sends its view."""
    sent = []
    explorer.widget.send = lambda content, buffers=None: sent.append(content)
    return sent


def ops(explorer, name):
    """The ids of the model's nodes whose op starts with ``name`` (``scan(step)``)."""
    return {n["id"] for n in explorer.view_model()["nodes"] if (n["op"] or "").startswith(name)}


def around(model, node_or_group):
    """The viewer groups holding a node (or a group), innermost first, from the model."""
    parents = {g["id"]: g["parent"] for g in model["groups"]}
    group = next((n["group"] for n in model["nodes"] if n["id"] == node_or_group), None)
    group = parents[node_or_group] if node_or_group in parents else group
    chain = []
    while group is not None:
        chain.append(group)
        group = parents[group]
    return chain


@pytest.fixture
def loop_explorer():
    xs = T.matrix("xs", test_value=np.array([[1, 2], [3, 4], [5, 6]], "float32"))
    h0 = T.zeros(2, "float32")
    hs, _ = sn.scan(lambda x_t, h: T.tanh(x_t + 0.5 * h), sequences=[xs], outputs_info=[h0])
    return GraphExplorer((hs ** 2).sum())


def test_expanding_a_loop_opens_the_viewer_groups_around_its_node(loop_explorer):
    """Notebook 06: ``explorer.expand(loop)`` drew the loop's group closed in the viewer."""
    explorer = loop_explorer
    sent = live(explorer)
    loop, = [h for h in explorer.search("scan") if h in ops(explorer, "scan")]
    holders = around(explorer.view_model(), loop)
    assert holders and all(g not in explorer.view_state()["open"] for g in holders)  # closed at first
    explorer.expand(loop)
    assert set(holders) <= set(sent[-1]["command"]["open"])
    assert set(holders) <= set(explorer.view_state()["open"])  # what the saved viewer opens
    explorer.close(loop)
    assert not sent[-1]["command"]["open"]  # the loop's box stays in sight: its groups stay open


def test_opening_a_call_opens_the_series_folding_it():
    explorer = GraphExplorer(mlp12_train(layers=3))
    model = explorer.view_model()
    sent = live(explorer)
    call = next(g["id"] for g in model["groups"] if g["kind"] == "call" and g["region"] == "forward"
                and g["parent"] is not None)
    series = around(model, call)
    assert series and model["groups"][[g["id"] for g in model["groups"]].index(series[0])]["kind"] == "series"
    explorer.open(call)
    assert {call, *series} <= set(sent[-1]["command"]["open"])
    explorer.close_group(call)
    assert sent[-1]["command"]["close"] == [call] and not sent[-1]["command"]["open"]
    assert call not in explorer.view_state()["open"]
    # Selecting a node inside closed groups brings it into sight in the viewer too.
    inner = next(n["id"] for n in model["nodes"] if n["group"] == call and n["id"].startswith("n"))
    explorer.select(inner)
    assert sent[-1]["command"]["selected"] == inner
    assert set(around(model, inner)) <= set(sent[-1]["command"]["open"])


def test_expanding_a_loop_opens_its_body_in_the_viewer(loop_explorer):
    """Notebook 06 promised the loop opens in place: the viewer's model holds the step's
    nodes in an "inner" group, and ``expand`` sends that group open (``close`` closes it)."""
    explorer = loop_explorer
    sent = live(explorer)
    loop, = [h for h in explorer.search("scan") if h in ops(explorer, "scan")]
    model = explorer.view_model()
    body = [g["id"] for g in model["groups"] if g["kind"] == "inner" and g["holder"] == loop]
    assert len(body) == 1 and body[0] not in explorer.view_state()["open"]  # closed at first
    tanh = [n for n in model["nodes"] if n["group"] == body[0] and n["op"] and "tanh" in n["op"]]
    assert len(tanh) == 1  # the step's tanh(x_t + 0.5 * h) is in it
    explorer.expand(loop)
    assert body[0] in sent[-1]["command"]["open"] and body[0] in explorer.view_state()["open"]
    explorer.close(loop)
    assert sent[-1]["command"]["close"] == body and body[0] not in explorer.view_state()["open"]


def test_the_kernel_answers_the_details_of_a_node_in_a_loops_body(loop_explorer):
    """A click on a body's node (``n1/0/n2``) in the live viewer asks the kernel for its
    details: it answers with that node (its op, its test value), the loop not expanded."""
    explorer = loop_explorer
    sent = live(explorer)
    model = explorer.view_model()
    tanh = next(n for n in model["nodes"] if n["kind"] == "op" and "/" in n["id"] and "tanh" in n["op"])
    explorer._on_message(explorer.widget, {"details": tanh["id"]}, None)
    answer = sent[-1]
    assert answer["details_for"] == tanh["id"] and "no details" not in answer["html"]
    assert ">tanh<" in answer["html"] and "Elemwise{" not in answer["html"]
    # Its test value: the first step's, tanh(xs[0] + 0.5 * 0) (NumPy).
    assert value_stats(np.tanh(np.array([1, 2], "float32"))) in answer["html"]
    assert explorer.expanded == [] and explorer.selected == ""  # asking changed nothing


def browser_state(explorer, opened, selected=""):
    """The browser's debounced state message: the groups the user has open there."""
    explorer._on_message(explorer.widget, {"state": {"open": opened, "selected": selected,
                                                     "overlay": ""}}, None)


def forward_calls(model):
    """Two calls of the series ``layer() x3`` (inside it) and the series."""
    calls = [g["id"] for g in model["groups"] if g["kind"] == "call" and g["region"] == "forward"
             and g["parent"] is not None]
    return calls[0], calls[1], around(model, calls[0])


def test_a_python_open_adds_to_the_groups_the_user_opened_in_the_browser():
    """``explorer.open(...)`` sent the whole open set: it closed what the user had opened
    only in the browser. Now it sends what it opens, and the kernel keeps both."""
    explorer = GraphExplorer(mlp12_train(layers=3))
    model = explorer.view_model()
    sent = live(explorer)
    mine, theirs, series = forward_calls(model)
    browser_state(explorer, [*series, theirs])  # the user opened a call in the browser
    assert theirs in explorer.opened
    explorer.open(mine)
    command = sent[-1]["command"]
    assert command["open"] == [mine] and command["close"] == []  # the series is open already
    # What the browser draws after the command (viewer_controller.js changeOpen): both calls.
    in_browser = ({*series, theirs} | set(command["open"])) - set(command["close"])
    assert {mine, theirs} <= in_browser
    assert {mine, theirs, *series} <= set(explorer.view_state()["open"])  # the saved state too
    assert {mine, theirs} <= set(explorer.opened)
    assert explorer.picture.tree.get(theirs) is not None


def test_close_group_closes_a_group_opened_only_in_the_browser():
    explorer = GraphExplorer(mlp12_train(layers=3))
    model = explorer.view_model()
    sent = live(explorer)
    mine, theirs, series = forward_calls(model)
    explorer.open(mine)
    browser_state(explorer, [*series, mine, theirs])
    explorer.close_group(theirs)
    assert sent[-1]["command"] == {"open": [], "close": [theirs], "selected": ""}
    assert theirs not in explorer.opened and mine in explorer.opened
    assert set(explorer.view_state()["open"]) == {*series, mine}
    # Before the browser says (its state is debounced): closed there all the same.
    explorer2 = GraphExplorer(mlp12_train(layers=3))
    sent2 = live(explorer2)
    explorer2.close_group(theirs)
    assert sent2[-1]["command"]["close"] == [theirs]


def test_selecting_a_search_hit_that_is_a_viewer_group_selects_it_in_the_viewer():
    """search() answers with the viewer's ids, a folded series among them (a group only
    the viewer's model has): select() takes it, and the viewer opens the groups around it."""
    explorer = GraphExplorer(mlp12_train(layers=3))
    model = explorer.view_model()
    sent = live(explorer)
    series = next(g for g in model["groups"] if g["kind"] == "series" and g["parent"] is not None)
    assert series["id"] in explorer.search(series["label"])
    assert series["label"] in explorer.select(series["id"])
    assert explorer.selected == series["id"] == sent[-1]["command"]["selected"]
    assert set(around(model, series["id"])) <= set(sent[-1]["command"]["open"])


def test_the_explorers_model_reuses_its_pictures_grouping_and_equals_a_fresh_one():
    """The explorer groups its graph once (its picture's GroupTree feeds its view model):
    the model is the one view_model makes on its own, grouping anew."""
    from symnb.printing.view_model import view_model
    from tests.widgets.test_failure_view import make_scan_error

    for obj, groups in ((mlp12_train(layers=3), "call"), (make_scan_error(), "inner")):
        explorer = GraphExplorer(obj)
        fresh = view_model(explorer.obj, highlight=explorer.highlight, times=explorer.times,
                           time_total=explorer.time_total, call_values=explorer.call_values)
        assert explorer.view_model() == fresh
        assert any(g["kind"] == groups for g in fresh["groups"])  # a model with groups to differ in
