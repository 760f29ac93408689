"""Batch normalization (T.nnet.bn): both paths against NumPy, Theano's layouts, gradients."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.gradient import verify_grad
from symnb.tensor.nnet import batch_normalization, bn
from tests.core.test_conv import check_outputs
from tests.reference import symbolic_like


def numpy_train(x, gamma, beta, axes, epsilon, factor, running_mean, running_var):
    mean = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    invstd = 1 / np.sqrt(var + epsilon)
    out = (x - mean) * gamma * invstd + beta
    m = np.prod([x.shape[a] for a in axes])
    new_mean = running_mean * (1 - factor) + mean * factor
    new_var = running_var * (1 - factor) + m / (m - 1) * var * factor
    return out, mean, invstd, new_mean, new_var


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_train_and_test_match_numpy(dtype, rng):
    # floatX=dtype: epsilon and the average factor (Python floats) are floatX constants.
    with sn.config.change_flags(floatX=dtype):
        _train_and_test_match_numpy(dtype, rng)


def _train_and_test_match_numpy(dtype, rng):
    x = rng.normal(loc=2, scale=3, size=(5, 3, 4, 2)).astype(dtype)
    variables, values, outputs, references = [symbolic_like(x, "x")], [x], [], []
    for axes, named in [((0,), "per-activation"), ((0, 2, 3), "spatial"), ((1, 3), (3, 1))]:
        shape = tuple(1 if i in axes else n for i, n in enumerate(x.shape))
        params = [rng.normal(size=shape).astype(dtype) for _ in range(2)]
        running = [rng.normal(size=shape).astype(dtype), rng.uniform(1, 2, size=shape).astype(dtype)]
        kept = tuple(i for i in range(x.ndim) if i not in axes)
        for full in (True, False):  # parameters with the input's ndim, or only the kept axes
            def layout(v, full=full, kept=kept):
                return v if full else v.reshape([x.shape[i] for i in kept])

            given = [symbolic_like(layout(v), f"p{len(variables) + i}")
                     for i, v in enumerate(params + running)]
            variables += given
            values += [layout(v) for v in params + running]
            results = bn.batch_normalization_train(variables[0], given[0], given[1], axes=named, epsilon=1e-3,
                                                   running_average_factor=0.2, running_mean=given[2],
                                                   running_var=given[3])
            expected = numpy_train(x.astype(np.float64), *params, axes, 1e-3, 0.2, *running)
            outputs += list(results)
            references += [(f"train {named} {full} #{i}", (e if i == 0 else layout(e)).astype(dtype))
                           for i, e in enumerate(expected)]
            outputs.append(bn.batch_normalization_test(variables[0], given[0], given[1], given[2], given[3],
                                                       axes=named, epsilon=1e-3))
            test_out = (x - running[0]) * params[0] / np.sqrt(running[1] + 1e-3) + params[1]
            references.append((f"test {named} {full}", test_out.astype(dtype)))
    check_outputs(variables, values, outputs, references, rtol=2e-5 if dtype == "float32" else None)


def test_train_without_running_averages_returns_three(rng):
    x = T.matrix("x", test_value=rng.normal(size=(4, 3)).astype("float32"))
    out = bn.batch_normalization_train(x, T.vector("g", test_value=np.ones(3, "float32")),
                                       T.vector("b", test_value=np.zeros(3, "float32")))
    assert len(out) == 3 and out[1].type.shape == (None,) and out[2].ndim == 1
    np.testing.assert_allclose(out[0].test_value.mean(axis=0), 0, atol=1e-6)


def test_old_batch_normalization(rng):
    x, gamma, beta, mean = (rng.normal(size=(4, 3)) for _ in range(4))
    std = rng.uniform(1, 2, size=3)
    variables = [symbolic_like(v, n) for v, n in zip((x, gamma, beta, mean, std), "xgbms")]
    outputs = [batch_normalization(*variables, mode=mode) for mode in ("low_mem", "high_mem")]
    expected = (x - mean) / std * gamma + beta
    check_outputs(variables, [x, gamma, beta, mean, std], outputs,
                  [("low_mem", expected), ("high_mem", expected)])


@pytest.mark.parametrize("axes", ["per-activation", "spatial"])
def test_train_gradients(axes, rng):
    x = rng.normal(size=(3, 2, 2, 2))
    gamma, beta = rng.normal(size=(2, 2, 2) if axes == "per-activation" else (2,)), rng.normal(size=2)
    if axes == "per-activation":
        beta = rng.normal(size=(2, 2, 2))
    verify_grad(lambda v, g, b: bn.batch_normalization_train(v, g, b, axes=axes)[0], [x, gamma, beta],
                rng=rng)


def test_errors():
    x = T.tensor4("x")
    with pytest.raises(ValueError, match="must have 3 dimension"):
        bn.batch_normalization_train(x, T.vector("g"), T.vector("b"))
    with pytest.raises(ValueError, match="length 1 on the normalized axes"):
        bn.batch_normalization_train(x, T.tensor4("g", shape=(2, 3, 1, 1)), T.tensor4("b"), axes="spatial")
    with pytest.raises(ValueError, match="both running_mean and running_var"):
        bn.batch_normalization_train(x, T.vector("g"), T.vector("b"), axes="spatial",
                                     running_mean=T.vector("m"))
    with pytest.raises(ValueError, match="axes"):
        bn.batch_normalization_test(x, *(T.vector(n) for n in "gbmv"), axes=(0, 5))
    with pytest.raises(ValueError, match="low_mem"):
        batch_normalization(x, x, x, x, x, mode="fast")
    assert isinstance(sn.grad(bn.batch_normalization_test(x, *(T.tensor4(n) for n in "gbmv")).sum(), x),
                      T.TensorVariable)
