"""The public pooling functions, Theano's signatures (``theano.tensor.signal.pool`` and the
older ``theano.tensor.signal.downsample``); the ops are in ``pool.py``."""

from __future__ import annotations

from typing import Any

from symnb.core.graph.basic import Variable
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.tensor.pool import MaxPoolGrad, Pool
from symnb.core.tensor.pool_window import renamed
from symnb.core.graph.source import warn_at_user_line

__all__ = ["pool_2d", "pool_3d", "max_pool_2d", "max_pool_2d_same_size"]


def _pool(ndim: int, input: Any, ws: Any, ignore_border: bool, stride: Any, pad: Any, mode: str,
          ds: Any, st: Any, padding: Any) -> Variable:
    ws = renamed(ws, ds, "ws", "ds")
    stride = renamed(stride, st, "stride", "st")
    pad = renamed(pad, padding, "pad", "padding", unset=(0,) * ndim)
    return Pool(bool(ignore_border), mode, ndim)(as_tensor_variable(input), ws, stride, pad)


def _default_ignore_border(ignore_border: bool | None, function: str, no_pad: str) -> bool:
    """Theano 1.0's default: not given, it warns (Theano's text) and keeps the partial
    windows (False)."""
    if ignore_border is not None:
        return ignore_border
    warn_at_user_line(
        f"{function}() will have the parameter ignore_border"
        " default value changed to True (currently"
        " False). To have consistent behavior with all Theano"
        " version, explicitly add the parameter ignore_border=True."
        " On the GPU, using ignore_border=True is needed to use cuDNN."
        " When using ignore_border=False and not using cuDNN, the only"
        " GPU combination supported is when"
        f" `ws == stride and pad == {no_pad} and mode == 'max'`."
        " Otherwise, the convolution will be executed on CPU.")
    return False


def pool_2d(input: Any, ws: Any = None, ignore_border: bool | None = None, stride: Any = None,
            pad: Any = (0, 0), mode: str = "max", ds: Any = None, st: Any = None,
            padding: Any = None) -> Variable:
    """Pool ``input`` over its last two axes with windows of ``ws = (rows, cols)``.

    - ``stride``: the step between windows (default ``ws``: no overlap);
    - ``ignore_border``: True drops the partial windows at the far borders, False keeps
      them (a 5x5 input with ``ws=(2, 2)`` gives 2x2, or 3x3); not given, it warns and
      is False, as in Theano 1.0;
    - ``pad``: zeros added on both sides of each axis (with ``ignore_border=True`` only);
    - ``mode``: ``'max'``, ``'sum'``, ``'average_inc_pad'`` (padding counted in the
      divisor) or ``'average_exc_pad'`` (not counted). Max and sum ignore the padding.

    ``ds``, ``st`` and ``padding`` are Theano's deprecated names of ``ws``, ``stride``, ``pad``.
    """
    ignore_border = _default_ignore_border(ignore_border, "pool_2d", "(0, 0)")
    return _pool(2, input, ws, ignore_border, stride, pad, mode, ds, st, padding)


def pool_3d(input: Any, ws: Any = None, ignore_border: bool | None = None, stride: Any = None,
            pad: Any = (0, 0, 0), mode: str = "max", ds: Any = None, st: Any = None,
            padding: Any = None) -> Variable:
    """:func:`pool_2d` over the last three axes (``ignore_border`` not given: it warns and
    is False, as in Theano 1.0)."""
    ignore_border = _default_ignore_border(ignore_border, "pool_3d", "(0, 0, 0)")
    return _pool(3, input, ws, ignore_border, stride, pad, mode, ds, st, padding)


def max_pool_2d(input: Any, ds: Any, ignore_border: bool = False, st: Any = None,
                padding: Any = (0, 0), mode: str = "max") -> Variable:
    """The old ``theano.tensor.signal.downsample.max_pool_2d`` spelling of :func:`pool_2d`
    (window ``ds``, stride ``st``, ``padding``), with its old default ``ignore_border=False``."""
    return _pool(2, input, ds, ignore_border, st, padding, mode, None, None, None)


def max_pool_2d_same_size(input: Any, patch_size: Any) -> Variable:
    """``input`` with every value but the maximum of each non-overlapping ``patch_size``
    patch set to zero (of each patch's first maximum, where several tie)."""
    input = as_tensor_variable(input)
    pooled = pool_2d(input, patch_size, ignore_border=True)
    op = pooled.owner.op
    return MaxPoolGrad.bound(*op._props())(input, pooled)
