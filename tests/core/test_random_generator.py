"""The NumPy threefry generator and samplers against ``jax.random`` on the same keys:
bits, keys, integers and uniform floats bit for bit, ``normal`` within an ulp (its
``log1p`` and fused multiply-adds replay XLA's, see ``test_xla_cpu_math.py``)."""

import jax
import numpy as np
import pytest

from symnb.core.tensor.random import samplers, threefry


def key_pair(seed):
    key = jax.random.key(seed)
    return key, np.asarray(jax.random.key_data(key))


@pytest.mark.parametrize("seed", [0, 1234, 2**40 + 7])
def test_seed_key_matches_jax(seed):
    with jax.enable_x64(True):  # a 64-bit seed
        key, data = key_pair(seed)
    np.testing.assert_array_equal(threefry.seed_key(seed), data)


@pytest.mark.parametrize("shape", [(), (1,), (3, 5), (7,), (2, 3, 4)])
def test_random_bits_match_jax(shape):
    key, data = key_pair(42)
    np.testing.assert_array_equal(threefry.random_bits(data, 32, shape),
                                  np.asarray(jax.random.bits(key, shape)))
    with jax.enable_x64(True):
        np.testing.assert_array_equal(threefry.random_bits(data, 64, shape),
                                      np.asarray(jax.random.bits(key, shape, np.uint64)))


def test_split_and_fold_in_match_jax():
    key, data = key_pair(7)
    np.testing.assert_array_equal(threefry.split(data, 5),
                                  np.asarray(jax.random.key_data(jax.random.split(key, 5))))
    np.testing.assert_array_equal(threefry.fold_in(data, 123),
                                  np.asarray(jax.random.key_data(jax.random.fold_in(key, 123))))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_uniform_and_bernoulli_match_jax_bit_for_bit(dtype):
    key, data = key_pair(3)
    with jax.enable_x64(True):
        np.testing.assert_array_equal(samplers.uniform(data, (500,), dtype),
                                      np.asarray(jax.random.uniform(key, (500,), dtype)))
        # the fused multiply-add is emulated (float64: by error-free transformations)
        np.testing.assert_array_equal(samplers.uniform(data, (400, 250), dtype, -2.0, 3.0),
                                      np.asarray(jax.random.uniform(key, (400, 250), dtype, -2.0, 3.0)))
        p = np.linspace(0, 1, 20).astype(dtype)
        np.testing.assert_array_equal(samplers.bernoulli(data, p, (30, 20)),
                                      np.asarray(jax.random.bernoulli(key, p, (30, 20))))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_normal_matches_jax_within_an_ulp(dtype):
    key, data = key_pair(5)
    with jax.enable_x64(True):
        expected = np.asarray(jax.random.normal(key, (200_000,), dtype))
    got = samplers.normal(data, (200_000,), dtype)
    assert got.dtype == expected.dtype
    assert np.max(np.abs(got - expected) / np.spacing(np.abs(expected))) <= 1


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("avg_shape, std_shape", [((), ()), ((400, 250), (400, 250)),
                                                  ((250,), (250,)), ((250,), ()), ((), (400, 250))])
def test_scaled_normal_matches_jax_within_an_ulp(dtype, avg_shape, std_shape):
    # XLA folds a broadcast std into normal's sqrt(2); a full-shape std is multiplied as written
    key, data = key_pair(9)
    rng = np.random.default_rng(0)
    avg = rng.uniform(-1, 1, avg_shape).astype(dtype)
    std = rng.uniform(0.5, 3, std_shape).astype(dtype)
    with jax.enable_x64(True):
        expected = np.asarray(jax.jit(lambda k, a, s: a + s * jax.random.normal(k, (400, 250), dtype))(
            key, avg, std))
    got = samplers.scaled_normal(data, (400, 250), dtype, avg, std)
    assert got.dtype == expected.dtype
    assert np.max(np.abs(got - expected) / np.spacing(np.abs(expected))) <= 1


@pytest.mark.parametrize("dtype", ["int32", "int64"])
@pytest.mark.parametrize("low, high", [(0, 10), (-3, 17), (5, 5), (0, 2**31 - 1)])
def test_randint_matches_jax(dtype, low, high):
    key, data = key_pair(11)
    with jax.enable_x64(True):
        expected = np.asarray(jax.random.randint(key, (300,), low, high, dtype))
    np.testing.assert_array_equal(samplers.randint(data, (300,), low, high, dtype), expected)


@pytest.mark.parametrize("n", [1, 5, 100])
def test_permutation_matches_jax(n):
    key, data = key_pair(13)
    np.testing.assert_array_equal(samplers.shuffle(data, np.arange(n), 0),
                                  np.asarray(jax.random.permutation(key, n)))


@pytest.mark.parametrize("replace", [True, False])
@pytest.mark.parametrize("with_p", [False, True])
def test_choice_matches_jax(replace, with_p):
    key, data = key_pair(17)
    p = np.random.RandomState(0).dirichlet(np.ones(10)).astype(np.float32) if with_p else None
    shape = (50,) if replace else (4,)
    with jax.enable_x64(True):
        expected = np.asarray(jax.random.choice(key, 10, shape, replace, p))
    np.testing.assert_array_equal(samplers.choice(data, 10, shape, replace, p, "int64"),
                                  expected)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_truncated_normal_matches_jax_within_an_ulp(dtype):
    key, data = key_pair(13)
    with jax.enable_x64(True):
        expected = np.asarray(jax.random.truncated_normal(key, -2.0, 2.0, (200_000,), dtype))
    got = samplers.standard_truncated_normal(data, (200_000,), dtype)
    assert got.dtype == expected.dtype
    assert np.max(np.abs(got - expected) / np.spacing(np.abs(expected))) <= 1
