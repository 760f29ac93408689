"""``symnb.compile.DeepCopyOp`` / ``deep_copy_op`` (Theano's): a copy, compiled and as a test
value, with the identity's gradient."""

import numpy as np

import symnb as sn
import symnb.tensor as T
from symnb.compile import DeepCopyOp, deep_copy_op


def test_value_is_a_copy_in_both_paths():
    value = np.arange(6.0).reshape(2, 3)
    x = T.dmatrix("x", test_value=value)
    y = deep_copy_op(x)
    assert isinstance(y.owner.op, DeepCopyOp) and y.type == x.type
    assert y.test_value is not value
    np.testing.assert_array_equal(y.test_value, value)
    f = sn.function([x], [y, y.shape])
    out, shape = f(value)
    np.testing.assert_array_equal(out, value)
    np.testing.assert_array_equal(shape, [2, 3])
    out[0, 0] = 100.0
    assert value[0, 0] == 0.0


def test_gradient_is_the_identitys():
    x = T.dvector("x", test_value=np.array([1.0, 2.0]))
    g = sn.grad((deep_copy_op(x) ** 2).sum(), x)
    np.testing.assert_allclose(sn.function([x], g)(np.array([3.0, -1.0])), [6.0, -2.0])


def test_ops_compare_equal():
    assert DeepCopyOp() == deep_copy_op and hash(DeepCopyOp()) == hash(deep_copy_op)


def test_view_op_is_its_input_and_adopts_given_outputs():
    """Theano's ``compile.view_op``: the value itself; PyMC3 builds it as
    ``Apply(view_op, inputs=[data], outputs=[variable])``, making its own variable the view."""
    from symnb.compile import ViewOp, view_op
    from symnb.core.graph.basic import Apply

    value = np.arange(6.0).reshape(2, 3)
    x = T.dmatrix("x", test_value=value)
    y = view_op(x)
    assert isinstance(y.owner.op, ViewOp) and y.type == x.type and view_op == ViewOp()
    mine = T.TensorVariable(x.type, name="observed")
    Apply(view_op, [x], [mine])
    mine.tag.test_value = view_op(x).tag.test_value  # PyMC3's next line: the same value
    g = sn.grad((mine ** 2).sum(), x)
    out, grad = sn.function([x], [mine * 1.0, g])(value + 1)
    np.testing.assert_array_equal(out, value + 1)
    np.testing.assert_array_equal(grad, 2 * (value + 1))
