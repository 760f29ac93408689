"""The passes that decide ``ifelse``'s branches over the whole function graph
(``core/rewriting/lazy_branches.py``) and ``sn.grad``'s copy of the cost graph."""

import numpy as np

import symnb as sn
import symnb.tensor as T
from symnb.core.graph.fgraph import FunctionGraph
from symnb.core.ifelse import IfElse
from symnb.core.rewriting.lazy_branches import IfElseLazy, IfElseLift
from symnb.core.rewriting.merge import MergePass


def _ops(graph):
    return sorted(type(n.op).__name__ for n in graph.nodes)


def _only_ifelse(fgraph):
    (node,) = fgraph.nodes_of(IfElse)
    return node


def test_lift_then_lazy_keep_outside_what_the_rest_needs_and_move_in_the_rest():
    x = T.vector("x", test_value=np.array([1.0, 2.0], "float32"))
    c = T.scalar("c", dtype="int8", test_value=np.int8(1))
    h = T.exp(x)  # read by the then branch and by the second output
    chosen = sn.ifelse(c, T.tanh(h) * 2, T.log(x))
    assert _ops(chosen.owner.op.then_graph) == ["Exp", "Mul", "Tanh"]  # as built: its own view
    fgraph = FunctionGraph([c, x], [chosen, h + 1])
    assert IfElseLift().apply(fgraph) == 1
    lifted = _only_ifelse(fgraph)
    assert not any(g.nodes for g in lifted.op.inner_graphs)  # every branch node outside
    MergePass().apply(fgraph)  # the branch's exp and the output's are one node
    assert len([n for n in fgraph.apply_nodes if type(n.op).__name__ == "Exp"]) == 1
    IfElseLazy().apply(fgraph)
    node = _only_ifelse(fgraph)
    assert _ops(node.op.then_graph) == ["Mul", "Tanh"] and _ops(node.op.else_graph) == ["Log"]
    (exp_node,) = [n for n in fgraph.apply_nodes if type(n.op).__name__ == "Exp"]
    assert exp_node.outputs[0] in node.inputs  # an operand, computed once outside
    fgraph.validate()
    assert {r.name for r in fgraph.history} >= {"ifelse_lift", "ifelse_lazy"}
    f = sn.function([c, x], [chosen, h + 1])
    values = np.array([1.0, 2.0], "float32")
    np.testing.assert_allclose(f(1, values)[0], np.tanh(np.exp(values)) * 2, rtol=1e-6)
    np.testing.assert_allclose(f(0, values)[0], np.log(values), rtol=1e-6)


def test_a_node_two_branches_of_one_condition_need_is_computed_in_each_not_outside():
    x = T.vector("x", test_value=np.array([0.5, 2.0], "float32"))
    c = T.scalar("c", dtype="int8", test_value=np.int8(1))
    shared_work = T.sqrt(x)
    a = sn.ifelse(c, shared_work * 2, x)
    b = sn.ifelse(c, shared_work + 1, -x)
    f = sn.function([c, x], [a, b])
    assert not [n for n in f.maker.fgraph.apply_nodes if type(n.op).__name__ == "Sqrt"]
    for node in f.maker.fgraph.nodes_of(IfElse):
        assert "Sqrt" in _ops(node.op.then_graph)
    values = np.array([-4.0, 9.0], "float32")  # sqrt would make a NaN: only the else runs
    out = f(0, values)
    np.testing.assert_array_equal(out[0], values)
    np.testing.assert_array_equal(out[1], -values)


def test_excluding_the_lazy_pass_still_runs_it_after_the_lift():
    x = T.vector("x", test_value=np.array([4.0], "float32"))
    c = T.scalar("c", dtype="int8", test_value=np.int8(1))
    checked = T.Assert("then ran")(x, T.gt(x.sum(), 0))
    out = sn.ifelse(c, checked * 2, x)
    f = sn.function([c, x], out, mode=sn.Mode().excluding("ifelse_lazy"))
    assert any(g.nodes for n in f.maker.fgraph.nodes_of(IfElse) for g in n.op.inner_graphs)
    np.testing.assert_array_equal(f(0, np.array([-1.0], "float32")), [-1.0])  # no assert ran


def test_grad_differentiates_branches_that_hold_only_their_own_work():
    # The then branch, as built, copies the upstream product (the else branch reads
    # none of it); the cost also reads that product outside the ifelse.
    x = T.matrix("x", test_value=np.ones((2, 3), "float32"))
    W = sn.shared(np.full((3, 3), 0.5, "float32"), name="W")
    c = sn.shared(np.array(1, "int8"), name="c")
    h = T.tanh(T.dot(x, W))
    out = h + sn.ifelse(c, h * 3, T.zeros_like(x))
    assert "Dot" in _ops(out.owner.inputs[1].owner.op.then_graph)
    g = sn.grad(out.sum(), W)
    f = sn.function([x], g)
    for node in f.maker.fgraph.nodes_of(IfElse):  # no backpropagation through a copy
        for graph in node.op.inner_graphs:
            assert not {"Dot", "Tensordot"} & set(_ops(graph)), _ops(graph)
    assert f.lowered_text("jaxpr").count("dot_general") == 2  # the product and its gradient
    values = np.arange(6, dtype="float32").reshape(2, 3) / 6
    pre = values @ W.get_value()
    expected = values.T @ ((1 - np.tanh(pre) ** 2) * 4)  # d/dW sum(tanh(xW) * 4)
    np.testing.assert_allclose(f(values), expected, rtol=1e-5)

