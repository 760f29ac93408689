"""``symnb.OrderedUpdates`` (Theano's ``theano.updates.OrderedUpdates``): keys are shared
variables, order is kept, a colliding update is refused, ``+`` is the union; a function
compiled with one applies its updates in order."""

import warnings

import numpy as np
import pytest

import symnb as sn
from symnb.updates import OrderedUpdates


def test_keys_must_be_shared_variables():
    a = sn.shared(np.float64(1.0), name="a")
    updates = OrderedUpdates([(a, a + 1)])
    with pytest.raises(TypeError, match="shared variables"):
        updates[sn.tensor.dscalar("x")] = a
    with pytest.raises(TypeError, match="shared variables"):
        OrderedUpdates([(sn.tensor.dscalar("x"), a)])


def test_update_refuses_a_second_value_and_add_is_the_union():
    a, b = sn.shared(np.float64(1.0), name="a"), sn.shared(np.float64(2.0), name="b")
    first, second = OrderedUpdates([(a, a * 2)]), OrderedUpdates([(b, b + a)])
    union = first + second
    assert isinstance(union, OrderedUpdates) and list(union) == [a, b]
    with pytest.raises(KeyError, match="Collision"):
        first.update([(a, a + 3)])
    first.update([(a, first[a])])  # the same value again: accepted
    assert list(first.items()) == [(a, first[a])]


def test_a_non_ordered_dict_warns_as_in_theano():
    a, b = sn.shared(np.float64(1.0), name="a"), sn.shared(np.float64(2.0), name="b")

    class Unordered(dict):  # a dict that is not an OrderedDict
        pass

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        OrderedUpdates(Unordered({a: a + 1, b: b + 1}))
    assert any("non-deterministic" in str(w.message) for w in caught)


def test_a_function_applies_them():
    a, b = sn.shared(np.float64(1.0), name="a"), sn.shared(np.float64(2.0), name="b")
    step = sn.function([], [], updates=OrderedUpdates([(a, a + b), (b, b * 3)]))
    step()
    assert (a.get_value(), b.get_value()) == (3.0, 6.0)  # both read the old values
    assert sn.OrderedUpdates is OrderedUpdates
