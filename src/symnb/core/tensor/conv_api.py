"""The public convolution functions, Theano's signatures (``theano.tensor.nnet`` and
``theano.tensor.nnet.abstract_conv``); the ops are in ``conv.py``."""

from __future__ import annotations

from typing import Any, Sequence

from symnb.core.graph.errors import build_error, label
from symnb.core.graph.basic import Variable
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.tensor.conv import AbstractConv, AbstractConvGradInputs, AbstractConvGradWeights
from symnb.core.tensor.shape import static_int
from symnb.core.graph.type import describe_shape

__all__ = [
    "conv2d", "conv3d", "conv2d_grad_wrt_inputs", "conv2d_grad_wrt_weights",
    "conv3d_grad_wrt_inputs", "conv3d_grad_wrt_weights",
]


def _params(convdim: int, border_mode: Any, subsample: Any, filter_flip: Any, filter_dilation: Any,
            num_groups: Any, unshared: bool = False) -> dict[str, Any]:
    """The ops' parameters, checked here so that a bad one fails on the user's line."""
    if unshared:
        raise build_error("unshared (locally connected) convolutions are not supported", NotImplementedError)
    try:
        AbstractConv(convdim, border_mode, subsample, filter_flip, filter_dilation, num_groups)
    except ValueError as err:
        raise build_error(f"conv{convdim}d: {err}") from None
    return dict(convdim=convdim, border_mode=border_mode, subsample=subsample, filter_flip=filter_flip,
                filter_dilation=filter_dilation, num_groups=num_groups)


def _shape_hint(value: Any, ndim: int, what: str) -> tuple[int | None, ...] | None:
    """A shape hint: ``ndim`` entries, each an int, a constant or None."""
    if value is None:
        return None
    entries = list(value)
    if len(entries) != ndim:
        raise build_error(f"{what} must have {ndim} entries; got {tuple(entries)!r}", ValueError)
    hint = []
    for entry in entries:
        known = None if entry is None else static_int(entry)
        if entry is not None and known is None:
            raise build_error(f"{what} entries must be ints, constants or None; got {entry!r}", ValueError)
        hint.append(known)
    return tuple(hint)


def conv2d(input: Any, filters: Any, input_shape: Sequence | None = None,
           filter_shape: Sequence | None = None, border_mode: Any = "valid", subsample: Any = (1, 1),
           filter_flip: bool = True, image_shape: Sequence | None = None, filter_dilation: Any = (1, 1),
           num_groups: int = 1, unshared: bool = False) -> Variable:
    """Convolve a batch of images ``(batch, channels, rows, cols)`` with a set of filters
    ``(out channels, channels // num_groups, rows, cols)``: Theano's ``T.nnet.conv2d``.

    - ``border_mode``: ``'valid'`` (output ``input - filter + 1``), ``'full'`` (``input +
      filter - 1``), ``'half'`` (pad ``filter // 2``: same size for odd filters), an int,
      or a pair of ints or ``(low, high)`` pairs: zero padding of rows and columns.
    - ``subsample``: strides; ``filter_dilation``: spacing between filter taps.
    - ``filter_flip=True``: a true convolution (filters flipped); False: a correlation.
    - ``num_groups``: the channels split in groups convolved separately.
    - ``input_shape``/``filter_shape`` (``image_shape`` is the old name): known lengths
      (None where unknown); they fix static shapes and are checked against the values.
    """
    if image_shape is not None:
        if input_shape is not None:
            raise build_error("conv2d: give input_shape or its old name image_shape, not both", ValueError)
        input_shape = image_shape
    return _conv(2, input, filters, input_shape, filter_shape, border_mode, subsample, filter_flip,
                 filter_dilation, num_groups, unshared)


def conv3d(input: Any, filters: Any, input_shape: Sequence | None = None,
           filter_shape: Sequence | None = None, border_mode: Any = "valid",
           subsample: Any = (1, 1, 1), filter_flip: bool = True, filter_dilation: Any = (1, 1, 1),
           num_groups: int = 1) -> Variable:
    """:func:`conv2d` on volumes: input ``(batch, channels, depth, rows, cols)``, filters
    ``(out channels, channels // num_groups, depth, rows, cols)``."""
    return _conv(3, input, filters, input_shape, filter_shape, border_mode, subsample, filter_flip,
                 filter_dilation, num_groups, False)


def _conv(convdim, input, filters, input_shape, filter_shape, border_mode, subsample, filter_flip,
          filter_dilation, num_groups, unshared) -> Variable:
    params = _params(convdim, border_mode, subsample, filter_flip, filter_dilation, num_groups, unshared)
    imshp = _shape_hint(input_shape, convdim + 2, "input_shape")
    kshp = _shape_hint(filter_shape, convdim + 2, "filter_shape")
    op = AbstractConv(**params, imshp=imshp, kshp=kshp)
    return op(_asserted(input, imshp, "AbstractConv shape mismatch: shape of image does not match "
                                      "given imshp."),
              _asserted(filters, kshp, "AbstractConv shape mismatch: shape of filters does not "
                                       "match given kshp."))


def _asserted(x: Any, hint: tuple | None, message: str) -> Variable:
    """``x``, checked at run time against the shape the user gave when the flag
    ``conv.assert_shape`` is on (Theano's ``assert_shape``: an ``Assert``, whose failure is
    an ``AssertionError``); else ``x``."""
    from symnb.core.tensor.conv_theano_functions import assert_shape  # builds on this module

    return assert_shape(as_tensor_variable(x), hint, message)


def _check_static_hint(var: Variable, hint: tuple | None, what: str) -> None:
    """A gradient's shape hint, checked against the lengths its static type knows."""
    for axis, given in enumerate(hint or ()):
        actual = var.type.shape[axis]
        if given is not None and actual is not None and given != actual:
            raise build_error(f"{label(var)!r} has shape {describe_shape(var.type.shape)}, but "
                              f"{what}={describe_shape(hint)} says axis {axis} is {given}", ValueError)


def _leading_hint(shape: Sequence, what: str) -> None:
    """Theano takes ints or None for the first two entries of a gradient's shape."""
    for entry in list(shape)[:2]:
        if entry is not None and static_int(entry) is None:
            raise build_error(f"{what}: its first two entries must be ints, constants or None; "
                              f"got {entry!r}", ValueError)


def _check_leading(result: Variable, shape: Sequence, what: str) -> None:
    for axis, entry in enumerate(list(shape)[:2]):
        known = None if entry is None else static_int(entry)
        actual = result.type.shape[axis]
        if known is not None and actual is not None and known != actual:
            raise build_error(f"{what}[{axis}] is {known}, but the result's axis {axis} has length "
                              f"{actual} (from the shapes of the gradient and the filters)", ValueError)


def _shape_to_make(shape: Sequence, convdim: int, what: str) -> list:
    """The full shape a gradient op is asked to produce (``input_shape``/``filter_shape``),
    checked for its length and its leading hints."""
    shape = list(shape)
    if len(shape) != convdim + 2:
        raise build_error(f"{what} must have {convdim + 2} entries; got {tuple(shape)!r}", ValueError)
    _leading_hint(shape, what)
    return shape


def _grad_wrt_inputs(convdim: int, output_grad, filters, input_shape, filter_shape, border_mode,
                     subsample, filter_flip, filter_dilation, num_groups, unshared) -> Variable:
    input_shape = _shape_to_make(input_shape, convdim, "input_shape")
    params = _params(convdim, border_mode, subsample, filter_flip, filter_dilation, num_groups, unshared)
    kshp = _shape_hint(filter_shape, convdim + 2, "filter_shape")
    filters = as_tensor_variable(filters)
    _check_static_hint(filters, kshp, "filter_shape")
    filters = _asserted(filters, kshp, "AbstractConv_gradInputs shape mismatch: shape of filters "
                                       "does not match given kshp.")
    result = AbstractConvGradInputs(**params)(filters, as_tensor_variable(output_grad), input_shape[2:])
    _check_leading(result, input_shape, "input_shape")
    return result


def _grad_wrt_weights(convdim: int, input, output_grad, filter_shape, input_shape, border_mode,
                      subsample, filter_flip, filter_dilation, num_groups, unshared) -> Variable:
    filter_shape = _shape_to_make(filter_shape, convdim, "filter_shape")
    params = _params(convdim, border_mode, subsample, filter_flip, filter_dilation, num_groups, unshared)
    imshp = _shape_hint(input_shape, convdim + 2, "input_shape")
    input = as_tensor_variable(input)
    _check_static_hint(input, imshp, "input_shape")
    input = _asserted(input, imshp, "AbstractConv_gradWeights shape mismatch: shape of image does "
                                    "not match given imshp.")
    result = AbstractConvGradWeights(**params)(input, as_tensor_variable(output_grad), filter_shape[2:])
    _check_leading(result, filter_shape, "filter_shape")
    return result


def conv2d_grad_wrt_inputs(output_grad: Any, filters: Any, input_shape: Sequence,
                           filter_shape: Sequence | None = None, border_mode: Any = "valid",
                           subsample: Any = (1, 1), filter_flip: bool = True,
                           filter_dilation: Any = (1, 1), num_groups: int = 1,
                           unshared: bool = False) -> Variable:
    """The gradient of :func:`conv2d` with respect to its input (a transposed convolution,
    used for upsampling): ``output_grad`` spread back through ``filters`` onto an image of
    shape ``input_shape`` (its last two entries ints or int scalars; required, since with
    strides several input shapes give the same output shape). The other parameters are
    those of the forward convolution."""
    return _grad_wrt_inputs(2, output_grad, filters, input_shape, filter_shape, border_mode, subsample,
                            filter_flip, filter_dilation, num_groups, unshared)


def conv3d_grad_wrt_inputs(output_grad: Any, filters: Any, input_shape: Sequence,
                           filter_shape: Sequence | None = None, border_mode: Any = "valid",
                           subsample: Any = (1, 1, 1), filter_flip: bool = True,
                           filter_dilation: Any = (1, 1, 1), num_groups: int = 1) -> Variable:
    """:func:`conv2d_grad_wrt_inputs` for :func:`conv3d`."""
    return _grad_wrt_inputs(3, output_grad, filters, input_shape, filter_shape, border_mode, subsample,
                            filter_flip, filter_dilation, num_groups, False)


def conv2d_grad_wrt_weights(input: Any, output_grad: Any, filter_shape: Sequence,
                            input_shape: Sequence | None = None, border_mode: Any = "valid",
                            subsample: Any = (1, 1), filter_flip: bool = True,
                            filter_dilation: Any = (1, 1), num_groups: int = 1,
                            unshared: bool = False) -> Variable:
    """The gradient of :func:`conv2d` with respect to its filters, of shape ``filter_shape``
    (its last two entries ints or int scalars)."""
    return _grad_wrt_weights(2, input, output_grad, filter_shape, input_shape, border_mode, subsample,
                             filter_flip, filter_dilation, num_groups, unshared)


def conv3d_grad_wrt_weights(input: Any, output_grad: Any, filter_shape: Sequence,
                            input_shape: Sequence | None = None, border_mode: Any = "valid",
                            subsample: Any = (1, 1, 1), filter_flip: bool = True,
                            filter_dilation: Any = (1, 1, 1), num_groups: int = 1) -> Variable:
    """:func:`conv2d_grad_wrt_weights` for :func:`conv3d`."""
    return _grad_wrt_weights(3, input, output_grad, filter_shape, input_shape, border_mode, subsample,
                             filter_flip, filter_dilation, num_groups, False)
