"""Theano's ``theano.gof`` names that PyMC3 uses: ``gof.graph.stack_search`` (its walk
of a model's graph), ``gof.op.get_test_value``, ``gof.fg.MissingInputError``."""

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
