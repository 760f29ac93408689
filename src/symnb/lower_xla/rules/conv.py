"""Convolutions -> ``lax.conv_general_dilated``; their gradients -> its transposes.

The forward rule is one ``conv_general_dilated`` (filters reversed first for a true
convolution). The two gradient ops lower to ``jax.linear_transpose`` of that same
forward function in the image or in the filters: exactly the convolutions that
``jax.grad`` of a hand-written convolution produces. Operands are cast to the
output dtype first, and float convolutions ask for ``Precision.HIGHEST`` (as the
products in ``blas.py`` do) so that float32 results match NumPy's on accelerators.
Shape errors raise the build-time messages, inputs named by position.
"""

from __future__ import annotations

from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from symnb.core.tensor import conv
from symnb.core.graph.type import is_float
from symnb.lower_xla.registry import StaticValueRequired, lower

_DIMENSION_NUMBERS = {2: ("NCHW", "OIHW", "NCHW"), 3: ("NCDHW", "OIDHW", "NCDHW")}


def forward_convolution(op: conv.ConvBase, dtype: str) -> Callable[[Any, Any], Any]:
    """The forward convolution of ``op``'s parameters, as a JAX function of (image, filters)."""
    precision = lax.Precision.HIGHEST if is_float(dtype) else None

    def convolve(image, filters):
        image, filters = image.astype(dtype), filters.astype(dtype)
        if op.filter_flip:
            filters = jnp.flip(filters, axis=tuple(range(2, filters.ndim)))
        return lax.conv_general_dilated(
            image, filters, window_strides=op.subsample, padding=op.pads(filters.shape[2:]),
            rhs_dilation=op.filter_dilation, dimension_numbers=_DIMENSION_NUMBERS[op.convdim],
            feature_group_count=op.num_groups, precision=precision)

    return convolve


def _static_lengths(lengths: Any, what: str) -> list[int]:
    if not isinstance(lengths, np.ndarray):
        raise StaticValueRequired(f"the {what} of a convolution gradient must be known when the "
                                  f"program is compiled", (2,))
    return [int(n) for n in lengths]


@lower.register(conv.AbstractConv)
def _conv(op, node):
    convolve = forward_convolution(op, node.outputs[0].type.dtype)

    def rule(image, filters):
        op.output_shape(("#0", "#1"), image.shape, filters.shape)  # the build-time message
        return convolve(image, filters)

    return rule


@lower.register(conv.AbstractConvGradInputs)
def _conv_grad_inputs(op, node):
    dtype = node.outputs[0].type.dtype
    convolve = forward_convolution(op, dtype)

    def rule(filters, top, lengths):
        image = op.image_shape(filters.shape, top.shape, _static_lengths(lengths, "input shape"))
        op.check_output_grad(("image", "#0", "#1"), image, filters.shape, top.shape)
        transpose = jax.linear_transpose(lambda x: convolve(x, filters), jax.ShapeDtypeStruct(image, dtype))
        return transpose(top.astype(dtype))[0]

    return rule


@lower.register(conv.AbstractConvGradWeights)
def _conv_grad_weights(op, node):
    dtype = node.outputs[0].type.dtype
    convolve = forward_convolution(op, dtype)

    def rule(image, top, lengths):
        kernel = op.kernel_shape(image.shape, top.shape, _static_lengths(lengths, "filter shape"))
        op.check_output_grad(("#0", "filters", "#1"), image.shape, kernel, top.shape)
        transpose = jax.linear_transpose(lambda k: convolve(image, k), jax.ShapeDtypeStruct(kernel, dtype))
        return transpose(top.astype(dtype))[0]

    return rule
