"""``symnb.core.graph.inner_graph`` and the interface every op holding inner graphs implements
(``inner_graphs``, ``inner_inputs``, ``inner_outputs``, ``inner_feeds``,
``inner_output_notes``, ``names_inner_graph``)."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.graph.errors import InnerNodeError
from symnb.core.graph.inner_graph import InnerGraph, close_over, placeholder_like
from symnb.core.tensor.composite import Composite


def _graph():
    a, b = T.vector("a"), T.vector("b")
    total = a * 2 + b  # the inner node that fails
    return a, b, InnerGraph([a, b], [total])


def test_run_evaluates_the_outputs():
    a, b, graph = _graph()
    assert [type(n.op).__name__ for n in graph.nodes] == ["Mul", "Add"]  # found by a walk
    av, bv = np.array([1.0, 2.0], "float32"), np.array([0.5, 0.25], "float32")
    (out,) = graph.run([av, bv])
    np.testing.assert_array_equal(out, av * np.float32(2) + bv)


def test_a_failing_node_names_its_line_and_the_evaluation():
    a, b, graph = _graph()
    values = [np.ones(2, "float32"), np.ones(3, "float32")]
    with pytest.raises(InnerNodeError) as info:
        graph.run(values, where="iteration 2 of scan 'step'")
    lines = str(info.value).splitlines()
    assert lines[0].startswith("DimensionMismatch in Elemwise{add,no_inplace} at iteration 2 of scan "
                               "'step': Input dimension mis-match")
    assert lines[2].strip() == "total = a * 2 + b  # the inner node that fails"
    with pytest.raises(ValueError, match="mis-match") as raw:  # without ``where``: as it is
        graph.run(values)
    assert not isinstance(raw.value, InnerNodeError)


def test_an_inner_graph_must_be_closed():
    a, b = T.vector("a"), T.vector("b")
    with pytest.raises(AssertionError, match="uses outer variable b"):
        InnerGraph([a], [a + b])


def test_close_over_moves_outer_variables_to_inputs():
    x = T.vector("x", test_value=np.ones(2, "float32"))
    w = T.vector("w", test_value=np.full(2, 3.0, "float32"))
    scale = w * 2  # independent of x: computed once, outside
    outer, placeholders, (out,) = close_over([x], [x * scale])
    assert outer == [scale]
    (p,) = placeholders
    assert p is not scale and p.type == scale.type and p.site == scale.site
    np.testing.assert_array_equal(p.test_value, np.full(2, 6.0, "float32"))
    graph = InnerGraph([x, p], [out])
    (value,) = graph.run([np.array([1.0, 2.0], "float32"), np.full(2, 6.0, "float32")])
    np.testing.assert_array_equal(value, np.array([6.0, 12.0], "float32"))
    assert placeholder_like(x, shape=(5,)).type.shape == (5,)


def test_the_interface_of_scan():
    seq = T.vector("seq", test_value=np.arange(5, dtype="float32"))
    h0 = T.matrix("h0", test_value=np.zeros((2, 3), "float32"))
    w = T.scalar("w", test_value=np.float32(0.5))

    def step(prev_x, x_now, h_2, h_1, weight):
        return h_1 + h_2 * weight + prev_x + x_now, sn.scan_until(T.gt(x_now, 2))

    out, _ = sn.scan(step, sequences=[dict(input=seq, taps=[-1, 0])],
                     outputs_info=[dict(initial=h0, taps=[-2, -1])], non_sequences=[w])
    node = out.owner.inputs[0].owner  # out: the rows run (StepsRun) of the loop's buffer
    op = node.op
    assert op.inner_graphs == (op.inner,) and not op.names_inner_graph
    assert op.inner_inputs == op.inner.inputs and len(op.inner_inputs) == 5
    # each tap of a sequence is fed by the sequence, each state tap by the initial states
    assert op.inner_feeds(node) == [seq, seq, h0, h0, w]
    assert op.inner_outputs == op.inner.outputs and op.inner_output_notes() == ["", "until"]


def test_the_interface_of_ifelse():
    c = T.lscalar("c", test_value=np.int64(1))
    x = T.vector("x", test_value=np.ones(2, "float32"))
    y = T.vector("y", test_value=np.ones(2, "float32"))
    a, b = sn.ifelse(c, [x * 2, y], [x + 1, y - 1])
    node = a.owner
    op = node.op
    then_graph, else_graph = op.inner_graphs
    assert (then_graph.role, else_graph.role) == ("then", "else")
    assert then_graph.inputs == else_graph.inputs == op.inner_inputs  # the branches share them
    assert op.inner_feeds(node) == list(node.inputs[1:])  # after the condition
    assert op.inner_outputs == then_graph.outputs + else_graph.outputs
    assert op.inner_output_notes() == ["then 0", "then 1", "else 0", "else 1"]
    (single,) = [sn.ifelse(c, x, y)]
    assert single.owner.op.inner_output_notes() == ["then", "else"]


def test_the_interface_of_a_fused_composite():
    x, y = T.vector("x"), T.vector("y")
    f = sn.function([x, y], T.tanh(x * 2 + y))
    (node,) = [n for n in f.nodes if isinstance(n.op, Composite)]
    op = node.op
    assert op.inner_graphs == (op.graph,) and op.names_inner_graph
    assert op.inner_feeds(node) == list(node.inputs) == [x, y]
    assert op.inner_output_notes() == [""]
    assert [type(n.op).__name__ for n in op.graph.nodes] == ["Mul", "Add", "Tanh"]


def test_ops_without_inner_graphs():
    x = T.vector("x")
    op = (x + 1).owner.op
    assert op.inner_graphs == () and op.inner_inputs == op.inner_outputs == op.inner_output_notes() == []
