"""Theano's ``T.nnet.abstract_conv`` helpers beyond the convolutions themselves: the shapes
of the convolution and of its gradients (``get_conv_output_shape``, ``get_conv_gradweights_shape``,
``get_conv_gradinputs_shape``, ``check_conv_gradinputs_shape``), the run-time shape checks
(``assert_conv_shape``, ``assert_shape``), and the convolutions written with the others
(``separable_conv2d``/``3d``, ``causal_conv1d``, ``conv2d_transpose``), each with Theano
1.0.5's signature and meaning."""

from __future__ import annotations

from typing import Any, Sequence

from symnb.core.graph.basic import Variable
from symnb.core.graph.static import NotScalarConstantError, get_scalar_constant_value
from symnb.core.tensor import conv_api
from symnb.core.tensor.conv_api import assert_shape  # Theano names it here
from symnb.core.tensor import math as m
from symnb.core.tensor.assertion import Assert
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.tensor.conv import AbstractConv

__all__ = ["get_conv_output_shape", "get_conv_gradweights_shape", "get_conv_gradweights_shape_1axis",
           "get_conv_gradinputs_shape", "get_conv_gradinputs_shape_1axis",
           "check_conv_gradinputs_shape", "assert_conv_shape", "assert_shape", "separable_conv2d",
           "separable_conv3d", "causal_conv1d", "conv2d_transpose"]


def get_conv_output_shape(image_shape: Sequence[Any], kernel_shape: Sequence[Any], border_mode: Any,
                          subsample: Sequence[int], filter_dilation: Sequence[int] | None = None) -> tuple:
    """The output shape of a convolution of an image of ``image_shape`` by filters of
    ``kernel_shape`` (ints, ``None`` where unknown, or symbolic lengths), as Theano's."""
    convdim = len(image_shape) - 2
    op = AbstractConv(convdim, border_mode, tuple(subsample),
                      filter_dilation=filter_dilation if filter_dilation is not None else 1)
    return op.symbolic_forward_shape(tuple(image_shape), tuple(kernel_shape))


def _pads(border_mode: Any) -> tuple[Any, Any]:
    pad_l, pad_r = border_mode if isinstance(border_mode, tuple) else (border_mode, border_mode)
    if pad_l < 0 or pad_r < 0:
        raise ValueError("border_mode must be >= 0")
    return pad_l, pad_r


def get_conv_gradweights_shape_1axis(image_shape: Any, top_shape: Any, border_mode: Any,
                                     subsample: int, dilation: int) -> Any:
    """The filter length along one axis that turns ``image_shape`` into ``top_shape``
    (None where it cannot be known: a stride, 'half' padding, or an unknown length)."""
    if None in (image_shape, top_shape, border_mode, subsample, dilation):
        return None
    if subsample != 1 or border_mode == "half":
        return None
    if border_mode == "full":
        kernel_shape = top_shape - image_shape
    elif border_mode == "valid":
        kernel_shape = image_shape - top_shape
    else:
        pad_l, pad_r = _pads(border_mode)
        kernel_shape = image_shape + pad_l + pad_r - top_shape
    if dilation > 1:
        kernel_shape = kernel_shape / dilation  # Theano's (true) division
    return kernel_shape + 1


def get_conv_gradweights_shape(image_shape: Sequence, top_shape: Sequence, border_mode: Any,
                               subsample: Sequence[int], filter_dilation: Sequence[int] | None = None,
                               num_groups: int = 1, unshared: bool = False) -> tuple:
    """The filters' shape of a convolution of ``image_shape`` giving ``top_shape``."""
    nkern, imshp = image_shape[1], image_shape[2:]
    nchan, topshp = top_shape[1], top_shape[2:]
    dilation = filter_dilation if filter_dilation is not None else (1,) * len(subsample)
    if num_groups > 1:
        nchan = nchan // num_groups
    modes = border_mode if isinstance(border_mode, tuple) else (border_mode,) * len(subsample)
    out = tuple(get_conv_gradweights_shape_1axis(imshp[i], topshp[i], modes[i], subsample[i],
                                                 dilation[i]) for i in range(len(subsample)))
    if unshared:
        return (nchan,) + tuple(top_shape[2:]) + (nkern,) + out
    return (nchan, nkern) + out


def get_conv_gradinputs_shape_1axis(kernel_shape: Any, top_shape: Any, border_mode: Any,
                                    subsample: int, dilation: int) -> Any:
    """The image length along one axis that ``kernel_shape`` turns into ``top_shape`` (None
    where it cannot be known: a stride, or an unknown length)."""
    if None in (kernel_shape, top_shape, border_mode, subsample, dilation):
        return None
    if subsample != 1:
        return None
    dil_kernel = (kernel_shape - 1) * dilation + 1
    if border_mode == "half":
        pad_l = pad_r = dil_kernel // 2
    elif border_mode == "full":
        pad_l = pad_r = dil_kernel - 1
    elif border_mode == "valid":
        pad_l = pad_r = 0
    else:
        pad_l, pad_r = _pads(border_mode)
    image_shape = top_shape + dil_kernel - 1
    if pad_l > 0:
        image_shape -= pad_l
    if pad_r > 0:
        image_shape -= pad_r
    return image_shape


def get_conv_gradinputs_shape(kernel_shape: Sequence, top_shape: Sequence, border_mode: Any,
                              subsample: Sequence[int], filter_dilation: Sequence[int] | None = None,
                              num_groups: int = 1) -> tuple:
    """The images' shape that filters of ``kernel_shape`` turn into ``top_shape``."""
    bsize, topshp = top_shape[0], top_shape[2:]
    convdim = len(top_shape) - 2
    nkern, kshp = kernel_shape[1], kernel_shape[-convdim:]
    dilation = filter_dilation if filter_dilation is not None else (1,) * len(subsample)
    if num_groups > 1:
        nkern = nkern * num_groups
    modes = border_mode if isinstance(border_mode, tuple) else (border_mode,) * len(subsample)
    return (bsize, nkern) + tuple(get_conv_gradinputs_shape_1axis(kshp[i], topshp[i], modes[i],
                                                                  subsample[i], dilation[i])
                                  for i in range(len(subsample)))


def check_conv_gradinputs_shape(image_shape: Sequence, kernel_shape: Sequence, output_shape: Sequence,
                                border_mode: Any, subsample: Sequence[int],
                                filter_dilation: Sequence[int] | None = None) -> bool:
    """Whether a convolution of ``image_shape`` by ``kernel_shape`` can give ``output_shape``
    (unknown or symbolic lengths agree with anything)."""
    image_shape, kernel_shape, output_shape = tuple(image_shape), tuple(kernel_shape), tuple(output_shape)
    if len(image_shape) != len(kernel_shape) or len(image_shape) != len(output_shape):
        return False
    if len(image_shape) - 2 != len(subsample):
        return False
    if filter_dilation is not None and len(image_shape) - 2 != len(filter_dilation):
        return False
    computed = get_conv_output_shape(image_shape, kernel_shape, border_mode, subsample, filter_dilation)

    def agree(given: Any, expected: Any) -> bool:
        if given is None or expected is None:
            return True
        try:
            return int(get_scalar_constant_value(given)) == int(get_scalar_constant_value(expected))
        except NotScalarConstantError:
            return True

    return all(agree(g, c) for g, c in zip(output_shape, computed))


def assert_conv_shape(shape: Sequence) -> tuple:
    """``shape`` (a convolution's input, output or filter shape), each length checked: the
    first two >= 0, the others > 0. A constant length is checked now (``ValueError``), a
    symbolic one at run time (an ``Assert``: ``AssertionError``)."""
    checked = []
    for i, n in enumerate(shape):
        positive = i >= 2
        try:
            value = get_scalar_constant_value(n)
        except NotScalarConstantError:
            text = f"The convolution would produce an invalid shape (dim[{i}] {'<=' if positive else '<'} 0)."
            n = as_tensor_variable(n)
            checked.append(Assert(text)(n, m.gt(n, 0) if positive else m.ge(n, 0)))
            continue
        if value < (1 if positive else 0):
            raise ValueError(f"The convolution would produce an invalid shape (dim[{i}]: {value} "
                             f"{'<=' if positive else '<'} 0).")
        checked.append(n)
    return tuple(checked)


def _separable(convdim: int, input, depthwise_filters, pointwise_filters, num_channels, input_shape,
               depthwise_filter_shape, pointwise_filter_shape, border_mode, subsample, filter_flip,
               filter_dilation) -> Variable:
    conv = conv_api.conv2d if convdim == 2 else conv_api.conv3d
    depthwise = conv(as_tensor_variable(input), as_tensor_variable(depthwise_filters),
                     input_shape=input_shape, filter_shape=depthwise_filter_shape,
                     border_mode=border_mode, subsample=subsample, filter_flip=filter_flip,
                     filter_dilation=filter_dilation, num_groups=num_channels)
    return conv(depthwise, pointwise_filters, filter_shape=pointwise_filter_shape, border_mode="valid",
                subsample=(1,) * convdim, filter_flip=filter_flip, filter_dilation=(1,) * convdim)


def separable_conv2d(input: Any, depthwise_filters: Any, pointwise_filters: Any, num_channels: int,
                     input_shape: Sequence | None = None, depthwise_filter_shape: Sequence | None = None,
                     pointwise_filter_shape: Sequence | None = None, border_mode: Any = "valid",
                     subsample: Any = (1, 1), filter_flip: bool = True,
                     filter_dilation: Any = (1, 1)) -> Variable:
    """A depthwise convolution (each of the ``num_channels`` channels by its own filters:
    ``depthwise_filters`` ``(channels * depth multiplier, 1, rows, cols)``) followed by a
    pointwise (1 x 1) convolution by ``pointwise_filters`` ``(out, channels * multiplier, 1,
    1)``, as Theano's."""
    return _separable(2, input, depthwise_filters, pointwise_filters, num_channels, input_shape,
                      depthwise_filter_shape, pointwise_filter_shape, border_mode, subsample,
                      filter_flip, filter_dilation)


def separable_conv3d(input: Any, depthwise_filters: Any, pointwise_filters: Any, num_channels: int,
                     input_shape: Sequence | None = None, depthwise_filter_shape: Sequence | None = None,
                     pointwise_filter_shape: Sequence | None = None, border_mode: Any = "valid",
                     subsample: Any = (1, 1, 1), filter_flip: bool = True,
                     filter_dilation: Any = (1, 1, 1)) -> Variable:
    """:func:`separable_conv2d` on volumes."""
    return _separable(3, input, depthwise_filters, pointwise_filters, num_channels, input_shape,
                      depthwise_filter_shape, pointwise_filter_shape, border_mode, subsample,
                      filter_flip, filter_dilation)


def causal_conv1d(input: Any, filters: Any, filter_shape: Sequence, input_shape: Sequence | None = None,
                  subsample: int = 1, filter_flip: bool = True, filter_dilation: int = 1,
                  num_groups: int = 1, unshared: bool = False) -> Variable:
    """A causal 1-d convolution of ``input`` ``(batch, channels, length)`` by ``filters``
    ``(out, channels, taps)``: output ``t`` sees inputs up to ``t`` only (the input is padded
    on the left by ``filter_dilation * (taps - 1)``), as Theano's."""
    input, filters = as_tensor_variable(input), as_tensor_variable(filters)
    if input.ndim != 3:
        raise ValueError("Input should be 3D for causal convolution.")
    if filters.ndim != 3:
        raise ValueError("Filters should be 3D for causal convolution")
    if len(filter_shape) != 3:
        raise ValueError(f"causal_conv1d: filter_shape must have 3 entries, got {filter_shape!r}")
    if input_shape is not None:
        if len(input_shape) != 3:
            raise ValueError(f"causal_conv1d: input_shape must have 3 entries, got {input_shape!r}")
        input_shape = tuple(input_shape) + (1,)
    left_pad = filter_dilation * (filter_shape[2] - 1)
    output = conv_api.conv2d(input.dimshuffle(0, 1, 2, "x"), filters.dimshuffle(0, 1, 2, "x"),
                             input_shape=input_shape, filter_shape=tuple(filter_shape) + (1,),
                             border_mode=((left_pad, 0), 0), subsample=(subsample, 1),
                             filter_flip=filter_flip, filter_dilation=(filter_dilation, 1),
                             num_groups=num_groups, unshared=unshared)
    return output[:, :, :, 0]


def conv2d_transpose(input: Any, filters: Any, output_shape: Sequence, filter_shape: Sequence | None = None,
                     border_mode: Any = "valid", input_dilation: Any = (1, 1), filter_flip: bool = True,
                     filter_dilation: Any = (1, 1), num_groups: int = 1, unshared: bool = False) -> Variable:
    """The transpose of ``conv2d`` (a "deconvolution"): ``input`` spread back through
    ``filters`` onto an image of ``output_shape``; ``input_dilation`` is the forward
    convolution's stride (Theano's ``T.nnet.conv2d_transpose``)."""
    return conv_api.conv2d_grad_wrt_inputs(output_grad=input, filters=filters, input_shape=output_shape,
                                           filter_shape=filter_shape, border_mode=border_mode,
                                           subsample=input_dilation, filter_flip=filter_flip,
                                           filter_dilation=filter_dilation, num_groups=num_groups,
                                           unshared=unshared)
