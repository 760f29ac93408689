"""Merge, constant folding and elementwise fusion into Composite nodes."""

import numpy as np
import pytest

import symnb.tensor as T
from symnb.core.graph.fgraph import FunctionGraph
from symnb.core.rewriting import optimize
from symnb.core.graph.static import MAX_FOLDED_BYTES
from symnb.core.tensor.composite import Composite
from tests.rewriting_helpers import applied, compile_and_check, op_names

pytestmark = pytest.mark.filterwarnings("error::symnb.core.rewriting.RewriteFailureWarning")


def _names(build, *inputs, level="fast_run"):
    fg = FunctionGraph(list(inputs), [build(*inputs)])
    optimize(fg, level)
    return [n.op.display_name() for n in fg.toposort()], fg


# -- merge -----------------------------------------------------------------------------

def test_merge_removes_common_subexpressions(rng):
    x = rng.normal(size=(3,)).astype("float32")
    f = compile_and_check(lambda v: T.exp(v) * 2 + T.exp(v) * 2, [x], mode="FAST_COMPILE")
    assert op_names(f.maker.fgraph) == ["Exp", "Mul", "Add"]
    assert applied(f.maker.fgraph).count("merge") == 2


def test_merge_unifies_equal_constants_but_not_signed_zeros():
    x = T.vector("x")
    names, fg = _names(lambda v: v * T.constant(np.float32(2)) + v * np.float32(2), x,
                       level="fast_compile")
    assert names == ["Elemwise{mul,no_inplace}", "Elemwise{add,no_inplace}"]
    names, _ = _names(lambda v: v * T.constant(np.float32(0.0)) + v * T.constant(np.float32(-0.0)),
                      x, level="fast_compile")
    assert len(names) == 3


def test_merge_keeps_ops_with_different_parameters(rng):
    x = rng.normal(size=(3, 3)).astype("float64")
    f = compile_and_check(lambda v: v.sum(axis=0) + v.sum(axis=1), [x], mode="FAST_COMPILE")
    assert op_names(f.maker.fgraph).count("Sum") == 2


# -- constant folding ----------------------------------------------------------------------

def test_constant_folding_through_perform(rng):
    x = rng.normal(size=(4,)).astype("float32")
    f = compile_and_check(lambda v: v + T.exp(T.constant(np.float32(0))) * 3, [x], mode="FAST_COMPILE")
    assert op_names(f.maker.fgraph) == ["Add"]
    assert "constant_folding" in applied(f.maker.fgraph)
    const = f.maker.fgraph.toposort()[0].inputs[1]
    assert const.data.dtype == np.float32 and const.data == 3


def test_constant_folding_skips_large_results_and_device_allocations(rng):
    big = np.ones(MAX_FOLDED_BYTES // 4 + 1, "float32")
    f = compile_and_check(lambda v: v + T.constant(big) * 2, [np.ones(1, "float32")], mode="FAST_COMPILE")
    assert "Mul" in op_names(f.maker.fgraph)
    f = compile_and_check(lambda v: v + T.zeros((3,)), [np.ones(3, "float32")], mode="FAST_COMPILE")
    assert "Alloc" in op_names(f.maker.fgraph)


# -- fusion ---------------------------------------------------------------------------------

def test_fusion_names_the_composite_like_theano():
    x, y = T.vector(), T.vector()
    names, fg = _names(lambda a, b: (a + a) + b, x, y)
    assert names == ["Composite{((i0 + i0) + i1)}"]
    assert fg.toposort()[0].inputs == [x, y]
    names, _ = _names(lambda a, b: T.log(-a / b) * 2.5, x, y)
    assert names == ["Composite{(log(((-i0) / i1)) * 2.5)}"]


def test_fusion_keeps_values_read_twice_as_separate_results(rng):
    x = T.vector("x")

    def build(v):
        a = T.exp(v) + 1
        return a * 2 + (a - 3)

    names, fg = _names(build, x)
    # Python ints are int8 constants (Theano's rule), printed as ints.
    assert names == ["Composite{(exp(i0) + 1)}", "Composite{((i0 * 2) + (i0 - 3))}"]
    compile_and_check(build, [rng.normal(size=5).astype("float32")])


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
def test_fused_graphs_compute_the_same_values(dtype, rng):
    x = (rng.normal(size=(3, 4)) * 3).astype(dtype)
    y = (rng.normal(size=(4,)) * 3).astype(dtype)

    def build(a, b):
        return T.switch(a > b, a * b - 1, T.abs(a) + T.maximum(b, 0)) // 2

    f = compile_and_check(build, [x, y])
    assert op_names(f.maker.fgraph)[0] == "Composite" and len(f.maker.fgraph.toposort()) == 1


def test_composite_perform_and_equality():
    x, y = T.vector("x"), T.vector("y")
    (_, fg1), (_, fg2) = _names(lambda a, b: T.tanh(a) * b + 1, x, y), \
        _names(lambda a, b: T.tanh(a) * b + 1, T.vector(), T.vector())
    node1, node2 = fg1.toposort()[0], fg2.toposort()[0]
    assert isinstance(node1.op, Composite) and node1.op == node2.op and hash(node1.op) == hash(node2.op)
    a, b = np.array([0.5, -1.0], "float32"), np.array([2.0, 3.0], "float32")
    (out,) = node1.op.perform(node1, [a, b])
    np.testing.assert_allclose(out, np.tanh(a) * b + 1, rtol=1e-6)
    assert out.dtype == np.float32
    _, fg3 = _names(lambda a, b: T.tanh(a) * b + 2, x, y)
    assert fg3.toposort()[0].op != node1.op


def test_long_composite_names_are_abbreviated():
    x = T.vector("x")
    y = x
    for _ in range(1000):
        y = T.sin(y) * 1.5
    names, fg = _names(lambda v: y, x)
    assert len(names) == 1 and len(names[0]) < 200 and "..." in names[0]
    assert len(fg.toposort()[0].op.graph.nodes) == 2000


def test_inner_nodes_keep_the_users_sites():
    x, y = T.vector("x"), T.vector("y")
    z = x + x
    z = z + y
    fg = FunctionGraph([x, y], [z])
    optimize(fg, "fast_run")
    (node,) = fg.toposort()
    assert node.site.line == "z = z + y"
    assert [n.site.line for n in node.op.graph.nodes] == ["z = x + x", "z = z + y"]
