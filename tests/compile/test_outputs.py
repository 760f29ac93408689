"""Every way a compiled function's output can be produced, checked against NumPy.

For each dtype (64-bit ones included: they must not come back as 32 bits), each
optimizer level and each production path (an input passed through, a shared variable,
a constant, a computed value, the same variable twice, an updated shared variable's
new or old value, a scan output, an ifelse output, a shape), the output must have
exactly the graph's dtype and NumPy's value, be a writable array the caller owns, and
share no memory with another output or with a shared variable's stored value.
"""

from __future__ import annotations

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T

LEVELS = ["fast_run", "fast_compile", None]

# Values that 32 bits cannot hold where the dtype is 64-bit: truncation shows.
VALUES = {
    "bool": ([True, False, True, False], [False, False, True, True]),
    "uint8": ([200, 3, 255, 0], [7, 201, 254, 1]),
    "int32": ([-5, 2**30, 7, -2**31], [3, -2**30, 8, 9]),
    "int64": ([2**40 + 1, -2**41 - 3, 5, 2**62], [2**40 + 2, 7, -2**50, 1]),
    "float32": ([1.5, -2.25, 3e38, -0.0], [1.25, -2.5, 7.0, 1e-30]),
    # 2**-1060 is subnormal: passed through bit-exact. (XLA's CPU code flushes
    # subnormal operands of arithmetic to zero, so maxima here are normal numbers.)
    "float64": ([1 + 1e-10, -2.25, 1e300, 2.0**-1060], [1 + 2e-10, -2.5, 7.0, 1e-300]),
}
CONSTANT = {"bool": [True, True, False, False], "uint8": [250, 1, 2, 3],
            "int32": [2**31 - 1, 0, -1, 5], "int64": [2**53 + 1, 0, -1, 5],
            "float32": [0.1, 0.2, 0.3, 0.4], "float64": [0.1, 1 + 1e-12, 1e-310, 5.0]}


def _running_max(start, values):
    out, acc = [], start
    for v in values:
        acc = np.maximum(acc, v)
        out.append(acc)
    return np.stack(out)


# name -> build(x, s, c) returning (outputs, updates, expected(xv, sv, cv), expected new shared)
PATHS = {
    "input": lambda x, s, c: ([x], None, lambda xv, sv, cv: [xv], None),
    "input twice": lambda x, s, c: ([x, x], None, lambda xv, sv, cv: [xv, xv], None),
    "shared": lambda x, s, c: ([s], None, lambda xv, sv, cv: [sv], None),
    "shared twice": lambda x, s, c: ([s, s], None, lambda xv, sv, cv: [sv, sv], None),
    "constant": lambda x, s, c: (
        [T.constant(np.array(CONSTANT[x.dtype], x.dtype))], None,
        lambda xv, sv, cv: [np.array(CONSTANT[xv.dtype.name], xv.dtype)], None),
    "constant scalar": lambda x, s, c: (
        [T.constant(np.array(CONSTANT[x.dtype][0], x.dtype))], None,
        lambda xv, sv, cv: [np.array(CONSTANT[xv.dtype.name][0], xv.dtype)], None),
    "computed": lambda x, s, c: ([T.maximum(x, s)], None,
                                 lambda xv, sv, cv: [np.maximum(xv, sv)], None),
    "computed twice and its input": lambda x, s, c: (
        [T.maximum(x, s)] * 2 + [x], None,
        lambda xv, sv, cv: [np.maximum(xv, sv)] * 2 + [xv], None),
    "updated shared, new value": lambda x, s, c: (
        [T.maximum(s, x)], {s: T.maximum(s, x)},
        lambda xv, sv, cv: [np.maximum(sv, xv)], lambda xv, sv: np.maximum(sv, xv)),
    "updated shared, old value": lambda x, s, c: (
        [s, x], {s: T.maximum(s, x)},
        lambda xv, sv, cv: [sv, xv], lambda xv, sv: np.maximum(sv, xv)),
    "updated shared, replaced by an input": lambda x, s, c: (
        [s], {s: x}, lambda xv, sv, cv: [sv], lambda xv, sv: xv),
    "scan": lambda x, s, c: (
        list(_scan_outputs(x, s)), None,
        lambda xv, sv, cv: [_running_max(sv[0], xv), _running_max(sv[0], xv)[-1]], None),
    "ifelse": lambda x, s, c: (
        [sn.ifelse(c, x, s), sn.ifelse(c, s, T.constant(np.array(CONSTANT[x.dtype], x.dtype)))],
        None,
        lambda xv, sv, cv: [xv if cv else sv,
                            sv if cv else np.array(CONSTANT[xv.dtype.name], xv.dtype)], None),
    "indexed element": lambda x, s, c: ([x[1], s[-1]], None,
                                        lambda xv, sv, cv: [xv[1], sv[-1]], None),
    "shape": lambda x, s, c: ([T.shape(x), x.shape[0] * 2], None,
                              lambda xv, sv, cv: [np.array(xv.shape, "int64"),
                                                  np.int64(xv.shape[0] * 2)], None),
}


def _scan_outputs(x, s):
    running, _ = sn.scan(lambda v, acc: T.maximum(acc, v), sequences=x, outputs_info=s[0])
    return running, running[-1]


def _check_output(actual, expected, what):
    expected = np.asarray(expected)
    assert isinstance(actual, np.ndarray), f"{what}: {type(actual).__name__}, not a NumPy array"
    assert actual.dtype == expected.dtype, f"{what}: dtype {actual.dtype}, expected {expected.dtype}"
    np.testing.assert_array_equal(actual, expected, err_msg=what, strict=True)
    # Bit-exact: -0.0 and denormals included.
    assert actual.tobytes() == expected.tobytes(), f"{what}: bits differ from NumPy's"
    assert actual.flags.writeable, f"{what}: the output is read-only"


def _check_unaliased(outputs, shared_var, what):
    stored = shared_var.get_value(borrow=True)
    for i, a in enumerate(outputs):
        assert not np.shares_memory(a, stored), f"{what}: output {i} aliases the shared value"
        for j, b in enumerate(outputs[:i]):
            assert not np.shares_memory(a, b), f"{what}: outputs {j} and {i} share memory"


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("dtype", sorted(VALUES))
@pytest.mark.parametrize("path", sorted(PATHS))
def test_every_output_path_keeps_the_graph_dtype_and_numpys_value(path, dtype, level):
    xv, sv = (np.array(v, dtype) for v in VALUES[dtype])
    x = T.vector("x", dtype=dtype)
    s = sn.shared(sv, name="s")
    c = T.iscalar("c")
    outputs, updates, expected, new_shared = PATHS[path](x, s, c)
    with sn.config.change_flags(optimizer=level):
        f = sn.function([x, c], outputs, updates=updates, on_unused_input="ignore")
    for v in f.outputs:  # the graph's own dtypes are NumPy's: the reference must agree
        assert v.dtype in {dtype, "int64"}, (path, v.dtype)
    before = s.get_value()
    for cv in (1, 0):
        xin = xv.copy()
        got = f(xin, cv)
        what = f"{path}, {dtype}, optimizer={level}, c={cv}"
        want = expected(xv, before, cv)
        assert len(got) == len(want)
        for i, (a, e) in enumerate(zip(got, want)):
            _check_output(a, e, f"{what}, output {i}")
            assert not np.shares_memory(a, xin), f"{what}: output {i} aliases the argument"
        _check_unaliased(got, s, what)
        after = s.get_value()
        assert after.dtype == np.dtype(dtype), f"{what}: the shared variable became {after.dtype}"
        want_after = before if new_shared is None else new_shared(xv, before)
        assert after.tobytes() == np.asarray(want_after, dtype).tobytes(), f"{what}: shared value"
        # The caller owns the outputs: writing into them changes nothing stored.
        for a in got:
            a[...] = np.zeros_like(a)
        assert s.get_value().tobytes() == after.tobytes(), f"{what}: writing an output changed s"
        before = after
    # A constant or a shared value written over in the caller's copy is intact next call.
    again = f(xv.copy(), 0)
    for i, (a, e) in enumerate(zip(again, expected(xv, before, 0))):
        _check_output(a, e, f"{path}, {dtype}, optimizer={level}, second call, output {i}")


@pytest.mark.parametrize("level", LEVELS)
def test_a_single_output_is_writable_and_owned(level):
    x = T.vector("x")
    with sn.config.change_flags(optimizer=level):
        f = sn.function([x], x * 2)
    out = f(np.ones(3, "float32"))
    out += 1  # Theano's tutorials update returned arrays in place
    np.testing.assert_array_equal(out, np.full(3, 3, "float32"))
