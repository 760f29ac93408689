"""The rewrite stepper as a graph comparison: removed and added nodes marked exactly (against
the graph before and after each rewrite, taken while it ran), unchanged values not
highlighted, no-op steps counted once."""

from __future__ import annotations

import re
from types import SimpleNamespace

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.graph.fgraph import FunctionGraph
from symnb.widgets import RewriteStepper


@pytest.fixture
def node_sets(monkeypatch):
    """``(rewrite, nodes before, nodes after)`` of every replace a compile makes, read off
    the live graph around each call."""
    taken = []
    replace = FunctionGraph.replace

    def recording(self, old, new, reason="replace", **options):
        before = set(self.apply_nodes)
        imported = replace(self, old, new, reason, **options)
        if old is not new:
            taken.append((reason, before, set(self.apply_nodes)))
        return imported

    monkeypatch.setattr(FunctionGraph, "replace", recording)
    return taken


def _ops(nodes):
    return sorted(node.op.display_name() for node in nodes)


def test_exp_log_marks_exactly_the_removed_and_added_nodes(node_sets):
    x = T.vector("x", test_value=np.array([1, 2, 3], "float32"))
    f = sn.function([x], (T.exp(T.log(x)) * 2).sum())
    stepper = RewriteStepper(f)
    assert [r.name for r in stepper.history] == [name for name, _, _ in node_sets]
    for index, (name, before, after) in enumerate(node_sets):
        compared = stepper.comparison(index)
        assert set(compared.removed) == before - after and set(compared.added) == after - before
        # The picture marks those nodes and no other.
        picture = compared.picture()
        marked = {node.change: [] for node in picture.nodes.values()}
        for node in picture.nodes.values():
            marked[node.change].append(compared._copier.real[id(node.obj)])
        assert _ops(marked.get("removed", [])) == _ops(before - after)
        assert _ops(marked.get("added", [])) == _ops(after - before)
        svg = compared.svg()
        assert svg.count("symnb-removed") == len(before - after)
        assert svg.count("symnb-added") == len(after - before)
    first = stepper.comparison(0)
    assert first.record.name == "local_exp_log"
    assert {n.op.display_name() for n in first.removed} == {"Elemwise{exp,no_inplace}", "Elemwise{log,no_inplace}"}


def test_an_unchanged_subtree_is_cut_alike_on_both_sides_and_not_highlighted():
    x = T.matrix("x", test_value=np.ones((2, 3), "float32"))
    W = sn.shared(np.ones((3, 3), "float32"), name="W")
    inner = T.tanh(T.dot(x, W)) + 1
    inner.name = "inner"
    f = sn.function([x], T.exp(T.log(inner)).sum())
    stepper = RewriteStepper(f)
    assert stepper.history[0].name == "local_exp_log"
    before, after = stepper.changes()
    unchanged_before = [line.strip() for line, changed in before if not changed]
    unchanged_after = [line.strip() for line, changed in after if not changed]
    # `inner` is one line on each side, never expanded into tanh and dot.
    assert unchanged_before == ["inner"] and "inner" in unchanged_after
    assert not any("tanh" in line or "dot" in line for line, _ in before + after)
    # Marked lines: one per removed (added) node; the others are not highlighted.
    compared = stepper.comparison()
    assert sum(changed for _, changed in before) == len(compared.removed) == 2
    assert sum(changed for _, changed in after) == len(compared.added)
    page = stepper.page_html()
    assert page.count('class="symnb-removed"') == 2
    highlighted = re.findall(r'<span class="symnb-(?:removed|added)"[^>]*>([^<]*)</span>', page)
    assert len(highlighted) == len(compared.removed) + len(compared.added)
    assert "inner" not in [line.lstrip("-+ ") for line in highlighted]


def _by_hand_function():
    """A function graph with two replacements, the first by an equal computation."""
    x = T.vector("x", test_value=np.ones(3, "float32"))
    fgraph = FunctionGraph([x], [T.exp(T.log(x)) * 2])
    exp = fgraph.outputs[0].owner.inputs[0]
    fgraph.replace(exp, T.exp(exp.owner.inputs[0]), reason="same_again")
    twice = fgraph.outputs[0]
    fgraph.replace(twice, twice.owner.inputs[0] * 3, reason="times_three")
    exp = fgraph.outputs[0].owner.inputs[0]
    fgraph.replace(exp, T.sqrt(x), reason="sqrt_instead")
    return SimpleNamespace(maker=SimpleNamespace(fgraph=fgraph, optimizer="by hand"))


def test_a_no_op_step_is_counted_once_not_in_every_title():
    stepper = RewriteStepper(_by_hand_function())
    assert stepper.skipped == 1 and [r.name for r in stepper.history] == ["times_three", "sqrt_instead"]
    for position in range(len(stepper.history)):
        stepper.position = position
        assert "changed nothing" not in stepper.title() and "skipped" not in stepper.title()
        assert stepper.page_html().count("1 more changed nothing") == 1
        assert stepper.text().count("1 more changed nothing") == 1


def test_the_stepper_says_where_the_rewrite_sits_in_the_graph():
    x = T.vector("x", test_value=np.array([1, 2, 3], "float32"))
    b = sn.shared(np.float32(0.5), name="b")
    y = T.exp(T.log(x)) * 2
    z = (y + b).sum()
    stepper = RewriteStepper(sn.function([x], z))
    compared = stepper.comparison(0)
    # The path follows the readers from an output down to the replaced node.
    assert compared.path() == ["output 0: z", "y + b", "y", "T.exp(T.log(x))"]
    overview = compared.overview_svg()
    assert overview.count("symnb-removed") == 2 and "symnb-added" not in overview


def test_no_internal_names_unless_verbosity_is_high():
    x = T.vector("x", test_value=np.array([1, 2, 3], "float32"))
    stepper = RewriteStepper(sn.function([x], T.exp(T.log(x)) * 2))
    stepper.position = len(stepper.history) - 1
    for text in (stepper.text(), stepper.step().before + stepper.step().after):
        assert "TensorType" not in text and "Composite{" not in text and "[id " not in text
        assert "Elemwise{" not in text
    with sn.config.change_flags(exception_verbosity="high"):
        assert "Composite{" in stepper.step().after
