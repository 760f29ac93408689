"""T.addbroadcast / T.unbroadcast / T.patternbroadcast return their input itself when they
change nothing, as Theano's did (``apply_rebroadcast_opt`` removed the no-op Rebroadcast at
once): Keras's stateful RNNs update ``T.unbroadcast(state, 0, 1)`` of a shared state."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T

VALUE = np.arange(6, dtype="float32").reshape(2, 3)


def test_no_op_calls_return_the_input_itself():
    x = T.matrix("x")                                 # lengths unknown: not broadcastable
    assert T.unbroadcast(x, 0, 1) is x
    assert T.patternbroadcast(x, (False, False)) is x
    row = T.matrix("row", shape=(1, None))
    assert T.addbroadcast(row, 0) is row
    assert T.patternbroadcast(row, (True, False)) is row
    fixed = T.matrix("fixed", shape=(2, 3))           # length 3 is not broadcastable either
    assert T.unbroadcast(fixed, 0, -1) is fixed
    shared = sn.shared(VALUE, name="state")
    assert T.unbroadcast(shared, 0, 1) is shared


def test_only_the_axes_that_change_are_kept():
    row = T.matrix("row", shape=(1, None))
    both = T.addbroadcast(row, 0, 1)
    assert both is not row and both.type.shape == (1, 1)
    op = both.owner.op
    assert op.shape == (None, 1)                      # axis 0 is already of length 1
    assert T.unbroadcast(row, 0, 1).type.shape == (None, None)
    assert T.patternbroadcast(row, (False, True)).type.shape == (None, 1)


def test_the_update_of_an_unbroadcast_shared_state():
    # Keras: initial_states[0] = T.unbroadcast(initial_states[0], 0, 1), then
    # updates=[(initial_states[0], new_state)].
    state = sn.shared(VALUE.copy(), name="state")
    target = T.unbroadcast(state, 0, 1)
    step = sn.function([], target.sum(), updates=[(target, target * 2)])
    assert step() == VALUE.sum()
    np.testing.assert_array_equal(state.get_value(), VALUE * 2)
    assert step() == 2 * VALUE.sum()


def test_an_update_target_that_changes_is_refused():
    # Theano refused it too: its update target was a Rebroadcast's output, not shared.
    row = sn.shared(VALUE[:1].copy(), name="row", broadcastable=(True, False))
    target = T.unbroadcast(row, 0)
    assert target is not row and target.type.shape == (None, None)
    with pytest.raises(TypeError, match="updates must target shared variables; .* is not shared"):
        sn.function([], target.sum(), updates=[(target, target * 2)])


def test_values_are_unchanged_and_checked():
    x = T.matrix("x", test_value=VALUE[:1])
    f = sn.function([x], [T.addbroadcast(x, 0) + 1, T.unbroadcast(T.addbroadcast(x, 0), 0) * 2])
    first, second = f(VALUE[:1])
    np.testing.assert_array_equal(first, VALUE[:1] + 1)
    np.testing.assert_array_equal(second, VALUE[:1] * 2)
    with pytest.raises(Exception, match="specify_shape"):
        f(VALUE)
