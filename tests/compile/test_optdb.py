"""Theano's ``gof.FunctionGraph(inputs, outputs)`` and ``compile.mode.optdb.query(...)
.optimize(fgraph)``: symnb's rewrite pipeline run on a graph of the user's own, in place."""

import numpy as np
import pytest

import symnb as theano
import symnb.tensor as T
from symnb import gof
from symnb.compile import mode as M


def _values(fgraph, *args):
    """What the rewritten graph computes (compiled as it stands, no further rewrites)."""
    f = theano.function(fgraph.inputs, fgraph.outputs, mode=theano.compile.Mode(optimizer=None))
    return f(*args)[0]


def _log_softmax(a):
    shifted = a - a.max(axis=1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))


def test_fast_run_rewrites_the_users_graph_in_place():
    x = T.dmatrix("x")
    y = T.log(T.nnet.softmax(x))
    fgraph = gof.FunctionGraph([x], [y])
    assert fgraph.outputs[0] is not y  # a copy: the user's graph is left alone
    before = [type(n.op).__name__ for n in fgraph.toposort()]
    assert "LogSoftmax" not in before
    out = M.optdb.query(M.OPT_FAST_RUN).optimize(fgraph)
    assert out is fgraph
    assert [type(n.op).__name__ for n in fgraph.toposort()] == ["LogSoftmax"]
    assert y.owner.op == T.log  # the user's variable is unchanged
    a = np.random.default_rng(0).normal(size=(3, 5)) * 40  # exp overflows without the rewrite
    np.testing.assert_allclose(_values(fgraph, a), _log_softmax(a), rtol=1e-12)


def test_queries_pick_passes_by_tag():
    x = T.dvector("x")
    y = T.exp(x) * 2.0 + 1.0
    fused = gof.FunctionGraph([x], [y])
    M.optdb.query(M.OPT_FAST_RUN).optimize(fused)
    assert [type(n.op).__name__ for n in fused.toposort()] == ["Composite"]
    unfused = gof.FunctionGraph([x], [y])
    M.optdb.query("+fast_run", "-local_elemwise_fusion").optimize(unfused)
    assert "Composite" not in [type(n.op).__name__ for n in unfused.toposort()]
    untouched = gof.FunctionGraph([x], [y])
    M.optdb.query(M.OPT_NONE).optimize(untouched)
    assert len(untouched.toposort()) == 3
    a = np.linspace(-2, 2, 7)
    for fgraph in (fused, unfused, untouched):
        np.testing.assert_allclose(_values(fgraph, a), np.exp(a) * 2 + 1, rtol=1e-12)


def test_a_query_theano_used_for_its_database_internals_is_refused():
    with pytest.raises(NotImplementedError, match="position_cutoff"):
        gof.Query(include=["fast_run"], position_cutoff=1.5)
    with pytest.raises(TypeError, match="FunctionGraph"):
        M.optdb.query(M.OPT_FAST_RUN).optimize([T.dvector()])
