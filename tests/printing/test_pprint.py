"""pprint: the algebraic form of a graph, in Theano's fully parenthesized style."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.graph.basic import Apply, clone_replace
from symnb.core.graph.op import Op
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.graph.type import TensorType
from symnb.printing import pp, pprint, register_pprinter
from tests.printing import MinMax


class Dot(Op):
    """A stand-in matrix-vector product: pprint knows ops named ``Dot`` by their name."""

    def make_node(self, x, w):
        x, w = as_tensor_variable(x), as_tensor_variable(w)
        return Apply(self, [x, w], [TensorType(x.dtype, x.type.shape[:1])])

    def perform(self, node, inputs):
        return [np.asarray(np.dot(*inputs), dtype=node.outputs[0].type.dtype)]


def _as_written(build, e):
    """``build(e)`` with its nodes made by clone_replace, not by the public functions,
    which build ``1 / (1 + exp(t))`` as ``sigmoid(-t)``: the graph exactly as written."""
    placeholder = T.tensor(e.dtype, (None,) * e.ndim, name="placeholder")
    return clone_replace([build(placeholder)], {placeholder: e})[0]


def _predict(e):
    return 1 / (1 + e) > 0.5


def test_seed_004_logistic_regression_prediction():
    x = T.matrix("x")
    w = sn.shared(np.zeros(3, "float32"), name="w")
    b = sn.shared(np.float32(0.0), name="b")
    # The graph keeps what was written, as Theano's did; the stable form (seed 004's
    # compiled graph holds a scalar_sigmoid) comes when it is compiled.
    assert pprint(_predict(T.exp(-Dot()(x, w) - b))) == \
        "gt((1 / (1 + exp(((-(x · w)) - b)))), 0.5)"
    assert pprint(_as_written(_predict, T.exp(-Dot()(x, w) - b))) == \
        "gt((1 / (1 + exp(((-(x · w)) - b)))), 0.5)"


@pytest.mark.skipif(not hasattr(T, "dot"), reason="T.dot not available")
def test_seed_004_with_the_real_dot():
    x = T.matrix("x")
    w = T.vector("w")
    b = T.scalar("b")
    prediction = 1 / (1 + T.exp(-T.dot(x, w) - b)) > 0.5
    assert pprint(prediction) == "gt((1 / (1 + exp(((-(x · w)) - b)))), 0.5)"
    assert pprint(_as_written(_predict, T.exp(-T.dot(x, w) - b))) == \
        "gt((1 / (1 + exp(((-(x · w)) - b)))), 0.5)"
    assert pprint(x @ T.matrix("m")) == "(x @ m)"


def test_infix_operators_and_named_intermediates_expand():
    x, y = T.vector("x"), T.vector("y")
    z = (x + y) * x
    z.name = "z"
    out = (z - y) / (x ** 2.) // y % x
    assert pprint(out) == "((((((x + y) * x) - y) / (x ** 2.0)) // y) % x)"


def test_bitwise_and_logical():
    a, b = T.vector("a", dtype="bool"), T.vector("b", dtype="bool")
    assert pprint(~(a & b) | (a ^ b)) == "((~(a & b)) | (a ^ b))"


def test_function_forms_for_other_elementwise_ops():
    x = T.vector("x")
    assert pprint(T.sigmoid(T.tanh(x))) == "sigmoid(tanh(x))"
    assert pprint(T.switch(T.lt(x, 0.), x, 1.)) == "switch(lt(x, 0.0), x, 1.0)"
    assert pprint(T.cast(x, "float64")) == "cast{float64}(x)"


def test_unnamed_inputs_show_their_type_and_constants_their_value():
    x = T.vector()
    c = T.constant(np.array([1, 2, 3], dtype="int32"))
    assert pprint(x * 0.1) == "(<TensorType(float32, shape=(?,))> * 0.1)"
    assert pprint(c + 1) == "([1, 2, 3] + 1)"


def test_leaves():
    x = T.vector("x")
    assert pprint(x) == "x"
    assert pprint(T.constant(2.5)) == "2.5"


def test_other_ops_use_their_display_name_and_output_index():
    x = T.vector("x")
    low, high = MinMax()(x)
    assert pprint(high - low) == "(MinMax(x).1 - MinMax(x).0)"


def test_register_pprinter_for_an_op_class():
    class Double(Op):
        def make_node(self, x):
            x = as_tensor_variable(x)
            return Apply(self, [x], [x.type])

        def perform(self, node, inputs):
            return [inputs[0] * 2]

    x = T.vector("x")
    before = pprint(Double()(x))
    register_pprinter(Double)(lambda node, index, inputs: f"twice[{inputs[0]}]")
    assert before == "Double(x)"
    assert pprint(Double()(x) + 1.) == "(twice[x] + 1.0)"


def test_pp_is_pprint_and_rejects_non_variables():
    assert pp is pprint
    with pytest.raises(TypeError, match="expects a Variable"):
        pprint([T.vector("x")])


def test_deep_graph_needs_no_recursion():
    y = T.scalar("x")
    for _ in range(2000):
        y = y + 1.
    text = pprint(y)
    assert text.startswith("(" * 2000 + "x + 1.0)")
    assert text.count("1.0") == 2000
