"""FunctionGraph: copying, clients, replace with type checks, pruning, validation."""

import numpy as np
import pytest

import symnb.tensor as T
from symnb.core.graph.fgraph import FunctionGraph, InconsistencyError
from symnb.core.graph.basic import Apply
from symnb.core.rewriting import optimize
from symnb.core.tensor import elemwise as ew

pytestmark = pytest.mark.filterwarnings("error::symnb.core.rewriting.RewriteFailureWarning")


def _graph():
    x = T.vector("x", test_value=np.array([1.0, 2.0], "float32"))
    y = T.vector("y", test_value=np.array([3.0, 4.0], "float32"))
    z = x + x
    w = T.exp(z) * y
    return x, y, z, w


def test_clone_copies_nodes_and_keeps_names_sites_and_test_values():
    x, y, z, w = _graph()
    z.name = "z"
    fg = FunctionGraph([x, y], [w])
    nodes = fg.toposort()
    assert len(nodes) == 3 and not any(n is z.owner or n is w.owner for n in nodes)
    copy_z = fg.equiv[z]
    assert copy_z is not z and copy_z.name == "z"
    assert copy_z.owner.site == z.owner.site and copy_z.owner.site.line == "z = x + x"
    np.testing.assert_array_equal(copy_z.test_value, [2.0, 4.0])
    assert fg.inputs == [x, y]  # inputs are the function's own variables
    fg.validate()


def test_rewriting_never_touches_the_users_graph():
    x, y, z, w = _graph()
    before = [list(n.inputs) for n in (z.owner, w.owner)]
    fg = FunctionGraph([x, y], [w * 1.0])
    optimize(fg, "fast_run")
    assert [list(n.inputs) for n in (z.owner, w.owner)] == before
    assert isinstance(w.owner.op, ew.Mul) and w.owner.inputs[1] is y


def test_clients_track_readers_and_outputs():
    x, y, z, w = _graph()
    fg = FunctionGraph([x, y], [w, z])
    cz = fg.equiv[z]
    readers = list(fg.clients[cz])
    assert ("output", 1) in readers and len(readers) == 2
    assert list(fg.clients[x]) == [(cz.owner, 0), (cz.owner, 1)]


def test_replace_moves_clients_and_prunes_dead_nodes():
    x, y, z, w = _graph()
    fg = FunctionGraph([x, y], [w])
    cz = fg.equiv[z]
    exp_node = fg.equiv[w].owner.inputs[0].owner
    fg.replace(exp_node.outputs[0], cz, reason="test")
    assert exp_node not in fg.apply_nodes
    assert [type(n.op) for n in fg.toposort()] == [ew.Add, ew.Mul]
    assert fg.history[-1].name == "test" and fg.history[-1].before is exp_node
    fg.validate()


def test_replace_imports_new_nodes_and_replaces_outputs():
    x, y, z, w = _graph()
    fg = FunctionGraph([x, y], [w])
    new = T.log(y)
    fg.replace(fg.outputs[0], new)
    assert fg.outputs[0] is new and new.owner in fg.apply_nodes
    assert [type(n.op) for n in fg.toposort()] == [ew.Log]
    fg.validate()


def test_replace_checks_dtype_ndim_and_static_shape():
    x = T.vector("x", shape=(3,))
    e = T.exp(x)
    fg = FunctionGraph([x], [e])
    out = fg.outputs[0]
    with pytest.raises(InconsistencyError, match=r"'e' \(float32 \(3,\)\) by .*float64 \(3,\)"):
        fg.replace(out, T.cast(x, "float64"), reason="bad")
    with pytest.raises(InconsistencyError, match="number of dimensions"):
        fg.replace(out, T.matrix("m"))
    with pytest.raises(InconsistencyError, match="static lengths"):
        fg.replace(out, T.vector("v", shape=(4,)))
    fg.replace(out, T.vector("free", shape=(None,)) * 1)  # unknown length: compatible


def test_replace_refuses_a_cycle():
    x = T.vector("x")
    fg = FunctionGraph([x], [T.exp(x) + 1])
    e = fg.outputs[0].owner.inputs[0]
    with pytest.raises(InconsistencyError, match="cyclic"):
        fg.replace(e, T.log(e))


def test_validate_reports_missing_inputs_and_cycles():
    x, y = T.vector("x"), T.vector("y")
    fg = FunctionGraph([x], [x + y])  # y is neither an input nor a constant
    with pytest.raises(InconsistencyError, match="neither an input"):
        fg.validate()
    fg = FunctionGraph([x], [T.exp(x) + 1])
    add, exp = fg.outputs[0].owner, fg.outputs[0].owner.inputs[0].owner
    exp.inputs[0] = add.outputs[0]  # break the graph by hand: a loop
    fg.clients[add.outputs[0]][(exp, 0)] = None
    with pytest.raises(InconsistencyError, match="cycle"):
        fg._check_no_cycle()


def test_outputs_may_be_inputs_or_constants():
    x = T.vector("x")
    two = T.constant(np.float32(2))
    fg = FunctionGraph([x], [x, two])
    assert fg.outputs == [x, two] and fg.toposort() == []
    fg.validate()


@pytest.mark.slow
def test_deep_graph_copies_rewrites_and_sorts_without_recursion():
    x = T.vector("x", shape=(4,))
    y = x
    for i in range(10_000):
        y = T.tanh(y) * 1.0 if i % 2 else -(-y) + 0.0
    fg = FunctionGraph([x], [y])
    assert len(fg.toposort()) == 25_000
    fg.validate()
    optimize(fg, "fast_run")
    fg.validate()
    assert len(fg.toposort()) == 1  # the tanhs, fused into one Composite
    inner = fg.toposort()[0].op.graph.nodes
    assert len(inner) == 5_000 and all(isinstance(n.op, ew.Tanh) for n in inner)


def test_nodes_of_and_variables():
    x, y, z, w = _graph()
    fg = FunctionGraph([x, y], [w])
    assert [n.op for n in fg.nodes_of(ew.Exp)] == [ew.Exp()]
    assert x in fg.variables and fg.outputs[0] in fg.variables
    assert isinstance(fg.toposort()[0], Apply) and len(fg) == 3
