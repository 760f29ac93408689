"""Theano's shape functions, as compositions of existing ops: ``join``, ``tile``,
``repeat``, ``roll``, ``shape_padleft``/``shape_padright``/``shape_padaxis`` and the
broadcast-pattern functions (a length-1 axis is what Theano called broadcastable)."""

from __future__ import annotations

import warnings
from typing import Any, Sequence

import numpy as np

from symnb.core.graph.errors import build_error, label
from symnb.core.graph.type import is_integer
from symnb.core.graph.basic import Constant, Variable
from symnb.core.tensor import math as m
from symnb.core.tensor.alloc import alloc
from symnb.core.tensor.assertion import Assert
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.tensor.extra_ops import SpecifyShape
from symnb.core.tensor.extra_ops_numpy import RepeatOp
from symnb.core.tensor.join import concatenate
from symnb.core.tensor.shape import flatten, normalize_axis, reshape, shape_i
from symnb.core.tensor.subtensor import getitem

__all__ = ["get_vector_length", "is_flat", "join", "tile", "repeat", "roll", "shape_padleft", "shape_padright", "shape_padaxis",
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
    vector (one count per slice). A symbolic vector makes the result's length a value,
    which XLA's static shapes cannot follow: it builds Theano's ``RepeatOp``, which a
    compiled function runs on the host."""
    x = as_tensor_variable(x)
    if axis is None:
        x, axis = flatten(x), 0
    axis = normalize_axis(axis, x.ndim, x)
    if isinstance(repeats, (list, tuple, np.ndarray)) or (
            isinstance(repeats, Constant) and repeats.ndim == 1):
        counts = np.asarray(repeats.data if isinstance(repeats, Constant) else repeats)
        if counts.ndim == 1 and counts.shape[0] == 1:  # one count for every slice, as NumPy
            counts = counts[0]
        if counts.ndim == 1:
            index = np.repeat(np.arange(len(counts)), counts)
            return getitem(x, (slice(None),) * axis + (index,))
        repeats = counts
    times = as_tensor_variable(repeats)
    if times.dtype == "uint64":  # as Theano: NumPy's repeat cannot take uint64 counts
        raise build_error(f"repeat: the counts {label(times)!r} are uint64, which NumPy's repeat "
                          f"does not take; cast them to int64", TypeError, inputs=[times])
    if times.ndim == 1 and times.type.shape[0] == 1:  # one count, as Theano reads it
        times = getitem(times, 0)
    if times.ndim == 1:  # one count per slice: the length is their sum, known on the host
        return RepeatOp(axis=axis)(x, times)
    return _repeat_each(x, axis, times)


def tile(x: Any, reps: Any, ndim: int | None = None) -> Variable:
    """``np.tile``: ``x`` repeated ``reps[d]`` times along each axis ``d`` (Theano's
    ``T.tile``). ``reps`` is an int or an int scalar (one count: the last axis), a list or
    tuple of ints and int scalars, or an int vector (then ``ndim`` is needed unless its
    length is static). ``reps`` shorter than the result applies to its last axes; the
    result has ``ndim`` axes (default ``max(x.ndim, len(reps))``), new ones in front."""
    x = as_tensor_variable(x)
    if ndim is not None and ndim < x.ndim:
        raise build_error(f"tile: ndim={ndim} is smaller than the {x.ndim} dimension(s) of "
                          f"{label(x)!r}", ValueError, inputs=[x])
    reps = _reps_list(reps, ndim)
    if ndim is None:
        ndim = max(len(reps), x.ndim)
    if len(reps) > ndim:
        raise build_error(f"tile: reps has {len(reps)} counts, more than ndim={ndim}", ValueError)
    if ndim > x.ndim:
        x = shape_padleft(x, ndim - x.ndim)
    reps = [1] * (ndim - len(reps)) + reps
    for axis, times in enumerate(reps):
        if not (isinstance(times, (int, np.integer)) and times == 1):
            x = _repeat_whole(x, axis, times)
    return x


def _reps_list(reps: Any, ndim: int | None) -> list[Any]:
    """``tile``'s counts as a list of Python ints and symbolic int scalars."""
    if isinstance(reps, (list, tuple)):
        for r in reps:
            if not (isinstance(r, (int, np.integer))
                    or isinstance(r, Variable) and r.ndim == 0 and is_integer(r.dtype)):
                raise build_error(f"tile: the counts in reps must be ints or int scalars; got "
                                  f"{r!r} in {reps!r}", ValueError)
        return [int(r) if isinstance(r, (int, np.integer)) else r for r in reps]
    counts = as_tensor_variable(reps)
    if not is_integer(counts.dtype):
        what = repr(reps) if not isinstance(reps, Variable) else f"{label(reps)!r}, {reps.type.short()}"
        raise build_error(f"tile: reps must hold integers; got {what}", ValueError)
    if counts.ndim > 1:
        raise build_error(f"tile: reps is an int, a list or an int vector; {label(counts)!r} has "
                          f"{counts.ndim} dimensions", ValueError, inputs=[counts])
    if counts.ndim == 0:
        return [int(counts.data) if isinstance(counts, Constant) else counts]
    if isinstance(counts, Constant):
        return [int(r) for r in counts.data]
    length = counts.type.shape[0]
    if length is not None:
        return [getitem(counts, i) for i in range(length)]
    if ndim is None:
        raise build_error(f"tile: reps {label(counts)!r} is a vector of unknown length; give ndim "
                          f"(the result's number of dimensions)", ValueError, inputs=[counts])
    # Theano's padding: count i of the result is 1 before the vector starts.
    offset = Assert("tile: reps has more counts than ndim")(
        m.sub(ndim, shape_i(counts, 0)), m.ge(m.sub(ndim, shape_i(counts, 0)), 0))
    return [m.switch(m.lt(i, offset), 1, getitem(counts, m.maximum(m.sub(i, offset), 0)))
            for i in range(ndim)]


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


def get_vector_length(v: Any) -> int:
    """The length of the vector ``v`` when it is known before the program runs (its
    static shape, a constant, ``x.shape``, a stack of scalars...), Theano's
    ``T.get_vector_length``; ``ValueError`` when it is not, ``TypeError`` when ``v`` is
    no vector."""
    v = as_tensor_variable(v)
    if v.ndim != 1:
        raise TypeError(f"get_vector_length: argument must be a symbolic vector, got "
                        f"{label(v)!r} with {v.ndim} dimensions")
    length = v.type.shape[0]
    if length is None and isinstance(v, Constant):
        length = len(v.data)
    if length is None:
        raise ValueError(f"length not known: {label(v)!r}")
    return int(length)


def is_flat(var: Any, ndim: int | None = None, outdim: int | None = None) -> bool:
    """Whether ``var`` has ``ndim`` dimensions (default 1), Theano's ``T.is_flat``;
    ``outdim`` is Theano's deprecated spelling (it warns, as Theano did)."""
    if outdim is None and ndim is None:
        ndim = 1
    elif outdim is not None and ndim is not None:
        raise ValueError("You should only specify ndim")
    elif outdim is not None:
        warnings.warn("flatten outdim parameter is deprecated, use ndim instead.", stacklevel=2)
        ndim = outdim
    return var.ndim == ndim
