"""Theano's batch-normalization ops (core/tensor/batchnorm_ops.py): values against NumPy on
both paths, gradients (and AbstractBatchNormTrainGrad's own gradient) against finite
differences."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.gradient import verify_grad
from symnb.tensor.nnet import bn

RNG = np.random.default_rng(7)
AXES = (0, 2)
X = 4 + 3 * RNG.normal(size=(4, 3, 5))
PARAM = (1, 3, 1)
SCALE, BIAS = RNG.normal(size=PARAM), RNG.normal(size=PARAM)
EPS = np.float32(1e-4)  # a float32 constant in the graph (floatX), the same value here


def _train_reference(x, scale, bias):
    mean, var = x.mean(AXES, keepdims=True), x.var(AXES, keepdims=True)
    invstd = 1 / np.sqrt(var + EPS)
    return (x - mean) * scale * invstd + bias, mean, invstd, var


def _inputs(*values):
    variables = [T.dtensor3(f"v{i}") for i in range(len(values))]
    for v, value in zip(variables, values):
        v.tag.test_value = value
    return variables


def test_train_and_inference_against_numpy():
    out, mean, invstd, var = _train_reference(X, SCALE, BIAS)
    x, scale, bias, rm, rv = _inputs(X, SCALE, BIAS, np.zeros(PARAM), np.ones(PARAM))
    factor = np.float32(0.1)  # a float32 constant in the graph, as 0.1 would be (floatX)
    outs = bn.AbstractBatchNormTrain(AXES)(x, scale, bias, EPS, factor, rm, rv)
    n = X.size / SCALE.size
    want = [out, mean, invstd, factor * mean, (1 - factor) + factor * var * n / (n - 1)]
    got_compiled = sn.function([x, scale, bias, rm, rv], outs)(X, SCALE, BIAS, np.zeros(PARAM),
                                                             np.ones(PARAM))
    for o, c, w in zip(outs, got_compiled, want):
        np.testing.assert_allclose(o.test_value, w, rtol=1e-10)
        np.testing.assert_allclose(c, w, rtol=1e-10)
    m_, v_ = RNG.normal(size=PARAM), RNG.random(PARAM) + 0.5
    x, scale, bias, mv, vv = _inputs(X, SCALE, BIAS, m_, v_)
    inf = bn.AbstractBatchNormInference(AXES)(x, scale, bias, mv, vv, EPS)
    want = (X - m_) * SCALE / np.sqrt(v_ + EPS) + BIAS
    np.testing.assert_allclose(inf.test_value, want, rtol=1e-10)
    np.testing.assert_allclose(sn.function([x, scale, bias, mv, vv], inf)(X, SCALE, BIAS, m_, v_),
                               want, rtol=1e-10)


def test_gradients_against_finite_differences():
    verify_grad(lambda x, s, b: bn.AbstractBatchNormTrain(AXES)(x, s, b, EPS)[0], [X, SCALE, BIAS])
    verify_grad(lambda x, s, b, mm, vv: bn.AbstractBatchNormInference(AXES)(x, s, b, mm, vv, EPS),
                [X, SCALE, BIAS, RNG.normal(size=PARAM), RNG.random(PARAM) + 0.5])


@pytest.mark.parametrize("output", [0, 1, 2], ids=["g_inputs", "g_scale", "g_bias"])
def test_train_grad_and_its_gradient(output):
    dy = RNG.normal(size=X.shape)
    _, mean, invstd, _ = _train_reference(X, SCALE, BIAS)
    x, dyv, scale, meanv, invstdv = _inputs(X, dy, SCALE, mean, invstd)
    grads = bn.AbstractBatchNormTrainGrad(AXES)(x, dyv, scale, meanv, invstdv)
    # the gradients of the training normalization, from its NumPy formula's derivative
    centered = X - mean
    c = dy * invstd - centered * (dy * centered).mean(AXES, keepdims=True) * invstd ** 3
    want = [SCALE * (c - c.mean(AXES, keepdims=True)), (dy * invstd * centered).sum(AXES, keepdims=True),
            dy.sum(AXES, keepdims=True)][output]
    np.testing.assert_allclose(grads[output].test_value, want, rtol=1e-10)
    compiled = sn.function([x, dyv, scale, meanv, invstdv], grads[output])(X, dy, SCALE, mean, invstd)
    np.testing.assert_allclose(compiled, want, rtol=1e-10)
    verify_grad(lambda *v: bn.AbstractBatchNormTrainGrad(AXES)(*v)[output],
                [X, dy, SCALE, RNG.normal(size=PARAM), RNG.normal(size=PARAM)], abs_tol=5e-4, rel_tol=5e-4)


def test_bad_axes_refused():
    x, s, b = _inputs(X, SCALE, BIAS)
    with pytest.raises(ValueError, match="axes should be less than ndim"):
        bn.AbstractBatchNormTrain((0, 3))(x, s, b)
