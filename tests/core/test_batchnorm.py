"""Batch normalization (T.nnet.bn): both paths against NumPy, Theano's layouts, gradients."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.compile import Mode
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


# -- Theano's ops: one node, its gradients, the compiled graph ---------------------------------

def _theano_second_order(x, dy, scale, mean, invstd, ddx_in, ddscale, axes):
    """Theano 1.0.5's AbstractBatchNormTrainGrad.grad in NumPy: the gradients of
    ``<ddx_in, g_x> + <ddscale, g_scale>`` with respect to ``x``, ``dy`` and ``scale``, the
    statistics held constant."""
    def avg(v):
        return v.mean(axis=axes, keepdims=True)

    x_diff = x - mean
    mean_dy_x_diff = avg(dy * x_diff)
    ccc = scale * (ddx_in - avg(ddx_in))
    ddd = invstd ** 3 * (ccc * mean_dy_x_diff + dy * avg(ccc * x_diff))
    eee = dy * invstd - invstd ** 3 * x_diff * mean_dy_x_diff
    g_x = -ddd + invstd * ddscale * dy
    g_dy = ccc * invstd - invstd ** 3 * x_diff * avg(ccc * x_diff) + invstd * ddscale * x_diff
    g_scale = (ddx_in * (eee - avg(eee))).sum(axis=axes, keepdims=True)
    return g_x, g_dy, g_scale


def _first_order(x, dy, scale, mean, invstd, axes):
    """The first-order gradients (g_x, g_scale) of the training normalization in NumPy."""
    x_diff = x - mean
    c = dy * invstd - x_diff * (dy * x_diff).mean(axis=axes, keepdims=True) * invstd ** 3
    return (scale * (c - c.mean(axis=axes, keepdims=True)),
            (dy * invstd * x_diff).sum(axis=axes, keepdims=True))


def _second_order_graph(x, dy, gamma, beta, ddx_in, ddscale, axes):
    out, mean, invstd = bn.batch_normalization_train(x, gamma, beta, axes=axes, epsilon=1e-3)
    grads = sn.grad(None, wrt=[x, gamma, beta], known_grads={out: dy})
    return sn.grad(None, wrt=[x, dy, gamma], known_grads={grads[0]: ddx_in, grads[1]: ddscale},
                   consider_constant=[mean, invstd], return_disconnected="zero")


@pytest.mark.parametrize("axes,named", [((0,), "per-activation"), ((0, 2), "spatial"), ((1, 2), (2, 1))])
def test_second_order_gradient_holds_the_statistics_constant(axes, named, rng):
    # Theano's test_batch_normalization_train: d/dx of the first-order gradient with
    # consider_constant=[mean, invstd] is Theano's formula, which is also the derivative of
    # the first-order formula at fixed statistics (finite differences below).
    shape = (4, 3, 5)
    param_shape = tuple(1 if i in axes else n for i, n in enumerate(shape))
    x, dy, ddx_in = (rng.normal(loc=1, scale=2, size=shape) for _ in range(3))
    gamma, beta, ddscale = (rng.normal(size=param_shape) for _ in range(3))
    given = [symbolic_like(v, n) for v, n in zip((x, dy, gamma, beta, ddx_in, ddscale), "xdgbeh")]
    outputs = _second_order_graph(*given[:4], *given[4:], named)
    mean = x.mean(axis=axes, keepdims=True)
    invstd = 1 / np.sqrt(x.var(axis=axes, keepdims=True) + np.float32(1e-3))
    expected = _theano_second_order(x, dy, gamma, mean, invstd, ddx_in, ddscale, axes)
    check_outputs(given, [x, dy, gamma, beta, ddx_in, ddscale], outputs,
                  [(f"{name} {named}", e) for name, e in zip(("ddx", "ddy", "ddscale"), expected)],
                  rtol=1e-10)

    def inner(xv):  # <ddx_in, g_x> + <ddscale, g_scale> at the statistics of x
        g_x, g_scale = _first_order(xv, dy, gamma, mean, invstd, axes)
        return (ddx_in * g_x).sum() + (ddscale * g_scale).sum()

    step, numeric = 1e-6, np.zeros(shape)
    for i in np.ndindex(shape):
        bump = np.zeros(shape)
        bump[i] = step
        numeric[i] = (inner(x + bump) - inner(x - bump)) / (2 * step)
    np.testing.assert_allclose(expected[0], numeric, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("named", ["per-activation", "spatial"])
def test_test_mode_gradients_against_finite_differences(named, rng):
    x = rng.normal(size=(3, 2, 2, 2))
    shape = (2, 2, 2) if named == "per-activation" else (2,)
    gamma, beta, mean = (rng.normal(size=shape) for _ in range(3))
    var = rng.uniform(0.5, 1.5, size=shape)
    verify_grad(lambda *v: bn.batch_normalization_test(*v, axes=named), [x, gamma, beta, mean, var], rng=rng)


def test_one_node_of_theanos_op_replaced_when_compiled(rng):
    x = rng.normal(size=(4, 3)).astype("float32")
    g, b = np.ones((1, 3), "float32"), np.zeros((1, 3), "float32")
    xv, gv, bv = (symbolic_like(v, n) for v, n in zip((x, g, b), "xgb"))
    out, mean, invstd = bn.batch_normalization_train(xv, gv, bv)
    assert out.owner is mean.owner is invstd.owner
    assert isinstance(out.owner.op, bn.AbstractBatchNormTrain) and out.owner.op.axes == (0,)
    test_out = bn.batch_normalization_test(xv, gv, bv, gv, gv)
    assert isinstance(test_out.owner.op, bn.AbstractBatchNormInference)
    dx = sn.grad(out.sum() + test_out.sum(), xv)
    abstract = (bn.AbstractBatchNormTrain, bn.AbstractBatchNormInference, bn.AbstractBatchNormTrainGrad)
    values = []
    for mode in ("FAST_RUN", "FAST_COMPILE", Mode(optimizer=None)):
        f = sn.function([xv, gv, bv], [out, mean, invstd, test_out, dx], mode=mode)
        kept = [n for n in f.maker.fgraph.toposort() if isinstance(n.op, abstract)]
        assert bool(kept) == (mode not in ("FAST_RUN", "FAST_COMPILE"))  # the XLA rules run them
        values.append(f(x, g, b))
    for got in values:
        for v, w, var in zip(got, values[0], [out, mean, invstd, test_out, dx]):
            np.testing.assert_allclose(v, w, rtol=1e-6, atol=1e-6)
            np.testing.assert_allclose(v, var.test_value, rtol=1e-6, atol=1e-6)


def test_views_name_the_ops_as_the_user_wrote_them():
    x = T.matrix("x")
    out, mean, invstd = bn.batch_normalization_train(x, T.matrix("g"), T.matrix("b"))
    grad_node = sn.grad(out.sum(), x).owner
    assert out.owner.op.public_name() == "batch_normalization_train"
    assert bn.batch_normalization_test(x, *(T.matrix(n) for n in "gbmv")).owner.op.public_name() \
        == "batch_normalization_test"
    assert grad_node.op.public_name() == "batch_normalization_train_grad"


def test_epsilon_below_cudnns_minimum_refused():
    x = T.matrix("x")
    with pytest.raises(ValueError, match="epsilon must be at least 1e-5"):
        bn.batch_normalization_train(x, T.vector("g"), T.vector("b"), epsilon=1e-6)
    with pytest.raises(ValueError, match="epsilon must be at least 1e-5"):
        bn.batch_normalization_test(x, *(T.vector(n) for n in "gbmv"), epsilon=1e-6)
