"""The rewriting framework: tracked op classes, fixpoint worklist, sites, history, levels."""

import numpy as np
import pytest

import symnb.tensor as T
from symnb.core.graph.fgraph import FunctionGraph
from symnb.core.rewriting import (
    LEVELS, PASSES, LocalPass, RewriteFailureWarning, RewriteLimitWarning, node_rewriter, optimize,
    passes_for, register_rewrite,
)
from symnb.core.graph.rewriting import build
from symnb.core.tensor import elemwise as ew


@node_rewriter([ew.Exp])
def exp_to_tanh(fgraph, node):
    """A toy rewrite: exp(x) -> tanh(x)."""
    return [build(ew.Tanh(), node.inputs[0])]


def test_a_rewrite_sees_only_the_op_classes_it_tracks():
    seen = []

    @node_rewriter([ew.Elemwise], name="spy")
    def spy(fgraph, node):
        seen.append(type(node.op))

    x = T.matrix("x")
    fg = FunctionGraph([x], [T.exp(x).sum() + 1])
    LocalPass("test", [spy]).apply(fg)
    assert seen == [ew.Exp, ew.Add]  # the Sum node is not an Elemwise
    assert spy.name == "spy" and exp_to_tanh.name == "exp_to_tanh"
    with pytest.raises(TypeError, match="not an Op class"):
        node_rewriter([int])(lambda fg, n: None)


def test_new_nodes_take_the_replaced_nodes_site_and_history_records_it():
    x = T.vector("x")
    y = T.exp(x)  # the line the new node must name
    fg = FunctionGraph([x], [y + 1])
    assert LocalPass("test", [exp_to_tanh]).apply(fg) == 1
    tanh = fg.outputs[0].owner.inputs[0].owner
    assert isinstance(tanh.op, ew.Tanh)
    assert tanh.site.line == "y = T.exp(x)  # the line the new node must name"
    (record,) = fg.history
    assert record.name == "exp_to_tanh" and isinstance(record.before.op, ew.Exp)
    assert record.after is tanh


def test_a_rewrite_declares_where_it_is_exact_and_history_records_it():
    @node_rewriter([ew.Exp], name="exp_to_tanh_inexact", exact="where x is 0")
    def inexact(fgraph, node):
        return [build(ew.Tanh(), node.inputs[0])]

    assert exp_to_tanh.exact and exp_to_tanh.domain is None
    assert not inexact.exact and inexact.domain == "where x is 0"
    assert "exact only where x is 0" in repr(inexact)
    x = T.vector("x")
    fg = FunctionGraph([x], [T.exp(x) + T.exp(2 * x)])
    LocalPass("test", [inexact]).apply(fg)
    assert [(r.name, r.exact, r.domain) for r in fg.history] == [("exp_to_tanh_inexact", False, "where x is 0")] * 2
    fg = FunctionGraph([x], [T.exp(x)])
    LocalPass("test", [exp_to_tanh]).apply(fg)
    assert fg.history[0].exact and fg.history[0].domain is None
    for bad in (False, "", "  "):
        with pytest.raises(ValueError, match="saying where the rewrite keeps values"):
            node_rewriter([ew.Exp], exact=bad)(lambda fg, n: None)


def test_the_worklist_reaches_the_fixpoint_through_new_matches():
    # Each --x removal exposes another one to the rewrite: all go in one apply().
    x = T.vector("x")
    y = x
    for _ in range(50):
        y = -y
    fg = FunctionGraph([x], [T.exp(y)])
    optimize(fg, "fast_run")
    assert [type(n.op) for n in fg.toposort()] == [ew.Exp]
    assert sum(r.name == "local_neg_neg" for r in fg.history) == 25


def test_a_rewrite_loop_stops_with_a_warning():
    @node_rewriter([ew.Exp])
    def flip(fgraph, node):
        return [build(ew.Exp(), node.inputs[0])]  # the same thing again, forever

    x = T.vector("x")
    fg = FunctionGraph([x], [T.exp(x)])
    with pytest.warns(RewriteLimitWarning, match="'loop'"):
        LocalPass("loop", [flip], limit_per_node=2).apply(fg)
    fg.validate()


@pytest.mark.parametrize("result, problem", [
    (lambda node: [node.inputs[0], node.inputs[0]], "returned 2 replacement"),
    (lambda node: [T.cast(node.inputs[0], "float64")], "dtype and number of dimensions"),
    (lambda node: 1 / 0, "ZeroDivisionError"),
])
def test_a_broken_rewrite_is_skipped_with_a_warning(result, problem):
    @node_rewriter([ew.Exp])
    def broken(fgraph, node):
        return result(node)

    x = T.vector("x")
    fg = FunctionGraph([x], [T.exp(x)])
    with pytest.warns(RewriteFailureWarning, match=f"rewrite 'broken' failed on .*{problem}"):
        assert LocalPass("t", [broken, exp_to_tanh]).apply(fg) == 1
    assert [type(n.op) for n in fg.toposort()] == [ew.Tanh]  # the next rewrite still ran
    fg.validate()


def test_register_rewrite_adds_to_a_named_pass():
    canonicalize = PASSES["canonicalize"]
    before = list(canonicalize.rewrites)
    try:
        register_rewrite("canonicalize")(exp_to_tanh)
        x = T.vector("x")
        fg = optimize(FunctionGraph([x], [T.exp(x)]), "fast_run")
        assert "exp_to_tanh" in [r.name for r in fg.history]
    finally:
        canonicalize.rewrites[:] = before
        canonicalize._by_class.clear()
    with pytest.raises(ValueError, match="no local rewrite pass named 'fusion'"):
        register_rewrite("fusion")


def test_levels_name_passes_in_a_fixed_order():
    assert passes_for("fast_run") == ("ifelse_lift", "merge", "canonicalize", "stabilize", "specialize",
                                      "merge", "ifelse_lazy", "fusion")
    assert passes_for("FAST_COMPILE") == ("ifelse_lift", "merge", "constant_folding", "stabilize",
                                          "ifelse_lazy")
    assert passes_for(None) == passes_for("None") == ()
    assert set(LEVELS) == {"fast_run", "fast_compile", None}
    with pytest.raises(ValueError, match="unknown optimizer 'fast'"):
        passes_for("fast")


def test_levels_differ_in_what_they_rewrite():
    x = T.vector("x")

    def rewritten(level):
        y = T.exp(x) * 1.0 + (T.constant(np.float32(2)) * 3)
        fg = FunctionGraph([x], [y])
        optimize(fg, level)
        return [type(n.op).__name__ for n in fg.toposort()]

    assert rewritten(None) == ["Exp", "Mul", "Mul", "Add"]
    assert rewritten("fast_compile") == ["Exp", "Mul", "Add"]  # 2 * 3 folded
    assert rewritten("fast_run") == ["Composite"]  # x * 1 gone, exp + 6 fused
