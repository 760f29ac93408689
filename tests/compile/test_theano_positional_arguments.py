"""``symnb.function(inputs, outputs, mode, updates, givens, ...)``: the parameters after
``outputs`` by position in Theano's order (Theano 1.0.5's tests write
``function([], outputs, self.mode)``)."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T


def test_mode_updates_and_givens_by_position():
    x = T.dscalar("x")
    assert sn.function([x], x * 2, "FAST_RUN")(3.0) == 6.0
    s = sn.shared(np.float64(1.0), name="s")
    g = sn.function([], s, None, [(s, s + 1)])
    assert [float(g()), float(g())] == [1.0, 2.0]
    y = T.dscalar("y")
    h = sn.function([y], x + y, None, None, {x: y * 10})
    assert h(2.0) == 22.0


def test_positional_and_named_twice_is_refused():
    x = T.dscalar("x")
    with pytest.raises(TypeError, match="multiple values for argument 'mode'"):
        sn.function([x], x, "FAST_RUN", mode="FAST_RUN")
