"""The graph of a function graph at each step of its rewrite history, read back
(core/graph/history.py), against snapshots taken while the rewrites ran."""

from __future__ import annotations

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.graph.fgraph import FunctionGraph
from symnb.core.graph.history import state_before, states_backwards
from symnb.core.graph_compare import rewrite_changes, same_computation


@pytest.fixture
def snapshots(monkeypatch):
    """Every replace of a compile, with the graph as it was just before and just after it:
    ``(reason, {node: its inputs}, outputs)`` pairs, taken from the live graph."""
    taken = []
    replace = FunctionGraph.replace

    def recording(self, old, new, reason="replace", **options):
        before = ({n: list(n.inputs) for n in self.apply_nodes}, list(self.outputs))
        imported = replace(self, old, new, reason, **options)
        if old is not new:
            after = ({n: list(n.inputs) for n in self.apply_nodes}, list(self.outputs))
            taken.append((reason, before, after))
        return imported

    monkeypatch.setattr(FunctionGraph, "replace", recording)
    return taken


def _compiled(snapshots):
    x = T.matrix("x", test_value=np.ones((3, 3), "float32"))
    W = sn.shared(np.ones((3, 3), "float32"), name="W")
    h = T.tanh(T.dot(x, W))
    f = sn.function([x], (T.exp(T.log(h * 2 + 1)) + h).sum())
    fgraph = f.maker.fgraph
    assert len(fgraph.history) == len(snapshots) >= 3
    return fgraph


def test_each_step_reads_back_as_the_graph_was_then(snapshots):
    fgraph = _compiled(snapshots)
    for k, (reason, (nodes_before, outputs_before), (nodes_after, outputs_after)) in enumerate(snapshots):
        assert fgraph.history[k].name == reason
        for state, nodes, outputs in ((state_before(fgraph, k), nodes_before, outputs_before),
                                      (state_before(fgraph, k + 1), nodes_after, outputs_after)):
            assert state.outputs == outputs
            order = state.order()
            assert set(order) == set(nodes)
            assert all(state.inputs_of(node) == nodes[node] for node in order)


def test_a_node_a_rewrite_made_is_not_shown_with_a_later_rewrites_inputs(snapshots):
    # The second fusion replaces `h*2+1` under the node the first fusion made: the live
    # node reads the later one, the graph just after the first fusion does not.
    fgraph = _compiled(snapshots)
    first = next(k for k, r in enumerate(fgraph.history) if r.name == "fusion")
    made = fgraph.history[first].after
    then = state_before(fgraph, first + 1).inputs_of(made)
    assert then == snapshots[first][2][0][made] and then != made.inputs


def test_states_backwards_is_state_before_for_every_step(snapshots):
    fgraph = _compiled(snapshots)
    for k, before, after in states_backwards(fgraph):
        for state, expected in ((before, state_before(fgraph, k)), (after, state_before(fgraph, k + 1))):
            order = state.order()
            assert order == expected.order()
            assert all(state.inputs_of(n) == expected.inputs_of(n) for n in order)


def test_rewrite_changes_are_the_nodes_that_left_and_entered_the_graph(snapshots):
    fgraph = _compiled(snapshots)
    for k, (_, (nodes_before, _), (nodes_after, _)) in enumerate(snapshots):
        changes = rewrite_changes(state_before(fgraph, k), state_before(fgraph, k + 1), fgraph.history[k])
        assert set(changes.removed) == set(nodes_before) - set(nodes_after)
        assert set(changes.added) == set(nodes_after) - set(nodes_before)


def test_a_replacement_by_an_equal_computation_changes_nothing():
    x = T.vector("x", test_value=np.ones(3, "float32"))
    y = T.exp(T.log(x)) * 2
    fgraph = FunctionGraph([x], [y])
    exp = fgraph.outputs[0].owner.inputs[0]
    again = T.exp(exp.owner.inputs[0])  # a new node: the same op on the same input
    fgraph.replace(exp, again, reason="same again")
    twice = fgraph.outputs[0].owner
    thrice = (twice.inputs[0] * 3).owner
    fgraph.replace(twice.outputs[0], thrice.outputs[0], reason="times three")
    steps = {k: (before, after) for k, before, after in states_backwards(fgraph)}
    same = [same_computation(r.old, r.new, steps[k][0].inputs_of, steps[k][1].inputs_of)
            for k, r in enumerate(fgraph.history)]
    assert same == [True, False]
    changes = rewrite_changes(*steps[0], fgraph.history[0])
    assert changes.removed == [] and changes.added == []  # matched, though other objects
    changes = rewrite_changes(*steps[1], fgraph.history[1])
    assert changes.removed == [twice] and changes.added == [thrice]  # x*3 for x*2, exp kept
