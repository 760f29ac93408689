"""Convolution geometry with Theano's semantics: border modes as paddings, output
lengths, and the shape checks that every path (build time, test values, XLA) shares.

- ``border_mode``: ``'valid'`` (no padding), ``'full'`` (``dilated kernel - 1`` on each
  side), ``'half'`` (``dilated kernel // 2`` on each side: the output keeps the input's
  length for odd kernels), an int (that padding on every spatial axis), or a tuple with
  one entry per spatial axis, each an int or a ``(low, high)`` pair.
- A kernel of ``k`` taps dilated by ``d`` spans ``(k - 1) * d + 1`` input positions.
- Output length: ``(length + low + high - span) // stride + 1``.

Lengths may be ints, ``None`` (unknown statically) or symbolic int scalars (in
``infer_shape``); the arithmetic below works on all three.
"""

from __future__ import annotations

import numbers
from typing import Any, Callable, Sequence

from symnb.core.graph.type import describe_shape

__all__ = [
    "normalize_border_mode", "normalize_ints", "kernel_span", "paddings", "output_length",
    "check_forward", "BorderMode", "Fail",
]

#: ``'valid'``, ``'full'``, ``'half'`` or one ``(low, high)`` pair per spatial axis.
BorderMode = Any
#: Makes the exception to raise from a message (``build_error`` at build time).
Fail = Callable[[str], Exception]


def _is_int(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def normalize_border_mode(border_mode: Any, convdim: int, fail: Fail = ValueError) -> BorderMode:
    """A hashable border mode: one of the strings, or a tuple of ``(low, high)`` pairs.

    Explicit all-zero paddings become ``'valid'``, as in Theano.
    """
    if isinstance(border_mode, str):
        if border_mode not in ("valid", "full", "half"):
            raise fail(f"border_mode must be 'valid', 'full', 'half', an int or a tuple of "
                       f"{convdim}; got {border_mode!r}")
        return border_mode
    entries = (border_mode,) * convdim if _is_int(border_mode) else border_mode
    if not isinstance(entries, (tuple, list)) or len(entries) != convdim:
        raise fail(f"border_mode must be 'valid', 'full', 'half', an int or a tuple of "
                   f"{convdim} entries (ints or (low, high) pairs); got {border_mode!r}")
    pairs = []
    for entry in entries:
        if _is_int(entry):
            pair = (entry, entry)
        else:
            pair = tuple(entry) if isinstance(entry, (tuple, list)) else None
        if pair is None or len(pair) != 2 or not all(_is_int(p) and p >= 0 for p in pair):
            raise fail(f"border_mode {border_mode!r}: each entry must be a non-negative int or a "
                       f"pair of them; got {entry!r}")
        pairs.append((int(pair[0]), int(pair[1])))
    if all(pair == (0, 0) for pair in pairs):
        return "valid"
    return tuple(pairs)


def normalize_ints(value: Any, count: int, what: str, fail: Fail = ValueError,
                   minimum: int = 1) -> tuple[int, ...]:
    """``value`` (an int or a sequence of ``count`` ints) as a tuple of ints >= ``minimum``."""
    entries = (value,) * count if _is_int(value) else value
    if (not isinstance(entries, (tuple, list)) or len(entries) != count
            or not all(_is_int(v) and v >= minimum for v in entries)):
        raise fail(f"{what} must be {count} int(s) >= {minimum}; got {value!r}")
    return tuple(int(v) for v in entries)


def kernel_span(taps: Any, dilation: int) -> Any:
    """The input positions a kernel of ``taps`` taps spans once dilated."""
    if taps is None:
        return None
    return taps if dilation == 1 else (taps - 1) * dilation + 1


def paddings(border_mode: BorderMode, spans: Sequence[Any]) -> tuple[tuple[Any, Any], ...]:
    """One ``(low, high)`` padding per spatial axis (``None`` where the span is unknown)."""
    if isinstance(border_mode, tuple):
        return border_mode
    pads = []
    for span in spans:
        if border_mode == "valid":
            pads.append((0, 0))
        elif span is None:
            pads.append((None, None))
        elif border_mode == "full":
            pads.append((span - 1, span - 1))
        else:  # half
            pads.append((span // 2, span // 2))
    return tuple(pads)


def output_length(length: Any, span: Any, pad: tuple[Any, Any], stride: int) -> Any:
    """``(length + low + high - span) // stride + 1``; None when a term is unknown."""
    if length is None or span is None or None in pad:
        return None
    padded = length - span
    for side in pad:
        if not (_is_int(side) and side == 0):
            padded = padded + side
    if stride != 1:
        padded = padded // stride
    return padded + 1


def check_forward(fn_name: str, names: tuple[str, str], image: Sequence[Any], kernel: Sequence[Any],
                  border_mode: BorderMode, subsample: Sequence[int], dilation: Sequence[int],
                  groups: int, fail: Fail = ValueError) -> tuple[Any, ...]:
    """The output shape of the convolution of ``image`` by ``kernel`` (shapes with ``None``
    where unknown); raises ``fail(message)`` when the known lengths cannot work, naming
    both shapes and the axis that disagrees."""
    x, w = names
    shapes = (f"the input {x} has shape {describe_shape(image)} and the filters {w} have shape "
              f"{describe_shape(kernel)}")
    channels, group_channels = image[1], kernel[1]
    for count, what, axis in ((channels, f"input {x}", 1), (kernel[0], f"filters {w}", 0)):
        if groups > 1 and count is not None and count % groups:
            raise fail(f"{fn_name}: {shapes}: num_groups={groups} does not divide the {count} "
                       f"{'channels' if axis else 'filters'} of the {what} (axis {axis})")
    if channels is not None and group_channels is not None and channels != group_channels * groups:
        expected = f"{group_channels}"
        if groups > 1:
            expected += f" x num_groups={groups} = {group_channels * groups}"
        raise fail(f"{fn_name}: {shapes}: the input has {channels} channels (axis 1) but the "
                   f"filters take {expected} (their axis 1)")
    spans = [kernel_span(k, d) for k, d in zip(kernel[2:], dilation)]
    pads = paddings(border_mode, spans)
    out = []
    for i, (length, span, pad, stride) in enumerate(zip(image[2:], spans, pads, subsample)):
        if length is not None and span is not None and None not in pad and length + sum(pad) < span:
            taps = kernel[2 + i]
            dilated = f" ({taps} taps dilated by {dilation[i]})" if dilation[i] != 1 else ""
            raise fail(f"{fn_name}: {shapes}: the input is smaller than the filters on axis {2 + i}: "
                       f"{length} positions + padding {pad} (border_mode={_mode_text(border_mode)}) = "
                       f"{length + sum(pad)}, fewer than the {span} the filters span{dilated}")
        out.append(output_length(length, span, pad, stride))
    return (image[0], kernel[0]) + tuple(out)


def _mode_text(border_mode: BorderMode) -> str:
    return repr(border_mode) if isinstance(border_mode, str) else str(border_mode)
