"""XLA's CPU ``log1p`` and fused multiply-add replayed in NumPy, against ``jax.jit`` of
``jnp.log1p`` (the compiled program) and exact rational arithmetic."""

from fractions import Fraction

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from symnb.core.tensor.random import xla_cpu_math


def ulps(got, expected):
    both_nan = np.isnan(got) & np.isnan(expected)
    same = (got == expected) | both_nan
    with np.errstate(invalid="ignore"):
        distance = np.abs(got.astype(np.float64) - expected) / np.spacing(np.abs(expected)).astype(np.float64)
    return np.where(same, 0.0, distance)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_log1p_of_minus_u_squared_matches_xla_within_an_ulp(dtype):
    # erf_inv's argument: log1p(-u*u) for u on (-1, 1), both branches (|x| < sqrt(2) - 1)
    u = np.random.default_rng(0).uniform(-1, 1, 200_000).astype(dtype)
    x = -u * u
    with jax.enable_x64(True):
        expected = np.asarray(jax.jit(jnp.log1p)(x))
    got = xla_cpu_math.log1p(x)
    assert got.dtype == expected.dtype
    assert ulps(got, expected).max() <= 1
    assert ulps(np.log1p(x), expected).max() > 1 or dtype == "float64"  # libm's is not XLA's


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_log1p_edges_match_xla(dtype):
    x = np.array([0.0, -0.0, -1.0, -1.5, np.inf, np.nan, 1e-42, -1e-310, 1e-8, -0.4142, 0.4143,
                  3.0, 1e30, np.finfo(dtype).max, np.finfo(dtype).tiny], dtype)
    with jax.enable_x64(True):
        expected = np.asarray(jax.jit(jnp.log1p)(x))
    got = xla_cpu_math.log1p(x)
    assert ulps(got, expected).max() <= 1, (got, expected)
    np.testing.assert_array_equal(np.signbit(got[:2]), np.signbit(expected[:2]))


def test_log1p_refuses_other_dtypes():
    with pytest.raises(TypeError, match="float16"):
        xla_cpu_math.log1p(np.zeros(3, np.float16))


def test_float64_fused_multiply_add_is_rounded_once():
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((2, 3000))
    c = -a * b * (1 + rng.uniform(-1e-8, 1e-8, 3000))  # heavy cancellation
    got = xla_cpu_math.fused_multiply_add(a, b, c)
    exact = np.array([float(Fraction(x) * Fraction(y) + Fraction(z)) for x, y, z in zip(a, b, c)])
    np.testing.assert_array_equal(got, exact)
    assert not np.array_equal(a * b + c, exact)  # the plain expression rounds twice
