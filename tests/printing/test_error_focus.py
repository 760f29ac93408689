"""error_focus: the one place that locates an error's failing node and the loop holding
it; the explorer and the viewer's model draw what it says. Each case is checked against
the graph walked here (the loop found by scanning the function's nodes' inner graphs)."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.graph.basic import toposort
from symnb.printing.error_focus import error_focus
from symnb.printing.view_model import view_model
from symnb.widgets import GraphExplorer
from tests.widgets.test_build_failure_view import make_build_error
from tests.widgets.test_failure_view import make_scan_error


def _failing_ids(model):
    return [n["id"] for n in model["nodes"] if n["failing"]]


def test_a_call_failing_in_a_loop_body_draws_the_function_with_the_loop_marked():
    err = make_scan_error()
    focus = error_focus(err, "test")
    function = err.call_values.function
    loops = [n for n in function.nodes if n.op.inner_graphs and any(err.node in g.nodes for g in n.op.inner_graphs)]
    assert focus.graph is function and focus.holder is loops[0] and focus.marked == [err.node, loops[0]]
    explorer = GraphExplorer(err)
    assert explorer.obj is function
    holder_id = f"n{function.nodes.index(loops[0])}"
    assert _failing_ids(view_model(err))[0] == holder_id
    assert _failing_ids(explorer.view_model()) == _failing_ids(view_model(err))


def test_a_loop_failing_while_built_draws_the_loop_with_its_body_node_marked():
    err = make_build_error()
    focus = error_focus(err, "test")
    assert focus.graph is err.node and focus.holder is err.node
    assert focus.marked[1] is err.node and focus.marked[0] in err.node.op.inner_graphs[0].nodes
    assert GraphExplorer(err).obj is err.node
    assert _failing_ids(GraphExplorer(err).view_model()) == _failing_ids(view_model(err))


def test_a_call_failing_in_the_outer_graph_draws_what_the_failing_node_reads():
    x = T.vector("x", test_value=np.ones(3, "float32"))
    idx = T.lscalar("idx")
    y = T.exp(x)[idx] * 2
    f = sn.function([x, idx], y)
    with pytest.raises(sn.IndexOutOfBoundsError) as info:
        f(np.ones(3, "float32"), 7)
    err = info.value
    focus = error_focus(err, "test")
    assert err.node in f.nodes  # not in a loop body: nothing holds it
    assert focus.graph is err.node and focus.holder is None and focus.marked == [err.node]
    model = view_model(err)
    ops = [n for n in model["nodes"] if n["kind"] == "op"]
    assert len(ops) == len(toposort(err.node.outputs))  # the failing node and what it reads, no more
    assert _failing_ids(model) == _failing_ids(GraphExplorer(err).view_model())


def test_an_error_naming_no_node_is_refused_with_the_callers_name():
    with pytest.raises(TypeError, match="view_model: the ValueError names no node"):
        view_model(ValueError("no node"))
