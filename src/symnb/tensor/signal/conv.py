"""``symnb.tensor.signal.conv``: Theano's older 2-d convolution of single images or
stacks of images by single filters or stacks of filters (a thin wrapper of
``T.nnet.conv2d``)."""

from __future__ import annotations

from typing import Any, Sequence

from symnb.core.graph.errors import build_error, label
from symnb.core.graph.basic import Variable
from symnb.core.tensor import conv_api
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.tensor.shape import dimshuffle
from symnb.core.graph.traceback_filter import entry_points as _entry_points

__all__ = ["conv2d"]


def _as_4d(var: Variable, hint: Sequence | None) -> tuple[Variable, tuple | None]:
    """A 2-d image/filter or a 3-d stack of them as 4-d, with one channel (and its shape hint)."""
    if var.ndim == 2:
        return dimshuffle(var, ("x", "x", 0, 1)), (None if hint is None else (1, 1) + tuple(hint[-2:]))
    four_d = dimshuffle(var, (0, "x", 1, 2))
    if hint is None:
        return four_d, None
    hint = tuple(hint)
    return four_d, ((hint[0] if len(hint) == 3 else None), 1) + hint[-2:]


def conv2d(input: Any, filters: Any, image_shape: Sequence | None = None,
           filter_shape: Sequence | None = None, border_mode: str = "valid",
           subsample: Any = (1, 1)) -> Variable:
    """The 2-d convolution (filters flipped, as ``scipy.signal.convolve2d``) of ``input``,
    an image ``(rows, cols)`` or a stack ``(images, rows, cols)``, by ``filters``, one
    ``(rows, cols)`` or a stack ``(filters, rows, cols)``; ``border_mode`` 'valid' or 'full'.

    The result has shape ``([images,] [filters,] rows, cols)``: the stack axes of the
    operands that have one. ``image_shape``/``filter_shape`` are optional known lengths.
    """
    input, filters = as_tensor_variable(input), as_tensor_variable(filters)
    for var, what in ((input, "input"), (filters, "filters")):
        if var.ndim not in (2, 3):
            raise build_error(f"signal.conv.conv2d: the {what} {label(var)!r} must be 2-d or 3-d; got "
                              f"{var.type.short()}", TypeError)
    if border_mode not in ("valid", "full"):
        raise build_error(f"signal.conv.conv2d: border_mode must be 'valid' or 'full'; got {border_mode!r}",
                          ValueError)
    images, input_hint = _as_4d(input, image_shape)
    kernels, filter_hint = _as_4d(filters, filter_shape)
    out = conv_api.conv2d(images, kernels, input_shape=input_hint, filter_shape=filter_hint,
                          border_mode=border_mode, subsample=subsample)
    if filters.ndim == 2:
        out = dimshuffle(out, (0, 2, 3))
    if input.ndim == 2:
        out = dimshuffle(out, tuple(range(1, out.ndim)))
    return out

_entry_points(globals())  # errors show the user's line (symnb.core.graph.traceback_filter)
