"""Theano 1.0's refusals when a function is made (its compile/tests' expectations), and
``del shared.default_update``."""

import numpy as np
import pytest

import symnb
import symnb.tensor as T
from symnb import In, function
from symnb.compile import MissingInputError, UnusedInputError


def test_an_input_listed_twice_is_an_unused_input():
    x = T.lscalar("x")
    with pytest.raises(UnusedInputError, match="listed twice, at indices 0 and 1"):
        function([x, x, x], x)


def test_a_shared_variable_is_no_explicit_input():
    w = symnb.shared(np.ones((2, 2)), name="w")
    with pytest.raises(TypeError, match=r"Cannot use a shared variable \(w\) as explicit input"):
        function([w], (w * w).sum())


def test_givens_cannot_replace_an_input():
    x = T.scalar("x")
    with pytest.raises(RuntimeError, match="is an input to your function"):
        function([x], x * 2, givens={x: x + 1})
    y = T.scalar("y")  # the advice works
    f = function([y], x * 2, givens={x: y + 1})
    assert f(2.0) == pytest.approx(6.0)


def test_an_unused_input_is_reported_before_a_missing_one():
    x, s = T.scalars("xs")
    with pytest.raises(UnusedInputError):
        function([s], [x])
    with pytest.raises(MissingInputError):
        function([s], [x], on_unused_input="ignore")


def test_input_names_are_strings():
    a = T.scalar()
    with pytest.raises(TypeError, match="name must be a string"):
        In(a, name=[])


def test_deleting_a_default_update_removes_it():
    x = symnb.shared(0)
    x.default_update = x + 1
    f = function([], x)
    f()
    assert x.get_value() == 1
    del x.default_update
    assert x.default_update is None
    f()  # compiled with the update: keeps it
    assert x.get_value() == 2
    function([], x)()
    assert x.get_value() == 2


def test_no_default_updates_is_a_bool_or_a_list_of_shared_variables():
    x = symnb.shared(0)
    x.default_update = x + 2
    for bad in (x, "canard", ["x"]):
        with pytest.raises(TypeError, match="no_default_updates"):
            function([], x, no_default_updates=bad)
    function([], x, no_default_updates=[x])()
    assert x.get_value() == 0
    function([], x, no_default_updates=(x,))()
    assert x.get_value() == 0
    function([], x)()
    assert x.get_value() == 2


def test_allow_input_downcast_false_refuses_a_python_float_that_does_not_fit():
    a, b = T.fscalar("a"), T.fvector("b")
    expected = np.float32(0.1) + np.float32(0.0)
    with symnb.config.change_flags(floatX="float32"):
        default = function([a, b], a + b)  # None: Theano rounds a float for a floatX input
        np.testing.assert_array_equal(default(0.1, [0]), [expected])
        refusing = function([a, b], a + b, allow_input_downcast=False)
        np.testing.assert_array_equal(refusing(0.5, [0]), [0.5])  # fits exactly
        with pytest.raises(TypeError, match="does not fit float32 exactly"):
            refusing(0.1, [0])
        rounding = function([a, b], a + b, allow_input_downcast=True)
        np.testing.assert_allclose(rounding(0, [0.1]), [np.float32(0.1)])


def test_a_shared_variable_replaced_by_givens_that_read_it_keeps_its_default_update():
    # Theano's pfunc: copying the replacement a + 10 meets a, so a's default update is
    # kept, compiled with the givens too: a <- (a + 10) + 3.
    a = symnb.shared(1.0, "a")
    a.default_update = a + 3
    f = function([], a + 10, givens={a: a + 10})
    assert f() == 1 + 10 + 10 and a.get_value() == 1 + 10 + 3
    assert f() == 14 + 10 + 10
    b = symnb.shared(1.0, "b")  # replaced by what does not read it: no update
    b.default_update = b + 3
    x = T.dscalar("x")  # shared(1.0) is float64, as in Theano
    assert function([x], b + 10, givens={b: x})(5.0) == 15 and b.get_value() == 1
