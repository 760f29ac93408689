"""A pooling window as Theano's functions and ops take it (``ws``, ``stride``, ``pad``,
and their deprecated names): known ints, checked, or int vectors computed in the graph."""

from __future__ import annotations

from typing import Any

import numpy as np

from symnb.core.graph.errors import build_error
from symnb.core.graph.basic import Variable
from symnb.core.tensor.conv_shapes import normalize_ints
from symnb.core.tensor.shape import as_shape_vector, static_entries, static_int
from symnb.core.graph.source import warn_at_user_line

__all__ = ["renamed", "window"]


def _static_ints(value: Any, count: int, what: str, minimum: int) -> tuple[int, ...]:
    """Ints, or int constants (Theano took symbolic vectors): XLA needs them when compiling."""
    if isinstance(value, Variable):
        value = (static_entries(value) or [None]) if value.ndim == 1 else [static_int(value)]
    elif isinstance(value, np.ndarray):
        value = value.tolist()
    elif isinstance(value, (tuple, list)):
        value = [static_int(v) if isinstance(v, Variable) else v for v in value]
    if isinstance(value, list) and None in value:
        raise build_error(f"pool: {what} must be known when the graph is built (ints or constants)",
                          TypeError)
    return normalize_ints(value, count, what, lambda message: build_error(f"pool: {message}"), minimum)


def _computed(value: Any, count: int) -> bool:
    """Whether a window parameter has an entry computed in the graph (not known now)."""
    if isinstance(value, Variable):
        entries = static_entries(value) if value.ndim == 1 else [static_int(value)]
        return len(entries) != count and value.ndim == 1 or None in entries
    if isinstance(value, (tuple, list)):
        return any(isinstance(v, Variable) and static_int(v) is None for v in value)
    return False


def renamed(new: Any, old: Any, new_name: str, old_name: str, unset: Any = None) -> Any:
    """Theano's deprecated argument names (``ds``, ``st``, ``padding``)."""
    if old is None:
        return new
    if new is not None and not (isinstance(new, (tuple, list)) and tuple(new) == unset):
        raise build_error(f"pool: give {new_name} or its old name {old_name}, not both", ValueError)
    warn_at_user_line(f"the {old_name!r} parameter of pooling is deprecated: use {new_name!r}",
                      DeprecationWarning)
    return old


def window(ndim: int, ws: Any, stride: Any, pad: Any, ignore_border: bool, what: str = "pool",
           wide_pad: bool = False) -> tuple[tuple[tuple[int, ...], ...] | None, list[Variable] | None]:
    """``(ws, stride, pad)`` as int tuples when known now (stride defaults to ws, pad to 0),
    with Theano's checks; else ``(None, three int vectors)`` (Lasagne's
    SpatialPyramidPooling computes them from the input's shape). ``wide_pad``: a padding
    as wide as the window is allowed (Theano's gradient ops take it)."""
    if ws is None:
        raise build_error(f"{what}: give the window size ws", ValueError)
    stride = ws if stride is None else stride
    pad = (0,) * ndim if pad is None else pad
    if any(_computed(v, ndim) for v in (ws, stride, pad)):
        return None, [as_shape_vector(v, ndim, name) for v, name in ((ws, "ws"), (stride, "stride"),
                                                                     (pad, "pad"))]
    ws = _static_ints(ws, ndim, "ws", 1)
    stride = _static_ints(stride, ndim, "stride", 1)
    pad = _static_ints(pad, ndim, "pad", 0)
    if any(pad) and not ignore_border:
        raise build_error(f"{what}: padding works only with ignore_border=True (as in Theano); "
                          f"got pad={pad}", NotImplementedError)
    if not wide_pad and any(p >= w for p, w in zip(pad, ws)):
        raise build_error(f"{what}: the padding {pad} must be smaller than the window {ws} on each "
                          f"axis", NotImplementedError)
    return (ws, stride, pad), None
