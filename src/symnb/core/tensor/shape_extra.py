"""Theano's shape functions, as compositions of existing ops: ``join``, ``tile``,
``repeat``, ``roll``, ``shape_padleft``/``shape_padright``/``shape_padaxis`` and the
broadcast-pattern functions (a length-1 axis is what Theano called broadcastable)."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from symnb.core.graph.errors import build_error, label
from symnb.core.graph.basic import Constant, Variable
from symnb.core.tensor import math as m
from symnb.core.tensor.alloc import alloc
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.tensor.extra_ops import SpecifyShape
from symnb.core.tensor.join import concatenate
from symnb.core.tensor.shape import flatten, normalize_axis, reshape, shape_i
from symnb.core.tensor.subtensor import getitem

__all__ = ["join", "tile", "repeat", "roll", "shape_padleft", "shape_padright", "shape_padaxis",
           "addbroadcast", "unbroadcast", "patternbroadcast"]


def join(axis: int, *tensors: Any) -> Variable:
    """``concatenate(tensors, axis)``, in Theano's argument order."""
    return concatenate(list(tensors), axis=axis)


def shape_padleft(t: Any, n_ones: int = 1) -> Variable:
    """``t`` with ``n_ones`` new length-1 axes in front."""
    t = as_tensor_variable(t)
    return t.dimshuffle(*(["x"] * n_ones), *range(t.ndim))


def shape_padright(t: Any, n_ones: int = 1) -> Variable:
    """``t`` with ``n_ones`` new length-1 axes at the end."""
    t = as_tensor_variable(t)
    return t.dimshuffle(*range(t.ndim), *(["x"] * n_ones))


def shape_padaxis(t: Any, axis: int) -> Variable:
    """``t`` with a new length-1 axis at position ``axis`` (negative counts from the end
    of the result)."""
    t = as_tensor_variable(t)
    position = normalize_axis(axis, t.ndim + 1, t)
    pattern: list[Any] = list(range(t.ndim))
    pattern.insert(position, "x")
    return t.dimshuffle(*pattern)


def _lengths(x: Variable) -> list[Any]:
    return [shape_i(x, d) for d in range(x.ndim)]


def _repeat_each(x: Variable, axis: int, times: Any) -> Variable:
    """Each slice along ``axis`` repeated ``times`` times in a row (``np.repeat``)."""
    lengths = _lengths(x)
    spread = alloc(shape_padaxis(x, axis + 1), *lengths[:axis + 1], times, *lengths[axis + 1:])
    return reshape(spread, [*lengths[:axis], m.mul(lengths[axis], times), *lengths[axis + 1:]])


def _repeat_whole(x: Variable, axis: int, times: Any) -> Variable:
    """The whole of ``x`` repeated ``times`` times along ``axis`` (``np.tile``)."""
    lengths = _lengths(x)
    spread = alloc(shape_padaxis(x, axis), *lengths[:axis], times, *lengths[axis:])
    return reshape(spread, [*lengths[:axis], m.mul(times, lengths[axis]), *lengths[axis + 1:]])


def repeat(x: Any, repeats: Any, axis: Any = None) -> Variable:
    """``np.repeat``: each element (slice along ``axis``; None: of the flattened input)
    repeated ``repeats`` times. ``repeats`` is an int, a symbolic int scalar, or a
    constant vector (one count per slice); a symbolic vector is not supported (the
    result's length would be a value, which XLA's static shapes cannot follow)."""
    x = as_tensor_variable(x)
    if axis is None:
        x, axis = flatten(x), 0
    axis = normalize_axis(axis, x.ndim, x)
    if isinstance(repeats, (list, tuple, np.ndarray)) or (
            isinstance(repeats, Constant) and repeats.ndim == 1):
        counts = np.asarray(repeats.data if isinstance(repeats, Constant) else repeats)
        if counts.ndim == 1:
            index = np.repeat(np.arange(len(counts)), counts)
            return getitem(x, (slice(None),) * axis + (index,))
        repeats = counts
    times = as_tensor_variable(repeats)
    if times.ndim != 0:
        raise build_error(f"repeat: repeats {label(times)!r} is a symbolic vector; symnb takes an "
                          f"int, a symbolic int scalar or a constant vector", NotImplementedError)
    return _repeat_each(x, axis, times)


def tile(x: Any, reps: Sequence[Any], ndim: int | None = None) -> Variable:
    """``np.tile``: ``x`` repeated ``reps[d]`` times along each axis ``d`` (``reps``
    shorter than ``x.ndim`` applies to the last axes; longer adds leading axes)."""
    x = as_tensor_variable(x)
    reps = list(reps)
    if ndim is not None and ndim != max(x.ndim, len(reps)):
        raise ValueError(f"tile: ndim={ndim} does not match max(x.ndim, len(reps)) = "
                         f"{max(x.ndim, len(reps))}")
    if len(reps) > x.ndim:
        x = shape_padleft(x, len(reps) - x.ndim)
    reps = [1] * (x.ndim - len(reps)) + reps
    for axis, times in enumerate(reps):
        if not (isinstance(times, int) and times == 1):
            x = _repeat_whole(x, axis, times)
    return x


def roll(x: Any, shift: Any, axis: Any = None) -> Variable:
    """``np.roll``: elements shifted by ``shift`` along ``axis`` (None: the flattened
    input, reshaped back), those leaving at one end coming back at the other."""
    x = as_tensor_variable(x)
    if axis is None:
        return reshape(roll(flatten(x), shift, 0), x.shape)
    axis = normalize_axis(axis, x.ndim, x)
    length = shape_i(x, axis)
    static = x.type.shape[axis]
    if isinstance(shift, (int, np.integer)) and static is not None:
        cut = static - (int(shift) % static) if static else 0
    else:  # the length of an empty axis is 0: any cut gives the empty result
        cut = m.sub(length, m.mod(as_tensor_variable(shift), m.maximum(length, 1)))
    head = (slice(None),) * axis
    return concatenate([getitem(x, head + (slice(cut, None),)),
                        getitem(x, head + (slice(None, cut),))], axis=axis)


def _axes(x: Variable, axes: Sequence[int], name: str) -> set[int]:
    return {normalize_axis(a, x.ndim, x) for a in axes}


def addbroadcast(x: Any, *axes: int) -> Variable:
    """``x`` with the given axes known to have length 1 (checked when the graph runs).

    ``x`` itself when they already are (Theano removed its no-op ``Rebroadcast`` at once,
    so the result of a no-op call can be, say, an update target)."""
    x = as_tensor_variable(x)
    chosen = _axes(x, axes, "addbroadcast")
    changed = {d for d in chosen if x.type.shape[d] != 1}
    if not changed:
        return x
    return SpecifyShape(tuple(1 if d in changed else None for d in range(x.ndim)))(x)


def unbroadcast(x: Any, *axes: int) -> Variable:
    """``x`` with the given axes' static length forgotten (the value is unchanged).

    Only a static length of 1 is forgotten (what Theano called broadcastable): ``x``
    itself when no chosen axis has one, as Theano's ``unbroadcast`` returned (Keras's
    stateful RNNs update the result of ``T.unbroadcast(state, 0, 1)``)."""
    x = as_tensor_variable(x)
    changed = sorted(d for d in _axes(x, axes, "unbroadcast") if x.type.shape[d] == 1)
    if not changed:
        return x
    return SpecifyShape((None,) * x.ndim, tuple(changed))(x)


def patternbroadcast(x: Any, broadcastable: Sequence[bool]) -> Variable:
    """``x`` whose length-1 axes are exactly those marked True in ``broadcastable``
    (``x`` itself when they already are, as in Theano)."""
    x = as_tensor_variable(x)
    pattern = list(broadcastable)
    if len(pattern) != x.ndim:
        raise build_error(f"patternbroadcast: {label(x)!r} has {x.ndim} dimension(s), the pattern "
                          f"{tuple(pattern)} has {len(pattern)}", ValueError, inputs=[x])
    add = tuple(d for d, b in enumerate(pattern) if b and x.type.shape[d] != 1)
    forget = tuple(d for d, b in enumerate(pattern) if not b and x.type.shape[d] == 1)
    if not add and not forget:
        return x
    return SpecifyShape(tuple(1 if d in add else None for d in range(x.ndim)), forget)(x)
