"""Shared variables keep their dtype and every bit of their value: through calls, 1,000
updates, and calls that fail (bad argument, failing Assert, run-time error, out of
memory)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.graph.errors import SymnbError


def test_64_bit_shared_values_come_back_whole():
    acc = sn.shared(np.int64(2**40 + 1), name="acc")
    out = sn.function([], acc)()
    assert out.dtype == np.int64 and out == 2**40 + 1
    exact = np.float64(1) + np.float64(1e-10)
    w = sn.shared(exact, name="w")
    out = sn.function([], w)()
    assert out.dtype == np.float64 and out.tobytes() == exact.tobytes()
    # The stored value too, once a call has moved it to the device.
    assert acc.get_value().dtype == np.int64 and acc.get_value() == 2**40 + 1
    assert w.get_value().tobytes() == exact.tobytes()


def test_an_int64_update_keeps_the_high_bits():
    c = sn.shared(np.int64(2**40 + 3), name="c")
    sn.function([], [], updates={c: c + 1})()
    assert c.get_value().dtype == np.int64 and c.get_value() == 2**40 + 4


def test_tutorial_accumulator_is_int64_from_the_first_call():
    state = sn.shared(0)
    inc = T.iscalar("inc")
    accumulator = sn.function([inc], state, updates=[(state, state + inc)])
    first, second = accumulator(1), accumulator(300)
    assert first.dtype == second.dtype == np.int64
    assert (first, second, state.get_value()) == (0, 1, 301)


def test_a_thousand_64_bit_updates_are_bit_exact():
    big = sn.shared(np.int64(2**40 + 3), name="big")
    scaled = sn.shared(np.float64(1) + np.float64(1e-10), name="scaled")
    shifted = sn.shared(np.array([1e-10, 1.0, -3.5, 1e300]), name="shifted")
    # A Python float is a floatX (float32) constant by Theano's rule: the 64-bit
    # constants are written as float64 arrays.
    step = sn.function([], [], updates={
        big: big * 3 + (2**33 + 1),  # wraps around like NumPy's int64
        scaled: scaled * np.array(1.0000001),
        shifted: shifted + np.array(1e-10),
    })
    ref_big, ref_scaled, ref_shifted = big.get_value(), scaled.get_value(), shifted.get_value()
    for _ in range(1000):
        step()
        with np.errstate(over="ignore"):
            ref_big = ref_big * np.int64(3) + np.int64(2**33 + 1)
        ref_scaled = ref_scaled * 1.0000001
        ref_shifted = ref_shifted + 1e-10
    for var, ref in ((big, ref_big), (scaled, ref_scaled), (shifted, ref_shifted)):
        value = var.get_value()
        assert value.dtype == ref.dtype, var.name
        assert value.tobytes() == ref.tobytes(), f"{var.name}: {value!r} != {ref!r}"


def _failing_calls():
    """(description, function, arguments) whose call must fail."""
    x = T.vector("x", dtype="int64")
    c = sn.shared(np.int64(2**40 + 3), name="c")
    calls = []
    add = sn.function([x], (c + x).sum(), updates={c: c + x.sum()})
    calls.append(("bad argument", add, (np.ones(3, "float64"),), TypeError))
    calls.append(("wrong shape at run time", sn.function(
        [x], (c + x + x[:2]).sum(), updates={c: c + 1}), (np.ones(3, "int64"),), sn.GraphRuntimeError))
    checked = T.Assert("x must be positive")(x, T.all(x > 0))
    calls.append(("failing Assert", sn.function([x], checked.sum(), updates={c: c + checked.sum()}),
                  (np.array([1, -1], "int64"),), AssertionError))
    return c, add, calls


@pytest.mark.parametrize("after_a_call", [False, True])
def test_a_failed_call_leaves_an_int64_shared_variable_unchanged(after_a_call):
    c, add, calls = _failing_calls()
    if after_a_call:  # the value then lives on the device
        add(np.array([1, 2], "int64"))
    before = c.get_value()
    assert before.dtype == np.int64 and before == 2**40 + 3 + (3 if after_a_call else 0)
    for what, fn, args, error in calls:
        with pytest.raises(error):
            fn(*args)
        after = c.get_value()
        assert after.dtype == np.int64, f"{what}: the shared variable became {after.dtype}"
        assert after.tobytes() == before.tobytes(), f"{what}: {after} != {before}"
    add(np.array([1, 2], "int64"))  # and it goes on from there
    assert c.get_value() == before + 3


TERA = 10**6  # a (TERA, TERA) float32 matrix needs 4e12 bytes: refused at once


def test_out_of_memory_names_the_node_its_shape_bytes_and_line():
    n = T.lscalar("n")
    c = sn.shared(np.int64(2**40 + 3), name="c")
    w = sn.shared(np.arange(3.0), name="w")
    grid = T.zeros((n, n))  # the line the error must show
    f = sn.function([n], [grid, w.sum()], updates={c: c + 1, w: w * 2})
    np.testing.assert_array_equal(f(3)[0], np.zeros((3, 3), "float32"))
    before = (c.get_value(), w.get_value())
    for _ in range(2):  # the second time the program is compiled already for this size
        with pytest.raises(sn.OutOfMemoryError) as info:
            f(TERA)
        assert isinstance(info.value, MemoryError) and isinstance(info.value, SymnbError)
        assert c.get_value().dtype == np.int64
        assert c.get_value().tobytes() == before[0].tobytes()
        assert w.get_value().tobytes() == before[1].tobytes()
    message = str(info.value)
    assert message.startswith("OutOfMemoryError in Alloc"), message
    assert "float32 (1000000, 1000000) = 4000000000000 bytes (3.6 TiB)" in message
    assert "grid = T.zeros((n, n))  # the line the error must show" in message
    assert re.search(r"Shrink axis 0 of this value \(length 1000000", message)
    # The storage map footprint, largest first: the matrix, then the inputs' values.
    footprint = message[message.index("Storage map footprint:"):].splitlines()
    assert footprint[1].startswith(" - grid = Alloc, Shape: (1000000, 1000000)")
    assert "TotalSize: 4000000000000 Byte(s)" in footprint[1]
    assert any(line.startswith(" - w, Shared Input, Shape: (3,)") for line in footprint)
    assert info.value.node.op.display_name() == "Alloc"
    assert info.value.shape == (TERA, TERA) and info.value.nbytes == 4 * TERA**2
    assert "The shared variables are unchanged." in info.value.__notes__
    np.testing.assert_array_equal(f(2)[0], np.zeros((2, 2), "float32"))
    assert c.get_value() == before[0] + 1


def test_out_of_memory_of_a_big_alloc_of_an_input():
    x = T.vector("x")
    k = T.lscalar("k")
    tiled = T.alloc(x, k, k, 3)
    f = sn.function([x, k], T.exp(tiled))
    # Alloc's output and exp's are equally large: the first computed is named.
    with pytest.raises(sn.OutOfMemoryError, match=r"(?s)in Alloc.*float32 \(1000000, 1000000, 3\) "
                                                  r"= 12000000000000 bytes.*tiled = T.alloc\(x, k, k, 3\)"):
        f(np.ones(3, "float32"), TERA)
