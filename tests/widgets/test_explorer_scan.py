"""GraphExplorer and a scan (a tanh RNN): an error inside a step opens the function's
graph at the failing node inside its Scan; after an error past the scan, the loop body's
nodes show their values of the last iteration (checked against NumPy); search finds
nodes inside loop bodies. The facts are computed here: NumPy, and a walk of the inner
graphs."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.printing.values import value_stats
from symnb.widgets import GraphExplorer

STEPS, BATCH, N = 5, 3, 4
RNG = np.random.default_rng(0)
X = RNG.standard_normal((STEPS, BATCH, N)).astype("float32")
WX = RNG.standard_normal((N, N)).astype("float32") * 0.5
WH = RNG.standard_normal((N, N)).astype("float32") * 0.5


def _rnn(step, rows, *extra):
    xs = T.tensor3("xs")
    wx, wh = sn.shared(WX, name="Wx"), sn.shared(WH, name="Wh")
    hs, _ = sn.scan(step, sequences=[xs], outputs_info=[T.zeros((rows, N))],
                    non_sequences=[wx, wh, *extra], name="rnn")
    return xs, wx, wh, hs


def _numpy_states(x):
    h, states = np.zeros((x.shape[1], N), "float32"), []
    for x_t in x:
        h = np.tanh(x_t @ WX + h @ WH)
        states.append(h)
    return states


def _inner_nodes(outputs):
    """Every Apply of every inner graph reachable from ``outputs`` (any depth)."""
    seen, stack, inner = set(), [v.owner for v in outputs if v.owner is not None], []
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack += [v.owner for v in node.inputs if v.owner is not None]
        for graph in node.op.inner_graphs:
            inner += graph.nodes
            stack += list(graph.nodes)
    return inner


@pytest.fixture
def error_in_step():
    j = T.lvector("j")

    def step(x_t, h, wx, wh, j):
        return T.tanh(T.dot(x_t[j], wx) + T.dot(h, wh))

    xs, _, _, hs = _rnn(step, 2, j)
    f = sn.function([xs, j], (hs[-1] ** 2).sum())
    with pytest.raises(sn.IndexOutOfBoundsError) as info:
        f(X, np.array([0, 11]))
    return info.value


@pytest.fixture
def error_after_scan():
    k, sel = T.lscalar("k"), T.lvector("sel")
    xs, wx, _, hs = _rnn(lambda x_t, h, wx, wh: T.tanh(T.dot(x_t, wx) + T.dot(h, wh)), BATCH)
    f = sn.function([xs, k, sel], hs[k][sel])
    with pytest.raises(sn.IndexOutOfBoundsError) as info:
        f(X, 1, np.array([0, 7]))
    return info.value


def test_an_error_in_a_step_opens_the_functions_graph_at_it_inside_its_scan(error_in_step):
    explorer = GraphExplorer(error_in_step)
    scan_id = explorer.selected.split("/")[0]
    scan = explorer.picture.find(scan_id)
    assert type(scan.obj.op).__name__ == "Scan" and scan.error  # the outer Scan, marked
    assert error_in_step.node in _inner_nodes(scan.obj.outputs[:1]) or \
        any(error_in_step.node in g.nodes for g in scan.obj.op.inner_graphs)
    assert explorer.picture.find(explorer.selected).obj is error_in_step.node  # opened at it
    assert explorer.id_of(error_in_step.node) == explorer.selected
    assert len(explorer.node_ids()) > 3 and explorer.expanded == [scan_id]
    assert "iteration 0 of scan(rnn)" in explorer.header  # the failing iteration named
    details = explorer.details_html()
    assert value_stats(X[0]) in details  # x_t of iteration 0, this call's value
    assert "iteration 0 of scan(rnn)" in details


def test_after_an_error_past_the_scan_its_body_shows_the_last_iteration(error_after_scan):
    explorer = GraphExplorer(error_after_scan)
    last = _numpy_states(X)[-1]
    model = {n["id"]: n for n in explorer.view_model()["nodes"]}
    tanh_ids = [h for h in explorer.search("tanh") if "tanh" in (model[h]["op"] or "")]
    assert len(tanh_ids) == 1
    details = explorer.select(tanh_ids[0])
    tanh = explorer.picture.find(tanh_ids[0]).obj
    np.testing.assert_allclose(error_after_scan.call_values.value_of(tanh.outputs[0]), last,
                               rtol=1e-5, atol=1e-6)
    assert f"iteration {STEPS - 1} of scan(rnn)" in details
    assert "did not reach" not in details
    wx_inner = [i for i in explorer.search("Wx") if "/" in i]
    details = explorer.select(wx_inner[0])
    assert value_stats(WX) in details and "did not reach" not in details
    assert "value, passed to every run of scan(rnn)" in details  # not one iteration's


def test_search_finds_the_nodes_of_loop_bodies_and_selecting_one_opens_it():
    xs, wx, wh, hs = _rnn(lambda x_t, h, wx, wh: T.tanh(T.dot(x_t, wx) + T.dot(h, wh)), BATCH)
    cost = (hs[-1] ** 2).sum()
    outputs = [cost] + T.grad(cost, [wx, wh])
    explorer = GraphExplorer(outputs)
    hits = explorer.search("tanh")
    tanh_nodes = {id(n) for n in _inner_nodes(outputs) if "tanh" in n.op.display_name().lower()}
    assert tanh_nodes and len(hits) >= len(tanh_nodes)
    found = set()
    for hit in hits:
        explorer.select(hit)
        found.add(id(explorer.picture.find(hit).obj))
        assert explorer.selected == hit and hit.split("/")[0] in explorer.expanded
    assert tanh_nodes <= found
