"""core/graph/theano_ops.py and Theano's Op conventions in core/graph/op.py and basic.py:
Apply(op, inputs, output variables), perform writing output_storage, itypes/otypes,
grad; and as_op (core/tensor/from_function.py). Test values against NumPy."""

import pickle

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.compile.ops import FromFunctionOp, as_op
from symnb.core.graph.basic import Apply
from symnb.core.graph.op import Op, perform_only
from tests.python_ops import CubeOp, DoubleOp, DoubleOpTyped, double, numpy_dot_shape


@as_op(itypes=[T.fmatrix, T.fmatrix], otypes=[T.fmatrix], infer_shape=numpy_dot_shape)
def numpy_dot(a, b):
    return np.dot(a, b)


def test_double_op_computes_its_test_value_with_theano_apply_and_output_storage():
    value = np.arange(6.0).reshape(2, 3)
    x = T.dmatrix("x", test_value=value)
    y = DoubleOp()(x)
    assert y.owner.op == DoubleOp() and y.owner.outputs == [y] and y.index == 0
    assert y.type == x.type
    np.testing.assert_array_equal(y.test_value, double(value))
    assert y.test_value.dtype == np.float64


def test_double_op_on_float32_keeps_the_dtype():
    value = np.linspace(-1, 1, 4, dtype="float32")
    y = DoubleOp()(T.fvector("x", test_value=value))
    assert y.dtype == "float32" and y.test_value.dtype == np.float32
    np.testing.assert_array_equal(y.test_value, double(value))


def test_apply_takes_types_as_before():
    x = T.dvector("x", test_value=np.ones(2))
    node = Apply(DoubleOp(), [x], [T.TensorType("float32", (None,))])
    assert node.outputs[0].type == T.TensorType("float32", (None,)) and node.outputs[0].owner is node


def test_apply_refuses_an_output_variable_that_has_an_owner():
    x = T.dvector("x", test_value=np.ones(2))
    y = DoubleOp()(x)
    with pytest.raises(ValueError, match="already an output of DoubleOp"):
        Apply(DoubleOp(), [x], [y])


def test_fresh_output_of_a_fully_known_type_gets_the_nodes_test_value():
    # x.type() of a fully known type makes an input with a generated test value: the
    # node's output must hold perform's value instead.
    value = np.array([1.0, -2.0, 3.0])
    x = T.dvector("x", shape=(3,), test_value=value)
    np.testing.assert_array_equal(DoubleOp()(x).test_value, double(value))


def test_itypes_otypes_op_builds_its_node_and_checks_inputs():
    value = np.arange(4.0).reshape(2, 2)
    y = DoubleOpTyped()(T.dmatrix("x", test_value=value))
    assert y.type == T.dmatrix
    np.testing.assert_array_equal(y.test_value, double(value))
    with pytest.raises(TypeError, match=r"input 0 \(v\) has type TensorType\(float32"):
        DoubleOpTyped()(T.fmatrix("v", test_value=np.ones((2, 2), "float32")))
    with pytest.raises(TypeError, match="takes 1 input"):
        DoubleOpTyped()(T.dmatrix("a"), T.dmatrix("b"))


class WithValue(Op):
    """An op of one parameter, ``value``, whose output has its input's type."""

    __props__ = ("value",)

    def __init__(self, value):
        self.value = value

    def make_node(self, x):
        return Apply(self, [x], [x.type()])


def test_perform_values_are_converted_only_without_loss():
    class Fill(WithValue):
        def perform(self, node, inputs, output_storage):
            output_storage[0][0] = np.full(inputs[0].shape, self.value)

    x = T.fvector("x", test_value=np.ones(3, "float32"))
    # int64 -> float32 may lose digits: refused, naming the op and the output.
    with pytest.raises(Exception, match=r"Fill\{1\}.perform returned int64 for output 0"):
        Fill(1)(x)
    ok = Fill(np.float16(0.5))(x)  # float16 -> float32: exact
    np.testing.assert_array_equal(ok.test_value, np.full(3, 0.5, "float32"))
    assert ok.test_value.dtype == np.float32


def test_grad_method_is_the_gradient_checked_by_finite_differences():
    value = np.array([0.5, -1.5, 2.0])
    x = T.dvector("x", test_value=value)
    cost = CubeOp()(x).sum()
    g = sn.grad(cost, x)
    eps = 1e-6
    numeric = np.array([((value + eps * e) ** 3).sum() - ((value - eps * e) ** 3).sum()
                        for e in np.eye(3)]) / (2 * eps)
    np.testing.assert_allclose(g.test_value, numeric, rtol=1e-6)


def test_as_op_makes_an_op_from_a_numpy_function():
    a = np.arange(6, dtype="float32").reshape(2, 3)
    b = np.linspace(0, 1, 12, dtype="float32").reshape(3, 4)
    c = numpy_dot(T.fmatrix("a", test_value=a), T.fmatrix("b", test_value=b))
    assert isinstance(c.owner.op, FromFunctionOp) and str(c.owner.op) == "FromFunctionOp{numpy_dot}"
    np.testing.assert_allclose(c.test_value, a @ b, rtol=1e-6)
    assert c.test_value.dtype == np.float32 and perform_only(c.owner.op)
    assert c.owner.op.infer_shape(c.owner, [(2, 3), (3, 4)]) == [(2, 4)]


def test_as_op_refuses_what_is_not_a_type_and_has_no_gradient():
    with pytest.raises(TypeError, match="as_op's itypes holds"):
        as_op(itypes=[np.float32], otypes=[T.fvector])
    with pytest.raises(TypeError, match="infer_shape must be a callable"):
        as_op(itypes=[T.fvector], otypes=[T.fvector], infer_shape=3)
    a = T.fmatrix("a", test_value=np.ones((2, 2), "float32"))
    with pytest.raises(NotImplementedError, match="no gradient rule"):
        sn.grad(numpy_dot(a, a).sum(), a)


def test_as_op_is_pickled_by_name():
    assert pickle.loads(pickle.dumps(numpy_dot)) is numpy_dot


def test_symnb_s_own_ops_are_not_perform_only():
    x = T.dvector("x", test_value=np.ones(2))
    assert not perform_only(T.exp(x).owner.op)
    assert perform_only(DoubleOp()(x).owner.op)


def test_a_perform_taking_params_gets_the_ops_get_params():
    class Scale(WithValue):
        def get_params(self, node):
            return self.value

        def perform(self, node, inputs, output_storage, params):
            output_storage[0][0] = inputs[0] * params

    value = np.array([1.0, -2.0])
    y = Scale(3.0)(T.dvector("x", test_value=value))
    np.testing.assert_array_equal(y.test_value, value * 3.0)


class _DefaultOutputOp(sn.Op):
    """Theano's test_basic ApplyDefaultTestOp: two outputs (x + 1, x * 2), default_output set."""

    def __init__(self, index):
        self.default_output = index

    def make_node(self, x):
        x = T.as_tensor_variable(x)
        return sn.Apply(self, [x], [x.type(), x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] + 1
        output_storage[1][0] = inputs[0] * 2


def test_default_output_is_what_the_op_call_and_as_tensor_variable_give():
    x = T.dscalar("x")
    node = _DefaultOutputOp(1).make_node(x)
    assert node.default_output() is node.outputs[1]
    assert T.as_tensor_variable(node) is node.outputs[1]
    out = _DefaultOutputOp(1)(x)
    assert sn.function([x], out)(3.0) == 6.0
    assert len(_DefaultOutputOp(1)(x, return_list=True)) == 2
    for bad in (-1, 2, [0, 1]):
        with pytest.raises(AttributeError, match="default_output"):
            T.as_tensor_variable(_DefaultOutputOp(bad).make_node(x))
    with pytest.raises(AttributeError, match="should be an output index"):
        _DefaultOutputOp(None).make_node(x).default_output()
    with pytest.raises(ValueError, match="ambiguous"):
        T.as_tensor_variable(_DefaultOutputOp(None).make_node(x))


def test_as_tensor_variable_ndim():
    row = T.TensorType("float64", (True, False))("row")
    assert T.as_tensor_variable(row, ndim=1).type.shape == (None,)
    assert T.as_tensor_variable(row, ndim=3).type.shape == (1, 1, None)
    assert sn.function([row], T.as_tensor_variable(row, ndim=1))(np.ones((1, 3))).shape == (3,)
    assert T.as_tensor_variable(np.ones((1, 1, 2)), ndim=1).type.shape == (2,)
    with pytest.raises(ValueError, match="cannot have 1 dimension"):
        T.as_tensor_variable(T.dmatrix("m"), ndim=1)
