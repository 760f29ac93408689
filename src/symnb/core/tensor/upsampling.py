"""Bilinear upsampling, Theano 1.0's functions (``theano.tensor.nnet.abstract_conv``).

Theano defined them as compositions of its graph ops, and so does symnb, op for op:
the image's first and last rows and columns are repeated (``concatenate``), then a
transposed convolution (``conv2d_grad_wrt_inputs``) with stride ``ratio`` spreads each
pixel through a "pyramid" kernel (``bilinear_kernel_1D/2D``: ``1/r, 2/r, ..., 1, ...,
1/r``). Test values, gradients and the XLA program are those of the ops used, and the
numbers are Theano's (not ``jax.image.resize``'s: with an even ratio the last row and
column appear once more than the first, as Theano's notes say).
"""

from __future__ import annotations

import math as pymath
import numbers
from typing import Any

from symnb.core.graph.basic import Variable
from symnb.core.graph.config import config
from symnb.core.graph.errors import build_error, label
from symnb.core.graph.type import is_integer
from symnb.core.tensor import math as m
from symnb.core.tensor.alloc import arange, zeros
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.tensor.conv_api import conv2d, conv2d_grad_wrt_inputs
from symnb.core.tensor.join import concatenate
from symnb.core.tensor.shape import dimshuffle, reshape, shape_i, static_int

__all__ = ["bilinear_kernel_1D", "bilinear_kernel_2D", "bilinear_upsampling", "frac_bilinear_upsampling"]


def bilinear_kernel_1D(ratio: Any, normalize: bool = True) -> Variable:
    """The 1-d kernel that upsamples by ``ratio`` with linear interpolation:
    ``[1, 2, ..., ratio, ..., 2, 1]`` (``2 * ratio - 1`` taps, floatX), divided by
    ``ratio`` when ``normalize``. ``ratio``: an int or an int scalar."""
    half_kern = arange(1, m.add(ratio, 1) if isinstance(ratio, Variable) else ratio + 1,
                       dtype=config.floatX)
    kern = concatenate([half_kern, half_kern[-2::-1]])
    if normalize:
        kern = m.true_div(kern, m.cast(ratio, config.floatX))
    return kern


def bilinear_kernel_2D(ratio: Any, normalize: bool = True) -> Variable:
    """The 2-d kernel that upsamples by ``ratio`` with bilinear interpolation: the outer
    product of two :func:`bilinear_kernel_1D`. A pair ``ratio`` is ``(rows, cols)``."""
    ratio_v, ratio_h = ratio if isinstance(ratio, tuple) else (ratio, ratio)
    hkern = dimshuffle(bilinear_kernel_1D(ratio_h, normalize), ("x", 0))
    vkern = dimshuffle(bilinear_kernel_1D(ratio_v, normalize), (0, "x"))
    return m.mul(hkern, vkern)


def _int_ratio(ratio: Any) -> int:
    """The ratio as an int: the transposed convolution's stride and padding are ints."""
    known = None
    if isinstance(ratio, numbers.Integral) and not isinstance(ratio, bool):
        known = int(ratio)
    elif isinstance(ratio, Variable) and ratio.ndim == 0 and is_integer(ratio.dtype):
        known = static_int(ratio)
    if known is None or known < 1:
        shown = label(ratio) if isinstance(ratio, Variable) else repr(ratio)
        raise build_error(f"bilinear_upsampling: ratio must be a positive int (or a constant one); "
                          f"got {shown}", ValueError)
    return known


def _edge_padded(images: Variable) -> Variable:
    """``images`` with their first and last rows, then columns, repeated once."""
    rows = concatenate([images[:, :, :1, :], images, images[:, :, -1:, :]], axis=2)
    return concatenate([rows[:, :, :, :1], rows, rows[:, :, :, -1:]], axis=3)


def bilinear_upsampling(input: Any, ratio: Any = None, frac_ratio: Any = None, batch_size: Any = None,
                        num_input_channels: Any = None, use_1D_kernel: bool = True) -> Variable:
    """Upsample the images ``input`` ``(batch, channels, rows, cols)`` by ``ratio`` (an
    int) with bilinear interpolation: the result is ``(batch, channels, rows * ratio,
    cols * ratio)``. Theano's ``T.nnet.abstract_conv.bilinear_upsampling``.

    - ``frac_ratio`` (instead of ``ratio``): a fraction ``(num, den)``, or one per axis
      ``((num, den), (num, den))``; needs ``use_1D_kernel=False``
      (:func:`frac_bilinear_upsampling`).
    - ``batch_size``, ``num_input_channels``: optional known lengths (hints).
    - ``use_1D_kernel``: upsample rows, then columns, with 1-d kernels (True), or both at
      once with the 2-d kernel; the numbers are the same.

    With an even ratio the last row and column are repeated once more than the first
    (Theano's formula: the image is edge-padded by one pixel on each side, then
    transposed-convolved with stride ``ratio``).
    """
    if ratio and frac_ratio:
        raise build_error("bilinear_upsampling: give ratio or frac_ratio, not both", ValueError)
    if not (ratio or frac_ratio):
        raise build_error("bilinear_upsampling: no ratio (or frac_ratio) given", ValueError)
    input = as_tensor_variable(input)
    if input.ndim != 4:
        raise build_error(f"bilinear_upsampling: the input {label(input)!r} must be 4-d (batch, channels, "
                          f"rows, cols); got {input.type.short()}", TypeError)
    if frac_ratio:
        if use_1D_kernel:
            raise build_error("bilinear_upsampling: fractional ratios have no 1-d kernel method; "
                              "pass use_1D_kernel=False", ValueError)
        return frac_bilinear_upsampling(input, frac_ratio=frac_ratio)
    ratio = _int_ratio(ratio)
    try:
        up_bs = batch_size * num_input_channels
    except TypeError:  # either unknown (None), as in Theano
        up_bs = None
    row, col = shape_i(input, 2), shape_i(input, 3)
    concat_mat = _edge_padded(reshape(input, (-1, 1, row, col)))
    pad = 2 * ratio - (ratio - 1) // 2 - 1
    up_row, up_col = m.mul(row, ratio), m.mul(col, ratio)
    if use_1D_kernel:
        kern = bilinear_kernel_1D(ratio, normalize=True)
        upsampled_row = conv2d_grad_wrt_inputs(
            concat_mat, dimshuffle(kern, ("x", "x", 0, "x")), input_shape=(up_bs, 1, up_row, m.add(col, 2)),
            filter_shape=(1, 1, None, 1), border_mode=(pad, 0), subsample=(ratio, 1), filter_flip=True)
        upsampled = conv2d_grad_wrt_inputs(
            upsampled_row, dimshuffle(kern, ("x", "x", "x", 0)), input_shape=(up_bs, 1, up_row, up_col),
            filter_shape=(1, 1, 1, None), border_mode=(0, pad), subsample=(1, ratio), filter_flip=True)
    else:
        kern = bilinear_kernel_2D(ratio, normalize=True)
        upsampled = conv2d_grad_wrt_inputs(
            concat_mat, dimshuffle(kern, ("x", "x", 0, 1)), input_shape=(up_bs, 1, up_row, up_col),
            filter_shape=(1, 1, None, None), border_mode=(pad, pad), subsample=(ratio, ratio),
            filter_flip=True)
    return reshape(upsampled, (shape_i(input, 0), shape_i(input, 1), up_row, up_col))


def _reduced(fraction: Any) -> tuple[int, int]:
    """``(num, den)`` divided by their greatest common divisor."""
    try:
        num, den = (int(v) for v in fraction)
    except (TypeError, ValueError):
        raise build_error(f"frac_bilinear_upsampling: a fractional ratio is a pair of ints "
                          f"(numerator, denominator); got {fraction!r}", ValueError) from None
    if num < 1 or den < 1:
        raise build_error(f"frac_bilinear_upsampling: a fractional ratio needs a positive numerator "
                          f"and denominator; got {fraction!r}", ValueError)
    div = pymath.gcd(num, den)
    return num // div, den // div


def frac_bilinear_upsampling(input: Any, frac_ratio: Any) -> Variable:
    """Upsample ``input`` ``(batch, channels, rows, cols)`` by a fractional ratio with
    bilinear interpolation (Theano's ``frac_bilinear_upsampling``): ``frac_ratio`` is
    ``(num, den)`` for both axes or ``((num, den), (num, den))`` for rows and columns.

    Theano's formula: the edge-padded images become the filters of a dilated, strided
    convolution of the bilinear kernel padded with zeros.
    """
    input = as_tensor_variable(input)
    if not isinstance(frac_ratio, tuple):
        raise build_error(f"frac_bilinear_upsampling: frac_ratio must be a tuple; got {frac_ratio!r}",
                          ValueError)
    if isinstance(frac_ratio[0], tuple):
        (p_row, q_row), (p_col, q_col) = (_reduced(f) for f in frac_ratio)
        ratio, subsample = (p_row, p_col), (q_row, q_col)
    else:
        p, q = _reduced(frac_ratio)
        ratio, subsample = (p, p), (q, q)
    floatx = config.floatX
    row, col = shape_i(input, 2), shape_i(input, 3)
    concat_mat = _edge_padded(reshape(input, (-1, 1, row, col)))
    double_pad = [m.add(m.mul(m.sub(m.mul(2, n), 1), r), 1) for n, r in zip((row, col), ratio)]
    pad = [m.floor_div(d, 2) for d in double_pad]
    kern = dimshuffle(bilinear_kernel_2D(ratio), ("x", "x", 0, 1))
    k_rows, k_cols = (2 * r - 1 for r in ratio)
    pad_kern = concatenate([zeros((1, 1, pad[0], k_cols), floatx), kern,
                            zeros((1, 1, m.sub(double_pad[0], pad[0]), k_cols), floatx)], axis=2)
    padded_rows = shape_i(pad_kern, 2)
    pad_kern = concatenate([zeros((1, 1, padded_rows, pad[1]), floatx), pad_kern,
                            zeros((1, 1, padded_rows, m.sub(double_pad[1], pad[1])), floatx)], axis=3)
    # The image is the filter: dilated by the ratio, strided by the denominator.
    upsampled = conv2d(pad_kern, concat_mat, border_mode="valid", filter_dilation=ratio, subsample=subsample)
    return reshape(upsampled, (shape_i(input, 0), shape_i(input, 1), shape_i(upsampled, 2),
                               shape_i(upsampled, 3)))

