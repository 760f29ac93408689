"""Integer indices out of range raise IndexError in compiled functions, as in NumPy
(XLA alone clamps them when reading and drops them when writing), naming the index,
its value, the axis and its length, and the user's line; in-range ones agree with NumPy."""

import re

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.compile import DebugMode, Mode

MODES = [None, Mode(optimizer=None), DebugMode()]
MODE_IDS = ["jit", "jit-unoptimized", "DebugMode"]
X_VALUE = np.arange(10, dtype="float32").reshape(2, 5)


def _expect_index_error(call, *parts):
    with pytest.raises(sn.IndexOutOfBoundsError) as info:
        call()
    assert isinstance(info.value, IndexError)
    text = str(info.value)
    assert not re.search(r"\(valid indices: -?\d+ to -?\d+\) \(", text), text  # no "(k)" after it
    for part in parts:
        assert part in text, f"{part!r} not in:\n{text}"
    return text


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
@pytest.mark.parametrize("bad", [2, 5, -3, 100])
def test_scalar_index_read(mode, bad):
    X, k = T.matrix("X"), T.lscalar("k")
    f = sn.function([X, k], X[k], mode=mode)  # the read
    for good in (0, 1, -1, -2):
        np.testing.assert_array_equal(f(X_VALUE, good), X_VALUE[good])
    _expect_index_error(lambda: f(X_VALUE, bad),
                        f"index {bad} in k is out of bounds for axis 0 of X, which has length 2",
                        "# the read", "IndexError in Subtensor{?}")


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_second_axis_and_narrow_index_dtypes(mode):
    X, i = T.matrix("X"), T.lscalar("i")
    j = T.scalar("j", dtype="int8")
    u = T.scalar("u", dtype="uint8")
    f = sn.function([X, i, j, u], [X[i, j], X[:, u]], mode=mode)
    got = f(X_VALUE, -1, 4, 3)
    np.testing.assert_array_equal(got[0], X_VALUE[-1, 4])
    np.testing.assert_array_equal(got[1], X_VALUE[:, 3])
    _expect_index_error(lambda: f(X_VALUE, 0, -6, 0), "index -6 in j is out of bounds for axis 1 of X",
                        "length 5")
    _expect_index_error(lambda: f(X_VALUE, 0, 0, 200), "index 200 in u is out of bounds for axis 1")


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_the_first_failing_check_is_reported_with_its_own_value(mode):
    """Two checks fail in one call: the error is the first one's (in the order the graph
    runs), with its value, whatever the other index's dtype; an unsigned index too large
    for a signed 32-bit integer is reported as it is."""
    X, k = T.matrix("X"), T.lscalar("k")
    u = T.vector("u", dtype="uint32")
    row = X[k]  # the row read
    picked = row[u]  # the pick
    f = sn.function([X, k, u], picked, mode=mode)
    np.testing.assert_array_equal(f(X_VALUE, 1, np.array([4, 0], "uint32")), X_VALUE[1][[4, 0]])
    _expect_index_error(lambda: f(X_VALUE, 0, np.array([1, 3_000_000_000, 7], "uint32")),
                        "index 3000000000 in u is out of bounds for axis 0", "length 5", "# the pick")
    text = _expect_index_error(lambda: f(X_VALUE, -3, np.array([3_000_000_000], "uint32")),
                               "index -3 in k is out of bounds for axis 0 of X", "length 2",
                               "# the row read")
    assert "# the pick" not in text


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_integer_array_read(mode, rng):
    X, idx = T.matrix("X"), T.lvector("idx")
    rows = sn.function([X, idx], X[idx], mode=mode)  # the row read
    columns = sn.function([X, idx], X[:, idx], mode=mode)
    good = rng.integers(-2, 2, size=7)
    np.testing.assert_array_equal(rows(X_VALUE, good), X_VALUE[good])
    np.testing.assert_array_equal(columns(X_VALUE, good - 3), X_VALUE[:, good - 3])
    _expect_index_error(lambda: rows(X_VALUE, np.array([0, 1, 5, 7])),
                        "index 5 in idx is out of bounds for axis 0 of X, which has length 2",
                        "# the row read")
    _expect_index_error(lambda: rows(X_VALUE, np.array([0, -3])), "index -3 in idx is out of bounds for axis 0")
    _expect_index_error(lambda: columns(X_VALUE, np.array([0, 1, -6, 4])),
                        "index -6 in idx is out of bounds for axis 1 of X, which has length 5")
    np.testing.assert_array_equal(rows(X_VALUE, np.zeros(0, "int64")), X_VALUE[[]])
    table = T.matrix("table", dtype="int32")
    grid = sn.function([X, table], X[table, 1:], mode=mode)  # a 2-d index array
    positions = np.array([[0, 1, -1], [-2, 1, 0]], "int32")
    np.testing.assert_array_equal(grid(X_VALUE, positions), X_VALUE[positions, 1:])
    positions[1, 1] = 2
    _expect_index_error(lambda: grid(X_VALUE, positions), "index 2 in table is out of bounds for axis 0")


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_set_and_inc_leave_shared_variables_unchanged(mode):
    W = sn.shared(X_VALUE.copy(), name="W")
    calls = sn.shared(np.int64(0), name="calls")
    k, idx = T.lscalar("k"), T.lvector("idx")
    inc = sn.function([k], [], updates=[(W, T.inc_subtensor(W[k], 100.0)),  # the inc
                                        (calls, calls + 1)], mode=mode)
    put = sn.function([idx], [], updates=[(W, T.set_subtensor(W[idx], -1.0)),  # the set
                                          (calls, calls + 1)], mode=mode)
    expected = X_VALUE.copy()
    inc(-1)
    expected[-1] += 100
    put(np.array([0, 0]))
    expected[[0, 0]] = -1
    np.testing.assert_array_equal(W.get_value(), expected)
    assert calls.get_value() == 2
    _expect_index_error(lambda: inc(9), "index 9 in k is out of bounds for axis 0 of W", "# the inc",
                        "IncSubtensor{inc; ?}")
    _expect_index_error(lambda: put(np.array([1, -3])), "index -3 in idx is out of bounds for axis 0 of W",
                        "# the set", "AdvancedIncSubtensor1{set; []}")
    np.testing.assert_array_equal(W.get_value(), expected)
    assert calls.get_value() == 2


def test_repeated_in_range_indices_still_accumulate(rng):
    x, y, idx = T.vector("x"), T.vector("y"), T.lvector("idx")
    f = sn.function([x, y, idx], T.inc_subtensor(x[idx], y))
    x_value = rng.normal(size=4).astype("float32")
    y_value = rng.normal(size=6).astype("float32")
    positions = np.array([0, -1, 0, 3, -4, 2])
    expected = x_value.copy()
    np.add.at(expected, positions, y_value)
    np.testing.assert_allclose(f(x_value, y_value, positions), expected, rtol=1e-6)
    _expect_index_error(lambda: f(x_value, y_value, np.array([0, 1, 2, 3, 4, 0])),
                        "index 4 in idx is out of bounds for axis 0 of x, which has length 4")


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_index_inside_a_scan_step(mode):
    idx = T.lvector("idx")
    table = T.vector("table")

    def step(i, table):
        return table[i] * 2  # the lookup

    out, _ = sn.scan(step, sequences=[idx], non_sequences=[table], name="lookup")
    f = sn.function([idx, table], out, mode=mode)
    table_value = np.arange(3, dtype="float32") + 1
    np.testing.assert_array_equal(f(np.array([0, 2, -3]), table_value), table_value[[0, 2, -3]] * 2)
    text = _expect_index_error(lambda: f(np.array([0, 1, 3]), table_value),
                               "index 3 in idx[t] is out of bounds for axis 0 of table, which has length 3",
                               "# the lookup", "Inside Scan{lookup}")
    assert "at iteration 2 of Scan{lookup}" in text  # idx = [0, 1, 3]: the third step
    assert "oposort" not in text  # its position in the body: exception_verbosity='high' only


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_index_inside_an_ifelse_branch(mode):
    x, k = T.vector("x"), T.lscalar("k")
    use = T.lscalar("use")
    out = sn.ifelse(use, x[k] + 1, x[0])  # the branch
    f = sn.function([x, k, use], out, mode=mode)
    values = np.array([1.0, 2.0, 3.0], "float32")
    assert f(values, -1, 1) == values[-1] + 1
    assert f(values, 7, 0) == values[0]  # the branch with the bad index is not taken
    _expect_index_error(lambda: f(values, 7, 1), "index 7 in k is out of bounds for axis 0 of x",
                        "Inside IfElse")


def test_indices_known_while_tracing_are_checked_then():
    X = T.matrix("X")  # lengths unknown when the graph is built
    last_column = X[:, X.shape[0] * 2]  # computed from shapes only
    f = sn.function([X], [X[1], last_column])
    assert not f._program.checked  # no run-time check: the buffers can be donated
    np.testing.assert_array_equal(f(np.ones((2, 5), "float32"))[1], np.ones(2, "float32"))
    _expect_index_error(lambda: f(np.ones((1, 5), "float32")),
                        "index 1 is out of bounds for axis 0 of X, which has length 1")
    _expect_index_error(lambda: f(np.ones((2, 4), "float32")),
                        "index 4 in X.shape[0] * 2 is out of bounds for axis 1 of X, which has length 4")


def test_an_equal_graph_compiled_earlier_reports_the_called_functions_line():
    X, k = T.matrix("X"), T.lscalar("k")
    sn.function([X, k], X[k] * 2)  # shares its program with the next one
    f = sn.function([X, k], X[k] * 2)  # the second function
    assert f(X_VALUE, 1).tolist() == (X_VALUE[1] * 2).tolist()
    _expect_index_error(lambda: f(X_VALUE, 2), "# the second function")


def test_the_flag_turns_run_time_checks_off():
    X, k = T.matrix("X"), T.lscalar("k")
    with sn.config.change_flags(index_checks=False):
        f = sn.function([X, k], [X[k], X[3]])
    assert not f._program.checked
    np.testing.assert_array_equal(f(np.ones((4, 2), "float32"), 1)[0], np.ones(2, "float32"))
    # indices known while tracing cost nothing at run time: still checked
    _expect_index_error(lambda: f(X_VALUE, 0), "index 3 is out of bounds for axis 0 of X")
    g = sn.function([X, k], X[k])
    assert g._program.checked
    _expect_index_error(lambda: g(X_VALUE, 2), "index 2 in k is out of bounds")


def test_a_checked_update_still_updates_in_place_and_keeps_the_old_value_on_failure():
    W = sn.shared(X_VALUE.copy(), name="W")
    k = T.lscalar("k")
    f = sn.function([k], W[k].sum(), updates=[(W, T.inc_subtensor(W[k], 1.0))])
    assert f._program.checked and f._program.keeps_old_values
    f(0)
    buffer = W._backend_value()
    assert f(1) == X_VALUE[1].sum()
    assert buffer.is_deleted()  # donated: the update reused it
    expected = X_VALUE + 1
    np.testing.assert_array_equal(W.get_value(), expected)
    _expect_index_error(lambda: f(-3), "index -3 in k is out of bounds")
    np.testing.assert_array_equal(W.get_value(), expected)  # the old value, put back
    assert f(-1) == expected[-1].sum()


def test_an_update_changing_a_shape_is_not_donated():
    log = sn.shared(np.zeros(1, "float32"), name="log")
    x, k = T.vector("x"), T.lscalar("k")
    f = sn.function([x, k], x[k], updates=[(log, T.concatenate([log, x]))])
    assert f(np.array([1.0, 2.0], "float32"), -1) == 2.0
    np.testing.assert_array_equal(log.get_value(), [0.0, 1.0, 2.0])
    assert not f._program.keeps_old_values  # rebuilt without donation when first traced
    _expect_index_error(lambda: f(np.array([3.0], "float32"), 1), "index 1 in k is out of bounds")
    np.testing.assert_array_equal(log.get_value(), [0.0, 1.0, 2.0])


@pytest.mark.parametrize("readable", [True, False], ids=["checkify-predicates", "older-checkify"])
def test_checks_inside_a_loop_keep_the_old_values(monkeypatch, request, readable):
    """The program donates and keeps the old values as one checking its own graph
    (tests/compile/test_transfers.py); a JAX whose checkify hides whether a check
    failed (faked) gets a program that donates nothing."""
    if not readable:
        from symnb.lower_xla import cache

        monkeypatch.setattr(cache, "checkify_predicates_readable", lambda: False)
        cache.program_cache.clear()  # no donating program of an equal graph
        request.addfinalizer(cache.program_cache.clear)  # nor this one for later tests
    W = sn.shared(X_VALUE.copy(), name="W")
    idx = T.lvector("idx")
    rows, _ = sn.scan(lambda i, w: w[i].sum(), sequences=[idx], non_sequences=[W])
    f = sn.function([idx], rows, updates=[(W, W * 2)])
    assert f._program.checked and f._program.keeps_old_values == readable
    assert bool(f._program.donate) == readable
    np.testing.assert_array_equal(f(np.array([1, 0])), X_VALUE.sum(axis=1)[[1, 0]])
    _expect_index_error(lambda: f(np.array([0, 2])), "index 2 in idx[t] is out of bounds", "Inside Scan")
    np.testing.assert_array_equal(W.get_value(), X_VALUE * 2)


@pytest.mark.parametrize("mask", [[True, False, True], [True, False, False], [True]])
def test_a_constant_mask_of_another_length_is_numpys_index_error(mask):
    """A mask known while tracing, whose shape is not x's (x's static shape unknown, test
    values off): NumPy's IndexError, where its nonzero indices would be clamped or dropped."""
    x_value = np.arange(6, dtype="float32").reshape(2, 3)
    with pytest.raises(IndexError):
        x_value[np.array(mask)]  # the reference refuses it
    n = sn.shared(x_value)
    mask = np.array(mask)
    with sn.change_flags(compute_test_value="off"):
        for out in (n[mask], T.inc_subtensor(n[mask], 1), T.set_subtensor(n[mask, ...], 0)):
            with pytest.raises(IndexError, match="does not match"):
                sn.function([], out)()
