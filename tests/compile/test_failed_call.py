"""A failed call is reported from its first trace, with the values of *that* call:
``err.call_values`` holds the failing node's inputs (and outputs) computed from the
call's arguments and the shared values before the call. References: NumPy on the
call's arguments."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.compile import DebugMode, Mode, NanGuardMode
from symnb.compile.nanguard import NanGuardError
from symnb.lower_xla.checks import CheckSite


def test_a_failed_trace_is_reported_from_the_first_trace():
    """The failing rule runs once: the call does not trace the program a second time."""
    x, y = T.vector("x"), T.vector("y")
    one = sn.function([x], x + T.ones((2,)))  # the one-argument fast path
    two = sn.function([x, y], x + y)  # the positional fast path
    for f, args in ((one, (np.ones(3, "float32"),)),
                    (two, (np.ones(3, "float32"), np.ones(2, "float32")))):
        traces = f._program.traces
        with pytest.raises(sn.GraphRuntimeError) as info:
            f(*args)
        assert f._program.traces == traces + 1
        np.testing.assert_array_equal(info.value.call_values.inputs[0], args[0])


def test_a_check_carries_its_index_into_the_programs_list_of_checks():
    x, i, j = T.vector("x"), T.lscalar("i"), T.lscalar("j")
    first = x[i]  # the first lookup
    second = x[j]  # the second lookup
    f = sn.function([x, i, j], first + second)
    value = np.arange(4, dtype="float32")
    np.testing.assert_array_equal(f(value, 1, 2), value[1] + value[2])
    sites = f._program.checks.sites
    assert len(sites) == 2 and all(isinstance(s, CheckSite) and s.kind == "index" for s in sites)
    with pytest.raises(sn.IndexOutOfBoundsError) as info:
        f(value, 1, 9)
    text = str(info.value)
    assert "# the second lookup" in text and "index 9" in text
    assert "symnb check" not in text  # no id written into checkify's message is shown
    assert info.value.node.inputs[1] is not None
    np.testing.assert_array_equal(info.value.call_values.inputs[0], value)
    assert int(info.value.call_values.inputs[1]) == 9


def test_nanguard_shows_the_calls_values_not_the_test_values():
    p = T.vector("p", test_value=np.array([0.2, 0.5, 0.3], "float32"))
    entropy = -(p * T.log(p)).sum()
    guarded = sn.function([p], entropy, mode=NanGuardMode())
    call = np.array([0.0, 0.5, 0.5], "float32")
    with pytest.raises(NanGuardError) as info:
        guarded(call)
    err = info.value
    values = err.call_values
    assert values.node is err.node and err.node.op.display_name().startswith("Elemwise{log")
    assert [name for name, _ in values.arguments] == ["p"]
    np.testing.assert_array_equal(values.arguments[0][1], call)
    np.testing.assert_array_equal(values.inputs[0], call)
    with np.errstate(divide="ignore"):
        np.testing.assert_array_equal(values.outputs[0], np.log(call))
    assert values.note == "" and values.iteration is None
    assert "Values of this call" in str(err) and "[0. , 0.5, 0.5]" in str(err)


def test_shared_values_are_those_before_the_failing_call():
    w = sn.shared(np.ones(2, "float32"), name="w")
    x = T.vector("x")
    step = sn.function([x], (w * x).sum(), updates=[(w, w * x)], mode=NanGuardMode())
    step(np.array([2.0, 3.0], "float32"))  # w is now [2, 3]
    with pytest.raises(NanGuardError) as info:
        step(np.array([np.inf, 1.0], "float32"))
    arguments = dict(info.value.call_values.arguments)
    np.testing.assert_array_equal(arguments["w"], [2.0, 3.0])
    np.testing.assert_array_equal(w.get_value(), [2.0, 3.0])


def test_nanguard_looks_inside_a_scan_body_and_names_the_iteration():
    xs = T.vector("xs")

    def step(x_t, acc):
        logged = T.log(x_t)  # NaN when x_t < 0
        return acc + logged

    out, _ = sn.scan(step, sequences=[xs], outputs_info=[T.constant(np.float32(0))], name="sum_logs")
    f = sn.function([xs], out[-1], mode=NanGuardMode())
    values = np.array([1.0, 2.0, -1.0, 3.0], "float32")
    with pytest.raises(NanGuardError) as info:
        f(values)
    err = info.value
    text = str(err)
    assert "iteration 2 of Scan{sum_logs}" in text and "logged = T.log(x_t)" in text
    assert err.node.op.display_name().startswith("Elemwise{log")
    assert err.call_values.iteration == 2
    np.testing.assert_array_equal(err.call_values.inputs[0], values[2])
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(err.call_values.outputs[0], np.log(values[2]))


@pytest.mark.parametrize("mode", [None, DebugMode()], ids=["jit", "DebugMode"])
def test_an_index_check_in_a_scan_body_names_the_iteration(mode):
    idx, table = T.lvector("idx"), T.vector("table")

    def step(i, table):
        return table[i] * 2  # the lookup

    out, _ = sn.scan(step, sequences=[idx], non_sequences=[table], name="lookup")
    f = sn.function([idx, table], out, mode=mode)
    table_value = np.arange(3, dtype="float32") + 1
    with pytest.raises(sn.IndexOutOfBoundsError) as info:
        f(np.array([0, 1, 3]), table_value)
    values = info.value.call_values
    assert values.iteration == 2 and "iteration 2 of Scan{lookup}" in str(info.value)
    np.testing.assert_array_equal(values.inputs[0], table_value)
    assert int(values.inputs[1]) == 3 and values.outputs is None


def test_a_run_time_shape_error_shows_the_calls_values():
    x, y = T.matrix("x"), T.vector("y")
    f = sn.function([x, y], T.tanh(x) + y, mode=Mode(optimizer=None))
    a, b = np.full((2, 3), 0.5, "float32"), np.ones(4, "float32")
    with pytest.raises(sn.GraphRuntimeError) as info:
        f(a, b)
    values = info.value.call_values
    assert values.node is info.value.node
    np.testing.assert_allclose(values.inputs[0], np.tanh(a), rtol=1e-6)
    np.testing.assert_array_equal(values.inputs[1], b)


def test_an_assert_shows_the_calls_values():
    x = T.vector("x")
    checked = T.Assert("x must be positive")(x, T.gt(x, 0))
    f = sn.function([x], checked * 2)
    bad = np.array([1.0, -2.0], "float32")
    with pytest.raises(AssertionError) as info:
        f(bad)
    values = info.value.call_values
    np.testing.assert_array_equal(values.inputs[0], bad)
    np.testing.assert_array_equal(values.inputs[1], bad > 0)


def test_a_run_time_shape_error_in_a_scan_body_names_the_iteration():
    xs, w = T.matrix("xs"), T.vector("w")

    def step(x_t, acc):
        moved = x_t + w  # (3,) + (2,) once called
        return acc + moved.sum()

    out, _ = sn.scan(step, sequences=[xs], outputs_info=[T.constant(np.float32(0))], name="walk")
    f = sn.function([xs, w], out)
    rows, shift = np.arange(12, dtype="float32").reshape(4, 3), np.ones(2, "float32")
    with pytest.raises(sn.GraphRuntimeError) as info:
        f(rows, shift)
    values = info.value.call_values
    assert values.iteration == 0 and "iteration 0 of Scan{walk}" in str(info.value)
    np.testing.assert_array_equal(values.inputs[0], rows[0])
    np.testing.assert_array_equal(values.inputs[1], shift)


def test_the_inputs_list_of_a_failed_call_shows_the_calls_shapes():
    """The graph's types say (?, ?); the message lists the shapes the failing node's
    inputs had in this call: NumPy's shapes of what the call computed there."""
    x = T.matrix("x", test_value=np.ones((16, 3), "float32"))
    p_y = T.nnet.softmax(x)
    idx = T.ivector("idx", test_value=np.array([0, 1], "int32"))
    f = sn.function([x, idx], p_y[idx].sum())
    rows = np.ones((10, 3), "float32")
    with pytest.raises(sn.IndexOutOfBoundsError) as info:
        f(rows, np.array([3, 12], "int32"))
    text = str(info.value)
    assert "index 12 in idx is out of bounds for axis 0 of p_y, which has length 10 " \
           "(valid indices: -10 to 9)\n" in text
    listed = text.split("(shapes in this call):\n", 1)[1].splitlines()[:2]
    softmax = np.exp(rows) / np.exp(rows).sum(axis=1, keepdims=True)
    assert listed[0].split()[:5] == ["#0", "p_y", "float32", *f"{softmax.shape}".split()]
    assert listed[1].split()[:4] == ["#1", "idx", "int32", "(2,)"]
    assert "(?, ?)" not in text
