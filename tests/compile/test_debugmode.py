"""DebugMode: each node's XLA lowering against its NumPy perform; rewrites checked too."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.compile import DebugMode
from symnb.compile.debugmode import DebugModeError
from symnb.core.graph import Apply
from symnb.core.op import Op
from symnb.core.rewriting import passes
from symnb.core.rewriting.basic import LocalPass, node_rewriter
from symnb.core.tensor import elemwise as ew
from symnb.lower_xla import lower


class Triple(Op):
    """3 * x; its lowering rule below is deliberately wrong."""

    def make_node(self, x):
        return Apply(self, [x], [x.type])

    def perform(self, node, inputs):
        return [inputs[0] * 3]


@lower.register(Triple)
def _wrong_triple(op, node):
    return lambda x: x * 2  # the bug DebugMode must find


def test_a_correct_graph_passes_and_gives_numpy_values(rng):
    x = T.matrix("x")
    y = T.tanh(T.dot(x, x.T)).sum(axis=0) / 3 + T.log1p(T.exp(x)).max()
    f = sn.function([x], y, mode=DebugMode())
    value = rng.normal(size=(3, 3)).astype("float32")
    expected = np.tanh(value @ value.T).sum(axis=0) / 3 + np.log1p(np.exp(value)).max()
    np.testing.assert_allclose(f(value), expected, rtol=1e-5)


def test_a_wrong_lowering_rule_is_caught_with_the_nodes_line():
    x = T.vector("x")
    tripled = Triple()(x)
    f = sn.function([x], tripled + 1, mode=DebugMode())
    with pytest.raises(DebugModeError) as info:
        f(np.ones(2, "float32"))
    message = str(info.value)
    assert "XLA lowering of Triple disagrees with its NumPy perform" in message
    assert "tripled = Triple()(x)" in message
    assert "2.0" in message and "3.0" in message


def test_a_rewrite_that_changes_values_is_named(monkeypatch):
    @node_rewriter([ew.Mul], name="bad_mul_to_add")
    def bad(fgraph, node):
        return [T.add(*node.inputs)]

    monkeypatch.setitem(passes.PASSES, "canonicalize", LocalPass("canonicalize", [bad]))
    x = T.vector("x")
    product = x * 3
    f = sn.function([x], product, mode=DebugMode(optimizer="fast_run"))
    with pytest.raises(DebugModeError) as info:
        f(np.ones(2, "float32"))
    message = str(info.value)
    assert "rewrite 'bad_mul_to_add' changed the value" in message
    assert "product = x * 3" in message
