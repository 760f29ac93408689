"""A call's storage-map footprint, as Theano printed it: the shape, dtype and bytes of
each input and of each value the program computes, largest first. The computed values'
shapes are found by tracing the program abstractly (nothing is computed).

``exception_verbosity='high'`` adds the footprint of the values computed before a
failing node to runtime errors; an out-of-memory error always carries the whole
footprint and names the node whose output is largest, the one most likely not to fit.
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable, NamedTuple, Sequence

import jax
import numpy as np

from symnb.core.graph.errors import OutOfMemoryError, label, node_error
from symnb.core.graph.basic import Apply, Variable
from symnb.core.tensor.shared import SharedVariable
from symnb.core.graph.type import describe_shape
from symnb.lower_xla.interpreter import build_program

__all__ = ["high_verbosity_details", "storage_footprint", "out_of_memory_error",
           "is_out_of_memory", "human_bytes"]

#: How many of the largest values an out-of-memory error lists.
LISTED = 10


class Footprint(NamedTuple):
    """One value of the storage map: an input's or a node's output."""

    kind: str
    name: str
    shape: tuple
    dtype: np.dtype
    var: Variable

    @property
    def node(self) -> Apply | None:
        """The node computing the value; None for an input."""
        return self.var.owner

    @property
    def nbytes(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64)) * self.dtype.itemsize


def high_verbosity_details(inputs: Sequence[Variable], arrays: Sequence[Any],
                           nodes: Sequence[Apply], index: int,
                           context: Callable[[], Any] | None, static: Sequence[int] = ()
                           ) -> list[str]:
    """The footprint of a call that failed at ``nodes[index]`` (the debugprint of the
    node is added by ``node_error``, through the printing layer's section)."""
    return _lines(storage_footprint(inputs, arrays, nodes[:index], context, static))


def storage_footprint(inputs: Sequence[Variable], arrays: Sequence[Any], nodes: Sequence[Apply],
                      context: Callable[[], Any] | None, static: Sequence[int] = ()
                      ) -> list[Footprint]:
    """The inputs (``arrays``) and the outputs of ``nodes``, largest first.

    ``static``: positions of ``arrays`` the program is specialized on (lengths computed
    from their values are static, so the trace needs the values themselves).
    """
    entries = [Footprint(_kind(var), label(var), tuple(np.shape(a)), np.dtype(a.dtype), var)
               for var, a in zip(inputs, arrays)]
    entries += _computed(inputs, arrays, nodes, context, static)
    entries.sort(key=lambda e: -e.nbytes)
    return entries


def is_out_of_memory(error: BaseException) -> bool:
    """Whether ``error`` is XLA's (or NumPy's) report of an allocation that failed."""
    return isinstance(error, MemoryError) or (
        isinstance(error, jax.errors.JaxRuntimeError) and "RESOURCE_EXHAUSTED" in str(error))


def out_of_memory_error(inputs: Sequence[Variable], arrays: Sequence[Any], nodes: Sequence[Apply],
                        context: Callable[[], Any] | None, static: Sequence[int], title: str,
                        error: BaseException) -> OutOfMemoryError:
    """The error for a call that ran out of memory: the node whose output needs the
    most bytes, with its shape, bytes and the user's line that built it, which axis
    to shrink, and the largest values of the storage map."""
    reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    entries = storage_footprint(inputs, arrays, nodes, context, static)
    listing = _lines(entries, LISTED)
    computed = [e for e in entries if e.node is not None]
    if not computed:
        return OutOfMemoryError("\n".join([f"{title} ran out of memory ({reason})."] + listing))
    largest = computed[0]
    headline = (f"OutOfMemoryError in {largest.node.op.display_name()} while running {title}: "
                f"its output, {largest.dtype} {describe_shape(largest.shape)} = "
                f"{human_bytes(largest.nbytes)}, is the largest value the program computes, most "
                f"likely the one that does not fit ({reason})")
    traced = {id(e.var): jax.ShapeDtypeStruct(e.shape, e.dtype) for e in entries}
    values = [traced.get(id(v)) for v in largest.node.inputs]  # None: a constant, shown by type
    out = node_error(OutOfMemoryError, largest.node, headline, values, [_advice(largest)] + listing)
    out.node = largest.node
    out.shape = largest.shape
    out.nbytes = largest.nbytes
    return out


def _advice(entry: Footprint) -> str:
    if not entry.shape:
        return "Its inputs or the other values listed below are what to make smaller."
    axis = max(range(len(entry.shape)), key=lambda a: entry.shape[a])
    return (f"Shrink axis {axis} of this value (length {entry.shape[axis]}, its longest), "
            f"e.g. by computing it in smaller batches, so that it fits in the device's memory.")


def _lines(entries: Sequence[Footprint], limit: int | None = None) -> list[str]:
    lines = ["Storage map footprint:"]
    shown = entries if limit is None else entries[:limit]
    for e in shown:
        where = f", {e.kind}" if e.kind else ""
        lines.append(f" - {e.name}{where}, Shape: {describe_shape(e.shape)}, ElemSize: "
                     f"{e.dtype.itemsize} Byte(s), TotalSize: {e.nbytes} Byte(s)")
    if len(shown) < len(entries):
        lines.append(f" ... and {len(entries) - len(shown)} smaller value(s)")
    total = sum(e.nbytes for e in entries)
    lines.append(f" TotalSize: {total} Byte(s) {total / 2**30:.3f} GB")
    return lines


def _kind(var: Variable) -> str:
    return "Shared Input" if isinstance(var, SharedVariable) else "Input"


def human_bytes(nbytes: int) -> str:
    """``8388608 bytes (8.0 MiB)``: a byte count, and its size in binary units when large."""
    size, unit = float(nbytes), "bytes"
    for bigger in ("KiB", "MiB", "GiB", "TiB", "PiB"):
        if size < 1024:
            break
        size, unit = size / 1024, bigger
    return f"{nbytes} bytes" if unit == "bytes" else f"{nbytes} bytes ({size:.1f} {unit})"


def _computed(inputs: Sequence[Variable], arrays: Sequence[Any], nodes: Sequence[Apply],
              context: Callable[[], Any] | None, static: Sequence[int]) -> list[Footprint]:
    """Shapes of the values ``nodes`` compute, found by tracing them abstractly."""
    outputs = [v for n in nodes for v in n.outputs]
    if not outputs:
        return []
    program = build_program(list(inputs), outputs, list(nodes), sized=False)  # shapes only
    fixed = {i: np.asarray(arrays[i]) for i in static}
    abstract = [jax.ShapeDtypeStruct(np.shape(a), a.dtype)
                for i, a in enumerate(arrays) if i not in fixed]

    def run(*values: Any) -> list[Any]:
        supplied = iter(values)
        return program(*(fixed[i] if i in fixed else next(supplied) for i in range(len(arrays))))

    try:
        with (context() if context is not None else contextlib.nullcontext()):
            shapes = jax.eval_shape(run, *abstract)
    except Exception:  # the footprint is a help; never hide the real error behind it
        return []
    return [Footprint("", _describe(var), tuple(s.shape), np.dtype(s.dtype), var)
            for var, s in zip(outputs, shapes)]


def _describe(var: Variable) -> str:
    """``z = Elemwise{add,no_inplace}``: the user's name for a value, and its op."""
    name, made_by = label(var), var.auto_name() if var.name is None else var.owner.op.display_name()
    return made_by if name == made_by else f"{name} = {made_by}"
