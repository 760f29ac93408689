"""``walk_nodes``/``node_places``: one walk of a graph that goes into the graphs its ops
hold (Scan bodies, IfElse branches, fused Composites), at any depth."""

import numpy as np

import symnb as sn
import symnb.tensor as T
from symnb.core.graph.basic import node_places, toposort, walk_nodes
from symnb.core.ifelse import IfElse
from symnb.core.scan.op import Scan
from symnb.core.tensor.composite import Composite


def _scan_holding_an_ifelse():
    x = T.vector("x", test_value=np.array([1.0, -2.0], "float32"))

    def step(xt):
        doubled = xt * 2
        return sn.ifelse(T.gt(xt, 0), T.exp(doubled), -doubled)

    out, _ = sn.scan(step, sequences=[x])
    return x, out


def test_the_walk_goes_into_loop_bodies_and_branches_depth_first():
    x, out = _scan_holding_an_ifelse()
    nodes = toposort([out], [x])
    (scan_node,) = [n for n in nodes if isinstance(n.op, Scan)]
    body = scan_node.op.inner_graphs[0]
    (ifelse_node,) = [n for n in body.nodes if isinstance(n.op, IfElse)]
    then_graph, else_graph = ifelse_node.op.inner_graphs
    # ``doubled`` is needed by both branches: computed once, outside, and read by both.
    assert [type(n.op).__name__ for n in then_graph.nodes] == ["Exp"]
    assert [type(n.op).__name__ for n in else_graph.nodes] == ["Neg"]
    assert any(type(n.op).__name__ == "Mul" for n in body.nodes)

    expected = []
    for node in nodes:  # each node, then the nodes of the graphs it holds, in order
        expected.append(node)
        if node is scan_node:
            for inner in body.nodes:
                expected.append(inner)
                if inner is ifelse_node:
                    expected += then_graph.nodes + else_graph.nodes
    assert list(walk_nodes(nodes)) == expected
    assert len(expected) == len(nodes) + len(body.nodes) + 2


def test_places_give_the_index_in_the_own_graph_and_the_enclosing_nodes():
    x, out = _scan_holding_an_ifelse()
    nodes = toposort([out], [x])
    places = {id(p.node): p for p in node_places(nodes)}
    scan_index = next(i for i, n in enumerate(nodes) if isinstance(n.op, Scan))
    scan_place = places[id(nodes[scan_index])]
    assert (scan_place.index, scan_place.count, scan_place.enclosing) == (scan_index, len(nodes), ())
    body = nodes[scan_index].op.inner_graphs[0]
    ifelse_index = next(i for i, n in enumerate(body.nodes) if isinstance(n.op, IfElse))
    else_graph = body.nodes[ifelse_index].op.inner_graphs[1]
    neg = else_graph.nodes[0]
    place = places[id(neg)]
    assert (place.index, place.count) == (0, 1)
    assert [p.node for p in place.enclosing] == [nodes[scan_index], body.nodes[ifelse_index]]
    assert [(p.index, p.count) for p in place.enclosing] == [(scan_index, len(nodes)),
                                                             (ifelse_index, len(body.nodes))]


def test_a_fused_composite_shows_its_inner_nodes():
    x = T.vector("x")
    y = T.tanh(x * 2 + 1)
    nodes = sn.function([x], y).nodes
    (composite,) = [n for n in nodes if isinstance(n.op, Composite)]
    (graph,) = composite.op.inner_graphs
    assert graph is composite.op.graph
    assert list(graph.inputs) == list(composite.op.inner_inputs) == [x]
    walked = list(walk_nodes(nodes))
    assert walked == [composite, *graph.nodes]
    assert [type(n.op).__name__ for n in walked[1:]] == ["Mul", "Add", "Tanh"]


def test_ordinary_ops_hold_no_graphs():
    x = T.vector("x")
    node = (x + 1).owner
    assert node.op.inner_graphs == ()
    assert list(walk_nodes([node])) == [node]
