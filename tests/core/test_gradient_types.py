"""Theano's placeholder gradients (core/gradient_types.py): an op whose gradient for an
input is ``grad_undefined`` / ``grad_not_implemented`` (a NullType variable) or
``DisconnectedType()()``. The defined gradients keep their values (against NumPy's
derivative); the null one is an error only where it is asked for, with the op's reason."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.graph.basic import Apply
from symnb.core.graph.op import Op
from symnb.gof.null_type import NullType
from symnb.gradient import (DisconnectedInputError, DisconnectedType, NullTypeGradError,
                            disconnected_type, grad_not_implemented, grad_undefined)


class ScaleShift(Op):
    """x * 3 + round(y): the gradient in y is undefined (a step function), or, with
    ``disconnect``, y is said to be disconnected."""

    __props__ = ("disconnect",)

    def __init__(self, disconnect=False):
        self.disconnect = disconnect

    def make_node(self, x, y):
        x, y = T.as_tensor_variable(x), T.as_tensor_variable(y)
        return Apply(self, [x, y], [x.type()])

    def perform(self, node, inputs):
        x, y = inputs
        return [np.asarray(x * 3 + np.round(y), dtype=x.dtype)]

    def infer_shape(self, node, input_shapes):
        return [input_shapes[0]]

    def L_op(self, inputs, outputs, output_grads):
        other = disconnected_type() if self.disconnect else grad_undefined(self, 1, inputs[1], "a step")
        return [output_grads[0] * 3, other]


def test_the_defined_gradient_keeps_its_value_and_the_null_one_raises_where_asked():
    x, y = T.dvector("x"), T.dvector("y")
    cost = (T.sin(ScaleShift()(x, y)) * x).sum()
    gx = sn.grad(cost, x)
    xv, yv = np.array([0.3, -1.2]), np.array([0.6, 2.2])
    inner = xv * 3 + np.round(yv)
    # d/dx sum(sin(3x + r) x) = cos(3x + r) * 3x + sin(3x + r)
    np.testing.assert_allclose(sn.function([x, y], gx)(xv, yv),
                               np.cos(inner) * 3 * xv + np.sin(inner), rtol=1e-12)
    with pytest.raises(NullTypeGradError, match="input 1 .* mathematically undefined. a step"):
        sn.grad(cost, [x, y])


def test_null_gradients_return_gives_the_null_variable_which_no_function_computes():
    x, y = T.dscalar("x"), T.dscalar("y")
    gx, gy = sn.grad(ScaleShift()(x, y) * 2, [x, y], null_gradients="return")
    assert isinstance(gy.type, NullType) and "mathematically undefined" in gy.type.why_null
    assert float(sn.function([x, y], gx)(1.0, 2.0)) == 6.0
    with pytest.raises(TypeError, match="null gradient, which has no value"):
        sn.function([x, y], gy)


def test_a_null_gradient_flows_through_the_ops_below_it():
    x, y = T.dscalar("x"), T.dscalar("y")
    w = T.exp(y) + 1  # y's gradient passes through w: null too
    with pytest.raises(NullTypeGradError, match="grad of 'y'"):
        sn.grad(ScaleShift()(x, w) ** 2, y)
    with pytest.raises(NullTypeGradError, match="not implemented"):
        sn.grad(None, x, known_grads={x * 2: grad_not_implemented(T.mul, 0, x)})


def test_disconnected_type_from_an_op_means_no_gradient():
    x, y = T.dscalar("x"), T.dscalar("y")
    out = ScaleShift(disconnect=True)(x, y)
    with pytest.raises(DisconnectedInputError, match="'y'"):
        sn.grad(out, y)
    assert float(sn.function([y], sn.grad(out, y, disconnected_inputs="ignore"))(2.0)) == 0.0
    got = sn.grad(out, y, disconnected_inputs="ignore", return_disconnected="Disconnected")
    assert isinstance(got.type, DisconnectedType)
    # a DisconnectedType known gradient is no gradient at all
    with pytest.raises(DisconnectedInputError):
        sn.grad(None, x, known_grads={out: DisconnectedType()()})


def test_rop_through_an_op_without_a_gradient_is_a_value_error():
    # Theano's Rop raises ValueError there (its test_rop's check_nondiff_rop)
    x, v = T.dvector("x"), T.dvector("v")
    with pytest.raises(ValueError, match="Rop: the Jacobian with respect to 'x' is not defined"):
        T.Rop(ScaleShift()(x * 2, x), x, v)
    # the defined direction keeps its value: d(3 * 2x + round(1))/dx . v = 6 v
    y = ScaleShift()(x * 2, T.ones_like(x))
    got = sn.function([x, v], T.Rop(y, x, v))(np.array([0.5, 1.0]), np.array([1.0, -2.0]))
    np.testing.assert_allclose(got, [6.0, -12.0])
