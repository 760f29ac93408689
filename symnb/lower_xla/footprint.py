"""What ``exception_verbosity='high'`` adds to a runtime error: the storage-map footprint
(shape, dtype and bytes of each input and of each value computed before the failure,
largest first), as Theano printed it."""

from __future__ import annotations

import contextlib
from typing import Any, Callable, Sequence

import jax
import numpy as np

from symnb.core.errors import label
from symnb.core.graph import Apply, Variable
from symnb.core.shared import SharedVariable
from symnb.core.type import describe_shape
from symnb.lower_xla.interpreter import build_program

__all__ = ["high_verbosity_details"]


def high_verbosity_details(inputs: Sequence[Variable], arrays: Sequence[Any],
                           nodes: Sequence[Apply], index: int,
                           context: Callable[[], Any] | None) -> list[str]:
    """The footprint of a call that failed at ``nodes[index]`` (the debugprint of the
    node is added by ``format_node_error``, through the printing layer's section)."""
    lines = ["Storage map footprint:"]
    entries = [(_kind(var), label(var), tuple(np.shape(a)), np.dtype(a.dtype))
               for var, a in zip(inputs, arrays)]
    entries += _intermediates(inputs, arrays, nodes[:index], context)
    entries.sort(key=lambda e: -_nbytes(e[2], e[3]))
    total = 0
    for kind, name, shape, dtype in entries:
        size = _nbytes(shape, dtype)
        total += size
        where = f", {kind}" if kind else ""
        lines.append(f" - {name}{where}, Shape: {describe_shape(shape)}, ElemSize: {dtype.itemsize} "
                     f"Byte(s), TotalSize: {size} Byte(s)")
    lines.append(f" TotalSize: {total} Byte(s) {total / 2**30:.3f} GB")
    return lines


def _kind(var: Variable) -> str:
    return "Shared Input" if isinstance(var, SharedVariable) else "Input"


def _nbytes(shape: tuple, dtype: np.dtype) -> int:
    return int(np.prod(shape, dtype=np.int64)) * dtype.itemsize


def _intermediates(inputs: Sequence[Variable], arrays: Sequence[Any], before: Sequence[Apply],
                   context: Callable[[], Any] | None) -> list[tuple]:
    """Shapes of the values computed before the failing node, found by tracing the
    program up to it abstractly (nothing is computed)."""
    outputs = [v for n in before for v in n.outputs]
    if not outputs:
        return []
    program = build_program(list(inputs), outputs, list(before))
    try:
        with (context() if context is not None else contextlib.nullcontext()):
            shapes = jax.eval_shape(program, *arrays)
    except Exception:  # the footprint is a help; never hide the real error behind it
        return []
    return [("", _describe(var), tuple(s.shape), np.dtype(s.dtype)) for var, s in zip(outputs, shapes)]


def _describe(var: Variable) -> str:
    """``z = Elemwise{add,no_inplace}``: the user's name for a value, and its op."""
    name, made_by = label(var), var.auto_name() if var.name is None else var.owner.op.display_name()
    return made_by if name == made_by else f"{name} = {made_by}"
