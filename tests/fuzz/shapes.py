"""Drawing the fuzz's inputs and operands: dtypes, shapes (0 and 1 included), values,
broadcast partners, Python scalars, and the integer-overflow check.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import symnb.tensor as T
from tests.fuzz.program import Builder, input_error

__all__ = ["DTYPES", "MAX_SIZE", "draw_shape", "draw_values", "new_input", "new_constant", "pick",
           "broadcast_partner", "python_scalar", "integer_result_exact"]

DTYPES = ["bool", "int8", "int32", "int64", "uint8", "float32", "float64"]
#: Values larger than this are not made (XLA compiles dominate; small is enough).
MAX_SIZE = 48
LENGTHS = [1, 2, 3, 2, 3, 1, 2, 3, 0]

_SPECIAL_FLOATS = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, np.inf, -np.inf, np.nan, 1e-30, -3e4, 1e30]


def draw_shape(draw, ndim: int | None = None) -> tuple[int, ...]:
    if ndim is None:
        ndim = draw(st.sampled_from([0, 1, 1, 2, 2, 3]))
    return tuple(draw(st.sampled_from(LENGTHS)) for _ in range(ndim))


def draw_values(draw, dtype: str, shape: tuple) -> np.ndarray:
    """Values of ``dtype``: small integers (now and then the extremes), floats in
    [-10, 10] with now and then a special value (0, -0, inf, NaN, huge, tiny)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        elements = st.booleans()
    elif dtype.kind in "iu":
        info = np.iinfo(dtype)
        small = st.integers(max(info.min, -9), min(info.max, 12))
        elements = st.one_of(small, small, small, st.sampled_from([int(info.min), int(info.max)]))
    else:
        width = dtype.itemsize * 8
        ordinary = st.floats(-10, 10, width=width)
        elements = st.one_of(ordinary, ordinary, ordinary, ordinary, st.sampled_from(_SPECIAL_FLOATS))
    return draw(hnp.arrays(dtype, shape, elements=elements))


def _static(draw, shape: tuple) -> tuple:
    """The static shape symnb is told: each length known now and then, else None."""
    return tuple(n if draw(st.integers(0, 2)) == 0 else None for n in shape)


def new_input(draw, b: Builder, shape: tuple | None = None, dtype: str | None = None,
              kinds: str | None = None) -> int:
    """A new input (its dtype among ``kinds`` when given); a Builder with a fixed
    ``dtype`` and ``values`` strategy (the gradient fuzz's) imposes them."""
    dtype = b.dtype or dtype
    if dtype is None:
        choices = [d for d in DTYPES if kinds is None or np.dtype(d).kind in kinds]
        dtype = draw(st.sampled_from(choices))
    if shape is None:
        shape = draw_shape(draw)
    value = draw(b.values(shape)) if b.values is not None else draw_values(draw, dtype, shape)
    return b.add_input(dtype, value, _static(draw, shape))


def pick(draw, b: Builder, accept: Callable[[int], bool] | None = None) -> int | None:
    """An existing value (the most recent ones more often), or None if none fits."""
    candidates = [i for i in range(b.size) if (accept is None or accept(i))
                  and (b.dtype is None or b.ref(i).dtype == b.dtype)]
    if not candidates:
        return None
    recent = candidates[-2:]
    if draw(st.integers(0, 3)) > 0:
        return draw(st.sampled_from(recent[::-1]))
    return draw(st.sampled_from(candidates))


def broadcast_partner(draw, b: Builder, x: int, kinds: str | None = None) -> int:
    """A value whose shape broadcasts with ``x``'s (result small): an existing one,
    ``x`` itself, or a new input shaped like ``x`` with some lengths 1 or dropped."""
    shape = b.ref(x).shape

    def fits(i: int) -> bool:
        if kinds is not None and b.ref(i).dtype.kind not in kinds:
            return False
        try:
            result = np.broadcast_shapes(shape, b.ref(i).shape)
        except ValueError:
            return False
        return int(np.prod(result)) <= MAX_SIZE

    if draw(st.integers(0, 2)) > 0:
        found = pick(draw, b, fits)
        if found is not None:
            return found
    dims = [n if draw(st.integers(0, 2)) > 0 else 1 for n in shape]
    drop = draw(st.integers(0, len(dims)))
    if draw(st.integers(0, 3)) == 0:
        return new_constant(draw, b, shape=tuple(dims[drop:]), kinds=kinds)
    return new_input(draw, b, shape=tuple(dims[drop:]), kinds=kinds)


def new_constant(draw, b: Builder, shape: tuple, kinds: str | None = None) -> int:
    """A constant operand (``T.constant``): constant folding and merging then apply."""
    dtype = b.dtype or draw(st.sampled_from([d for d in DTYPES if kinds is None or np.dtype(d).kind in kinds]))
    value = draw(b.values(shape)) if b.values is not None else draw_values(draw, dtype, shape)
    value = np.asarray(value, dtype)
    return b.add_step(f"T.constant(np.array({value.tolist()!r}, {dtype!r}))", [],
                      lambda: T.constant(value), lambda: value.copy(), value.copy(),
                      input_error(value))


def python_scalar(draw, dtype, always: bool = False) -> Any:
    """Now and then (or ``always``) a Python int or float operand, which takes Theano's
    constant dtype (``int8_array + 2`` stays int8, ``+ 300`` is int16; 0.1 is floatX)."""
    if not always and draw(st.integers(0, 6)) > 0:
        return None
    if np.dtype(dtype).kind in "iub" and draw(st.booleans()):
        value = draw(st.sampled_from([0, 1, 2, 3, -1, -2, 300, -40000]))
        return value
    return draw(st.sampled_from([0.0, 0.5, 1.0, -2.5, 3.0, -1.0, 0.1]))


def integer_result_exact(numpy_fn: Callable, ref: np.ndarray, *operands: Any) -> bool:
    """False when an integer result overflowed (or divided by zero): recomputed with
    Python integers, it differs. Integer overflow is left out of the fuzz."""
    if ref.dtype.kind not in "iu":
        return True
    if numpy_fn is np.power and np.any(np.asarray(operands[1]) > 64):
        return False  # it overflows (unless the base is -1, 0 or 1): not worth 2**2**31 digits
    exact_operands = [np.asarray(o).astype(object) if isinstance(o, np.ndarray) else o
                      for o in operands]
    try:
        exact = numpy_fn(*exact_operands)
    except ZeroDivisionError:
        return False
    except (TypeError, AttributeError):  # not computable on Python ints: cannot overflow
        return True
    return bool(np.all(np.asarray(exact, dtype=object) == ref.astype(object)))
