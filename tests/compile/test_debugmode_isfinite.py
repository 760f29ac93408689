"""DebugMode's ``check_isfinite`` (Theano's, on by default): NaN and Inf are refused at
the first node that reads or makes one; ``DebugMode(check_isfinite=False)`` and
``config.DebugMode.check_finite = False`` allow them (issue 38)."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.compile import DebugMode
from symnb.compile.debugmode import DebugModeError, InvalidValueError


def test_a_nan_made_by_a_node_is_refused_at_its_line():
    x = T.dvector("x")
    root = T.sqrt(x)  # the node making the NaN
    f = sn.function([x], root * 2, mode=DebugMode())
    np.testing.assert_allclose(f(np.array([4.0, 9.0])), [4.0, 6.0])  # finite: passes
    with pytest.raises(InvalidValueError) as info:
        f(np.array([4.0, -1.0]))
    message = str(info.value)
    assert "DebugMode (check_isfinite): NaN in output #0 'root'" in message
    assert "root = T.sqrt(x)  # the node making the NaN" in message
    assert isinstance(info.value, DebugModeError)


def test_an_infinite_argument_is_refused_and_the_flag_allows_it():
    x = T.dvector("x")
    y = T.exp(x) + 1
    with pytest.raises(InvalidValueError, match="Inf in input #0 'x'"):
        sn.function([x], y, mode="DebugMode")(np.array([0.0, np.inf]))
    assert DebugMode().check_isfinite is True  # Theano's default
    g = sn.function([x], y, mode=DebugMode(check_isfinite=False))
    np.testing.assert_array_equal(g(np.array([0.0, np.inf])), [2.0, np.inf])
    with sn.config.change_flags(DebugMode__check_finite=False):
        assert sn.config.DebugMode.check_finite is False
        mode = DebugMode()
    assert mode.check_isfinite is False
    np.testing.assert_array_equal(sn.function([x], y, mode=mode)(np.array([0.0, np.inf])), [2.0, np.inf])


def test_config_spells_the_flag_as_theano():
    assert sn.config.DebugMode.check_finite is True
    sn.config.DebugMode.check_finite = False
    try:
        assert sn.config.DebugMode__check_finite is False
        assert DebugMode().check_isfinite is False
        assert DebugMode(check_isfinite=True).check_isfinite is True
    finally:
        sn.config.DebugMode.check_finite = True


def test_the_node_comparison_still_runs_with_the_check():
    x = T.dmatrix("x")
    out = T.tanh(T.dot(x, x.T)).sum(axis=0)
    value = np.arange(6.0).reshape(2, 3) / 10
    result = sn.function([x], out, mode=DebugMode())(value)
    np.testing.assert_allclose(result, np.tanh(value @ value.T).sum(axis=0), rtol=1e-12)


def test_a_nan_constant_a_rewrite_builds_is_no_finding():
    """exp(log(x)) becomes switch(x >= 0, abs(x), nan): the constant is the rewrite's."""
    x = T.vector("x")
    mode = DebugMode(optimizer="fast_run").excluding("fusion")  # the switch stays a node
    f = sn.function([x], T.exp(T.log(x)) * 2, mode=mode)
    assert any(type(node.op).__name__ == "Switch" for node in f.maker.fgraph.toposort())
    np.testing.assert_allclose(f(np.array([1.0, 2.0], "float32")), [2.0, 4.0], rtol=1e-6)
    with pytest.raises(InvalidValueError, match="NaN"):
        f(np.array([-1.0, 2.0], "float32"))  # log of a negative: NaN, reported
