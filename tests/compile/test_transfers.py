"""A call reads each output from the device once, and nothing more: the run-time
checks' flag travels inside an output (``lower_xla/check_flag.py``), and a checked
program still updates its shared variables in place (their buffers donated).

The count: each conversion of a ``jax.Array`` to NumPy (``np.asarray``/``np.array``,
how symnb and ``np.array(jitted(x))`` read a result, or ``bool``/``int`` of one; on a
GPU each is a device->host copy, on a CPU a read of the buffer), per call, against
hand-written ``jax.jit``."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T


@pytest.fixture
def reads(monkeypatch):
    """The number of jax.Array -> NumPy conversions made since the fixture started
    (``reads[0]``); functions must be compiled after it starts (the call path keeps
    NumPy's functions)."""
    count = [0]
    for name in ("asarray", "array"):
        original = getattr(np, name)

        def counting(value, *args, _original=original, **kwargs):
            if isinstance(value, jax.Array):
                count[0] += 1
            return _original(value, *args, **kwargs)

        monkeypatch.setattr(np, name, counting)
    # bool(), int(), .item(), ... of a jax.Array read it through its _value (checkify's
    # get_exception does); np.asarray does not (JAX's C++ array hands NumPy its buffer).
    array_type = type(jnp.zeros(()))
    value = array_type.__dict__["_value"]

    def counted_value(array):
        count[0] += 1
        return value.fget(array)

    monkeypatch.setattr(array_type, "_value", property(counted_value))
    return count


def _per_call(count, call, calls=3):
    call()  # compiles
    start = count[0]
    for _ in range(calls):
        call()
    return (count[0] - start) / calls


X = np.arange(12, dtype="float32").reshape(4, 3)


def test_a_checked_call_reads_one_array_per_output_as_jax_jit_does(reads):
    x, k = T.matrix("x"), T.lscalar("k")
    f = sn.function([x, k], x[k].sum())
    assert f._program.checked  # k is checked against x's length at run time
    jitted = jax.jit(lambda x, k: x[k].sum())
    assert _per_call(reads, lambda: np.array(jitted(X, 2))) == 1
    assert _per_call(reads, lambda: f(X, 2)) == 1
    assert f(X, 2) == X[2].sum()
    with pytest.raises(IndexError, match="index 4 in k is out of bounds for axis 0 of x"):
        f(X, 4)


def test_a_checked_program_with_updates_donates_them_and_reads_only_its_outputs(reads):
    W = sn.shared(X.copy(), name="W")
    steps = sn.shared(np.zeros((), "int32"), name="steps")
    k = T.lscalar("k")
    row = W[k]
    f = sn.function([k], [row.sum(), row * 2], updates=[(W, T.inc_subtensor(W[k], 1.0)),
                                                        (steps, steps + 1)])
    assert f._program.checked and f._program.donate
    jitted = jax.jit(lambda w, k: (w[k].sum(), w[k] * 2))

    def by_hand():
        total, doubled = jitted(X, 1)
        return np.array(total), np.array(doubled)

    assert _per_call(reads, by_hand) == 2
    assert _per_call(reads, lambda: f(1)) == 2  # the shared values stay on the device
    expected = X.copy()
    expected[1] += 4  # four calls
    np.testing.assert_array_equal(W.get_value(), expected)
    before = W._backend_value()
    total, doubled = f(3)
    assert before.is_deleted()  # donated: the update reused its buffer
    np.testing.assert_array_equal(doubled, 2 * expected[3])
    assert total == expected[3].sum() and int(steps.get_value()) == 5
    kept = W.get_value()
    with pytest.raises(IndexError, match="index -5 in k is out of bounds"):
        f(-5)
    np.testing.assert_array_equal(W.get_value(), kept)  # a failed call changes nothing
    assert int(steps.get_value()) == 5


@pytest.mark.parametrize("dtype", ["bool", "int8", "float64", "int64"])
def test_the_flag_travels_with_outputs_of_any_dtype_and_shape(dtype):
    """The carrier's bytes come back intact, whatever its dtype and number of
    dimensions (an empty one too)."""
    value = (np.arange(24).reshape(2, 3, 4) % 3).astype(dtype)
    v, k = T.tensor(dtype, shape=(None, None, None), name="v"), T.lscalar("k")
    f = sn.function([v, k], [v[k], v[k][:, :0]])
    for position in (0, 1, -2):
        got, empty = f(value, position)
        np.testing.assert_array_equal(got, value[position])
        assert got.dtype == np.dtype(dtype) and got.flags.writeable and empty.shape == (3, 0)
    with pytest.raises(IndexError, match="index 2 in k is out of bounds"):
        f(value, 2)


def test_a_large_output_is_not_copied_to_carry_the_flag(reads):
    """Above CARRIED_BYTES the carrier would be copied on the device to hold the flag
    (more than the flag's read costs on a CPU): the trace for those shapes returns the
    code apart, the trace for small shapes in the carrier, in one function."""
    from symnb.lower_xla.check_flag import CARRIED_BYTES

    x, k = T.matrix("x"), T.lscalar("k")
    f = sn.function([x, k], x * x[k].sum())
    small = np.arange(6, dtype="float32").reshape(3, 2)
    side = int(np.sqrt(CARRIED_BYTES / 4)) + 1
    large = np.ones((side, side), "float32")
    assert _per_call(reads, lambda: f(small, 1)) == 1
    assert _per_call(reads, lambda: f(large, 1)) == 2  # the output, and the code apart
    np.testing.assert_array_equal(f(small, 1), small * 5)
    np.testing.assert_array_equal(f(large, -1), large * side)
    for value in (small, large):
        with pytest.raises(IndexError, match="index 9999 in k is out of bounds"):
            f(value, 9999)


def _expect_same_error(call, *parts):
    """The error a bad index inside a loop body or a branch raised before its program
    donated (tests/lower_xla/test_index_checks.py's): the index, the axis, the node."""
    with pytest.raises(sn.IndexOutOfBoundsError) as info:
        call()
    text = str(info.value)
    for part in parts:
        assert part in text, f"{part!r} not in:\n{text}"


def test_a_loop_with_checks_donates_its_shared_variables_and_reads_one_array_per_output(reads):
    """Checks inside a scan step (``E[i_t]``): the loop's program keeps the old values
    when a check failed, so it donates as one checking its own graph does, and its flag
    comes back inside the output (checkify's error stays on the device)."""
    E = sn.shared(X.copy(), name="E")
    steps = sn.shared(np.zeros((), "int32"), name="steps")
    idx = T.lvector("idx")
    rows, _ = sn.scan(lambda i, e: e[i], sequences=[idx], non_sequences=[E])
    f = sn.function([idx], rows.sum(), updates=[(E, E * 2), (steps, steps + 1)])
    assert f._program.checked and f._program.donate and f._program.keeps_old_values
    jitted = jax.jit(lambda e, idx: jax.lax.scan(lambda c, i: (c, e[i]), None, idx)[1].sum())
    picks = np.array([1, 0, 3])
    assert _per_call(reads, lambda: np.array(jitted(X, picks))) == 1
    assert _per_call(reads, lambda: f(picks)) == 1
    expected = X * 2 ** 4  # four calls
    np.testing.assert_array_equal(E.get_value(), expected)
    before = E._backend_value()
    assert f(picks) == expected[picks].sum()
    assert before.is_deleted()  # donated: the update reused its buffer
    kept = E.get_value()
    _expect_same_error(lambda: f(np.array([0, 4])), "index 4 in idx[t] is out of bounds for axis 0 of E",
                       "Inside Scan")
    np.testing.assert_array_equal(E.get_value(), kept)  # a failed call changes nothing
    assert int(steps.get_value()) == 5
    assert f(np.array([-4])) == kept[-4].sum()  # and the next call runs on the kept values
    np.testing.assert_array_equal(E.get_value(), kept * 2)


def test_a_branch_with_checks_donates_its_shared_variables_and_reads_one_array_per_output(reads):
    W = sn.shared(X.copy(), name="W")
    k, use = T.lscalar("k"), T.lscalar("use")
    out = sn.ifelse(use, W[k].sum(), W[0].sum())  # W[0]: known in range while tracing
    f = sn.function([k, use], out, updates=[(W, W + 1)])
    assert f._program.checked and f._program.donate and f._program.keeps_old_values
    jitted = jax.jit(lambda w, k, use: jax.lax.cond(use != 0, lambda: w[k].sum(), lambda: w[0].sum()))
    assert _per_call(reads, lambda: np.array(jitted(X, 2, 1))) == 1
    assert _per_call(reads, lambda: f(2, 1)) == 1
    before = W._backend_value()
    assert f(-1, 1) == (X + 4)[-1].sum()
    assert before.is_deleted()
    assert f(9, 0) == (X + 5)[0].sum()  # the branch with the bad index is not taken
    kept = W.get_value()
    _expect_same_error(lambda: f(9, 1), "index 9 in k is out of bounds for axis 0 of W", "Inside IfElse")
    np.testing.assert_array_equal(W.get_value(), kept)


def test_a_loop_with_checks_carries_its_flag_without_updates(reads):
    """No shared variable: the flag still travels in the output (the carrier of the
    fewest dimensions, here the second output)."""
    x, idx = T.matrix("x"), T.lvector("idx")
    rows, _ = sn.scan(lambda i, x: x[i], sequences=[idx], non_sequences=[x])
    f = sn.function([x, idx], [rows, rows.sum()])
    picks = np.array([2, -1])
    assert _per_call(reads, lambda: f(X, picks)) == 2
    got, total = f(X, picks)
    np.testing.assert_array_equal(got, X[picks])
    assert total == X[picks].sum() and got.flags.writeable
    _expect_same_error(lambda: f(X, np.array([5])), "index 5 in idx[t] is out of bounds for axis 0 of x")
