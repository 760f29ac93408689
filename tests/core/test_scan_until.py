"""``scan ... until`` returns the rows of the steps run, as Theano did (core/scan/rows.py):
test values, compiled results (a chain of programs: the loop in XLA, the rows cut on the
host) and gradients against NumPy loops and central finite differences."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.compile.split_program import SplitFunction
from symnb.core.scan.rows import PadRows, StepsRun


def _power_of_2(max_value):
    """Theano's documentation (doc/library/scan.txt), as written there."""
    def power_of_2(previous_power, max_value):
        return previous_power * 2, sn.scan_module.until(previous_power * 2 > max_value)

    values, _ = sn.scan(power_of_2, outputs_info=T.constant(1.), non_sequences=max_value,
                        n_steps=1024)
    return values


def _powers_numpy(limit):
    powers, p = [], 1.0
    for _ in range(1024):
        p *= 2
        powers.append(p)
        if p > limit:
            break
    return np.array(powers, "float32")


def test_theano_documentation_example_returns_the_rows_computed():
    max_value = T.scalar()
    values = _power_of_2(max_value)
    assert values.type.shape == (None,)  # the length is known at run time only
    f = sn.function([max_value], values)
    np.testing.assert_array_equal(f(45), [2, 4, 8, 16, 32, 64])  # Theano's printed result
    for limit in (0.5, 1, 3, 45, 1000, 1e9):
        np.testing.assert_array_equal(f(limit), _powers_numpy(limit))
    # The loop runs in XLA, its rows are cut on the host, the rest per length bucket.
    assert isinstance(f, SplitFunction) and [n.op for n in f.host_nodes] == [StepsRun()]
    assert f.lengths == "buckets", f.lengths_reason


def test_test_value_agrees_with_the_compiled_rows():
    max_value = T.scalar("max_value", test_value=np.float32(45))
    values = _power_of_2(max_value)
    np.testing.assert_array_equal(values.test_value, [2, 4, 8, 16, 32, 64])
    assert sn.steps_run(values).test_value == 6
    f = sn.function([max_value], [values, sn.steps_run(values), values.sum(), values.shape[0]])
    rows, count, total, length = f(np.float32(45))
    np.testing.assert_array_equal(rows, values.test_value)
    assert count == 6 and length == 6 and total == 126


def test_reads_after_the_loop_are_compiled_per_bucket():
    max_value = T.scalar()
    values = _power_of_2(max_value)
    f = sn.function([max_value], [values.mean(), values.max(), T.log(values).sum()])
    lengths = set()
    for limit in range(1, 200, 3):
        expected = _powers_numpy(limit)
        mean, top, logs = f(limit)
        np.testing.assert_allclose(mean, expected.mean(), rtol=1e-6)
        assert top == expected.max()
        np.testing.assert_allclose(logs, np.log(expected).sum(), rtol=1e-6)
        lengths.add(len(expected))
    assert f.lengths == "buckets", f.lengths_reason
    buckets = {1 << (n - 1).bit_length() for n in lengths}
    assert len(lengths) > len(buckets)
    # The loop's program, then one per bucket: not one per length.
    assert f.compiled_programs() == 1 + len(buckets)


def test_the_last_row_needs_no_cut():
    max_value = T.scalar()
    f = sn.function([max_value], _power_of_2(max_value)[-1])
    assert not isinstance(f, SplitFunction)  # rows[-1] is the buffer's last row
    for limit in (0.5, 45, 1000):
        assert f(limit) == _powers_numpy(limit)[-1]


def _until_rnn(x, w, lim):
    def step(xt, h, w, lim):
        h2 = T.tanh(h * w + xt)
        return h2, sn.scan_until(T.abs(h2).sum() > lim)

    h, _ = sn.scan(step, sequences=x, outputs_info=T.constant(np.full(2, 0.1)),
                   non_sequences=[w, lim])
    return h


def _until_rnn_numpy(x, w, lim):
    rows, h = [], np.full(2, 0.1)
    for xt in x:
        h = np.tanh(h * w + xt)
        rows.append(h)
        if np.abs(h).sum() > lim:
            break
    return np.array(rows)


def _cost_numpy(x, w, lim):
    h = _until_rnn_numpy(x, w, lim)
    return (h ** 2).sum() + 3 * h[-1].sum() + (h[:, 0] * np.arange(len(h))).sum()


def _finite_differences(function, value, eps=1e-6):
    value = np.array(value, dtype="float64")
    grad = np.zeros_like(value)
    for i in np.ndindex(value.shape):
        up, down = value.copy(), value.copy()
        up[i] += eps
        down[i] -= eps
        grad[i] = (function(up) - function(down)) / (2 * eps)
    return grad


@pytest.mark.parametrize("lim", [0.9, 1.5, 100.0])  # stops at step 1, in the middle, never
def test_gradient_through_the_rows_run_matches_finite_differences(lim):
    rng = np.random.default_rng(39)
    x_value = rng.normal(size=(7, 2)) * 0.5
    w_value = np.array([0.8, -0.6])
    x = T.dmatrix("x", test_value=x_value)
    w = T.dvector("w", test_value=w_value)
    limit = T.dscalar("lim", test_value=np.float64(lim))
    h = _until_rnn(x, w, limit)
    cost = (h ** 2).sum() + 3 * h[-1].sum() + (h[:, 0] * T.arange(h.shape[0])).sum()
    gx, gw = sn.grad(cost, [x, w])
    expected_x = _finite_differences(lambda v: _cost_numpy(v, w_value, lim), x_value)
    expected_w = _finite_differences(lambda v: _cost_numpy(x_value, v, lim), w_value)
    f = sn.function([x, w, limit], [h, cost, gx, gw])
    assert f.lengths == "buckets", f.lengths_reason  # h[-1] and its gradient included
    rows, c, got_x, got_w = f(x_value, w_value, lim)
    np.testing.assert_allclose(rows, _until_rnn_numpy(x_value, w_value, lim), rtol=1e-12)
    np.testing.assert_allclose(c, _cost_numpy(x_value, w_value, lim), rtol=1e-12)
    np.testing.assert_allclose(got_x, expected_x, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(got_w, expected_w, rtol=1e-6, atol=1e-8)
    # the steps not run get no gradient (Theano pads the sequence's gradient with zeros)
    steps = len(rows)
    assert not got_x[steps:].any()
    # test values: the same numbers, by NumPy
    np.testing.assert_allclose(gx.test_value, got_x, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(gw.test_value, got_w, rtol=1e-10, atol=1e-12)


def test_gradient_with_two_taps_and_an_output_without_state():
    def step(xt, h2, h1, a):
        new = 0.5 * h1 + 0.3 * T.sin(h2 * a) + xt
        return [new, new * xt], sn.scan_until(new > 0.9)

    def numpy_loop(x, h0, a):
        hs, ys = [h0[0], h0[1]], []
        for xt in x:
            # 0.3 in the step is a floatX (float32) constant: Theano's rule for a Python float
            new = 0.5 * hs[-1] + float(np.float32(0.3)) * np.sin(hs[-2] * a) + xt
            hs.append(new)
            ys.append(new * xt)
            if new > 0.9:
                break
        return np.array(hs[2:]), np.array(ys)

    def numpy_cost(x, h0, a):
        h, y = numpy_loop(x, h0, a)
        return (h ** 3).sum() + y.sum() * 2

    x_value = np.array([0.3, 0.1, 0.4, 0.2, 0.5, 0.1, 0.3])
    h0_value = np.array([0.2, -0.1])
    a_value = np.float64(1.3)
    x, h0, a = T.dvector("x"), T.dvector("h0"), T.dscalar("a")
    (h, y), _ = sn.scan(step, sequences=x, outputs_info=[dict(initial=h0, taps=[-2, -1]), None],
                        non_sequences=a)
    cost = (h ** 3).sum() + y.sum() * 2
    f = sn.function([x, h0, a], [h, y] + sn.grad(cost, [x, h0, a]))
    h_got, y_got, gx, gh0, ga = f(x_value, h0_value, a_value)
    h_ref, y_ref = numpy_loop(x_value, h0_value, a_value)
    assert 0 < len(h_ref) < len(x_value)  # the loop stops in the middle
    np.testing.assert_allclose(h_got, h_ref, rtol=1e-12)
    np.testing.assert_allclose(y_got, y_ref, rtol=1e-12)
    np.testing.assert_allclose(gx, _finite_differences(lambda v: numpy_cost(v, h0_value, a_value),
                                                       x_value), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gh0, _finite_differences(lambda v: numpy_cost(x_value, v, a_value),
                                                        h0_value), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(ga, _finite_differences(lambda v: numpy_cost(x_value, h0_value, v),
                                                       a_value), rtol=1e-6, atol=1e-8)


def test_a_loop_of_no_step_returns_no_row():
    n = T.lscalar("n")
    values, _ = sn.scan(lambda p: [p * 2, sn.scan_until(p > 10)], outputs_info=T.constant(1.0),
                        n_steps=n)
    f = sn.function([n], [values, values.sum()])
    rows, total = f(0)
    assert rows.shape == (0,) and total == 0
    rows, total = f(3)
    np.testing.assert_array_equal(rows, [2, 4, 8])


def test_pad_rows_and_steps_run_are_each_others_gradient():
    rows, like, count = T.dmatrix("rows"), T.dmatrix("like"), T.lscalar("count")
    padded = PadRows()(rows, like, count)
    f = sn.function([rows, like, count], [padded, StepsRun()(like, count)])
    r = np.arange(6.0).reshape(3, 2)
    buffer = np.ones((5, 2))
    got, cut = f(r, buffer, 2)
    np.testing.assert_array_equal(got, np.concatenate([r[:2], np.zeros((3, 2))]))
    np.testing.assert_array_equal(cut, buffer[:2])
    g = sn.function([rows, like, count], sn.grad((padded * T.extra_ops.cumsum(like, axis=0)).sum(), rows))
    expected = np.zeros((3, 2))
    expected[:2] = np.cumsum(buffer, 0)[:2]
    np.testing.assert_array_equal(g(r, buffer, 2), expected)


def _truncated_bptt(xv, h0, w, thr, trunc):
    """NumPy reference: h_t = w h_{t-1} + x_t until h_t > thr, cost sum(h), gradients
    through the last ``trunc`` steps run only (Theano's truncate_gradient)."""
    hs, h = [], h0
    for x_t in xv:
        h = w * h + x_t
        hs.append(h)
        if h > thr:
            break
    count = len(hs)
    prev = [h0] + hs[:-1]
    dx, dw, g = np.zeros_like(xv), 0.0, 0.0
    first = max(0, count - trunc)
    for t in reversed(range(first, count)):
        g += 1.0
        dx[t] = g
        dw += g * prev[t]
        g *= w
    return np.array(hs), dx, (g if first == 0 else 0.0), dw


@pytest.mark.parametrize("trunc", [2, 4, 50])
def test_truncate_gradient_keeps_the_last_steps_run_as_in_theano(trunc):
    x, h0, w, thr = T.dvector("x"), T.dscalar("h0"), T.dscalar("w"), T.dscalar("thr")
    hs, _ = sn.scan(lambda x_t, h, w_: (w_ * h + x_t, sn.scan_module.until(w_ * h + x_t > thr)),
                    sequences=x, outputs_info=h0, non_sequences=w, truncate_gradient=trunc)
    grads = sn.grad(hs.sum(), [x, h0, w])
    f = sn.function([x, h0, w, thr], [hs] + grads)
    xv = np.linspace(0.5, 2.0, 12)
    got = f(xv, 0.3, 0.9, 6.0)
    want_h, dx, dh0, dw = _truncated_bptt(xv, 0.3, 0.9, 6.0, trunc)
    assert 2 < len(want_h) < 12  # the loop stopped early, after more than 2 steps
    np.testing.assert_allclose(got[0], want_h)
    np.testing.assert_allclose(got[1], dx)
    np.testing.assert_allclose(got[2], dh0)
    np.testing.assert_allclose(got[3], dw)
