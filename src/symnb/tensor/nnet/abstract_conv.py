"""``symnb.tensor.nnet.abstract_conv``: Theano's convolution functions and ops."""

from __future__ import annotations

from symnb.core.tensor.conv import AbstractConv, AbstractConvGradInputs, AbstractConvGradWeights
from symnb.core.tensor.conv_theano_ops import (
    AbstractConv2d, AbstractConv2d_gradInputs, AbstractConv2d_gradWeights, AbstractConv3d,
    AbstractConv3d_gradInputs, AbstractConv3d_gradWeights,
)
from symnb.core.tensor.conv_api import (
    conv2d, conv2d_grad_wrt_inputs, conv2d_grad_wrt_weights, conv3d, conv3d_grad_wrt_inputs,
    conv3d_grad_wrt_weights,
)
from symnb.core.tensor.conv_theano_functions import (
    assert_conv_shape, assert_shape, causal_conv1d, check_conv_gradinputs_shape, conv2d_transpose,
    get_conv_gradinputs_shape, get_conv_gradinputs_shape_1axis, get_conv_gradweights_shape,
    get_conv_gradweights_shape_1axis, get_conv_output_shape, separable_conv2d, separable_conv3d,
)
from symnb.core.tensor.upsampling import (
    bilinear_kernel_1D, bilinear_kernel_2D, bilinear_upsampling, frac_bilinear_upsampling,
)
from symnb.core.graph.traceback_filter import entry_points as _entry_points

#: Theano's flag for "SciPy's signal module imported" (its Python convolutions, where no C
#: compiler was found): symnb's convolutions compile to XLA and need neither, so they always run.
imported_scipy_signal = True

__all__ = [
    "imported_scipy_signal", "conv2d", "conv3d", "conv2d_grad_wrt_inputs", "conv2d_grad_wrt_weights", "conv3d_grad_wrt_inputs",
    "conv3d_grad_wrt_weights", "get_conv_output_shape", "AbstractConv", "AbstractConvGradInputs",
    "AbstractConvGradWeights", "AbstractConv2d", "AbstractConv3d", "AbstractConv2d_gradInputs",
    "AbstractConv3d_gradInputs", "AbstractConv2d_gradWeights", "AbstractConv3d_gradWeights",
    "bilinear_kernel_1D", "bilinear_kernel_2D", "bilinear_upsampling", "frac_bilinear_upsampling",
    "get_conv_gradweights_shape", "get_conv_gradweights_shape_1axis", "get_conv_gradinputs_shape",
    "get_conv_gradinputs_shape_1axis", "check_conv_gradinputs_shape", "assert_conv_shape",
    "assert_shape", "separable_conv2d", "separable_conv3d", "causal_conv1d", "conv2d_transpose",
]


_entry_points(globals())  # errors show the user's line (symnb.core.graph.traceback_filter)
