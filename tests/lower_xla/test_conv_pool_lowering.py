"""What convolutions and poolings lower to: XLA's native convolution, reduce-window and
select-and-scatter; shapes needed at compile time; NumPy and XLA node by node."""

import re

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

import symnb as sn
import symnb.tensor as T
from symnb.compile import DebugMode
from symnb.tensor.nnet import abstract_conv, conv2d
from symnb.tensor.signal.pool import pool_2d
from tests.core.test_conv import scipy_conv
from tests.core.test_pool import numpy_pool


def _stablehlo_ops(f):
    return re.findall(r"stablehlo\.([a-z_]+)", f.lowered_text("stablehlo"))


def test_max_pool_gradient_is_select_and_scatter(rng):
    x = T.tensor4("x", test_value=rng.normal(size=(2, 3, 6, 5)).astype("float32"))
    pooled = pool_2d(x, (2, 2), stride=(1, 2), ignore_border=False)  # a partial last column
    f = sn.function([x], sn.grad((pooled ** 2).sum(), x))
    ops = _stablehlo_ops(f)
    assert ops.count("select_and_scatter") == 1 and "scatter" not in ops and "gather" not in ops

    # XLA's CPU backend expands select-and-scatter; it does the same to jax.grad's own.
    def loss(v):
        padding = ((0, 0), (0, 0), (0, 0), (0, 1))
        return (lax.reduce_window(v, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 1, 2), padding) ** 2).sum()

    reference = jax.jit(jax.grad(loss)).lower(x.test_value).compile().as_text()
    kinds = r"=\s*\S+\s+((?:select-and-)?scatter)\("
    assert re.findall(kinds, f.lowered_text("hlo")) == re.findall(kinds, reference)
    np.testing.assert_allclose(f(x.test_value), jax.grad(loss)(x.test_value), rtol=1e-6)


def test_second_derivative_of_max_pooling_is_select_and_gather(rng):
    x = T.matrix("x", test_value=rng.normal(size=(4, 6)))
    g = sn.grad((pool_2d(x, (2, 3), ignore_border=True) ** 2).sum(), x)
    f = sn.function([x], sn.grad((g ** 2).sum(), x))
    ops = _stablehlo_ops(f)
    assert "select_and_scatter" in ops and "reduce_window" in ops and "gather" not in ops


def test_convolution_gradients_are_convolutions(rng):
    x = T.tensor4("x", test_value=rng.normal(size=(2, 4, 7, 7)).astype("float32"))
    w = T.tensor4("w", test_value=rng.normal(size=(6, 2, 3, 3)).astype("float32"))
    y = conv2d(x, w, border_mode="half", subsample=(2, 2), num_groups=2)
    f = sn.function([x, w], sn.grad((y ** 2).sum(), [x, w]))
    ops = _stablehlo_ops(f)
    assert ops.count("convolution") == 3
    assert not {"dot_general", "gather", "scatter"} & set(ops)


def test_transposed_convolution_specializes_on_a_symbolic_shape(rng):
    """The image shape comes from function inputs: one program per distinct value."""
    top = T.tensor4("top", shape=(1, 2, 3, 3))
    w = T.tensor4("w", shape=(2, 1, 3, 3))
    rows = T.lscalar("rows")
    with sn.config.change_flags(compute_test_value="off"):
        up = abstract_conv.conv2d_grad_wrt_inputs(top, w, (1, 1, rows, 7), subsample=(2, 2))
        f = sn.function([top, w, rows], up)
    t, k = rng.normal(size=(1, 2, 3, 3)).astype("float32"), rng.normal(size=(2, 1, 3, 3)).astype("float32")
    for n in (7, 8):
        reference = jax.vjp(lambda v: lax.conv_general_dilated(v, k[:, :, ::-1, ::-1], (2, 2), "VALID",
                                                               dimension_numbers=("NCHW", "OIHW", "NCHW")),
                            np.zeros((1, 1, n, 7), "float32"))[1](t)[0]
        np.testing.assert_allclose(f(t, k, n), reference, rtol=1e-5, atol=1e-6)


def test_debug_mode_agrees_node_by_node(rng):
    x = T.tensor4("x", dtype="float64", test_value=rng.normal(size=(2, 2, 9, 9)))
    w = T.tensor4("w", dtype="float64", test_value=rng.normal(size=(3, 2, 2, 3)))
    h = pool_2d(T.tanh(conv2d(x, w, border_mode=(1, 0), subsample=(1, 2))), (3, 2), ignore_border=False,
                mode="average_inc_pad")
    cost = (pool_2d(h, (2, 2), stride=(1, 1), ignore_border=True) ** 2).sum()
    f = sn.function([x, w], [cost] + sn.grad(cost, [x, w]), mode=DebugMode())
    value = f(x.test_value, w.test_value)[0]
    conv = np.tanh(scipy_conv(x.test_value, w.test_value, ((1, 1), (0, 0)), (1, 2)))
    averaged = numpy_pool(conv, (3, 2), ignore_border=False, mode="average_inc_pad")
    pooled = numpy_pool(averaged, (2, 2), stride=(1, 1))
    np.testing.assert_allclose(value, (pooled ** 2).sum(), rtol=1e-12)
