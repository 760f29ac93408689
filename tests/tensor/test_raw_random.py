"""``symnb.tensor.raw_random``: draws from an explicit generator state, the same as a
``RandomStreams`` draw from the same state; bounds and moments checked with NumPy."""

import numpy as np
import pytest

import symnb
from symnb.tensor import raw_random
from symnb.tensor.shared_randomstreams import RandomStreams


def test_a_draw_from_a_state_is_the_streams_draw_from_that_state():
    rng = raw_random.random_state_type("rng")
    new_rng, u = raw_random.uniform(rng, (1000,), low=-2.0, high=3.0)
    f = symnb.function([symnb.In(rng, value=raw_random.seed_state(42), update=new_rng)], u)
    first, second = f(), f()
    assert first.shape == (1000,) and (first >= -2).all() and (first < 3).all()
    assert abs(first.mean() - 0.5) < 0.25 and not np.array_equal(first, second)
    srng = RandomStreams(7)
    v = srng.uniform((1000,), low=-2.0, high=3.0)
    v.rng.set_value(raw_random.seed_state(42))
    np.testing.assert_array_equal(symnb.function([], v)(), first)


def test_each_distribution_returns_the_next_state_and_its_draw():
    rng = raw_random.random_state_type("rng")
    key = raw_random.seed_state(3)
    cases = [
        (raw_random.normal(rng, (2000,), avg=1.0, std=2.0), lambda d: abs(d.mean() - 1) < 0.2
         and abs(d.std() - 2) < 0.2),
        (raw_random.binomial(rng, (2000,), n=3, p=0.5), lambda d: set(np.unique(d)) <= {0, 1, 2, 3}
         and abs(d.mean() - 1.5) < 0.15),
        (raw_random.random_integers(rng, (500,), low=2, high=4), lambda d: set(np.unique(d)) == {2, 3, 4}),
        (raw_random.choice(rng, (50,), a=np.array([3.0, 5.0])), lambda d: set(np.unique(d)) <= {3.0, 5.0}),
        (raw_random.permutation(rng, (), n=6), lambda d: sorted(d) == list(range(6))),
        (raw_random.multinomial(rng, (4,), n=5, pvals=[0.2, 0.8]), lambda d: (d.sum(axis=1) == 5).all()),
    ]
    for (new_rng, draw), check in cases:
        next_key, values = symnb.function([rng], [new_rng, draw])(key)
        assert check(values), values
        assert next_key.dtype == np.uint32 and not np.array_equal(next_key, key)


def test_a_state_of_another_type_is_refused():
    with pytest.raises(TypeError, match="not a generator state"):
        raw_random.uniform(symnb.tensor.vector("v"), (2,))
