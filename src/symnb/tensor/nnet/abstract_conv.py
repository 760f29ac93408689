"""``symnb.tensor.nnet.abstract_conv``: Theano's convolution functions and ops."""

from __future__ import annotations

from typing import Any, Sequence

from symnb.core.tensor.conv import AbstractConv, AbstractConvGradInputs, AbstractConvGradWeights
from symnb.core.tensor.conv_theano_ops import (
    AbstractConv2d, AbstractConv2d_gradInputs, AbstractConv2d_gradWeights, AbstractConv3d,
    AbstractConv3d_gradInputs, AbstractConv3d_gradWeights,
)
from symnb.core.tensor.conv_api import (
    conv2d, conv2d_grad_wrt_inputs, conv2d_grad_wrt_weights, conv3d, conv3d_grad_wrt_inputs,
    conv3d_grad_wrt_weights,
)
from symnb.core.tensor.upsampling import (
    bilinear_kernel_1D, bilinear_kernel_2D, bilinear_upsampling, frac_bilinear_upsampling,
)
from symnb.core.graph.traceback_filter import entry_points as _entry_points

__all__ = [
    "conv2d", "conv3d", "conv2d_grad_wrt_inputs", "conv2d_grad_wrt_weights", "conv3d_grad_wrt_inputs",
    "conv3d_grad_wrt_weights", "get_conv_output_shape", "AbstractConv", "AbstractConvGradInputs",
    "AbstractConvGradWeights", "AbstractConv2d", "AbstractConv3d", "AbstractConv2d_gradInputs",
    "AbstractConv3d_gradInputs", "AbstractConv2d_gradWeights", "AbstractConv3d_gradWeights",
    "bilinear_kernel_1D", "bilinear_kernel_2D", "bilinear_upsampling", "frac_bilinear_upsampling",
]


def get_conv_output_shape(image_shape: Sequence[Any], kernel_shape: Sequence[Any], border_mode: Any,
                          subsample: Sequence[int], filter_dilation: Sequence[int] | None = None) -> tuple:
    """The output shape of a convolution of an image of ``image_shape`` by filters of
    ``kernel_shape`` (ints, ``None`` where unknown, or symbolic lengths), as Theano's."""
    convdim = len(image_shape) - 2
    op = AbstractConv(convdim, border_mode, tuple(subsample),
                      filter_dilation=filter_dilation if filter_dilation is not None else 1)
    return op.symbolic_forward_shape(tuple(image_shape), tuple(kernel_shape))

_entry_points(globals())  # errors show the user's line (symnb.core.graph.traceback_filter)
