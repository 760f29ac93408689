"""Theano's ``generic`` shared variables: ``shared(value)`` of a value that is neither an
array nor a number stores the object; a compiled function reading one is refused."""

import copy
import pickle

import numpy as np
import pytest

import symnb as sn
from symnb.compile.sharedvalue import generic, shared


def test_a_list_or_a_string_makes_a_generic_variable_holding_the_object():
    assert shared([]).type == generic
    assert shared("asdf").type == generic
    assert shared((1, 2)).type == generic
    # arrays and numbers stay tensors (Theano's tensor and scalar constructors)
    assert shared(np.zeros((2, 3), "int32")).type == sn.TensorType("int32", (None, None))
    assert shared(7.0).type.dtype == "float64"
    assert shared(np.float32(7)).type.dtype == "float32"


def test_get_and_set_value_keep_any_object_strict_or_not():
    value = {"a": [1, 2]}
    s = shared(value, strict=True)
    got = s.get_value()
    assert got == value and got is not value            # a deep copy
    assert got["a"] is not value["a"]
    s.set_value(88)                                     # generic takes anything, strict or not
    assert s.get_value() == 88
    mine = [1, 2, 3]
    s.set_value(mine, borrow=True)
    assert s.get_value(borrow=True) is mine
    assert pickle.loads(pickle.dumps(s)).get_value() == [1, 2, 3]
    assert copy.deepcopy(s).get_value() == [1, 2, 3]


def test_a_function_reading_a_generic_variable_is_refused_naming_it():
    s = shared(["text"], name="notes")
    with pytest.raises(TypeError, match=r"'notes', a shared variable of Theano's generic type "
                                        r"\(its value is a list, not an array\)"):
        sn.function([], s)


def test_a_symbolic_variable_is_refused_as_theano_refused_it():
    import symnb.tensor as T

    with pytest.raises(TypeError, match="needs numeric values and not symbolic variables"):
        shared(T.ones((2, 3)))
    np.testing.assert_array_equal(shared(np.ones((2, 4))).get_value(), np.ones((2, 4)))


def test_theanos_generic_variables_are_refused_by_a_compiled_function():
    import symnb.tensor as T

    x = sn.generic()
    assert sn.gof.generic is sn.generic and x.type == generic
    c = T.iscalar("c")
    with pytest.raises(TypeError, match="a variable of Theano's generic type"):
        sn.function([c, x], c * 2)
