"""Theano's ``Mode.including`` / ``excluding`` / ``requiring``: rewrites selected by tag."""

import numpy as np
import pytest

import symnb as theano
import symnb.tensor as T
from symnb.compile import Mode
from symnb.compile.monitormode import MonitorMode
from symnb.core.tensor.composite import Composite
from symnb.core.rewriting.query import UnknownRewriteTagWarning


def _ops(f):
    return [type(node.op).__name__ for node in f.maker.fgraph.toposort()]


def test_monitor_mode_excluding_fusion_and_inplace_sees_each_node():
    # Theano's debugging FAQ: find the node that made a NaN, fusion and inplace off.
    seen = []

    def detect_nan(i, node, fn):
        for output in fn.outputs:
            if np.isnan(output[0]).any():
                seen.append(type(node.op).__name__)

    x = T.dvector("x")
    y = T.log(x) * x + T.exp(x)
    fused = theano.function([x], y, mode=MonitorMode(post_func=detect_nan))
    unfused = theano.function(
        [x], y, mode=MonitorMode(post_func=detect_nan).excluding("local_elemwise_fusion", "inplace"))
    assert any(isinstance(n.op, Composite) for n in fused.maker.fgraph.apply_nodes)
    assert not any(isinstance(n.op, Composite) for n in unfused.maker.fgraph.apply_nodes)
    values = np.array([-1.0, 2.0])
    with np.errstate(invalid="ignore"):
        expected = np.log(values) * values + np.exp(values)
    np.testing.assert_allclose(unfused(values), expected)
    assert seen == ["Log", "Mul", "Add"]  # the NaN is traced to the log, node by node
    seen.clear()
    np.testing.assert_allclose(fused(values), expected)
    assert seen == ["Composite"]


def test_excluding_one_rewrite_and_including_one_pass():
    x = T.dvector("x")
    y = (x * 1.0) ** 2
    values = np.array([1.5, -2.0])
    unfused = theano.function([x], y, mode=Mode().excluding("fusion"))
    kept = theano.function([x], y, mode=Mode().excluding("local_mul_one", "fusion"))
    assert "Mul" not in _ops(unfused) and "Mul" in _ops(kept)
    for f in (unfused, kept):
        np.testing.assert_allclose(f(values), values ** 2)
    nothing_but_specialize = Mode(optimizer=None).including("specialize")
    f = theano.function([x], y, mode=nothing_but_specialize)
    assert "Mul" in _ops(f) and "Square" in _ops(f) and "Pow" not in _ops(f)
    assert {step.name for step in f.maker.fgraph.history} == {"local_pow_specialize"}
    np.testing.assert_allclose(f(values), values ** 2)
    only_fusion = Mode().requiring("fusion")
    g = theano.function([x], y, mode=only_fusion)
    assert _ops(g) == ["Composite"]
    np.testing.assert_allclose(g(values), values ** 2)


def test_modes_are_copied_and_unknown_tags_select_nothing():
    base = Mode()
    quiet = base.excluding("fusion")
    assert base.rewrite_query.exclude == frozenset() and quiet.rewrite_query.exclude == {"fusion"}
    assert "excluding=['fusion']" in repr(quiet)
    # Theano's tags are names: one no rewrite carries changes nothing (a typo is said).
    with pytest.warns(UnknownRewriteTagWarning, match="unknown rewrite tag 'fuson'.*removes nothing"):
        typo = base.excluding("fuson")
    with pytest.warns(UnknownRewriteTagWarning, match="'scan'.*selects nothing"):
        scan = base.including("scan")
    assert typo.rewrite_query == base.rewrite_query == scan.rewrite_query
    x = theano.tensor.vector("x")
    values = np.array([1.0, 2.0, 3.0], dtype=x.dtype)
    f, g = (theano.function([x], x ** 2, mode=mode) for mode in (base, typo))
    assert _ops(f) == _ops(g)
    np.testing.assert_allclose(g(values), values ** 2)
    with pytest.raises(ValueError, match="nothing would run"):
        base.requiring("inplace")
