"""``symnb.gpuarray.blas``: Theano's GEMM-based correlation ops (``GpuCorrMM``,
``GpuCorr3dMM`` and their gradients), on any device.

Each is symnb's convolution op (``core/tensor/conv.py``) for correlations
(``filter_flip=False``: the filters are NOT flipped, ``GpuCorrMM`` is a correlation, as
in Theano), built from Theano's constructor ``(border_mode, subsample,
filter_dilation, num_groups, unshared)``: the nodes compute, differentiate and lower
(``lax.conv_general_dilated``) as those of ``T.nnet.conv2d(..., filter_flip=False)``.

The gradient ops take Theano's optional ``shape`` (the spatial lengths of the result);
without it they work out the lengths from the strides of 1 that Theano required then.
"""

from __future__ import annotations

from typing import Any, Sequence

from symnb.core.graph.basic import Apply, Variable
from symnb.core.graph.errors import build_error
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.tensor.conv import AbstractConv, AbstractConvGradInputs, AbstractConvGradWeights
from symnb.core.tensor.conv_shapes import kernel_span
from symnb.core.tensor.shape import shape_i

__all__ = ["GpuCorrMM", "GpuCorrMM_gradWeights", "GpuCorrMM_gradInputs",
           "GpuCorr3dMM", "GpuCorr3dMM_gradWeights", "GpuCorr3dMM_gradInputs"]


class _CorrMM:
    """Theano's constructor for the correlation ops (mixed into symnb's conv ops)."""

    convdim_of_class = 2

    def __init__(self, border_mode: Any = "valid", subsample: Sequence[int] | None = None,
                 filter_dilation: Sequence[int] | None = None, num_groups: int = 1,
                 unshared: bool = False) -> None:
        n = self.convdim_of_class
        name = type(self).__name__
        if unshared:
            raise build_error(f"{name}: unshared (locally connected) correlations are not supported",
                              NotImplementedError)
        subsample = (1,) * n if subsample is None else tuple(subsample)
        filter_dilation = (1,) * n if filter_dilation is None else tuple(filter_dilation)
        for what, value in (("subsample", subsample), ("filter_dilation", filter_dilation)):
            if len(value) != n:
                raise build_error(f"{name}: {what} must have {n} elements; got {value!r}", ValueError)
        if num_groups < 1:
            raise build_error(f"{name}: num_groups must be at least 1; got {num_groups!r}", ValueError)
        try:
            super().__init__(convdim=n, border_mode=border_mode, subsample=subsample, filter_flip=False,
                             filter_dilation=filter_dilation, num_groups=num_groups)
        except ValueError as err:
            raise build_error(f"{name}: {err}") from None


class GpuCorrMM(_CorrMM, AbstractConv):
    """The 2-d correlation of ``img`` ``(batch, channels, rows, cols)`` with ``kern``
    ``(out channels, channels // num_groups, rows, cols)``: ``GpuCorrMM(border_mode,
    subsample, filter_dilation, num_groups)(img, kern)``. A correlation: for a
    convolution, flip the filters (``kern[:, :, ::-1, ::-1]``)."""


class GpuCorr3dMM(GpuCorrMM):
    """:class:`GpuCorrMM` on volumes (5-d ``img`` and ``kern``)."""

    convdim_of_class = 3


def _spatial(var: Variable, n: int) -> list[Any]:
    return [shape_i(var, i) for i in range(2, 2 + n)]


def _lengths_from_shape(op: Any, shape: Any) -> Any:
    """Theano's ``shape`` argument: the result's spatial lengths (a sequence of ints or
    int scalars, or an int vector such as ``bottom.shape[-2:]``)."""
    if isinstance(shape, Variable):
        return shape
    entries = list(shape)
    if len(entries) != op.convdim:
        raise build_error(f"{type(op).__name__}: shape must have {op.convdim} entries (the result's "
                          f"spatial lengths); got {shape!r}", ValueError)
    return entries


class GpuCorrMM_gradWeights(_CorrMM, AbstractConvGradWeights):
    """The gradient of :class:`GpuCorrMM` with respect to its filters:
    ``(img, topgrad, shape=None)``, ``shape`` the filters' spatial lengths (needed with
    strides or ``border_mode='half'``, as in Theano)."""

    def make_node(self, img: Any, topgrad: Any, shape: Any = None) -> Apply:
        img, topgrad = as_tensor_variable(img), as_tensor_variable(topgrad)
        if shape is not None:
            return super().make_node(img, topgrad, _lengths_from_shape(self, shape))
        if set(self.subsample) != {1} or self.border_mode == "half":
            raise build_error(f"{type(self).__name__}: shape must be given if subsample != "
                              f"{(1,) * self.convdim} or border_mode == 'half'", ValueError)
        self.check_ndim(img, topgrad)
        lengths = []
        for axis, (n, top) in enumerate(zip(_spatial(img, self.convdim), _spatial(topgrad, self.convdim))):
            if self.border_mode == "full":
                span = top - n + 1
            else:
                low, high = self.pads([1] * self.convdim)[axis]
                span = n + low + high - top + 1
            lengths.append((span - 1) // self.filter_dilation[axis] + 1)
        return super().make_node(img, topgrad, lengths)


class GpuCorrMM_gradInputs(_CorrMM, AbstractConvGradInputs):
    """The gradient of :class:`GpuCorrMM` with respect to its image: ``(kern, topgrad,
    shape=None)``, ``shape`` the image's spatial lengths (needed with strides)."""

    def make_node(self, kern: Any, topgrad: Any, shape: Any = None) -> Apply:
        kern, topgrad = as_tensor_variable(kern), as_tensor_variable(topgrad)
        if shape is not None:
            return super().make_node(kern, topgrad, _lengths_from_shape(self, shape))
        if set(self.subsample) != {1}:
            raise build_error(f"{type(self).__name__}: shape must be given if subsample != "
                              f"{(1,) * self.convdim}", ValueError)
        self.check_ndim(kern, topgrad)
        lengths = []
        for axis, (k, top) in enumerate(zip(_spatial(kern, self.convdim), _spatial(topgrad, self.convdim))):
            span = kernel_span(k, self.filter_dilation[axis])
            low, high = self._symbolic_pads(span, axis)
            lengths.append(top + span - 1 - low - high)
        return super().make_node(kern, topgrad, lengths)

    def _symbolic_pads(self, span: Any, axis: int) -> tuple[Any, Any]:
        """The padding of ``axis`` for filters spanning ``span`` (an int or a scalar)."""
        if self.border_mode == "full":
            return span - 1, span - 1
        if self.border_mode == "half":
            return span // 2, span // 2
        return self.pads([1] * self.convdim)[axis]


class GpuCorr3dMM_gradWeights(GpuCorrMM_gradWeights):
    """:class:`GpuCorrMM_gradWeights` for :class:`GpuCorr3dMM`."""

    convdim_of_class = 3


class GpuCorr3dMM_gradInputs(GpuCorrMM_gradInputs):
    """:class:`GpuCorrMM_gradInputs` for :class:`GpuCorr3dMM`."""

    convdim_of_class = 3
