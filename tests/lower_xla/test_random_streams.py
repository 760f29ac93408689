"""RandomStreams end to end: draws, their test values against the compiled program,
default updates, seeding, state copies, scan, gradients and the errors."""

import jax
import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.gradient import DisconnectedInputError
from symnb.sandbox.rng_mrg import MRG_RandomStreams
from symnb.tensor.shared_randomstreams import RandomStreams

N = 1_000_000


def within_4_standard_errors(draws, mean, variance):
    se = np.sqrt(variance / draws.size)
    assert abs(draws.mean() - mean) <= 4 * se + 1e-12, (draws.mean(), mean, se)


@pytest.mark.parametrize("make, mean, variance", [
    (lambda s: s.uniform((N,), low=-1.0, high=3.0), 1.0, 16 / 12),
    (lambda s: s.normal((N,), avg=2.0, std=3.0), 2.0, 9.0),
    (lambda s: s.binomial((N,), n=3, p=0.25), 0.75, 3 * 0.25 * 0.75),
    (lambda s: s.random_integers((N,), low=-2, high=5), 1.5, (8 ** 2 - 1) / 12),
    (lambda s: s.choice((N,), a=10, p=np.arange(10, dtype="float32") / 45), 285 / 45,
     sum(i * i * i for i in range(10)) / 45 - (285 / 45) ** 2),
    (lambda s: s.multinomial(size=(N,), n=1, pvals=[0.2, 0.3, 0.5])[:, 2], 0.5, 0.25),
])
def test_moments_over_a_million_draws(make, mean, variance):
    draws = sn.function([], make(RandomStreams(seed=3)))()
    within_4_standard_errors(draws.astype(np.float64), mean, variance)
    within_4_standard_errors((draws.astype(np.float64) - mean) ** 2, variance,
                             np.var((draws.astype(np.float64) - mean) ** 2))


def test_permutation_is_a_permutation_and_uniform():
    perms = sn.function([], RandomStreams(seed=4).permutation(size=(20000,), n=5))()
    np.testing.assert_array_equal(np.sort(perms, axis=1), np.broadcast_to(np.arange(5), perms.shape))
    within_4_standard_errors((perms[:, 0] == 0).astype(float), 0.2, 0.16)


@pytest.mark.parametrize("draw", ["uniform", "normal", "binomial", "random_integers",
                                  "choice", "permutation", "multinomial"])
def test_test_value_is_the_first_call_and_calls_differ(draw):
    srng = RandomStreams(seed=234)
    args = {"uniform": dict(size=(50,)), "normal": dict(size=(50,)),
            "binomial": dict(size=(50,), p=0.5), "random_integers": dict(size=(50,), high=9),
            "choice": dict(size=(50,), a=7), "permutation": dict(n=50),
            "multinomial": dict(size=(50,), n=5, pvals=[0.1, 0.2, 0.7])}[draw]
    rv = getattr(srng, draw)(**args)
    f = sn.function([], rv)
    first, second = f(), f()
    assert first.dtype == rv.test_value.dtype
    if draw == "normal":  # transformed floats: within an ulp
        assert np.max(np.abs(first - rv.test_value) / np.spacing(np.abs(first))) <= 1
    else:
        np.testing.assert_array_equal(first, rv.test_value)
    assert not np.array_equal(first, second)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("scale", ["scalars", "arrays"])
def test_normal_test_value_is_the_compiled_draw_within_an_ulp(dtype, scale):
    avg, std = 0.5, 2.0
    if scale == "arrays":
        rng = np.random.default_rng(0)
        avg, std = rng.uniform(-1, 1, 100_000).astype(dtype), rng.uniform(0.5, 3, 100_000).astype(dtype)
    rv = RandomStreams(seed=77).normal(size=(100_000,), avg=avg, std=std, dtype=dtype)
    first = sn.function([], rv)()
    assert first.dtype == rv.test_value.dtype == dtype
    assert np.max(np.abs(first - rv.test_value) / np.spacing(np.abs(first))) <= 1


def test_reseeding_reproduces_and_no_default_updates_is_honoured():
    srng = RandomStreams(seed=1)
    u = srng.uniform((5,))
    f = sn.function([], u)
    a, b = f(), f()
    srng.seed(1)
    np.testing.assert_array_equal(f(), a)
    np.testing.assert_array_equal(f(), b)
    srng.seed(2)
    assert not np.array_equal(f(), a)
    frozen = sn.function([], u, no_default_updates=True)
    np.testing.assert_array_equal(frozen(), frozen())


def test_rng_get_and_set_value_replay_a_draw():
    srng = RandomStreams(seed=5)
    u = srng.normal((4,))
    f = sn.function([], u)
    state = u.rng.get_value()
    a = f()
    u.rng.set_value(state)
    np.testing.assert_array_equal(f(), a)
    # The state is JAX's key: the next key is jax.random.split(key)[0].
    expected = jax.random.key_data(jax.random.split(jax.random.wrap_key_data(state))[0])
    np.testing.assert_array_equal(u.rng.get_value(), np.asarray(expected))


def test_state_copy_recipe_gives_identical_draws():
    def graph(srng):
        return srng.uniform((3,)) + srng.normal((3,))

    g1, g2 = RandomStreams(seed=1), RandomStreams(seed=2)
    f1, f2 = sn.function([], graph(g1)), sn.function([], graph(g2))
    f1()
    for (su1, _), (su2, _) in zip(g1.state_updates, g2.state_updates):  # Theano's recipe
        su2.set_value(su1.get_value())
    np.testing.assert_array_equal(f1(), f2())


def test_mrg_streams_and_symbolic_size_and_tensor_parameters():
    srng = MRG_RandomStreams(seed=12)
    h = T.matrix("h")
    h.test_value = np.zeros((3, 4), "float32")
    mask = srng.binomial(size=h.shape, p=T.sigmoid(h), dtype="float32")
    f = sn.function([h], mask)
    big = np.full((2, 3), 50.0, "float32")  # p = 1
    np.testing.assert_array_equal(f(big), np.ones((2, 3), "float32"))
    np.testing.assert_array_equal(f(-big), np.zeros((2, 3), "float32"))


def test_no_host_callback_and_no_transfer():
    srng = RandomStreams(seed=0)
    x = T.vector("x")
    x.test_value = np.ones(8, x.dtype)
    y = x * srng.binomial(x.shape, p=0.5, dtype=x.dtype) + srng.normal(x.shape, dtype=x.dtype)
    f = sn.function([x], y)
    value = np.ones(8, x.dtype)
    f(value)
    hlo = f.lowered_text("stablehlo", value)
    assert "threefry" in hlo or "shift_right_logical" in hlo  # drawn in the program
    ops = [line.split(" loc(")[0] for line in hlo.splitlines() if not line.startswith("#loc")]
    assert not [line for line in ops if "callback" in line or "custom_call" in line]
    device_value = jax.device_put(value)
    # Nothing goes to the device but the argument, already there (the keys live there);
    # on a GPU the NumPy result comes back to the host, as it must.
    with jax.transfer_guard_host_to_device("disallow"):
        f(device_value)


def test_gradients_flow_through_reparameterized_normal_not_binomial_p():
    srng = RandomStreams(seed=9)
    avg, std, p = T.scalar("avg"), T.scalar("std"), T.scalar("p")
    for v, val in ((avg, 1.0), (std, 2.0), (p, 0.3)):
        v.test_value = np.asarray(val, v.dtype)
    z = srng.normal((1000,), avg=avg, std=std)
    cost = T.sum(z * z)
    g_avg, g_std = sn.grad(cost, [avg, std])
    f = sn.function([avg, std], [z, g_avg, g_std], no_default_updates=True)
    draws, ga, gs = f(1.0, 2.0)
    standard = (draws - 1.0) / 2.0
    np.testing.assert_allclose(ga, np.sum(2 * draws), rtol=1e-4)
    np.testing.assert_allclose(gs, np.sum(2 * draws * standard), rtol=1e-4)
    b = srng.binomial((10,), p=p, dtype=p.dtype)
    with pytest.raises(DisconnectedInputError):  # no gradient through a draw's p
        sn.grad(T.sum(b), p)
    assert float(sn.grad(T.sum(b * p), p, disconnected_inputs="ignore").test_value) == \
        float(b.test_value.sum())  # only the explicit use of p


def test_scan_gets_fresh_draws_each_step_and_each_call():
    srng = RandomStreams(seed=3)
    outs, updates = sn.scan(lambda: srng.uniform((2,)), n_steps=5)
    f = sn.function([], outs, updates=updates)
    a, b = f(), f()
    assert len({tuple(row) for row in a}) == 5
    assert not np.array_equal(a, b)


def test_a_draw_passed_as_non_sequence_is_drawn_once_one_read_from_outside_each_step():
    # Theano's rule: a non-sequence is computed before the loop (a dropout mask fixed
    # over time); a draw the step reads without it being passed is drawn at each step.
    srng = RandomStreams(seed=2)
    x = srng.uniform((3,))
    passed, updates = sn.scan(lambda m: m * 2, non_sequences=[x], n_steps=4)
    values, drawn = sn.function([], [passed, x], updates=updates)()
    np.testing.assert_array_equal(values, np.tile(drawn * 2, (4, 1)))
    np.testing.assert_array_equal(passed.test_value, np.tile(x.test_value * 2, (4, 1)))
    read, updates = sn.scan(lambda: x * 2, n_steps=4)
    values, drawn = sn.function([], [read, x], updates=updates)()
    np.testing.assert_array_equal(values[0], drawn * 2)  # the first step's key is x's
    assert len({tuple(row) for row in values}) == 4


def test_a_function_not_given_the_scans_updates_still_advances_by_every_draw():
    # The stream's default update is its key after the loop, not after one draw: the
    # second call continues where the first stopped (it repeated 4 of its 5 draws).
    srng = RandomStreams(seed=3)
    outs, updates = sn.scan(lambda: srng.uniform((2,)), n_steps=5)
    given = sn.function([], outs, updates=updates)
    a, b = given(), given()
    srng.seed(3)
    not_given = sn.function([], outs)
    np.testing.assert_array_equal(not_given(), a)
    np.testing.assert_array_equal(not_given(), b)
    srng.seed(3)  # Theano's srng.updates(): the key after the loop for a draw in a step
    from_streams = sn.function([], outs, updates=srng.updates(), no_default_updates=True)
    np.testing.assert_array_equal(from_streams(), a)
    np.testing.assert_array_equal(from_streams(), b)


@pytest.mark.parametrize("build, message", [
    (lambda s: s.normal((3,), std=-1.0), "std must be non-negative"),
    (lambda s: s.binomial((3,), p=1.5), r"p must lie in \[0, 1\]"),
    (lambda s: s.uniform((4, 3), low=np.zeros(5, "float32")), "does not broadcast"),
    (lambda s: s.normal((4, 3), avg=T.vector("avg", test_value=np.zeros(5, "float32"))),
     "does not broadcast"),  # found by the test value: the shape is not static
])
def test_bad_parameters_fail_on_the_users_line(build, message):
    with pytest.raises(ValueError, match=message) as info:
        build(RandomStreams(seed=0))
    assert "test_random_streams.py" in str(info.value)


def test_a_float_distribution_refuses_an_integer_dtype():
    with pytest.raises(TypeError, match="uniform: dtype must be a float dtype, got int32") as info:
        RandomStreams(seed=0).uniform((2,), dtype="int32")
    assert "test_random_streams.py" in str(info.value)


def test_reparameterized_gradient_through_scan():
    srng = RandomStreams(seed=5)
    mu, sigma = sn.shared(np.float32(1.0)), sn.shared(np.float32(2.0))
    draws, updates = sn.scan(lambda: srng.normal((3,), avg=mu, std=sigma), n_steps=4)
    g_mu, g_sigma = sn.grad(T.sum(draws), [mu, sigma])
    values, gm, gs = sn.function([], [draws, g_mu, g_sigma], updates=updates)()
    assert gm == pytest.approx(12.0)
    assert gs == pytest.approx(((values - 1.0) / 2.0).sum(), rel=1e-5)


def _uniform_from(key_data, shape, dtype):
    """Reference: the draw of a stream whose key is ``key_data`` (split, draw with the
    second half), by jax.random directly."""
    draw_key = jax.random.split(jax.random.wrap_key_data(np.asarray(key_data)))[1]
    return np.asarray(jax.random.uniform(draw_key, shape, dtype))


def test_theano_tutorial_seeds_and_restores_a_stream_through_its_random_state():
    srng = RandomStreams(seed=234)
    rv_u = srng.uniform((2, 2))
    f = sn.function([], rv_u)
    nearly_zeros = sn.function([], rv_u + rv_u - 2 * rv_u)
    dtype = rv_u.dtype

    rng_val = rv_u.rng.get_value(borrow=True)     # Theano's tutorial, verbatim
    rng_val.seed(89234)
    rv_u.rng.set_value(rng_val, borrow=True)
    np.testing.assert_array_equal(
        f(), _uniform_from(jax.random.key_data(jax.random.PRNGKey(89234)), (2, 2), dtype))

    state_after_v0 = rv_u.rng.get_value().get_state()
    nearly_zeros()       # advances rv_u's stream
    v1 = f()
    rng = rv_u.rng.get_value(borrow=True)
    rng.set_state(state_after_v0)
    rv_u.rng.set_value(rng, borrow=True)
    v2 = f()
    v3 = f()
    assert not np.array_equal(v1, v2)
    np.testing.assert_array_equal(v3, v1)
    np.testing.assert_array_equal(v2, _uniform_from(state_after_v0, (2, 2), dtype))
    with pytest.raises(TypeError, match="uint32 key of shape"):
        rv_u.rng.get_value().set_state(np.zeros(3))


def test_random_state_value_is_still_the_key_and_pickles_with_its_methods():
    import pickle

    srng = RandomStreams(seed=8)
    u = srng.uniform((3,))
    state = u.rng.get_value()
    assert state.dtype == np.uint32 and state.shape == (2,)
    restored = pickle.loads(pickle.dumps(u.rng))
    np.testing.assert_array_equal(restored.get_value(), state)
    restored_state = restored.get_value()
    restored_state.seed(3)
    np.testing.assert_array_equal(restored_state,
                                  np.asarray(jax.random.key_data(jax.random.PRNGKey(3))))
    np.testing.assert_array_equal(u.rng.get_value(), state)  # a copy: stored key unchanged
