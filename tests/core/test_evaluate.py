"""The one NumPy evaluator (``symnb.core.graph.evaluate``): its per-node step, its loop and
its error policies, checked against NumPy computing the same graphs by hand."""

import warnings

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.graph.errors import InnerNodeError
from symnb.core.graph.evaluate import (
    NOT_KNOWN, RAISE, PerformContractError, at_line, evaluate, evaluate_graph, run_node,
)
from symnb.core.graph.basic import Apply, toposort
from symnb.core.graph.op import Op
from symnb.core.graph.type import TensorType


class _WrongDtype(Op):
    """An op whose perform breaks the contract: float64 for a float32 output."""

    def make_node(self, x):
        return Apply(self, [x], [TensorType("float32", x.type.shape)])

    def perform(self, node, inputs):
        return [np.asarray(inputs[0], dtype="float64")]


def _chain():
    x = T.vector("x", test_value=np.array([1.0, 2.0], "float32"))
    y = T.exp(x) * 2 + x
    return x, y


def test_run_node_is_perform_with_exact_output_dtypes():
    x, y = _chain()
    node = y.owner  # Add(Mul(Exp(x), 2), x)
    a, b = np.array([3.0, 4.0], "float32"), np.array([0.5, 1.5], "float32")
    (out,) = run_node(node, [a, b])
    np.testing.assert_array_equal(out, a + b)
    assert out.dtype == np.float32


def test_run_node_refuses_a_perform_returning_another_dtype():
    x = T.vector("x")
    node = _WrongDtype().make_node(x)
    expected = r"returned float64 \(2,\) for an output of type TensorType\(float32"
    with pytest.raises(PerformContractError, match=expected):
        run_node(node, [np.ones(2, "float32")])


def test_evaluate_runs_nodes_in_order_into_env():
    x, y = _chain()
    value = np.array([0.0, -1.0, 3.0], "float32")
    env = {id(x): value}
    assert evaluate(toposort([y], [x]), env) is True
    np.testing.assert_allclose(env[id(y)], np.exp(value) * np.float32(2) + value, rtol=1e-6)
    assert env[id(y)].dtype == np.float32


def test_evaluate_graph_reads_constants_and_shared_values():
    w = sn.shared(np.array([1.0, 2.0, 3.0]), name="w")
    x = T.dvector("x")
    y = T.dot(x, w) + T.constant(np.float64(0.5))
    (value,) = evaluate_graph([y], {x: [1.0, 1.0, 2.0]})
    assert value == pytest.approx(1.0 + 2.0 + 6.0 + 0.5)
    with pytest.raises(sn.MissingTestValueError, match="no value given for 'x'"):
        evaluate_graph([y], {})


def test_the_raise_policy_propagates_the_error_as_is():
    a, b = T.vector("a"), T.vector("b")
    out = a + b
    env = {id(a): np.ones(2, "float32"), id(b): np.ones(3, "float32")}
    with pytest.raises(ValueError, match="mis-match") as info:
        evaluate([out.owner], env, on_error=RAISE)
    assert type(info.value).__name__ == "DimensionMismatch"


def test_not_known_stops_quietly_and_returns_false():
    a, b = T.vector("a"), T.vector("b")
    bad = (a + b).owner
    env = {id(a): np.ones(2, "float32"), id(b): np.ones(3, "float32")}
    assert evaluate([bad], env, on_error=NOT_KNOWN) is False
    assert id(bad.outputs[0]) not in env
    # NumPy's warnings about values computed to decide something are not shown
    z = T.vector("z")
    division = (T.constant(np.float32(1.0)) / z).owner
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert evaluate([division], {id(z): np.zeros(2, "float32")}, on_error=NOT_KNOWN)


def test_not_known_never_hides_a_broken_perform():
    x = T.vector("x")
    node = _WrongDtype().make_node(x)
    with pytest.raises(PerformContractError):
        evaluate([node], {id(x): np.ones(2, "float32")}, on_error=NOT_KNOWN)


def test_at_line_names_the_failing_node_its_line_and_where_it_ran():
    a = T.vector("a", test_value=np.ones(2, "float32"))
    b = T.vector("b", test_value=np.ones(2, "float32"))
    total = a + b  # the failing node
    env = {id(a): np.ones(2, "float32"), id(b): np.ones(3, "float32")}
    with pytest.raises(InnerNodeError) as info:
        evaluate([total.owner], env, on_error=at_line("iteration 4 of scan 'step'"))
    message = str(info.value)
    assert message.startswith("DimensionMismatch in Elemwise{add,no_inplace} at iteration 4 of "
                              "scan 'step': Input dimension mis-match")
    assert "total = a + b  # the failing node" in message
    assert info.value.node is total.owner and type(info.value.original).__name__ == "DimensionMismatch"


def test_a_policy_callable_sees_the_node_inputs_and_error():
    a, b = T.vector("a"), T.vector("b")
    bad = (a + b).owner
    seen = []
    values = {id(a): np.ones(2, "float32"), id(b): np.ones(3, "float32")}
    policy = lambda node, args, err: seen.append((node, args, err))  # noqa: E731
    assert evaluate([bad], values, on_error=policy) is False
    ((node, args, err),) = seen
    assert node is bad and [v.shape for v in args] == [(2,), (3,)] and isinstance(err, ValueError)


def test_custom_step():
    x, y = _chain()
    calls = []

    def counting(node, args):
        calls.append(type(node.op).__name__)
        return run_node(node, args)

    env = {id(x): np.ones(2, "float32")}
    evaluate(toposort([y], [x]), env, step=counting)
    assert calls == ["Exp", "Mul", "Add"]
