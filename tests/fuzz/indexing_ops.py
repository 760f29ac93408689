"""Indexing steps for the differential fuzz: basic and advanced ``x[...]``, and
``set_subtensor`` / ``inc_subtensor``, with in-range indices only.

An index is drawn as a list of entries, each an int, a slice (bounds beyond the axis
are fine: slices clip), ``None``, an integer array (a constant, or a symbolic input
holding in-range values) or a boolean mask (a constant, or a symbolic input: its
value-dependent length splits the compiled function, ``symnb/compile/split_program.py``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

import symnb.tensor as T
from tests.fuzz import bounds
from tests.fuzz.program import Builder
from tests.fuzz.shapes import MAX_SIZE, draw_values, integer_result_exact, new_input, pick

__all__ = ["get", "assign"]


class Symbolic:
    """An index part given as a symbolic input: its position among the values."""

    def __init__(self, index: int) -> None:
        self.index = index


def _draw_index(draw, b: Builder, shape: tuple, advanced: bool, symbolic_ok: bool) -> list:
    entries: list[Any] = []
    axis = 0
    count = draw(st.integers(1 if shape else 0, len(shape)))
    while axis < count:
        n = shape[axis]
        # "whole" (x[:]): a write of all of x, then a reversal, aborted XLA's CPU compiler.
        kind = draw(st.sampled_from(["int", "slice", "slice", "none", "whole"]
                                    + (["array", "array"] if advanced else [])
                                    + (["mask"] if advanced and axis == 0 else [])))
        if kind == "int" and n > 0:
            entries.append(draw(st.integers(-n, n - 1)))
        elif kind == "array" and n > 0:
            entries.append(_index_array(draw, b, n, symbolic_ok))
        elif kind == "mask":
            k = draw(st.integers(1, len(shape) - axis))
            entries.append(draw(st.lists(st.booleans(), min_size=int(np.prod(shape[axis:axis + k])),
                                         max_size=int(np.prod(shape[axis:axis + k])))))
            entries[-1] = np.array(entries[-1], bool).reshape(shape[axis:axis + k])
            if symbolic_ok and draw(st.integers(0, 2)) == 0:
                # A mask known only at run time: the function splits there (the indices
                # are computed on the host, compile/split_program.py).
                entries[-1] = Symbolic(b.add_input("bool", entries[-1], (None,) * k))
            axis += k
            continue
        elif kind == "none":
            entries.append(None)
            continue
        elif kind == "whole":
            entries.append(slice(None))
        else:
            entries.append(_slice(draw, b, n, symbolic_ok))
        axis += 1
    if axis < len(shape) and any(e is None for e in entries):
        # NumPy's reading of an index naming fewer axes, with None; without the Ellipsis
        # symnb reads it as Theano did when the other axes have length 1
        # (tests/core/test_subtensor_theano_newaxis.py).
        entries.append(Ellipsis)
    return entries


def _slice(draw, b: Builder, n: int, symbolic_ok: bool) -> slice:
    bound = st.one_of(st.none(), st.integers(-n - 2, n + 2))
    start, stop = draw(bound), draw(bound)
    step = draw(st.sampled_from([None, 1, 2, -1, -2, 3]))
    if symbolic_ok and start is not None and draw(st.integers(0, 3)) == 0:
        start = Symbolic(b.add_input("int64", np.array(start), ()))
    return slice(start, stop, step)


def _index_array(draw, b: Builder, n: int, symbolic_ok: bool):
    length = draw(st.sampled_from([1, 2, 3, 0]))
    values = np.array(draw(st.lists(st.integers(-n, n - 1), min_size=length, max_size=length)), np.int64)
    if symbolic_ok and draw(st.booleans()):
        dtype = draw(st.sampled_from(["int64", "int32"]))
        return Symbolic(b.add_input(dtype, values.astype(dtype), (None,)))
    return values.tolist() if draw(st.booleans()) else values


def _concrete(entries: list, b: Builder) -> tuple:
    """The index with each symbolic part replaced by its value (for NumPy)."""
    def value(part):
        if isinstance(part, Symbolic):
            return b.ref(part.index)
        if isinstance(part, slice):
            return slice(*(value(p) if isinstance(p, Symbolic) else p for p in (part.start, part.stop, part.step)))
        return part
    return tuple(value(e) for e in entries)


def _operands(entries: list) -> list[int]:
    found = []
    for e in entries:
        parts = [e.start, e.stop, e.step] if isinstance(e, slice) else [e]
        found.extend(p.index for p in parts if isinstance(p, Symbolic))
    return found


def _symbolic(entries: list, variables: list) -> tuple:
    """The index with each symbolic part replaced, in order, by ``variables`` (symnb
    variables to build the graph, or their NumPy values to compute the reference)."""
    supplied = iter(variables)

    def part(p):
        return next(supplied) if isinstance(p, Symbolic) else p

    out = []
    for e in entries:
        if isinstance(e, slice):
            out.append(slice(part(e.start), part(e.stop), part(e.step)))
        else:
            out.append(part(e))
    return tuple(out)


def _text(entries: list) -> str:
    def part(p):
        if p is None:
            return ""
        if isinstance(p, Symbolic):
            return "{}"
        return repr(p)

    def entry(e):
        if isinstance(e, slice):
            text = f"{part(e.start)}:{part(e.stop)}"
            return text + (f":{part(e.step)}" if e.step is not None else "")
        if e is None:
            return "None"
        if isinstance(e, Symbolic):
            return "{}"
        if isinstance(e, np.ndarray):
            return f"np.array({e.tolist()!r})"
        return repr(e)

    return "{}[" + ", ".join(entry(e) for e in entries) + "]" if entries else "{}[()]"


def get(draw, b: Builder) -> int | None:
    x = pick(draw, b)
    xr = b.ref(x)
    advanced = draw(st.booleans())
    entries = _draw_index(draw, b, xr.shape, advanced, symbolic_ok=True)
    index = _concrete(entries, b)
    try:
        ref = xr[index]
    except IndexError:  # e.g. index arrays that do not broadcast together
        return None
    if ref.size > MAX_SIZE:
        return None
    symbolic = _operands(entries)

    def build(v, *parts):
        return v[_symbolic(entries, list(parts))]

    def numpy_fn(v, *parts):
        return v[_symbolic(entries, list(parts))]

    return b.add_step(_text(entries), [x] + symbolic, build, numpy_fn, np.asarray(ref),
                      np.asarray(b.err(x)[index]))


def assign(draw, b: Builder) -> int | None:
    """``T.set_subtensor(x[index], y)`` or ``T.inc_subtensor(x[index], y)``."""
    setting = draw(st.booleans())
    name = "T.set_subtensor" if setting else "T.inc_subtensor"
    x = pick(draw, b, lambda i: b.ref(i).ndim >= 1)
    if x is None:
        return None
    xr = b.ref(x)
    advanced = draw(st.booleans())
    entries = _draw_index(draw, b, xr.shape, advanced, symbolic_ok=True)
    index = _concrete(entries, b)
    try:
        target = xr[index]
    except IndexError:
        return None
    if setting and _repeats(xr.shape, index):
        return None  # XLA keeps any one of repeated positions, NumPy the last
    y = _value_for(draw, b, target.shape, xr.dtype)
    yr = b.ref(y)

    def numpy_fn(v, *rest):
        *parts, w = rest
        out = np.array(v, copy=True)
        position = _symbolic(entries, list(parts))
        if setting:
            out[position] = w
        else:
            np.add.at(out, position, w)
        return out

    operands = [x] + _operands(entries) + [y]
    parts = [b.ref(i) for i in _operands(entries)]
    with np.errstate(all="ignore"):
        ref = numpy_fn(xr, *parts, yr)
    exact = lambda v, w: numpy_fn(v, *parts, w)  # noqa: E731
    if not integer_result_exact(exact, ref, xr, yr):
        return None
    err = np.array(b.err(x), copy=True)
    ye = np.broadcast_to(b.err(y), target.shape)
    if setting:
        err[index] = ye
    else:
        np.add.at(err, index, ye)
    err = bounds.guard_overflow(ref, err + bounds.rounding(ref, 2))

    def build(v, *rest):
        *parts, w = rest
        indexed = v[_symbolic(entries, list(parts))]
        return T.set_subtensor(indexed, w) if setting else T.inc_subtensor(indexed, w)

    text = f"{name}({_text(entries)}, {{}})"
    return b.add_step(text, operands, build, numpy_fn, ref, err)


def _repeats(shape: tuple, index: tuple) -> bool:
    positions = np.arange(int(np.prod(shape, dtype=np.int64))).reshape(shape)[index]
    return np.unique(positions).size != np.asarray(positions).size


def _value_for(draw, b: Builder, shape: tuple, dtype) -> int:
    """A new input broadcasting to ``shape``, of a dtype NumPy stores into ``dtype``
    with same-kind casting (as ``+=`` does)."""
    dims = [n if draw(st.integers(0, 2)) > 0 else 1 for n in shape]
    dims = tuple(dims[draw(st.integers(0, len(dims))):])
    if b.dtype is not None:  # the builder fixes every input's dtype (gradient fuzz)
        return new_input(draw, b, shape=dims)
    kinds = [d for d in ["bool", "int8", "int32", "int64", "uint8", "float32", "float64"]
             if np.can_cast(d, dtype, "same_kind")]
    value_dtype = draw(st.sampled_from(kinds))
    return b.add_input(value_dtype, draw_values(draw, value_dtype, dims), tuple(None for _ in dims))
