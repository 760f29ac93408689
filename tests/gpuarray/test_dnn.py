"""Theano's cuDNN batch normalization functions (``gpuarray.dnn`` and the old
``sandbox.cuda.dnn``) against NumPy: both paths (test values and XLA), the running
averages' update through a compiled function, Theano's layouts and checks."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.gpuarray import dnn as gpuarray_dnn
from symnb.sandbox.cuda import dnn as cuda_dnn
from tests.core.test_conv import check_outputs
from tests.reference import symbolic_like

MODULES = [gpuarray_dnn, cuda_dnn]


def numpy_train(x, gamma, beta, axes, epsilon, factor, running_mean, running_var):
    """cuDNN's documented formulas (Theano's docstring), in float64."""
    x = x.astype(np.float64)
    mean = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    invstd = 1 / np.sqrt(var + epsilon)
    out = (x - mean) * gamma * invstd + beta
    m = x.size / mean.size
    return (out, mean, invstd, running_mean * (1 - factor) + mean * factor,
            running_var * (1 - factor) + m / (m - 1) * var * factor)


def axes_of(mode, ndim):
    return (0,) if mode == "per-activation" else (0,) + tuple(range(2, ndim))


@pytest.mark.parametrize("module", MODULES, ids=["gpuarray", "sandbox.cuda"])
@pytest.mark.parametrize("mode", ["per-activation", "spatial"])
@pytest.mark.parametrize("shape", [(6, 3), (5, 3, 4), (5, 3, 4, 2), (4, 3, 2, 2, 3), (3, 2, 2, 2, 2, 3)])
def test_train_and_test_match_numpy(module, mode, shape, rng):
    x = rng.normal(loc=2, scale=3, size=shape).astype("float32")
    axes = axes_of(mode, x.ndim)
    params_shape = tuple(1 if i in axes else n for i, n in enumerate(shape))
    gamma, beta, running_mean = (rng.normal(size=params_shape).astype("float32") for _ in range(3))
    running_var = rng.uniform(1, 2, size=params_shape).astype("float32")
    values = [x, gamma, beta, running_mean, running_var]
    variables = [symbolic_like(v, name) for v, name in zip(values, ["x", "gamma", "beta", "rm", "rv"])]
    results = module.dnn_batch_normalization_train(*variables[:3], mode=mode, epsilon=1e-3,
                                                   running_average_factor=0.3, running_mean=variables[3],
                                                   running_var=variables[4])
    expected = numpy_train(x, gamma, beta, axes, 1e-3, 0.3, running_mean, running_var)
    test_out = module.dnn_batch_normalization_test(*variables, mode=mode, epsilon=1e-3)
    test_expected = (x - running_mean) * gamma / np.sqrt(running_var + 1e-3) + beta
    names = ["out", "mean", "invstd", "new running mean", "new running var"]
    references = [(n, e.astype("float32")) for n, e in zip(names, expected)]
    check_outputs(variables, values, list(results) + [test_out],
                  references + [("test", test_expected.astype("float32"))], rtol=2e-5)


@pytest.mark.parametrize("module", MODULES, ids=["gpuarray", "sandbox.cuda"])
def test_without_running_averages_defaults(module, rng):
    # Defaults: mode='per-activation', epsilon=1e-4; three outputs.
    x = rng.normal(size=(8, 3, 2, 2)).astype("float64")
    gamma, beta = rng.normal(size=(2, 1, 3, 2, 2))
    results = module.dnn_batch_normalization_train(symbolic_like(x, "x"), gamma, beta)
    assert len(results) == 3
    # epsilon=1e-4 is a Python float: floatX (float32), as Theano made it, then float64
    expected = numpy_train(x, gamma, beta, (0,), float(np.float32(1e-4)), 0.1, 0, 0)
    for result, want in zip(results, expected):
        np.testing.assert_allclose(result.test_value, want, rtol=1e-12)


def test_running_averages_update_shared_variables(rng):
    # The update a training loop compiles: three steps of batches, against NumPy.
    shape = (1, 3, 1, 1)
    running_mean = sn.shared(np.zeros(shape, "float32"), name="running_mean")
    running_var = sn.shared(np.ones(shape, "float32"), name="running_var")
    x = T.tensor4("x")
    gamma, beta = np.full(shape, 1.5, "float32"), np.full(shape, 0.25, "float32")
    out, mean, invstd, new_mean, new_var = gpuarray_dnn.dnn_batch_normalization_train(
        x, gamma, beta, "spatial", 1e-4, 0.1, running_mean, running_var)
    step = sn.function([x], [out, mean, invstd], updates=[(running_mean, new_mean), (running_var, new_var)])
    want_mean, want_var = np.zeros(shape), np.ones(shape)
    for _ in range(3):
        batch = rng.normal(loc=1, scale=2, size=(4, 3, 5, 5)).astype("float32")
        got = step(batch)
        expected = numpy_train(batch, gamma, beta, (0, 2, 3), 1e-4, 0.1, want_mean, want_var)
        want_mean, want_var = expected[3:]
        for g, e in zip(got, expected[:3]):
            np.testing.assert_allclose(g, e, rtol=2e-5, atol=2e-5)
        np.testing.assert_allclose(running_mean.get_value(), want_mean, rtol=2e-5)
        np.testing.assert_allclose(running_var.get_value(), want_var, rtol=2e-5)


def test_gradient_matches_batch_normalization_train(rng):
    # The same graph as T.nnet.bn: the same gradients (checked by finite differences).
    x = rng.normal(size=(4, 2, 3, 3))
    gamma, beta = rng.normal(size=(2, 1, 2, 1, 1))
    sn.gradient.verify_grad(lambda v, g, b: gpuarray_dnn.dnn_batch_normalization_train(v, g, b, "spatial")[0],
                            [x, gamma, beta], rng=np.random.RandomState(0))


def test_theano_checks():
    x = T.tensor4("x")
    params = T.tensor4("g")
    with pytest.raises(ValueError, match="mode must be 'per-activation' or 'spatial'; got 'channel'"):
        gpuarray_dnn.dnn_batch_normalization_train(x, params, params, mode="channel")
    with pytest.raises(ValueError, match="epsilon must be at least 1e-5.*got 1e-06"):
        gpuarray_dnn.dnn_batch_normalization_test(x, params, params, params, params, epsilon=1e-6)
    with pytest.raises(ValueError, match="gamma, beta must have the input's 4 dimensions.*beta 1-d"):
        gpuarray_dnn.dnn_batch_normalization_train(x, params, T.vector("b"))
    with pytest.raises(ValueError, match="mean, var must have the input's 4 dimensions.*mean 1-d"):
        cuda_dnn.dnn_batch_normalization_test(x, params, params, T.vector("m"), params)
    with pytest.raises(ValueError, match="both be given or both be None"):
        cuda_dnn.dnn_batch_normalization_train(x, params, params, running_mean=params)

