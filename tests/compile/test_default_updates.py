"""Default updates (Theano's SharedVariable.default_update) and no_default_updates."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T


def _counter(start=0.0, step=1.0):
    c = sn.shared(np.float64(start), name="c")
    c.default_update = c + step
    return c


def test_default_update_applied_after_each_call():
    c = _counter()
    f = sn.function([], c * 2)
    assert [float(f()) for _ in range(3)] == [0.0, 2.0, 4.0]
    assert c.get_value() == 3.0


def test_no_default_updates_true_and_list():
    c, d = _counter(), _counter(10.0)
    f = sn.function([], c + d, no_default_updates=True)
    f()
    assert (c.get_value(), d.get_value()) == (0.0, 10.0)
    g = sn.function([], c + d, no_default_updates=[c])
    g()
    assert (c.get_value(), d.get_value()) == (0.0, 11.0)
    with pytest.raises(TypeError, match="not a shared variable"):
        sn.function([], c + d, no_default_updates=[T.dscalar("x")])


def test_explicit_update_wins_and_chained_defaults_are_added():
    c = _counter()
    f = sn.function([], c, updates={c: c - 5})
    f()
    assert c.get_value() == -5.0
    a, b = sn.shared(np.float64(1.0), name="a"), sn.shared(np.float64(3.0), name="b")
    a.default_update = a + b      # reads b, whose own default update is then added too
    b.default_update = b * 2
    g = sn.function([], a * 1)
    g()
    assert (a.get_value(), b.get_value()) == (4.0, 6.0)
    g()
    assert (a.get_value(), b.get_value()) == (10.0, 12.0)


def test_givens_replacing_the_shared_variable_drops_its_default_update():
    c = _counter()
    x = T.dscalar("x")
    f = sn.function([x], c * 2, givens={c: x})
    assert f(4.0) == 8.0
    assert c.get_value() == 0.0


def test_default_update_dtype_is_checked():
    c = sn.shared(np.float32(0.0), name="c32")
    c.default_update = c + np.float64(1.0) * T.ones((), "float64")
    with pytest.raises(TypeError, match="c32"):
        sn.function([], c * 1)


def test_a_number_given_for_an_update_or_a_given_takes_the_variables_type():
    # Theano's filter_variable: 2 alone is an int8 constant, given for an int64 shared
    # variable it is an int64 one; a value that does not fit is still refused, named.
    n = sn.shared(np.int64(5), name="n")
    f = sn.function([], n * 10, updates={n: 2})
    assert f() == 50 and n.get_value() == 2 and n.get_value().dtype == np.int64
    x = T.lscalar("x")
    assert sn.function([], x * 2, givens={x: 3})() == 6
    small = sn.shared(np.int8(1), name="small")
    with pytest.raises(TypeError, match="'small'"):
        sn.function([], [], updates={small: 1000})
