"""Pooling over the last ``ndim`` axes, with Theano's semantics (``signal.pool.pool_2d``).

Windows of ``ws`` positions every ``stride``, on the input padded with ``pad`` on both
sides of each pooled axis:

- ``ignore_border=True``: only whole windows, ``(n + 2 * pad - ws) // stride + 1`` of them
  (at least 0). ``ignore_border=False``: also the partial windows at the far border, so
  every position is covered: ``(n - 1) // stride + 1`` when ``stride >= ws``, else
  ``max(0, (n - 1 - ws) // stride + 1) + 1`` (Theano allows ``pad`` only with
  ``ignore_border=True``).
- ``'max'`` and ``'sum'`` never see the padding; ``'average_inc_pad'`` divides by the
  window's size within the padded input, ``'average_exc_pad'`` by its size within the
  unpadded input.

Gradients: max pooling routes each output's gradient to the *first* maximum of its
window (row-major order), as XLA's select-and-scatter does (Theano gave it to every
tied maximum); the other modes spread it over the window, divided as the forward
divides. The NumPy ``perform`` methods are vectorized over strided window views.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from symnb.core.graph.errors import build_error
from symnb.core.graph.basic import Apply, Variable
from symnb.core.graph.op import Op
from symnb.core.tensor import math as m
from symnb.core.tensor.alloc import zeros_like
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.tensor.conv_reference import pad_spatial, window_view
from symnb.core.graph.type import TensorType, is_bool, is_float

__all__ = ["Pool", "MaxPoolGrad", "MaxPoolGradGrad", "AveragePoolGrad", "MODES", "pool_output_length"]

MODES = ("max", "sum", "average_inc_pad", "average_exc_pad")


def pool_output_length(length: Any, ws: int, stride: int, pad: int, ignore_border: bool) -> Any:
    """The number of windows along an axis of ``length`` (an int, None or a symbolic scalar)."""
    if length is None:
        return None
    padded = length + 2 * pad if pad else length
    if ignore_border:
        count = (padded - ws) // stride + 1
        return max(count, 0) if isinstance(count, int) else m.maximum(count, 0)
    if stride >= ws:
        return (padded - 1) // stride + 1
    count = (padded - 1 - ws) // stride + 1
    return (max(count, 0) if isinstance(count, int) else m.maximum(count, 0)) + 1


class PoolBase(Op):
    """The window geometry shared by the pooling ops; ``x`` is the pooled input."""

    __props__ = ("ndim", "ws", "stride", "pad", "ignore_border", "mode")

    def __init__(self, ndim: int, ws: Sequence[int], stride: Sequence[int], pad: Sequence[int],
                 ignore_border: bool, mode: str) -> None:
        self.ndim = int(ndim)
        self.ws, self.stride, self.pad = tuple(ws), tuple(stride), tuple(pad)
        self.ignore_border = bool(ignore_border)
        self.mode = mode

    def display_name(self) -> str:
        extra = [f"ws={self.ws}"] + ([f"stride={self.stride}"] if self.stride != self.ws else [])
        extra += [f"pad={self.pad}"] if any(self.pad) else []
        extra += [] if self.ignore_border else ["ignore_border=False"]
        return f"{type(self).__name__}{{{self.mode}, {', '.join(extra)}}}"

    def out_lengths(self, spatial: Sequence[Any]) -> tuple[Any, ...]:
        return tuple(pool_output_length(n, w, s, p, self.ignore_border)
                     for n, w, s, p in zip(spatial, self.ws, self.stride, self.pad))

    def output_shape(self, shape: Sequence[Any]) -> tuple[Any, ...]:
        return tuple(shape[:-self.ndim]) + self.out_lengths(shape[-self.ndim:])

    def paddings(self, spatial: Sequence[int]) -> list[tuple[int, int]]:
        """``(low, high)`` per pooled axis: ``pad``, plus room for the partial windows."""
        pads = []
        for n, out, w, s, p in zip(spatial, self.out_lengths(spatial), self.ws, self.stride, self.pad):
            reach = (out - 1) * s + w  # where the last window ends, in padded coordinates
            pads.append((p, max(p, reach - n - p)))
        return pads

    def fill_value(self, dtype: str) -> Any:
        """What the padding holds: never a maximum for 'max', nothing for the sums."""
        if self.mode != "max":
            return 0
        return -np.inf if is_float(dtype) else np.iinfo(dtype).min

    def window_counts(self, spatial: Sequence[int], dtype: str) -> np.ndarray | None:
        """The divisor of each window for the average modes (None for 'max' and 'sum')."""
        if not self.mode.startswith("average"):
            return None
        counts = np.ones((), dtype=np.int64)
        for n, out, w, s, p in zip(spatial, self.out_lengths(spatial), self.ws, self.stride, self.pad):
            starts = np.arange(out) * s
            if self.mode == "average_inc_pad":
                sizes = np.minimum(starts + w, n + 2 * p) - starts
            else:
                sizes = np.minimum(starts + w, n + p) - np.maximum(starts, p)
            counts = np.multiply.outer(counts, sizes)
        return counts.astype(dtype)

    def windows(self, x: np.ndarray, fill: Any) -> np.ndarray:
        """``(*lead, *positions, *window)`` view of ``x`` padded with ``fill``."""
        spatial = x.shape[-self.ndim:]
        view = window_view(pad_spatial(x, self.paddings(spatial), fill), self.ws, self.stride)
        crop = tuple(slice(0, n) for n in self.out_lengths(spatial))
        return view[(Ellipsis,) + crop + (slice(None),) * self.ndim]

    def pool(self, x: np.ndarray) -> np.ndarray:
        """The forward pooling of ``x`` (NumPy)."""
        dtype = x.dtype
        spatial = x.shape[-self.ndim:]
        out_shape = x.shape[:-self.ndim] + self.out_lengths(spatial)
        if 0 in out_shape[-self.ndim:]:
            return np.zeros(out_shape, dtype)
        axes = tuple(range(-self.ndim, 0))
        windows = self.windows(x, self.fill_value(str(dtype)))
        if self.mode == "max":
            return windows.max(axis=axes)
        total = windows.sum(axis=axes, dtype=dtype)
        counts = self.window_counts(spatial, str(dtype))
        return total if counts is None else total / counts

    def first_maxima(self, x: np.ndarray) -> tuple[np.ndarray, list[tuple[int, int]]]:
        """For each window, the flat index (in the padded pooled axes) of its first maximum,
        shaped ``(lead size, *positions)``; and the paddings."""
        spatial = x.shape[-self.ndim:]
        pads = self.paddings(spatial)
        flat = x.reshape((-1,) + spatial)
        windows = self.windows(flat, self.fill_value(str(x.dtype)))
        choice = windows.reshape(windows.shape[:1 + self.ndim] + (-1,)).argmax(axis=-1)
        taps = np.unravel_index(choice, self.ws)
        coords = []
        for i, (tap, s) in enumerate(zip(taps, self.stride)):
            starts = np.arange(choice.shape[1 + i]) * s
            coords.append(tap + starts.reshape((-1,) + (1,) * (self.ndim - 1 - i)))
        padded = tuple(n + low + high for n, (low, high) in zip(spatial, pads))
        return np.ravel_multi_index(coords, padded), pads

    def check_input(self, x: Variable, what: str = "pool") -> None:
        if x.ndim < self.ndim:
            raise build_error(f"{what}: the input needs at least {self.ndim} dimensions (it pools the "
                              f"last {self.ndim}); got {x.type.short()}", TypeError)
        if is_bool(x.dtype) or (self.mode.startswith("average") and not is_float(x.dtype)):
            raise build_error(f"{what}: mode {self.mode!r} does not take {x.dtype} inputs; cast "
                              f"them to a float dtype first", TypeError)

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [self.output_shape(input_shapes[0])]


def _crop(padded: np.ndarray, pads: Sequence[tuple[int, int]], spatial: Sequence[int]) -> np.ndarray:
    return padded[(Ellipsis,) + tuple(slice(low, low + n) for (low, _), n in zip(pads, spatial))]


class Pool(PoolBase):
    """Pooling of ``x`` over its last ``ndim`` axes."""

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        self.check_input(x)
        return Apply(self, [x], [TensorType(x.dtype, self.output_shape(x.type.shape))])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [np.asarray(self.pool(inputs[0]), dtype=node.outputs[0].type.dtype)]

    def L_op(self, inputs, outputs, output_grads):
        (x,), (g,) = inputs, output_grads
        if not is_float(x.dtype):
            return [None]
        grad_op = MaxPoolGrad if self.mode == "max" else AveragePoolGrad
        return [grad_op(*self._props())(x, g)]


class _PoolGradBase(PoolBase):
    """A linear map of ``g`` that depends on ``x`` (for its shape, or where its maxima are)."""

    def make_node(self, x: Any, g: Any) -> Apply:
        x, g = as_tensor_variable(x), as_tensor_variable(g)
        self.check_input(x, type(self).__name__)
        if not is_float(g.dtype) or g.ndim != x.ndim:
            raise build_error(f"{type(self).__name__}: the gradient must be a float tensor of "
                              f"{x.ndim} dimensions; got {g.type.short()}", TypeError)
        return Apply(self, [x, g], [TensorType(x.dtype, self.result_shape(x.type.shape))])

    def result_shape(self, x_shape: Sequence[Any]) -> tuple[Any, ...]:
        return tuple(x_shape)  # the gradient with respect to x

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [self.result_shape(input_shapes[0])]


class MaxPoolGrad(_PoolGradBase):
    """The gradient of max pooling: ``g`` sent to the first maximum of each window of ``x``."""

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x, g = inputs
        spatial = x.shape[-self.ndim:]
        if g.size == 0:
            return [np.zeros(x.shape, node.outputs[0].type.dtype)]
        index, pads = self.first_maxima(x)
        padded = tuple(n + low + high for n, (low, high) in zip(spatial, pads))
        size = int(np.prod(padded))
        rows = np.arange(index.shape[0]).reshape((-1,) + (1,) * self.ndim) * size
        total = np.bincount((index + rows).ravel(), weights=g.reshape(-1), minlength=index.shape[0] * size)
        grad = _crop(total.reshape((-1,) + padded), pads, spatial).reshape(x.shape)
        return [grad.astype(node.outputs[0].type.dtype)]

    def L_op(self, inputs, outputs, output_grads):
        x, _ = inputs
        (gg,) = output_grads
        # Piecewise linear in g, with a routing constant almost everywhere in x.
        return [zeros_like(x), MaxPoolGradGrad(*self._props())(x, gg)]


class MaxPoolGradGrad(_PoolGradBase):
    """The forward-mode derivative of max pooling: ``t`` read at the first maximum of each
    window of ``x`` (shaped as the pooled output); the gradient of :class:`MaxPoolGrad`."""

    def result_shape(self, x_shape: Sequence[Any]) -> tuple[Any, ...]:
        return self.output_shape(x_shape)

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x, t = inputs
        out_shape = self.output_shape(x.shape)
        if 0 in out_shape:
            return [np.zeros(out_shape, node.outputs[0].type.dtype)]
        index, pads = self.first_maxima(x)
        spatial = x.shape[-self.ndim:]
        padded = pad_spatial(t.reshape((-1,) + spatial), pads).reshape(index.shape[0], -1)
        picked = np.take_along_axis(padded, index.reshape(index.shape[0], -1), axis=1)
        return [picked.reshape(out_shape).astype(node.outputs[0].type.dtype)]

    def L_op(self, inputs, outputs, output_grads):
        x, _ = inputs
        (g,) = output_grads
        return [zeros_like(x), MaxPoolGrad(*self._props())(x, g)]


class AveragePoolGrad(_PoolGradBase):
    """The gradient of the 'sum' and average poolings: the transpose of the forward map
    (``x`` only gives the shape)."""

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x, g = inputs
        dtype = node.outputs[0].type.dtype
        spatial = x.shape[-self.ndim:]
        pads = self.paddings(spatial)
        out_lengths = self.out_lengths(spatial)
        counts = self.window_counts(spatial, dtype)
        share = g.astype(dtype) if counts is None else g.astype(dtype) / counts
        padded_spatial = tuple(n + low + high for n, (low, high) in zip(spatial, pads))
        padded = np.zeros(x.shape[:-self.ndim] + padded_spatial, dtype)
        if 0 not in out_lengths:
            for tap in np.ndindex(*self.ws):
                region = tuple(slice(t, t + (o - 1) * s + 1, s)
                               for t, o, s in zip(tap, out_lengths, self.stride))
                padded[(Ellipsis,) + region] += share
        return [np.ascontiguousarray(_crop(padded, pads, spatial))]

    def L_op(self, inputs, outputs, output_grads):
        x, _ = inputs
        (gg,) = output_grads
        return [zeros_like(x), Pool(*self._props())(gg)]
