"""NumPy reference implementations of N-d correlation and its two gradients.

These are the ``perform`` of the convolution ops (``conv.py``), hence the test-value
engine. They work on channels-first arrays (``N, C, *spatial``) with the *effective*
kernel (``O, C // groups, *kernel``), correlated without flipping: the ops flip the
kernel first for a true convolution. ``pads`` holds one ``(low, high)`` pair per
spatial axis; ``strides`` and ``dilation`` one int each.

Vectorized as im2col: the windows are a strided view of the padded input
(``sliding_window_view``), contracted with the kernel by ``tensordot`` (one matrix
product per group). The input gradient adds one strided slice per kernel tap, never
looping over pixels.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

__all__ = ["pad_spatial", "window_view", "correlate", "correlate_grad_input", "correlate_grad_kernel"]

Pads = Sequence[tuple[int, int]]


def pad_spatial(x: np.ndarray, pads: Pads, value: float = 0) -> np.ndarray:
    """``x`` padded with ``value`` on its trailing ``len(pads)`` axes."""
    if not any(low or high for low, high in pads):
        return x
    lead = ((0, 0),) * (x.ndim - len(pads))
    return np.pad(x, lead + tuple(pads), constant_values=value)


def window_view(x: np.ndarray, window: Sequence[int], strides: Sequence[int],
                dilation: Sequence[int] | None = None) -> np.ndarray:
    """A read-only view of ``x`` of shape ``(*lead, *positions, *window)`` over its trailing
    ``len(window)`` axes: position ``p``, tap ``t`` reads ``x[..., p * stride + t * dilation]``.

    Every axis must be at least as long as the dilated window.
    """
    nd = len(window)
    dilation = tuple(dilation) if dilation is not None else (1,) * nd
    spans = tuple((w - 1) * d + 1 for w, d in zip(window, dilation))
    axes = tuple(range(x.ndim - nd, x.ndim))
    view = sliding_window_view(x, spans, axis=axes)
    lead = (slice(None),) * (x.ndim - nd)
    return view[lead + tuple(slice(None, None, s) for s in strides)
                + tuple(slice(None, None, d) for d in dilation)]


def _group(g: int, size: int) -> slice:
    return slice(g * size, (g + 1) * size)


def correlate(x: np.ndarray, kernel: np.ndarray, pads: Pads, strides: Sequence[int],
              dilation: Sequence[int], groups: int) -> np.ndarray:
    """``out[n, o, p] = sum_{c, t} xpad[n, group(o) * Cg + c, p * stride + t * dilation]
    * kernel[o, c, t]`` (``Cg`` channels per group)."""
    nd = kernel.ndim - 2
    windows = window_view(pad_spatial(x, pads), kernel.shape[2:], strides, dilation)
    out_channels, group_channels = kernel.shape[0] // groups, kernel.shape[1]
    out = np.empty((x.shape[0], kernel.shape[0]) + windows.shape[2:2 + nd], dtype=x.dtype)
    window_axes = [1] + list(range(2 + nd, 2 + 2 * nd))
    kernel_axes = list(range(1, 2 + nd))
    for g in range(groups):
        part = np.tensordot(windows[:, _group(g, group_channels)], kernel[_group(g, out_channels)],
                            axes=(window_axes, kernel_axes))  # (N, *positions, O_g)
        out[:, _group(g, out_channels)] = np.moveaxis(part, -1, 1)
    return out


def correlate_grad_input(top: np.ndarray, kernel: np.ndarray, image_shape: Sequence[int],
                         pads: Pads, strides: Sequence[int], dilation: Sequence[int],
                         groups: int) -> np.ndarray:
    """The transpose of :func:`correlate` in ``x``: the gradient of ``sum(out * top)`` with
    respect to an input of spatial shape ``image_shape``. Input positions no window reads
    (cut off by the stride) get zero."""
    nd = kernel.ndim - 2
    out_channels, group_channels = kernel.shape[0] // groups, kernel.shape[1]
    positions = top.shape[2:]
    padded = tuple(n + low + high for n, (low, high) in zip(image_shape, pads))
    grad = np.zeros((top.shape[0], group_channels * groups) + padded, dtype=top.dtype)
    for g in range(groups):
        # cols[n, c, *positions, *taps]: what each window sends back to each of its taps.
        cols = np.tensordot(top[:, _group(g, out_channels)], kernel[_group(g, out_channels)],
                            axes=([1], [0]))
        cols = np.moveaxis(cols, 1 + nd, 1)
        target = grad[:, _group(g, group_channels)]
        for tap in np.ndindex(*kernel.shape[2:]):
            region = tuple(slice(t * d, t * d + (p - 1) * s + 1, s)
                           for t, d, p, s in zip(tap, dilation, positions, strides))
            target[(Ellipsis,) + region] += cols[(Ellipsis,) + tap]
    crop = tuple(slice(low, low + n) for (low, _), n in zip(pads, image_shape))
    return grad[(slice(None), slice(None)) + crop]


def correlate_grad_kernel(x: np.ndarray, top: np.ndarray, kernel_shape: Sequence[int],
                          pads: Pads, strides: Sequence[int], dilation: Sequence[int],
                          groups: int) -> np.ndarray:
    """The transpose of :func:`correlate` in ``kernel``: the gradient of ``sum(out * top)``
    with respect to a kernel of spatial shape ``kernel_shape``."""
    nd = len(kernel_shape)
    windows = window_view(pad_spatial(x, pads), kernel_shape, strides, dilation)
    out_channels, group_channels = top.shape[1] // groups, x.shape[1] // groups
    grad = np.empty((top.shape[1], group_channels) + tuple(kernel_shape), dtype=x.dtype)
    summed = [0] + list(range(2, 2 + nd))  # batch and positions, in both operands
    for g in range(groups):
        grad[_group(g, out_channels)] = np.tensordot(
            top[:, _group(g, out_channels)], windows[:, _group(g, group_channels)],
            axes=(summed, summed))
    return grad
