"""shared(): Theano's keywords (borrow, strict, allow_downcast, broadcastable) and
set_value's dtype rules."""

import numpy as np
import pytest

import symnb as sn


def test_set_value_casts_when_lossless_and_refuses_a_lossy_cast():
    w = sn.shared(np.zeros(3, "float32"), name="w")
    w.set_value(np.arange(3, dtype="int8"))          # int8 -> float32 is exact
    np.testing.assert_array_equal(w.get_value(), [0, 1, 2])
    assert w.get_value().dtype == np.float32
    w.set_value([0.5, 1.5, 2.5])                       # a list that float32 holds exactly
    np.testing.assert_array_equal(w.get_value(), np.float32([0.5, 1.5, 2.5]))
    w.set_value(0.1 * np.ones(3, "float32"))
    with pytest.raises(TypeError, match=r"'w'.*float32.*float64"):
        w.set_value(np.full(3, 0.1))                  # float64 ndarray: no silent downcast
    np.testing.assert_array_equal(w.get_value(), np.float32([0.1, 0.1, 0.1]))  # unchanged
    i = sn.shared(np.zeros(2, "int32"), name="i")
    with pytest.raises(TypeError, match="int32.*float64"):
        i.set_value([0.5, 1.0])


def test_allow_downcast_and_strict():
    w = sn.shared(np.zeros(2, "float32"), name="w", allow_downcast=True)
    w.set_value(np.array([0.1, 0.2]))
    np.testing.assert_array_equal(w.get_value(), np.array([0.1, 0.2]).astype("float32"))
    s = sn.shared(np.zeros(2, "float64"), name="s", strict=True)
    with pytest.raises(TypeError, match="strict"):
        s.set_value(np.zeros(2, "float32"))


def test_borrow_and_internal_type_and_broadcastable():
    value = np.arange(4.0)
    s = sn.shared(value, name="s", borrow=True)
    value[0] = 100.0                                  # borrow=True keeps the array: aliased
    assert s.get_value()[0] == 100.0
    copied = np.arange(4.0)
    c = sn.shared(copied, name="c")                   # borrow=False copies
    copied[0] = 100.0
    assert c.get_value()[0] == 0.0
    f = sn.function([], s * 2, updates={s: s + 1})
    f()
    internal = s.get_value(return_internal_type=True)
    np.testing.assert_array_equal(np.asarray(internal), [101.0, 2.0, 3.0, 4.0])
    np.testing.assert_array_equal(s.get_value(borrow=True), [101.0, 2.0, 3.0, 4.0])
    b = sn.shared(np.zeros((1, 3)), broadcastable=(True, False))
    assert b.type.shape == (1, None)


def test_borrowed_values_alias_until_a_call_uses_them():
    # Theano's CPU aliasing: get_value(borrow=True), container.value and the array given
    # with borrow=True are the stored value until a compiled function next uses it.
    start = np.arange(4.0)
    s = sn.shared(start.copy(), name="s")
    f = sn.function([], s * 2)
    np.testing.assert_array_equal(f(), start * 2)
    lent = s.get_value(borrow=True)                   # brought back from the device
    assert lent.flags.writeable
    lent /= 0.5                                       # a write with no set_value
    np.testing.assert_array_equal(f(), start * 4)
    assert s.get_value(borrow=True) is not lent       # the call put the value on the device
    lent[:] = -1.0                                    # after that call: not seen (immutable buffers)
    np.testing.assert_array_equal(f(), start * 4)
    mine = np.full(4, 3.0)
    s.set_value(mine, borrow=True)                    # stored itself
    assert s.get_value(borrow=True) is mine
    s.container.value[1] = 7.0                        # Theano's container: the same array
    np.testing.assert_array_equal(mine, [3.0, 7.0, 3.0, 3.0])
    np.testing.assert_array_equal(f(), [6.0, 14.0, 6.0, 6.0])
    other = np.full(4, 5.0)
    s.set_value(other)                                # borrow=False: copied
    other[0] = 0.0
    np.testing.assert_array_equal(f(), np.full(4, 10.0))
    # Theano's internal type on the CPU is the NumPy array, lent as borrow=True lends it
    f()
    import jax

    if all(d.platform == "cpu" for d in jax.devices()):
        internal = s.get_value(borrow=True, return_internal_type=True)
        assert type(internal) is np.ndarray and internal is s.get_value(borrow=True)
        internal *= 2.0
        np.testing.assert_array_equal(f(), np.full(4, 20.0))
        copied = s.get_value(return_internal_type=True)
        assert type(copied) is np.ndarray and not np.shares_memory(copied, internal)


def test_a_lent_array_written_after_a_call_never_changes_the_device_value():
    # JAX may alias (or read later) a NumPy array it puts on the CPU device: a lent
    # array is copied before it goes there, so a write into it after the call that
    # moved it never reaches the buffer the next call reads.
    for n in (4, 1000, 100_000):
        s = sn.shared(np.zeros(n, "float32"), name="s")
        lent = s.get_value(borrow=True)
        total = sn.function([], s.sum())
        assert float(total()) == 0.0
        lent += 1.0
        assert float(total()) == 0.0
        assert float(np.asarray(s.get_value()).sum()) == 0.0


def test_set_value_of_a_wrong_shape_names_set_value_and_both_types():
    # sn.shared(..., shape=...) fixes the shape: another is refused, naming set_value
    # (not a test value, which the user never set), w, its type and the value's.
    w = sn.shared(np.zeros((3, 2), "float32"), name="w", shape=(3, 2))
    with pytest.raises(ValueError) as caught:
        w.set_value(np.ones((4, 2), "float32"))
    message = str(caught.value)
    assert message.startswith("the value given to w.set_value does not fit shared variable 'w'")
    assert "float32 array of shape (4, 2)" in message and "TensorType(float32, shape=(3, 2))" in message
    assert "test value" not in message
    np.testing.assert_array_equal(w.get_value(), np.zeros((3, 2)))  # unchanged
    with pytest.raises(ValueError, match=r"the value given to shared\(\) does not fit .*'v'.*"
                                         r"shape \(3, 2\).*shape=\(4, 2\)"):
        sn.shared(np.zeros((3, 2), "float32"), name="v", shape=(4, 2))


def test_set_value_keeps_theanos_free_shape_but_not_another_ndim():
    # As in Theano, the shape is not fixed by default (nor by a False broadcastable
    # pattern): any shape of the same number of dimensions is taken.
    w = sn.shared(np.zeros((3, 2), "float32"), name="w")
    b = sn.shared(np.zeros((1, 2), "float32"), name="b", broadcastable=(True, False))
    w.set_value(np.ones((4, 5), "float32"))
    np.testing.assert_array_equal(w.get_value(), np.ones((4, 5)))
    b.set_value(np.ones((1, 7), "float32"))
    np.testing.assert_array_equal(b.get_value(), np.ones((1, 7)))
    with pytest.raises(ValueError, match=r"w.set_value .* float32 array of shape \(4,\).*"
                                         r"expected 2 dimension\(s\)"):
        w.set_value(np.ones(4, "float32"))
    with pytest.raises(ValueError, match=r"b.set_value .* shape \(3, 7\).*expected shape \(1, \?\)"):
        b.set_value(np.ones((3, 7), "float32"))
