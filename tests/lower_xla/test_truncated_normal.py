"""``MRG_RandomStreams.normal(..., truncate=True)``: the normal truncated at two standard
deviations, against ``scipy.stats.truncnorm`` (moments, a Kolmogorov-Smirnov test on a
fixed seed, bounds), its test value against the compiled draw, and Theano's
``truncated_normal`` (scaled to the requested standard deviation)."""

import numpy as np
import pytest
import scipy.stats

import symnb as sn
import symnb.tensor as T
from symnb.sandbox.rng_mrg import MRG_RandomStreams

N = 400_000
TRUNCNORM = scipy.stats.truncnorm(-2, 2)


def within_4_standard_errors(draws, mean, variance):
    se = np.sqrt(variance / draws.size)
    assert abs(draws.mean() - mean) <= 4 * se, (draws.mean(), mean, se)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_truncated_normal_is_scipys_truncnorm(dtype):
    draws = sn.function([], MRG_RandomStreams(seed=21).normal((N,), truncate=True, dtype=dtype))()
    assert draws.dtype == dtype
    assert draws.min() > -2 and draws.max() < 2
    z = draws.astype(np.float64)
    within_4_standard_errors(z, TRUNCNORM.mean(), TRUNCNORM.var())
    within_4_standard_errors(z ** 2, TRUNCNORM.var(), TRUNCNORM.moment(4) - TRUNCNORM.var() ** 2)
    # A fixed seed: the p-value is a fixed number; at this size a wrong distribution
    # gives p < 1e-10 (the normal clipped at ±2: 1e-180; Theano's redrawn radii, of
    # standard deviation 0.890: 1e-12 to 1e-19, see the next test).
    assert scipy.stats.kstest(z, TRUNCNORM.cdf).pvalue > 0.01


def test_theanos_redrawn_radii_would_fail_the_test_above():
    # The test can fail: Theano's own construction (Box-Muller pairs, the radius of a
    # value outside redrawn below 2) is rejected at this sample size.
    rng = np.random.default_rng(0)
    r, theta = np.sqrt(-2 * np.log(rng.random(N // 2))), 2 * np.pi * rng.random(N // 2)
    z = np.concatenate([r * np.cos(theta), r * np.sin(theta)])
    outside = np.abs(z) > 2
    redrawn = np.sqrt(-2 * np.log(rng.uniform(np.exp(-2), 1, outside.sum())))
    z[outside] = redrawn * np.concatenate([np.cos(theta), np.sin(theta)])[outside]
    assert np.abs(z).max() <= 2
    assert scipy.stats.kstest(z, TRUNCNORM.cdf).pvalue < 1e-6


def test_avg_and_std_shift_and_scale_the_bounds_elementwise():
    rng = np.random.default_rng(1)
    avg = rng.uniform(-3, 3, (200, 50)).astype("float32")
    std = rng.uniform(0.1, 4, (200, 50)).astype("float32")
    draws = sn.function([], MRG_RandomStreams(seed=5).normal((200, 50), avg=avg, std=std,
                                                             truncate=True))()
    z = (draws.astype(np.float64) - avg) / std
    assert np.all(np.abs(z) <= 2 + 1e-6)
    assert scipy.stats.kstest(z.ravel(), TRUNCNORM.cdf).pvalue > 0.01


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("scale", ["scalars", "arrays"])
def test_test_value_is_the_compiled_draw(dtype, scale):
    avg, std = 0.5, 2.0
    if scale == "arrays":
        rng = np.random.default_rng(0)
        avg, std = rng.uniform(-1, 1, 50_000).astype(dtype), rng.uniform(0.5, 3, 50_000).astype(dtype)
    rv = MRG_RandomStreams(seed=77).normal((50_000,), avg=avg, std=std, dtype=dtype, truncate=True)
    first = sn.function([], rv)()
    assert first.dtype == rv.test_value.dtype == dtype
    # the same MRG uniforms (exact: tests/core/test_mrg31k3p.py), then erfinv and the
    # scaling, NumPy's and XLA's, a few roundings apart
    tol = 4e-6 if dtype == "float32" else 1e-13
    np.testing.assert_allclose(first, rv.test_value, rtol=tol, atol=tol)


def test_truncated_normal_has_the_requested_standard_deviation():
    std = T.scalar("std", test_value=np.float32(3.0))
    rv = MRG_RandomStreams(seed=8).truncated_normal((N,), avg=1.0, std=std)
    draws = sn.function([std], rv)(np.float32(3.0)).astype(np.float64)
    assert draws.min() >= 1 - 2 * 3 / 0.8796256610342398 - 1e-5
    within_4_standard_errors(draws, 1.0, 9.0)
    within_4_standard_errors((draws - 1.0) ** 2, 9.0, 81 * (TRUNCNORM.moment(4) / TRUNCNORM.var() ** 2 - 1))
    plain = MRG_RandomStreams(seed=8).truncated_normal((1000,), std=2.0).test_value
    np.testing.assert_array_equal(
        plain, MRG_RandomStreams(seed=8).normal((1000,), std=2.0 / 0.8796256610342398,
                                                truncate=True).test_value)


def test_parameters_have_no_gradient_as_in_theano():
    # Theano's MRG wraps avg and std in undefined_grad: NullTypeGradError, never a number
    avg, std = T.scalar("avg", test_value=np.float32(1.0)), T.scalar("std", test_value=np.float32(2.0))
    z = MRG_RandomStreams(seed=9).normal((1000,), avg=avg, std=std, truncate=True)
    for wrt in (avg, std):
        with pytest.raises(sn.gradient.NullTypeGradError):
            sn.grad(T.sum(z * z), wrt)
    with pytest.raises(TypeError, match="'nstreams'"):
        sn.RandomStreams(3).uniform((2,), nstreams=4)
