"""T.Assert: passes x through; a false condition fails with the message and the user's line,
on the test-value path and in the compiled function."""

import jax
import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.graph.basic import toposort
from symnb.compile import Mode
from symnb.core.tensor.assertion import Assert, AssertionFailedError
from symnb.lower_xla.interpreter import build_program
from symnb.lower_xla.checks import has_checks, raise_failed_check, with_checks
from tests.reference import check_paths


def test_seed_example_runs():
    data = T.matrix("data", dtype="int64")
    identity = T.identity_like(data)
    assert_op = T.Assert("Shape mismatch!")
    output = assert_op(identity, T.eq(identity.ndim, data.ndim))
    assert output.owner.op.display_name() == "Assert{msg='Shape mismatch!'}"
    f = sn.function([data], output)
    toy_data = np.arange(9).reshape(3, 3)
    np.testing.assert_array_equal(f(toy_data), np.eye(3, dtype="int64"))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
def test_true_conditions_pass_x_through(dtype, rng):
    # Shape conditions: known while tracing, so checked without the checkify wrapper.
    x = (rng.normal(size=(2, 3)) * 5).astype(dtype)
    check_paths(lambda x: T.Assert("never")(x, T.eq(x.shape[0], 2), T.ge(x.shape, 1)), [x], lambda x: x)
    check_paths(lambda x: T.Assert("no conditions")(x), [x], lambda x: x)
    e = np.zeros((0, 3), dtype)
    check_paths(lambda e: T.Assert("empty is all true")(e, T.gt(e.shape[1:], 2)), [e], lambda e: e)


def test_false_condition_fails_on_the_test_value_line():
    x = T.vector("x", test_value=np.array([1.0, -1.0], "float32"))
    with pytest.raises(sn.TestValueError) as info:
        T.Assert("x must be positive")(x, T.gt(x, 0))  # the failing line
    text = str(info.value)
    assert "AssertionError" in text and "x must be positive (condition #1 is false)" in text
    assert 'T.Assert("x must be positive")(x, T.gt(x, 0))  # the failing line' in text


def test_which_condition_failed_is_named():
    x = T.vector("x", test_value=np.ones(2, "float32"))
    positive = T.gt(x, 0)
    small = T.lt(x, 0.5)
    small.name = "small"
    with pytest.raises(sn.TestValueError, match=r"too big \(condition #2 \('small'\) is false\)"):
        T.Assert("too big")(x, positive, small)


def test_static_false_condition_fails_when_compiled():
    data = T.matrix("data")
    output = T.Assert("Shape mismatch!")(data, T.eq(data.ndim, 3))
    f = sn.function([data], output)
    with pytest.raises(sn.GraphRuntimeError) as info:
        f(np.ones((2, 2), "float32"))
    assert "Shape mismatch!" in str(info.value)
    assert 'output = T.Assert("Shape mismatch!")(data, T.eq(data.ndim, 3))' in str(info.value)


def test_shape_condition_is_checked_at_trace_time():
    x, y = T.vector("x"), T.vector("y")
    out = T.Assert("lengths differ")(x, T.eq(x.shape[0], y.shape[0])) + y
    f = sn.function([x, y], out)
    np.testing.assert_array_equal(f(np.ones(2, "float32"), np.ones(2, "float32")), np.full(2, 2.0, "float32"))
    with pytest.raises(sn.GraphRuntimeError, match="lengths differ"):
        f(np.ones(2, "float32"), np.ones(1, "float32"))


def _checked_program(inputs, output):
    nodes = toposort([output], inputs)
    assert has_checks(nodes)
    checked = with_checks(build_program(inputs, [output], nodes))
    program = jax.jit(checked)
    program.checks = checked.checks  # the program's list of checks, as compiled_program keeps
    return program, nodes


def test_value_condition_in_the_jitted_program():
    """The rule's checkify check, run the way sn.function is to run it (see the rule's module)."""
    x = T.vector("x")
    checked = T.Assert("x must be positive {really}")(x, T.gt(x, 0))  # the assert's line
    program, nodes = _checked_program([x], checked * 2)
    error, (out,) = program(np.ones(3, "float32"))
    raise_failed_check(error, program.checks, nodes, nodes)
    np.testing.assert_array_equal(np.asarray(out), np.full(3, 2.0, "float32"))
    error, _ = program(np.array([1.0, -1.0, 2.0], "float32"))
    with pytest.raises(AssertionFailedError) as info:
        raise_failed_check(error, program.checks, nodes, nodes)
    text = str(info.value)
    assert isinstance(info.value, AssertionError)
    assert "x must be positive {really} (condition #1 is false)" in text
    assert "# the assert's line" in text


def test_failed_check_names_the_called_graph():
    """A program built for one graph reports a failure with the line of an equal graph."""
    x, y = T.vector("x"), T.vector("y")
    first = T.Assert("positive")(x, T.gt(x, 0))
    program, first_nodes = _checked_program([x], first)
    ok = T.gt(y, 0)
    ok.name = "ok"
    second = T.Assert("positive")(y, ok)  # the second assert
    second_nodes = toposort([second], [y])
    error, _ = program(-np.ones(2, "float32"))
    with pytest.raises(AssertionFailedError) as info:
        raise_failed_check(error, program.checks, first_nodes, second_nodes)
    assert "# the second assert" in str(info.value) and "condition #1 ('ok')" in str(info.value)


def test_value_condition_in_a_compiled_function():
    x = T.vector("x")
    w = sn.shared(np.zeros(2), name="w")
    out = T.Assert("x must be positive")(x, T.gt(x, 0))
    sn.function([x], out)  # an equal graph compiled first: its program is shared
    out = T.Assert("x must be positive")(x, T.gt(x, 0))  # the failing assert
    f = sn.function([x], out, updates=[(w, w + 1)])
    np.testing.assert_array_equal(f(np.ones(2, "float32")), np.ones(2, "float32"))
    with pytest.raises(AssertionFailedError, match="(?s)x must be positive.*# the failing assert"):
        f(-np.ones(2, "float32"))
    np.testing.assert_array_equal(w.get_value(), np.ones(2))  # the failed call changed nothing


def test_gradient_flows_to_x_only():
    x = T.vector("x", test_value=np.array([1.0, 2.0]), dtype="float64")
    y = T.Assert("not empty")(x, T.gt(x.shape[0], 0))
    g = sn.grad((y ** 2).sum(), x)
    np.testing.assert_allclose(g.test_value, [2.0, 4.0])
    np.testing.assert_allclose(sn.function([x], g)(np.array([3.0, 1.0])), [6.0, 2.0])


@pytest.mark.parametrize("optimizer", ["fast_run", "fast_compile"])
def test_conditions_known_true_at_compile_time_are_removed(optimizer):
    data = T.matrix("data", dtype="int64")
    identity = T.identity_like(data)
    checked = T.Assert("Shape mismatch!")(identity, T.eq(identity.ndim, data.ndim))
    f = sn.function([data], checked, mode=Mode(optimizer=optimizer))
    assert not any(isinstance(n.op, Assert) for n in f.nodes)
    assert not f._program.checked
    np.testing.assert_array_equal(f(np.arange(9).reshape(3, 3)), np.eye(3, dtype="int64"))
    x = T.vector("x")
    partly = T.Assert("positive")(x, T.eq(x.ndim, 1), T.all(T.gt(x, 0)))
    g = sn.function([x], partly, mode=Mode(optimizer=optimizer))
    (kept,) = [n for n in g.nodes if isinstance(n.op, Assert)]
    assert len(kept.inputs) == 2  # x and the run-time condition
    with pytest.raises(AssertionFailedError, match="positive"):
        g(np.array([-1.0], "float32"))
