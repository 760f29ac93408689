"""Theano's functions of ``theano.tensor.subtensor`` built on symnb's indexing ops:
``take``, ``get_canonical_form_slice`` and the ``advanced_*`` shortcuts.

Each computes what NumPy's indexing computes; the op classes are Theano's
(``AdvancedSubtensor1`` for an integer vector on the first axis...), see ``subtensor``.
"""

from __future__ import annotations

import sys
from typing import Any

from symnb.core.graph.basic import Variable
from symnb.core.graph.static import NotScalarConstantError, get_scalar_constant_value
from symnb.core.tensor import math as m
from symnb.core.tensor import shape as sh
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.tensor.subtensor import (
    AdvancedBooleanIncSubtensor, AdvancedIncSubtensor, AdvancedIncSubtensor1, AdvancedSubtensor,
    AdvancedSubtensor1, _parse_index, getitem,
)

__all__ = [
    "take", "get_canonical_form_slice", "advanced_subtensor1", "advanced_inc_subtensor1",
    "advanced_set_subtensor1", "advanced_subtensor", "advanced_inc_subtensor",
    "advanced_set_subtensor", "advanced_boolean_subtensor", "advanced_boolean_inc_subtensor",
    "advanced_boolean_set_subtensor",
]

#: Theano's op instances: ``advanced_subtensor1(x, ilist)``, ``advanced_inc_subtensor1(x,
#: y, ilist)``, ``advanced_set_subtensor1(x, y, ilist)``.
advanced_subtensor1 = AdvancedSubtensor1()
advanced_inc_subtensor1 = AdvancedIncSubtensor1()
advanced_set_subtensor1 = AdvancedIncSubtensor1(set_instead_of_inc=True)


def advanced_subtensor(x: Any, *index: Any) -> Variable:
    """Theano's ``advanced_subtensor(x, *index)``: ``x[index]`` as an ``AdvancedSubtensor``."""
    x = as_tensor_variable(x)
    idx_list, inputs = _parse_index(x, tuple(index))
    return AdvancedSubtensor(idx_list)(x, *inputs)


def _advanced_write(x: Any, y: Any, index: tuple, set_instead_of_inc: bool, boolean: bool) -> Variable:
    x, y = as_tensor_variable(x), as_tensor_variable(y)
    idx_list, inputs = _parse_index(x, index)
    op_class = AdvancedBooleanIncSubtensor if boolean else AdvancedIncSubtensor
    return op_class(idx_list, set_instead_of_inc=set_instead_of_inc)(x, y, *inputs)


def advanced_inc_subtensor(x: Any, y: Any, *index: Any) -> Variable:
    """Theano's ``advanced_inc_subtensor(x, y, *index)``: ``inc_subtensor(x[index], y)``
    (repeated indices accumulate)."""
    return _advanced_write(x, y, index, False, False)


def advanced_set_subtensor(x: Any, y: Any, *index: Any) -> Variable:
    """Theano's ``advanced_set_subtensor(x, y, *index)``: ``set_subtensor(x[index], y)``."""
    return _advanced_write(x, y, index, True, False)


def advanced_boolean_subtensor(x: Any, *index: Any) -> Variable:
    """Theano's ``advanced_boolean_subtensor(x, *index)``: ``x[index]`` with a boolean mask."""
    return getitem(x, tuple(index))


def advanced_boolean_inc_subtensor(x: Any, y: Any, *index: Any) -> Variable:
    """Theano's ``advanced_boolean_inc_subtensor(x, y, *index)``."""
    return _advanced_write(x, y, index, False, True)


def advanced_boolean_set_subtensor(x: Any, y: Any, *index: Any) -> Variable:
    """Theano's ``advanced_boolean_set_subtensor(x, y, *index)``."""
    return _advanced_write(x, y, index, True, True)


def take(a: Any, indices: Any, axis: int | None = None, mode: str = "raise") -> Variable:
    """``np.take(a, indices, axis, mode)``: the elements of ``a`` at ``indices`` along
    ``axis`` (``a`` flattened when None). ``mode``: 'raise' (an index out of bounds is an
    error), 'clip' or 'wrap', as NumPy."""
    a = as_tensor_variable(a)
    indices = as_tensor_variable(indices)
    if mode not in ("raise", "clip", "wrap"):
        raise ValueError(f"take: mode must be 'raise', 'clip' or 'wrap', got {mode!r}")
    if axis is None:
        a, axis = sh.flatten(a, 1), 0
    if not -a.ndim <= axis < a.ndim:
        raise ValueError(f"take: axis {axis} is out of bounds for a tensor of {a.ndim} dimension(s)")
    axis %= a.ndim
    length = sh.shape_i(a, axis)
    if mode == "clip":
        indices = m.clip(indices, 0, m.sub(length, 1))
    elif mode == "wrap":
        indices = m.mod(indices, length)
    return getitem(a, (slice(None),) * axis + (indices,))


def _known(x: Any) -> tuple[Any, bool]:
    """``x`` as a Python int when known before the program runs, else ``x`` itself."""
    if x is None:
        return None, False
    try:
        return int(get_scalar_constant_value(x)), True
    except (NotScalarConstantError, TypeError, ValueError):
        return x, False


def get_canonical_form_slice(theslice: Any, length: Any) -> tuple[Any, Any]:
    """Theano's ``get_canonical_form_slice``: ``slice(start, stop, step)`` over an axis of
    ``length`` as ``(slice(start', stop', step'), direction)`` with ``0 <= start' <= stop'
    <= length`` and ``step' > 0``: ``a[start:stop:step]`` is ``a[start':stop':step'][::direction]``.
    An integer index gives ``(index made non-negative, 1)``. Parts may be symbolic (the
    result is then a graph); Theano's algorithm, step by step."""
    switch, lt, ge = m.switch, m.lt, m.ge
    if not isinstance(theslice, slice):
        value, _ = _known(theslice)
        return switch(lt(value, 0), m.add(value, length), value), 1

    start, is_start_constant = _known(theslice.start)
    stop, is_stop_constant = _known(theslice.stop)
    step, is_step_constant = _known(theslice.step)
    length, is_length_constant = _known(length)
    if step is None:
        step, is_step_constant = 1, True

    # The common case of step 1 with a range boundary: a smaller graph.
    if is_step_constant and step == 1:
        is_start_0 = (start is None or (is_start_constant and start == 0) or
                      (is_start_constant and is_length_constant and start < 0 and start + length <= 0))
        is_stop_length = (stop is None or (is_stop_constant and stop == sys.maxsize) or
                          (stop is length) or
                          (is_stop_constant and is_length_constant and stop >= length))
        if is_start_0:
            if is_stop_length:
                return slice(0, length, 1), 1
            if is_stop_constant and stop >= 0:
                return slice(0, switch(lt(stop, length), stop, length), 1), 1
            stop_plus_len = m.add(stop, length)
            stop = switch(lt(stop, 0), switch(lt(stop_plus_len, 0), 0, stop_plus_len),
                          switch(lt(stop, length), stop, length))
            return slice(0, stop, 1), 1
        if is_stop_length:
            if is_start_constant and start >= 0:
                return slice(switch(lt(start, length), start, length), length, 1), 1
            start_plus_len = m.add(start, length)
            start = switch(lt(start, 0), switch(lt(start_plus_len, 0), 0, start_plus_len),
                           switch(lt(start, length), start, length))
            return slice(start, length, 1), 1

    # The generic case.
    if is_step_constant:
        if step == 0:
            raise ValueError("slice step cannot be zero")
        negative = step < 0

        def switch_neg_step(a: Any, b: Any) -> Any:
            return a if negative else b
        abs_step, sgn_step = abs(step), (-1 if negative else 1)
    else:
        is_step_neg = lt(step, 0)

        def switch_neg_step(a: Any, b: Any) -> Any:
            return switch(is_step_neg, a, b)
        abs_step, sgn_step = m.abs(step), m.sign(step)

    if start is None:
        start = switch_neg_step(m.sub(length, 1), 0)
    else:
        start = switch(lt(start, 0), m.add(start, length), start)
        start = switch(lt(start, 0), switch_neg_step(-1, 0), start)
        start = switch(ge(start, length), switch_neg_step(m.sub(length, 1), length), start)
    if stop is None or (is_stop_constant and stop == sys.maxsize):
        stop = switch_neg_step(-1, length)
    else:
        stop = switch(lt(stop, 0), m.add(stop, length), stop)
        stop = switch(lt(stop, 0), -1, stop)
        stop = switch(ge(stop, length), length, stop)

    nw_stop = switch_neg_step(m.add(start, 1), stop)
    slice_len = m.add(m.floor_div(m.sub(m.sub(start, stop), 1), abs_step), 1)
    slice_len = switch(lt(slice_len, 0), 0, slice_len)
    neg_start = m.sub(m.sub(nw_stop, m.mul(m.sub(slice_len, 1), abs_step)), 1)
    neg_start = switch(lt(neg_start, 0), m.sub(nw_stop, 1), neg_start)
    nw_start = switch_neg_step(neg_start, start)
    nw_start = switch(lt(nw_start, 0), 0, nw_start)
    nw_stop = switch(lt(nw_stop, 0), 0, nw_stop)
    nw_start = switch(lt(nw_start, nw_stop), nw_start, nw_stop)  # start <= stop
    if is_step_constant and step == 1:
        return slice(nw_start, nw_stop, abs_step), 1
    return slice(nw_start, nw_stop, abs_step), sgn_step
