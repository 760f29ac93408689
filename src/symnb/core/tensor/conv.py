"""Convolutions with Theano's semantics (``T.nnet.conv2d``, ``conv3d`` and their gradients).

Layout NCHW (NCDHW in 3-d), filters ``(out channels, in channels // num_groups, *taps)``.
``filter_flip=True`` (the default) is a true convolution, the filters flipped on their
spatial axes; ``filter_flip=False`` is a correlation. Border modes, strides
(``subsample``), dilation and groups as in ``conv_shapes.py``.

Three ops, each the transpose of the others in one argument, so every gradient is again
a convolution and second derivatives work:

- ``AbstractConv(image, filters)``: the forward convolution;
- ``AbstractConvGradInputs(filters, output_grad, image_spatial_shape)``: its gradient
  with respect to the image (a transposed convolution); positions that no window reads
  (cut off by the stride) get zero;
- ``AbstractConvGradWeights(image, output_grad, filters_spatial_shape)``: its gradient
  with respect to the filters.

Output dtypes are NumPy's for a product (``np.dot``) of the operands' dtypes; the
gradient ops take floats only.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from symnb.core.graph.errors import build_error, label
from symnb.core.graph.basic import Apply, Variable
from symnb.core.graph.op import Op, snake_case
from symnb.core.tensor import conv_reference as ref
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.tensor.blas import product_dtype
from symnb.core.tensor.conv_shapes import (
    Fail, check_forward, kernel_span, normalize_border_mode, normalize_ints, output_length, paddings,
)
from symnb.core.tensor.shape import as_shape_vector, shape_i, static_entries, vector_entries
from symnb.core.graph.type import TensorType, describe_shape, is_float

__all__ = [
    "AbstractConv", "AbstractConvGradInputs", "AbstractConvGradWeights", "ConvBase",
    "spatial_shape",
]

Names = tuple[str, str]


def _names(*variables: Variable) -> tuple[str, ...]:
    return tuple(repr(label(v)) for v in variables)


def spatial_shape(var: Variable) -> Variable:
    """The lengths of ``var``'s axes after the first two, as an int64 vector (a constant
    when the static type knows them)."""
    return as_shape_vector([var.type.shape[i] if var.type.shape[i] is not None else shape_i(var, i)
                            for i in range(2, var.ndim)])


class ConvBase(Op):
    """The parameters shared by the three convolution ops, and what follows from them."""

    __props__ = ("convdim", "border_mode", "subsample", "filter_flip", "filter_dilation", "num_groups")
    kind = ""  # display-name suffix: "", "_gradInputs", "_gradWeights"

    def __init__(self, convdim: int = 2, border_mode: Any = "valid", subsample: Any = 1,
                 filter_flip: bool = True, filter_dilation: Any = 1, num_groups: int = 1) -> None:
        if convdim not in (2, 3):
            raise ValueError(f"convolutions are 2-d or 3-d, not {convdim}-d")
        self.convdim = convdim
        self.border_mode = normalize_border_mode(border_mode, convdim)
        self.subsample = normalize_ints(subsample, convdim, "subsample")
        self.filter_flip = bool(filter_flip)
        self.filter_dilation = normalize_ints(filter_dilation, convdim, "filter_dilation")
        self.num_groups = normalize_ints(num_groups, 1, "num_groups")[0]

    @property
    def fn_name(self) -> str:
        return f"conv{self.convdim}d"

    def params(self) -> dict[str, Any]:
        """The shared parameters, to build the other convolution ops."""
        return {name: getattr(self, name) for name in ConvBase.__props__}

    def public_name(self) -> str:
        """``conv2d``, ``conv2d_grad_inputs``: Theano's function, not the class."""
        return snake_case(type(self).__name__).replace("abstract_conv", f"conv{self.convdim}d")

    def display_name(self) -> str:
        shown = [self.border_mode if isinstance(self.border_mode, str) else f"pad={self.border_mode}"]
        if set(self.subsample) != {1}:
            shown.append(f"subsample={self.subsample}")
        if set(self.filter_dilation) != {1}:
            shown.append(f"dilation={self.filter_dilation}")
        if self.num_groups != 1:
            shown.append(f"groups={self.num_groups}")
        if not self.filter_flip:
            shown.append("correlation")
        return f"AbstractConv{self.convdim}d{self.kind}{{{', '.join(shown)}}}"

    # -- geometry -------------------------------------------------------------------------
    def pads(self, taps: Sequence[int]) -> list[tuple[int, int]]:
        """The ``(low, high)`` padding of each spatial axis for filters of these taps."""
        spans = [kernel_span(t, d) for t, d in zip(taps, self.filter_dilation)]
        return [tuple(p) for p in paddings(self.border_mode, spans)]

    def forward_shape(self, names: Names, image: Sequence[Any], kernel: Sequence[Any],
                      fail: Fail = ValueError) -> tuple[Any, ...]:
        """The forward output shape, or ``fail(message)`` when the shapes do not fit."""
        return check_forward(self.fn_name, names, image, kernel, self.border_mode, self.subsample,
                             self.filter_dilation, self.num_groups, fail)

    def symbolic_forward_shape(self, image: Sequence[Any], kernel: Sequence[Any]) -> tuple[Any, ...]:
        """The forward output shape from ints or symbolic lengths (for ``infer_shape``)."""
        spans = [kernel_span(k, d) for k, d in zip(kernel[2:], self.filter_dilation)]
        pads = paddings(self.border_mode, spans)
        return (image[0], kernel[0]) + tuple(
            output_length(n, span, pad, s) for n, span, pad, s in zip(image[2:], spans, pads, self.subsample))

    def check_output_grad(self, names: tuple[str, str, str], image: Sequence[Any], kernel: Sequence[Any],
                          top: Sequence[Any], fail: Fail = ValueError) -> None:
        """``top`` must have the forward output shape of ``image`` by ``kernel``."""
        expected = self.forward_shape(names[:2], image, kernel, fail)
        for axis, (want, got) in enumerate(zip(expected, top)):
            if want is not None and got is not None and want != got:
                raise fail(f"{self.fn_name}{self.kind}: the output gradient {names[2]} has shape "
                           f"{describe_shape(top)}, but the input of shape {describe_shape(image)} "
                           f"convolved with the filters of shape {describe_shape(kernel)} gives "
                           f"{describe_shape(expected)} (axis {axis} differs)")

    def flipped(self, kernel: np.ndarray) -> np.ndarray:
        """The kernel as correlated: flipped on its spatial axes for a true convolution."""
        if not self.filter_flip:
            return kernel
        return kernel[(slice(None), slice(None)) + (slice(None, None, -1),) * self.convdim]

    # -- types ------------------------------------------------------------------------------
    def check_ndim(self, *variables: Variable) -> None:
        for var in variables:
            if var.ndim != self.convdim + 2:
                raise build_error(f"{self.fn_name}: {label(var)!r} must be a {self.convdim + 2}-d tensor "
                                  f"(batch, channels, {self.convdim} spatial axes); got {var.type.short()}",
                                  TypeError)

    def result_dtype(self, x: Variable, y: Variable, floats_only: bool = False) -> str:
        dtype = product_dtype(x.dtype, y.dtype)
        if dtype == "bool" or (floats_only and not is_float(dtype)):
            needed = "float" if floats_only else "numeric"
            raise build_error(f"{self.fn_name}{self.kind}: needs {needed} tensors; got {label(x)!r} "
                              f"({x.type.short()}) and {label(y)!r} ({y.type.short()})", TypeError)
        return dtype


class AbstractConv(ConvBase):
    """The forward convolution of ``image`` by ``filters``.

    ``imshp``/``kshp``: Theano's ``input_shape``/``filter_shape`` hints (ints or None per
    axis): they refine the static output shape and are checked against the actual shapes.
    """

    __props__ = ConvBase.__props__ + ("imshp", "kshp")

    def __init__(self, convdim: int = 2, border_mode: Any = "valid", subsample: Any = 1,
                 filter_flip: bool = True, filter_dilation: Any = 1, num_groups: int = 1,
                 imshp: Sequence[int | None] | None = None, kshp: Sequence[int | None] | None = None) -> None:
        super().__init__(convdim, border_mode, subsample, filter_flip, filter_dilation, num_groups)
        self.imshp = tuple(imshp) if imshp is not None else (None,) * (convdim + 2)
        self.kshp = tuple(kshp) if kshp is not None else (None,) * (convdim + 2)

    def hinted(self, names: Names, image: Sequence[Any], kernel: Sequence[Any],
               fail: Fail = ValueError) -> tuple[tuple, tuple]:
        """The shapes with the hints filled in; ``fail`` when a hint contradicts a length."""
        shapes = []
        for name, shape, hint, what in ((names[0], image, self.imshp, "input_shape"),
                                        (names[1], kernel, self.kshp, "filter_shape")):
            for axis, (actual, given) in enumerate(zip(shape, hint)):
                if actual is not None and given is not None and actual != given:
                    raise fail(f"{self.fn_name}: {name} has shape {describe_shape(shape)}, but "
                               f"{what}={describe_shape(hint)} says axis {axis} is {given}")
            shapes.append(tuple(a if a is not None else g for a, g in zip(shape, hint)))
        return shapes[0], shapes[1]

    def output_shape(self, names: Names, image: Sequence[Any], kernel: Sequence[Any],
                     fail: Fail = ValueError) -> tuple[Any, ...]:
        return self.forward_shape(names, *self.hinted(names, image, kernel, fail), fail)

    def make_node(self, image: Any, filters: Any) -> Apply:
        image, filters = as_tensor_variable(image), as_tensor_variable(filters)
        self.check_ndim(image, filters)
        dtype = self.result_dtype(image, filters)
        shape = self.output_shape(_names(image, filters), image.type.shape, filters.type.shape, build_error)
        return Apply(self, [image, filters], [TensorType(dtype, shape)])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        image, kernel = inputs
        self.output_shape(_names(*node.inputs), image.shape, kernel.shape)
        dtype = node.outputs[0].type.dtype
        out = ref.correlate(image.astype(dtype, copy=False), self.flipped(kernel.astype(dtype, copy=False)),
                            self.pads(kernel.shape[2:]), self.subsample, self.filter_dilation,
                            self.num_groups)
        return [out]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        image = [g if g is not None else s for s, g in zip(input_shapes[0], self.imshp)]
        kernel = [g if g is not None else s for s, g in zip(input_shapes[1], self.kshp)]
        return [self.symbolic_forward_shape(image, kernel)]

    def L_op(self, inputs, outputs, output_grads):
        image, filters = inputs
        (g,) = output_grads
        grad_image = grad_filters = None
        if is_float(image.dtype):
            grad_image = AbstractConvGradInputs(**self.params())(filters, g, spatial_shape(image))
        if is_float(filters.dtype):
            grad_filters = AbstractConvGradWeights(**self.params())(image, g, spatial_shape(filters))
        return [grad_image, grad_filters]


class AbstractConvGradInputs(ConvBase):
    """The gradient of a convolution with respect to its image: a transposed convolution
    of ``output_grad`` by ``filters`` onto an image of spatial shape ``shape``."""

    kind = "_gradInputs"

    def image_shape(self, kernel: Sequence[Any], top: Sequence[Any], lengths: Sequence[Any]) -> tuple:
        channels = kernel[1] * self.num_groups if kernel[1] is not None else None
        return (top[0], channels) + tuple(lengths)

    def make_node(self, filters: Any, output_grad: Any, shape: Any) -> Apply:
        filters, top = as_tensor_variable(filters), as_tensor_variable(output_grad)
        self.check_ndim(filters, top)
        dtype = self.result_dtype(filters, top, floats_only=True)
        shape = as_shape_vector(shape, self.convdim, "input_shape")
        image = self.image_shape(filters.type.shape, top.type.shape, static_entries(shape))
        self.check_output_grad(("image",) + _names(filters, top), image, filters.type.shape,
                               top.type.shape, build_error)
        return Apply(self, [filters, top, shape], [TensorType(dtype, image)])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        kernel, top, lengths = inputs
        image = self.image_shape(kernel.shape, top.shape, [int(n) for n in lengths])
        self.check_output_grad(("image",) + _names(*node.inputs[:2]), image, kernel.shape, top.shape)
        dtype = node.outputs[0].type.dtype
        grad = ref.correlate_grad_input(top.astype(dtype, copy=False),
                                        self.flipped(kernel.astype(dtype, copy=False)), image[2:],
                                        self.pads(kernel.shape[2:]), self.subsample,
                                        self.filter_dilation, self.num_groups)
        return [grad]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        kernel, top, _ = input_shapes
        channels = kernel[1] * self.num_groups if self.num_groups != 1 else kernel[1]
        return [(top[0], channels) + tuple(vector_entries(node.inputs[2], self.convdim))]

    def L_op(self, inputs, outputs, output_grads):
        filters, top, _ = inputs
        (g,) = output_grads
        grad_filters = AbstractConvGradWeights(**self.params())(g, top, spatial_shape(filters))
        grad_top = AbstractConv(**self.params())(g, filters)
        return [grad_filters, grad_top, None]


class AbstractConvGradWeights(ConvBase):
    """The gradient of a convolution with respect to its filters, of spatial shape ``shape``."""

    kind = "_gradWeights"

    def kernel_shape(self, image: Sequence[Any], top: Sequence[Any], lengths: Sequence[Any]) -> tuple:
        channels = image[1] // self.num_groups if image[1] is not None else None
        return (top[1], channels) + tuple(lengths)

    def make_node(self, image: Any, output_grad: Any, shape: Any) -> Apply:
        image, top = as_tensor_variable(image), as_tensor_variable(output_grad)
        self.check_ndim(image, top)
        dtype = self.result_dtype(image, top, floats_only=True)
        shape = as_shape_vector(shape, self.convdim, "filter_shape")
        kernel = self.kernel_shape(image.type.shape, top.type.shape, static_entries(shape))
        names = _names(image, top)
        self.check_output_grad((names[0], "filters", names[1]), image.type.shape, kernel,
                               top.type.shape, build_error)
        return Apply(self, [image, top, shape], [TensorType(dtype, kernel)])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        image, top, lengths = inputs
        kernel = self.kernel_shape(image.shape, top.shape, [int(n) for n in lengths])
        names = _names(*node.inputs[:2])
        self.check_output_grad((names[0], "filters", names[1]), image.shape, kernel, top.shape)
        dtype = node.outputs[0].type.dtype
        grad = ref.correlate_grad_kernel(image.astype(dtype, copy=False), top.astype(dtype, copy=False),
                                         kernel[2:], self.pads(kernel[2:]), self.subsample,
                                         self.filter_dilation, self.num_groups)
        return [np.ascontiguousarray(self.flipped(grad))]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        image, top, _ = input_shapes
        channels = image[1] // self.num_groups if self.num_groups != 1 else image[1]
        return [(top[1], channels) + tuple(vector_entries(node.inputs[2], self.convdim))]

    def L_op(self, inputs, outputs, output_grads):
        image, top, _ = inputs
        (g,) = output_grads
        grad_image = AbstractConvGradInputs(**self.params())(g, top, spatial_shape(image))
        grad_top = AbstractConv(**self.params())(image, g)
        return [grad_image, grad_top, None]
