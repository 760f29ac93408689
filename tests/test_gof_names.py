"""Theano's ``theano.gof`` names that PyMC3 uses: ``gof.graph.stack_search`` (its walk
of a model's graph), ``gof.op.get_test_value``, ``gof.fg.MissingInputError``; ``gof.op.PureOp``, the base whose
``__call__`` an op overriding it reaches with ``super(theano.Op, self).__call__`` (PyMC3's
``DifferentialEquation``), and its ``_get_test_value``."""

from collections import deque

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.gof import fg, graph, op


def _expand(v):
    return v.owner.inputs if v.owner is not None else None


def test_stack_search_visits_each_variable_once_in_breadth_first_order():
    x, y = T.dscalars("x", "y")
    s = x + y
    out = s * s + x
    order = graph.stack_search(deque([out]), _expand, "bfs")
    # Breadth first: the output, then its inputs (left first), then theirs; each once.
    assert order[0] is out and order[1:3] == out.owner.inputs
    assert len(order) == len({id(v) for v in order}) and {x, y, s} <= set(order)
    assert len(order) == 5  # out, s*s, x, s, y


def test_stack_search_depth_first_and_the_inverse_map():
    x, y = T.dscalars("x", "y")
    out = x * y
    order, inverse = graph.stack_search(deque([out]), _expand, "dfs", build_inv=True)
    assert order == [out, y, x]  # dfs pops the last one pushed
    assert inverse[x] == [out] and inverse[y] == [out]
    with pytest.raises(ValueError, match="bfs"):
        graph.stack_search(deque([out]), _expand, "other")


def test_get_test_value():
    x = T.dvector("x")
    x.tag.test_value = np.array([1.0, 2.0])
    np.testing.assert_array_equal(op.get_test_value(x * 3), [3.0, 6.0])
    np.testing.assert_array_equal(op.get_test_value(T.constant([4, 5])), [4, 5])
    np.testing.assert_array_equal(op.get_test_value(np.array([7.0])), [7.0])  # made a tensor


def test_missing_input_error_is_the_one_function_raises():
    x, y = T.dscalars("x", "y")
    with pytest.raises(fg.MissingInputError):
        sn.function([x], x + y)
    assert sn.gof.MissingInputError is fg.MissingInputError


class _Scaled(sn.Op):
    """An op overriding ``__call__`` as PyMC3's ``DifferentialEquation`` does: it checks
    its input, builds the node with ``super(theano.Op, self).__call__`` and reads the test
    value with ``self._get_test_value``."""

    __props__ = ("factor",)
    itypes = [T.dvector]
    otypes = [T.dvector]

    def __init__(self, factor):
        self.factor = factor

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] * self.factor

    def __call__(self, x):
        out = super(sn.Op, self).__call__(x)
        self.seen = self._get_test_value(x)
        return out


def test_pure_op_call_reached_through_super_of_op():
    assert issubclass(sn.Op, op.PureOp) and sn.gof.PureOp is op.PureOp
    assert "__call__" in vars(op.PureOp) and "__call__" not in vars(sn.Op)
    scaled = _Scaled(2.5)
    x = T.dvector("x")
    x.tag.test_value = np.array([1.0, -2.0])
    y = scaled(x)
    assert y.owner.op is scaled
    np.testing.assert_array_equal(scaled.seen, [1.0, -2.0])
    np.testing.assert_array_equal(y.tag.test_value, [2.5, -5.0])
    np.testing.assert_array_equal(sn.function([x], y)(np.array([4.0, 0.5])), [10.0, 1.25])


def test_pure_op_get_test_value_is_an_attribute_error_without_one():
    x = T.dvector("x")
    with pytest.raises(AttributeError, match="'x' has no test value"):
        op.PureOp._get_test_value(x)
    np.testing.assert_array_equal(op.PureOp._get_test_value(T.constant([3.0])), [3.0])
    shared = sn.shared(np.array([1.5, 2.0]))
    np.testing.assert_array_equal(op.PureOp._get_test_value(shared), [1.5, 2.0])


def test_linker_accept_make_function():
    # Theano's linker.accept(FunctionGraph(inputs, outputs)).make_function(): one output
    # alone (unpack_single), several as a list; the graph runs node by node
    from symnb import gof

    x = T.matrix("x")
    value = np.arange(6, dtype="float32").reshape(2, 3)
    f = gof.PerformLinker().accept(gof.FunctionGraph([x], [x.dimshuffle(1, 0) * 2])).make_function()
    np.testing.assert_array_equal(f(value), value.T * 2)
    g = gof.OpWiseCLinker().accept(gof.FunctionGraph([x], [x.sum(), x.shape])).make_function()
    total, shape = g(value)
    assert total == value.sum() and tuple(shape) == (2, 3)
