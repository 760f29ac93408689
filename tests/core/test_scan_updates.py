"""Scan steps returning shared-variable updates, default updates inside steps,
non-sequences passed as the outer variables, return_list and strict."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.scan import scan


def test_step_returns_outputs_and_updates():
    total = sn.shared(np.float64(1.0), name="total")
    x = T.dvector("x")
    values = np.array([1.0, 2.0, 3.0])

    def step(xt):
        return total * 2, {total: total + xt}   # reads the value of the previous step

    outs, updates = scan(step, sequences=x)
    assert list(updates) == [total]
    f = sn.function([x], outs, updates=updates)
    expected, state = [], 1.0
    for v in values:
        expected.append(state * 2)
        state += v
    np.testing.assert_allclose(f(values), expected)
    assert total.get_value() == state
    np.testing.assert_allclose(f(values), [2 * 7.0, 2 * 8.0, 2 * 10.0])  # continues from 7


def test_step_returns_only_updates_and_updates_first():
    acc = sn.shared(np.zeros(2), name="acc")
    x = T.dmatrix("x")
    _, updates = scan(lambda row: {acc: acc + row}, sequences=x)
    f = sn.function([x], [], updates=updates)
    values = np.arange(6.0).reshape(3, 2)
    f(values)
    np.testing.assert_allclose(acc.get_value(), values.sum(0))
    acc.set_value(np.zeros(2))
    outs, updates = scan(lambda row: ({acc: acc * 2 + row}, row.sum()), sequences=x)
    f = sn.function([x], outs, updates=updates)
    np.testing.assert_allclose(f(values), values.sum(1))
    state = np.zeros(2)
    for row in values:
        state = state * 2 + row
    np.testing.assert_allclose(acc.get_value(), state)


def test_default_update_inside_step_becomes_a_scan_update():
    counter = sn.shared(np.int64(0), name="counter")
    counter.default_update = counter + 1
    outs, updates = scan(lambda: counter * 10, n_steps=4)
    f = sn.function([], outs, updates=updates)
    np.testing.assert_array_equal(f(), [0, 10, 20, 30])
    assert counter.get_value() == 4
    np.testing.assert_array_equal(f(), [40, 50, 60, 70])
    # Given before the step, the default update stays its owner's (one per call)
    # for a function without the loop.
    g = sn.function([], counter * 1)
    assert g() == 8 and g() == 9 and counter.get_value() == 10


def test_reduce_returns_the_steps_updates_as_theano_does():
    from symnb.core.scan import reduce
    from symnb.tensor.shared_randomstreams import RandomStreams

    count = sn.shared(np.int64(0), name="count")
    x = T.dvector("x")
    values = np.array([1.0, 2.0, 4.0])
    total, updates = reduce(lambda v, acc: (acc + v * count, {count: count + 1}), x,
                            np.float64(0.0))
    assert list(updates) == [count]
    assert sn.function([x], total, updates=updates)(values) == 0 * 1 + 1 * 2 + 2 * 4
    assert count.get_value() == 3
    # a draw in the step (it refused: "cannot return"): the draws of a scan's steps
    srng = RandomStreams(seed=4)
    weighted, updates = reduce(lambda v, acc: acc + v * srng.uniform(), x, np.float64(0.0))
    f = sn.function([x], weighted, updates=updates)
    flat = RandomStreams(seed=4)  # its first stream: the same key
    draws, draw_updates = scan(lambda: flat.uniform(), n_steps=3)
    g = sn.function([], draws, updates=draw_updates)
    np.testing.assert_allclose([f(values), f(values)], [values @ g(), values @ g()],
                               rtol=1e-12)


def test_update_type_is_checked():
    s = sn.shared(np.float32(0.0), name="s32")
    with pytest.raises(TypeError, match="s32"):
        scan(lambda: {s: s + np.float64(1.0) * T.ones((), "float64")}, n_steps=2)


def test_jacobian_recipe_non_sequences_are_the_outer_variables():
    x = T.dvector("x")
    y = x ** 2 + T.sum(x)
    J, _ = scan(lambda i, y, x: T.grad(y[i], x), sequences=T.arange(y.shape[0]),
                non_sequences=[y, x])
    f = sn.function([x], J)
    xv = np.array([1.0, -2.0, 0.5])
    np.testing.assert_allclose(f(xv), np.diag(2 * xv) + 1.0)


def test_return_list_and_strict():
    x = T.dvector("x")
    w = T.dscalar("w")
    outs, _ = scan(lambda xt, w: xt * w, sequences=x, non_sequences=w, return_list=True)
    assert isinstance(outs, list) and len(outs) == 1
    f = sn.function([x, w], outs[0])
    np.testing.assert_allclose(f([1.0, 2.0], 3.0), [3.0, 6.0])
    # strict: values computed from non-sequences are fine, and symbolic outer variables
    # are passed automatically (Theano's rule); an unlisted shared variable is refused
    outs, _ = scan(lambda xt, w: xt * (w + 1), sequences=x, non_sequences=w, strict=True)
    np.testing.assert_allclose(sn.function([x, w], outs)([1.0, 2.0], 1.0), [2.0, 4.0])
    outs, _ = scan(lambda xt: xt * w, sequences=x, strict=True)
    np.testing.assert_allclose(sn.function([x, w], outs)([1.0, 2.0], 3.0), [3.0, 6.0])
    shared_w = sn.shared(2.0, name="shared_w")
    with pytest.raises(ValueError, match="strict=True.*'shared_w'"):
        scan(lambda xt: xt * shared_w, sequences=x, strict=True)
