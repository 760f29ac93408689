"""Theano 1.0's pooling ops as its users call them: ``Pool(ignore_border, mode, ndim)(x, ws,
stride, pad)``, ``MaxPoolGrad(ignore_border)(x, maxout, gz, ws, ...)``,
``AveragePoolGrad(ignore_border, mode)(x, gz, ws, ...)``, ``DownsampleFactorMaxGradGrad``
and ``Pool.out_shape``; values (test value and compiled) against the NumPy references of
test_pool.py, which loop over the windows."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.graph.errors import BuildError
from symnb.tensor.signal.pool import (AveragePoolGrad, DownsampleFactorMaxGradGrad, MaxPoolGrad,
                                      Pool, PoolBase)
from tests.core.test_conv import check_outputs
from tests.core.test_pool import _count, numpy_pool, numpy_pool_grad
from tests.reference import symbolic_like

CASES = [  # ws, stride, pad, ignore_border
    ((2, 2), None, None, True),
    ((3, 2), (2, 1), None, False),
    ((3, 3), (1, 2), (1, 2), True),
    ((2,), (1,), None, False),
    ((2, 2, 3), (1, 2, 2), (1, 0, 1), True),
]


def _expected_shape(shape, ws, stride, pad, ignore_border):
    nd = len(ws)
    stride, pad = stride or ws, pad or (0,) * nd
    return list(shape[:-nd]) + [_count(n, w, s, p, ignore_border)
                                for n, w, s, p in zip(shape[-nd:], ws, stride, pad)]


@pytest.mark.parametrize("ws, stride, pad, ignore_border", CASES)
def test_out_shape_counts_the_windows(ws, stride, pad, ignore_border):
    for shape in [(2, 3, 7, 9), (1, 1, 2, 3, 5)]:
        got = Pool.out_shape(shape, ws, ignore_border, stride, pad, ndim=len(ws))
        assert got == _expected_shape(shape, ws, stride, pad, ignore_border)
        assert isinstance(got, list)


def test_out_shape_of_a_symbolic_shape_and_theano_examples():
    assert Pool.out_shape((9, 8, 6), (2, 2)) == [9, 4, 3]
    assert Pool.out_shape((8, 6), (2, 2)) == [4, 3]
    x = T.dtensor4("x")
    rows, cols = Pool.out_shape([x.shape[i] for i in range(4)], (3, 2), ignore_border=False, stride=(2, 2))[-2:]
    f = sn.function([x], [rows, cols])
    assert [int(v) for v in f(np.zeros((1, 1, 7, 5)))] == [_count(7, 3, 2, 0, False),
                                                           _count(5, 2, 2, 0, False)]
    with pytest.raises(ValueError, match="window size"):
        Pool.out_shape((4, 4))


@pytest.mark.parametrize("mode", ["max", "sum", "average_inc_pad", "average_exc_pad"])
def test_pool_op_with_theano_call_matches_numpy(mode, rng):
    x = rng.normal(size=(2, 3, 7, 9))
    xv = symbolic_like(x, "x")
    outputs, references = [], []
    for ws, stride, pad, ignore_border in CASES:
        if mode == "average_exc_pad" and pad and any(pad):
            continue
        op = Pool(ignore_border=ignore_border, mode=mode, ndim=len(ws))
        outputs.append(op(xv, ws, stride, pad))
        references.append((f"{ws} {stride} {pad} {ignore_border}",
                           numpy_pool(x, ws, ignore_border, stride, pad, mode)))
    # the window by keyword, as Theano's tests give it
    outputs.append(Pool(ignore_border=True, mode=mode)(xv, (2, 3), pad=(1, 1)))
    references.append(("pad=", numpy_pool(x, (2, 3), True, None, (1, 1), mode)))
    check_outputs([xv], [x], outputs, references)


def test_pool_op_with_a_computed_window_matches_the_fixed_one(rng):
    x = rng.normal(size=(1, 2, 7, 8)).astype("float32")
    xv = T.ftensor4("x")
    ws = T.ivector("ws", shape=(2,))  # a program per value: XLA needs the window
    y = Pool(ignore_border=True, mode="average_inc_pad")(xv, ws, ws)
    got = sn.function([xv, ws], y)(x, np.array([3, 2], "int32"))
    np.testing.assert_allclose(got, numpy_pool(x, (3, 2), True, None, None, "average_inc_pad"),
                               rtol=1e-6)


def test_max_pool_grad_and_its_grad_with_theano_inputs(rng):
    x = rng.normal(size=(2, 2, 7, 6))
    xv = symbolic_like(x, "x")
    for ws, stride, pad, ignore_border in CASES[:3]:
        out_shape = Pool.out_shape(x.shape, ws, ignore_border, stride, pad)
        gz = rng.normal(size=out_shape)
        t = rng.normal(size=x.shape)
        gzv, tv = symbolic_like(gz, "gz"), symbolic_like(t, "t")
        maxout = Pool(ignore_border=ignore_border)(xv, ws, stride, pad)
        grad = MaxPoolGrad(ignore_border)(xv, maxout, gzv, ws, stride, pad)
        gradgrad = DownsampleFactorMaxGradGrad(ignore_border)(xv, maxout, tv, ws, stride, pad)
        # the gradient of sum(pool(x) * gz); its own derivative in x's direction t is
        # t read at each window's maximum: the finite difference of pool(x + e t).
        expected = numpy_pool_grad(x, gz, ws, ignore_border, stride, pad, "max")
        eps = 1e-6
        fd = (numpy_pool(x + eps * t, ws, ignore_border, stride, pad, "max")
              - numpy_pool(x - eps * t, ws, ignore_border, stride, pad, "max")) / (2 * eps)
        check_outputs([xv, gzv, tv], [x, gz, t], [grad, gradgrad],
                      [("MaxPoolGrad", expected), ("DownsampleFactorMaxGradGrad", fd)], rtol=1e-6)


@pytest.mark.parametrize("mode", ["sum", "average_inc_pad", "average_exc_pad"])
def test_average_pool_grad_with_theano_inputs_matches_numpy(mode, rng):
    x = rng.normal(size=(2, 1, 7, 6))
    xv = symbolic_like(x, "x")
    for ws, stride, pad, ignore_border in CASES[:3]:
        if mode == "average_exc_pad" and pad:
            continue
        gz = rng.normal(size=Pool.out_shape(x.shape, ws, ignore_border, stride, pad))
        gzv = symbolic_like(gz, "gz")
        grad = AveragePoolGrad(ignore_border, mode=mode)(xv, gzv, ws, stride, pad)
        check_outputs([xv, gzv], [x, gz], [grad],
                      [(mode, numpy_pool_grad(x, gz, ws, ignore_border, stride, pad, mode))])


def test_average_pool_grad_takes_a_padding_as_wide_as_the_window(rng):
    # Theano's AveragePoolGrad takes it (its test_AveragePoolPaddingStride_grad_grad):
    # windows wholly in the padding read nothing.
    x = rng.normal(size=(1, 1, 5, 4))
    ws, stride, pad = (3, 2), (2, 1), (2, 2)
    gz = rng.normal(size=Pool.out_shape(x.shape, ws, True, stride, pad))
    xv, gzv = symbolic_like(x, "x"), symbolic_like(gz, "gz")
    for mode in ["sum", "average_inc_pad"]:
        grad = AveragePoolGrad(True, mode=mode)(xv, gzv, ws, stride, pad)
        check_outputs([xv, gzv], [x, gz], [grad],
                      [(mode, numpy_pool_grad(x, gz, ws, True, stride, pad, mode))])
    with pytest.raises(NotImplementedError, match="smaller than the window"):
        AveragePoolGrad(True, mode="average_exc_pad")(xv, gzv, ws, stride, pad)


def test_maxout_that_is_not_the_pooling_of_x_is_refused():
    x, g = T.dtensor4("x"), T.dtensor4("g")
    with pytest.raises(NotImplementedError, match=r"maxout \('g'\) must be the max pooling of x"):
        MaxPoolGrad(False)(x, g, g, (2, 2))
    other = Pool(ignore_border=True)(x, (2, 2))  # not the window asked for
    with pytest.raises(NotImplementedError, match="maxout"):
        MaxPoolGrad(False)(x, other, g, (2, 2))


def test_theano_constructor_checks_and_names():
    assert isinstance(Pool(), PoolBase)
    assert Pool(mode="max_deterministic").mode == "max"
    assert AveragePoolGrad(True).mode == "average_inc_pad"
    with pytest.raises(ValueError, match="mode must be one of"):
        Pool(mode="median")
    with pytest.raises(ValueError, match="mode must be one of"):
        MaxPoolGrad(True, mode="sum")
    x = T.dtensor4("x")
    with pytest.raises(NotImplementedError, match="ignore_border=True"):
        Pool(ignore_border=False)(x, (2, 2), pad=(1, 1))
    with pytest.raises(BuildError):
        Pool()(x)  # no window
