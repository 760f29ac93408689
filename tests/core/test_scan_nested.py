"""Scans inside scan steps: what the inner step reads from the outer one (its element,
its non-sequences, shared variables), shared-variable updates and random draws made
in the inner step, whether or not the outer step returns the inner scan's updates,
and gradients; each against NumPy or a flat loop, test value and compiled."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.scan import scan
from symnb.gradient import verify_grad
from symnb.sandbox.rng_mrg import MRG_RandomStreams
from symnb.tensor.shared_randomstreams import RandomStreams
from tests.reference import assert_same, symbolic_like


def weighted_rows(x, w, b):
    """Per row of ``x``: Horner's rule ``acc * w + v + b`` along the row, in an inner
    scan that reads the outer element, the outer non-sequence ``w`` and the shared ``b``
    without being passed them."""
    def row(xr, w):
        acc, _ = scan(lambda v, acc: acc * w + v + b, sequences=xr,
                      outputs_info=T.zeros_like(w))
        return acc[-1]

    out, _ = scan(row, sequences=x, non_sequences=w)
    return out


def weighted_rows_reference(x, w, b):
    out = []
    for r in x:
        acc = 0.0
        for v in r:
            acc = acc * w + v + b
        out.append(acc)
    return np.array(out)


def test_inner_step_reads_the_outer_element_non_sequence_and_a_shared_variable(rng):
    x, w = rng.normal(size=(3, 4)), rng.normal(size=())
    b = sn.shared(np.float64(0.25), name="b")
    xs, ws = symbolic_like(x, "x"), symbolic_like(w, "w")
    out = weighted_rows(xs, ws, b)
    expected = weighted_rows_reference(x, w, 0.25)
    assert_same(out.test_value, expected, "perform")
    assert_same(sn.function([xs, ws], out)(x, w), expected, "XLA")


def test_gradient_through_nested_scans_against_finite_differences(rng):
    b = sn.shared(np.float64(-0.5), name="b")
    verify_grad(lambda x, w: weighted_rows(x, w, b), [rng.normal(size=(3, 4)),
                                                      rng.normal(size=())], rng=rng)


def test_inner_update_of_a_shared_variable_returned_by_the_outer_step():
    total = sn.shared(np.float64(1.0), name="total")
    x = T.dmatrix("x")

    def row(xr):
        seen, updates = scan(lambda v: (total * v, {total: total + v}), sequences=xr)
        return seen.sum(), updates  # Theano's rule: the outer step returns them

    sums, updates = scan(row, sequences=x)
    values = np.arange(6.0).reshape(2, 3)
    expected, state = [], 1.0
    for r in values:
        acc = 0.0
        for v in r:
            acc, state = acc + state * v, state + v
        expected.append(acc)
    np.testing.assert_allclose(sn.function([x], sums, updates=updates)(values), expected)
    assert total.get_value() == state


# -- random draws in the inner step -----------------------------------------------------------
# A draw's key advances once per draw, so the draws of a nested loop are exactly those
# of a flat loop making as many draws from the same seed, in the same order; the
# second call continues the stream (no draw repeats).

def flat_draws(make_streams, seed, draw, params, calls=2):
    srng = make_streams(seed=seed)
    out, updates = scan(lambda q: draw(srng, q), sequences=T.constant(params.ravel()))
    f = sn.function([], out, updates=updates)
    return [f().reshape(params.shape + (2,)) for _ in range(calls)]


def uniform_pair(srng, q):
    return srng.uniform((2,), low=q, high=q + 1.0)


def binomial_pair(srng, q):
    return srng.binomial((2,), n=1, p=q)


@pytest.mark.parametrize("make_streams", [RandomStreams, MRG_RandomStreams])
@pytest.mark.parametrize("draw", [uniform_pair, binomial_pair])
@pytest.mark.parametrize("outer_returns_updates, function_gets_updates",
                         [(True, True), (False, True), (False, False)])
def test_inner_draws_with_a_parameter_from_the_outer_element(
        make_streams, draw, outer_returns_updates, function_gets_updates):
    # The outer step passes its row to the inner scan, which draws with each entry as
    # parameter; dropping the inner updates raised MissingInputError (the draw's next
    # key, the stream's default update, read the inner step's argument).
    probabilities = np.random.default_rng(0).uniform(size=(3, 4))
    srng = make_streams(seed=11)
    rows = symbolic_like(probabilities, "rows")

    def outer(row):
        drawn, inner_updates = scan(lambda q: draw(srng, q), sequences=row)
        return (drawn, inner_updates) if outer_returns_updates else drawn

    out, updates = scan(outer, sequences=rows)
    f = sn.function([rows], out, updates=updates if function_gets_updates else None)
    first, second = f(probabilities), f(probabilities)
    expected = flat_draws(make_streams, 11, draw, probabilities)
    assert_same(first, expected[0], "first call")
    assert_same(second, expected[1], "second call")
    assert_same(out.test_value, first, "test value")


def test_constant_parameter_draws_three_levels_deep_with_every_update_dropped():
    srng = RandomStreams(seed=5)
    level2 = lambda: scan(lambda: srng.uniform((2,)), n_steps=2)[0]  # noqa: E731
    level1 = lambda: scan(level2, n_steps=3)[0]  # noqa: E731
    out, _ = scan(level1, n_steps=2)
    f = sn.function([], out)
    first, second = f(), f()
    expected = flat_draws(RandomStreams, 5, lambda s, q: s.uniform((2,)), np.zeros((2, 3, 2)))
    assert_same(first, expected[0], "first call")
    assert_same(second, expected[1], "second call")
    assert_same(out.test_value, first, "test value")
    assert len(np.unique(np.concatenate([first, second]))) == 2 * first.size


def test_a_draw_of_the_outer_step_read_by_the_inner_step_is_drawn_at_each_inner_step():
    # Not passed to the inner scan, the draw is redrawn at each inner step (Theano's
    # rule); the outer loop carries its key past every inner draw (it repeated all but
    # one of them at the next outer step, updates passed or not).
    srng = RandomStreams(seed=1)

    def outer():
        x = srng.uniform((2,))
        drawn, _ = scan(lambda: x * 1, n_steps=3)
        return drawn

    out, updates = scan(outer, n_steps=2)
    f = sn.function([], out, updates=updates)
    first, second = f(), f()
    expected = flat_draws(RandomStreams, 1, lambda s, q: s.uniform((2,)), np.zeros((2, 3)))
    assert_same(first, expected[0], "first call")
    assert_same(second, expected[1], "second call")
    assert_same(out.test_value, first, "test value")


def _inner_normal_draws(srng, row, passed, std):
    """Eight draws of N(row[i], std) at each inner step ``i``, the row reaching the
    inner step as its sequence, as a non-sequence, or read without being passed."""
    def draw(avg):
        return srng.normal((8,), avg=avg, std=std, dtype="float64")

    if passed == "sequence":
        return scan(draw, sequences=row)
    index = T.arange(row.shape[0])
    if passed == "non_sequence":
        return scan(lambda i, r: draw(r[i]), sequences=index, non_sequences=row)
    return scan(lambda i: draw(row[i]), sequences=index)


@pytest.mark.parametrize("passed", ["sequence", "non_sequence", "read"])
@pytest.mark.parametrize("outer_returns_updates, function_gets_updates",
                         [(True, True), (False, True), (False, False)])
def test_inner_normal_draws_centred_on_the_outer_elements(
        passed, outer_returns_updates, function_gets_updates):
    # The draws' means come from the outer scan's sequence, through the inner scan's
    # sequences, its non-sequences or its closure; dropping the inner updates raised
    # MissingInputError (the key's next value read the inner step's arguments).
    # With a tiny std the draws sit on their means (the NumPy array), and scaled back they
    # look standard normal.
    std = 1e-5
    means = np.random.default_rng(3).uniform(-2.0, 2.0, size=(3, 4))
    srng = RandomStreams(seed=7)
    rows = symbolic_like(means, "rows")

    def outer(row):
        drawn, inner_updates = _inner_normal_draws(srng, row, passed, std)
        return (drawn, inner_updates) if outer_returns_updates else drawn

    out, updates = scan(outer, sequences=rows)
    f = sn.function([rows], out, updates=updates if function_gets_updates else None)
    first, second = f(means), f(means)
    assert_same(out.test_value, first, "test value")
    expected = np.broadcast_to(means[..., None], (3, 4, 8))
    for drawn in (first, second):
        assert drawn.shape == expected.shape
        np.testing.assert_allclose(drawn, expected, rtol=0, atol=10 * std)
        scaled = ((drawn - expected) / std).ravel()
        assert abs(scaled.mean()) < 0.5 and 0.7 < scaled.std() < 1.3, (scaled.mean(), scaled.std())
    assert len(np.unique(np.concatenate([first, second]))) == 2 * first.size  # no draw repeats
