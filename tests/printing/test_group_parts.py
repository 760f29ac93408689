"""A group holding hundreds of nodes directly (the gradient of a model built in a
top-level loop: no call to group its layers by) is cut into parts, so opening it draws a
narrow column of boxes instead of one row of its many similar siblings."""

import pytest
from collections import Counter

import numpy as np

import symnb as sn
import symnb.tensor as T
from symnb.core.graph import Apply, toposort
from symnb.printing.groups import PART_OF, PARTS_OVER
from symnb.widgets.explorer import GraphExplorer

DEPTH = 50


def loop_mlp():
    """``for i in range(50): h = relu(dot(h, W_i) + b_i)`` at the top level, its gradient."""
    rng = np.random.default_rng(0)
    x = T.matrix("x", test_value=rng.random((3, 6), dtype="float32"))
    h, params = x, []
    for i in range(DEPTH):
        W = sn.shared((0.3 * rng.standard_normal((6, 6))).astype("float32"), name=f"W{i}")
        b = sn.shared(np.zeros(6, "float32"), name=f"b{i}")
        params += [W, b]
        h = T.nnet.relu(T.dot(h, W) + b)
    cost = h.sum()
    return cost, T.grad(cost, params)


def _drawn_apply_nodes(explorer):
    return {id(n.obj) for n in explorer.picture.nodes.values() if isinstance(n.obj, Apply)}


def test_opening_the_gradient_of_a_deep_loop_keeps_the_picture_narrow():
    cost, grads = loop_mlp()
    explorer = GraphExplorer([cost] + grads)
    gradient = next(g for g in explorer.picture.tree.top.children if g.kind == "grad")
    assert gradient.size > PARTS_OVER  # the case: hundreds of nodes, no call inside
    explorer.open(gradient.id)
    rows = Counter(round(box[1]) for box in explorer.layout.boxes.values())
    # Flat, the gradient drew ~800 boxes, 100 of them in one row, 21,000 px wide.
    assert len(explorer.picture.nodes) < 60
    assert max(rows.values()) <= 4
    assert explorer.layout.width < 4000
    parts = [g for g in gradient.children if g.kind == "part"]
    assert [p.title for p in parts[:2]] == [f"nodes 1\u2013{PART_OF}", f"nodes {PART_OF + 1}\u2013{2 * PART_OF}"]
    assert all(len(p.nodes) <= PART_OF for p in parts) and not gradient.nodes


@pytest.mark.slow  # tens of seconds on 2 cores: CI runs it (--run-slow), the default suite stays under 5 min
def test_every_gradient_node_is_drawn_when_its_part_is_opened():
    cost, grads = loop_mlp()
    explorer = GraphExplorer([cost] + grads)
    tree = explorer.picture.tree
    gradient = next(g for g in tree.top.children if g.kind == "grad")
    forward = {id(node) for node in toposort([cost])}
    every = [n for n in toposort(grads) if id(n) not in forward]  # the graph's walk
    seen = set()
    explorer.open(gradient.id)
    for part in [g for g in gradient.children if g.kind == "part"]:
        explorer.open(part.id)
        drawn = _drawn_apply_nodes(explorer)
        assert {id(n) for n in part.nodes} <= drawn
        assert max(Counter(round(b[1]) for b in explorer.layout.boxes.values()).values()) <= 2 * PART_OF
        seen |= drawn
        explorer.close_group(part.id)
    # Every node of the gradient (walked from the gradients, not from the groups) was drawn.
    assert {id(n) for n in every} <= seen
    assert len(every) == gradient.size


def test_parts_are_the_same_for_the_same_graph():
    cost, grads = loop_mlp()
    first = GraphExplorer([cost] + grads).picture.tree
    second = GraphExplorer([cost] + grads).picture.tree
    assert [(g.id, g.title, len(g.nodes), len(g.roots)) for g in first.groups()] == \
        [(g.id, g.title, len(g.nodes), len(g.roots)) for g in second.groups()]
