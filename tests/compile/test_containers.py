"""Theano's containers: ``shared_var.container`` and ``f.container[key]``, shared state
between functions (``In(s, value=f.container[s], update=...)``), kept by pickling and
copied by ``copy``. Values are checked against the arithmetic written out by hand."""

import copy
import pickle

import numpy as np
import pytest

import symnb
import symnb.tensor as T
from symnb import In, function


def _accumulators():
    a = T.dscalar()
    x, s = T.dscalars("xs")
    f = function([x, In(a, value=1.0, name="a"), In(s, value=0.0, update=s + a * x)], s + a * x)
    return a, x, s, f


def test_shared_variable_container_is_a_live_view_of_its_value():
    values = np.arange(3.0)
    var = symnb.shared(values, name="v")
    container = var.container
    assert container is var.container and var.clone().container is container
    assert isinstance(container.storage, list) and len(container.storage) == 1
    np.testing.assert_array_equal(container.storage[0], values)
    container.value = [4.0, 5.0, 6.0]
    np.testing.assert_array_equal(var.get_value(), [4.0, 5.0, 6.0])
    container.storage[0] = np.zeros(3)
    np.testing.assert_array_equal(var.get_value(), np.zeros(3))
    with pytest.raises(IndexError):
        container.storage[1]


def test_state_shared_through_a_container_is_one_state():
    a, x, s, f = _accumulators()
    g = function([x, In(a, value=1.0, name="a"), In(s, value=f.container[s], update=s - a * x)],
                 s + a * x)
    assert g.container[s].storage is f.container[s].storage
    assert f(1, 2) == 0.0 + 2 * 1
    assert f[s] == g[s] == 2.0
    assert g(1, 2) == 2.0 + 2 * 1
    assert f[s] == g[s] == 0.0


def test_a_default_read_from_a_container_follows_it():
    a, x, s, f = _accumulators()
    h = function([x, In(a, value=1.0, name="a"), In(s, value=f.container[s])], s + a * x)
    f(1, 2)
    f(1, 2)
    assert h[s] == 4.0 and h(1, 2) == 4.0 + 2 * 1
    assert f[s] == 4.0  # a default is read, never written
    assert h(1, 2, 10) == 10.0 + 2


def test_argument_containers_set_what_f_key_sets():
    a, x, s, f = _accumulators()
    assert f.container[a].value == 1.0 and f.container["a"] is f.container[a] is f.container[1]
    assert f.container[x].value is None and x in f.container and T.dscalar() not in f.container
    f.container[a].value = 5.0
    assert f[a] == 5.0 and f.value[a] == 5.0
    assert f(1) == 0.0 + 5 * 1  # the next call uses the value set
    assert f(1) == 5.0 + 1 * 1  # then the default is back, as in Theano


def test_pickled_functions_keep_their_state_and_share_it():
    a, x, s, f = _accumulators()
    g = function([x, In(s, value=f.container[s], update=s - x)], s)
    f(1, 3)
    f2, g2 = pickle.loads(pickle.dumps([f, g]))
    assert f2[2] == g2[1] == 3.0
    assert f2.container[2].storage is g2.container[1].storage
    g2(1.0)
    assert f2[2] == 2.0 and f[s] == 3.0  # the unpickled state is its own


def test_copies_start_from_a_copy_of_the_state():
    a, x, s, f = _accumulators()
    f(1, 2)
    # copy() returns a list of the outputs (Theano rebuilt it from its list of outputs);
    # deepcopy goes through pickling, which keeps the function as it was.
    for g, listed in ((copy.copy(f), True), (f.copy(), True), (copy.deepcopy(f), False)):
        assert g.container[2].storage is not f.container[2].storage
        assert g[2] == 2.0
        assert g(1, 1) == ([2.0 + 1] if listed else 2.0 + 1)
        assert g[2] == 3.0 and f[s] == 2.0


def test_a_function_argument_container_cannot_become_state():
    a, x, s, f = _accumulators()
    with pytest.raises(NotImplementedError, match="not a state's"):
        function([x, In(a, value=f.container[a], update=a + x)], a)
