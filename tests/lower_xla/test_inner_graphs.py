"""Whole-graph passes of the compiler see the nodes of inner graphs (Scan bodies, IfElse
branches, fused Composites): run-time checks, the dtypes a program needs, dynamic
shapes, and where a failing node is reported."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.compile import DebugMode, Mode, NanGuardMode
from symnb.core.tensor.assertion import AssertionFailedError
from symnb.lower_xla.rules.subtensor import DynamicShapeError

MODES = [None, Mode(optimizer=None), DebugMode(), NanGuardMode()]
MODE_IDS = ["jit", "jit-unoptimized", "DebugMode", "NanGuardMode"]


def _assert_in_scan():
    x = T.vector("x", test_value=np.ones(3, "float32"))

    def step(v, total):
        return total + T.Assert("steps must be positive")(v, T.gt(v, 0))  # the inner assert

    out, _ = sn.scan(step, sequences=[x], outputs_info=[T.constant(np.float32(0))])
    return x, out


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_assert_inside_scan(mode):
    x, out = _assert_in_scan()
    counter = sn.shared(np.int64(0), name="counter")
    f = sn.function([x], out, updates=[(counter, counter + 1)], mode=mode)
    values = np.array([1.0, 2.0, 4.0], "float32")
    np.testing.assert_allclose(f(values), np.cumsum(values))
    assert counter.get_value() == 1
    with pytest.raises(AssertionFailedError) as info:
        f(np.array([1.0, -2.0, 4.0], "float32"))
    text = str(info.value)
    assert "steps must be positive (condition #1 is false)" in text
    assert "# the inner assert" in text  # the line inside the step function
    assert "Inside Scan{step}" in text
    assert "at iteration 1 of Scan{step}" in text  # the step whose value is -2
    assert info.value.record.where == "iteration 1 of Scan{step}"
    assert "Toposort" not in text  # an internal position: exception_verbosity='high' only
    assert counter.get_value() == 1  # the failed call changed nothing


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_assert_inside_an_ifelse_branch(mode):
    x = T.vector("x", test_value=np.ones(2, "float32"))
    flag = T.lscalar("flag", test_value=np.int64(1))
    checked = T.Assert("x must be positive")(x, T.all(T.gt(x, 0)))  # the branch's assert
    out = sn.ifelse(flag, T.sqrt(checked), -x)
    f = sn.function([x, flag], out, mode=mode)
    np.testing.assert_allclose(f(np.array([4.0, 9.0], "float32"), 1), [2.0, 3.0])
    np.testing.assert_allclose(f(np.array([-4.0, 9.0], "float32"), 0), [4.0, -9.0])  # not taken
    with pytest.raises(AssertionFailedError, match="(?s)x must be positive.*# the branch's assert"):
        f(np.array([-4.0, 9.0], "float32"), 1)


def test_assert_in_nested_loops_is_reported_with_both_holders():
    m = T.matrix("m", test_value=np.ones((2, 2), "float32"))

    def row_sum(row):
        def entry(v):
            return T.Assert("entries must be small")(v, T.lt(v, 100))  # the nested assert

        inner, _ = sn.scan(entry, sequences=[row], name="entries")
        return inner.sum()

    sums, _ = sn.scan(row_sum, sequences=[m], name="rows")
    f = sn.function([m], sums)
    np.testing.assert_allclose(f(np.array([[1, 2], [3, 4]], "float32")), [3, 7])
    with pytest.raises(AssertionFailedError) as info:
        f(np.array([[1, 2], [300, 4]], "float32"))
    text = str(info.value)
    assert "# the nested assert" in text
    assert text.index("Inside Scan{entries}") < text.index("Inside Scan{rows}")


def test_a_failure_inside_a_scan_body_gives_its_index_in_the_body():
    x, w = T.matrix("x"), T.vector("w")

    def step(xt, w):
        return T.tanh(xt * 2) + w  # the inner bug

    out, _ = sn.scan(step, sequences=[x], non_sequences=[w])
    f = sn.function([x, w], out)
    with pytest.raises(sn.GraphRuntimeError) as info:
        f(np.ones((2, 3), "float32"), np.ones(4, "float32"))
    text = str(info.value)
    assert "# the inner bug" in text and "Inside Scan{step}" in text
    assert "oposort" not in text  # internal positions: exception_verbosity='high' only
    with sn.config.change_flags(exception_verbosity="high"):
        with pytest.raises(sn.GraphRuntimeError) as info:
            f(np.ones((2, 3), "float32"), np.ones(4, "float32"))
    text = str(info.value)
    # the add is the third of the body's three nodes; the Scan is the second outer node
    assert "Toposort index: 2 of 3 in its inner graph" in text
    assert "Scan{step}: toposort index 1 of 2" in text


def test_64_bit_values_inside_a_fused_composite_enable_x64():
    # float32 in and out, float64 inside: 1e-300 underflows to 0 in float32.
    x = T.vector("x")
    # NumPy float64 scalars keep their dtype (a Python float would be floatX: Theano's rule)
    y = T.cast(T.cast(x, "float64") * np.float64(1e-300) * np.float64(1e300), "float32")
    f = sn.function([x], y)
    assert any(n.op.inner_graphs for n in f.nodes)  # fused
    values = np.array([1.5, -2.0], "float32")
    expected = ((values.astype("float64") * 1e-300) * 1e300).astype("float32")
    np.testing.assert_allclose(f(values), expected, rtol=1e-6)


def test_a_run_time_nonzero_inside_a_scan_body_is_refused_at_build_time():
    m = T.matrix("m", test_value=np.array([[1, 0], [0, 2]], "float32"))
    sums, _ = sn.scan(lambda row: row[row.nonzero()].sum(), sequences=[m])  # the masked read
    np.testing.assert_allclose(sums.test_value, [1, 2])
    with pytest.raises(DynamicShapeError, match="(?s)row.nonzero.*# the masked read"):
        sn.function([m], sums)
