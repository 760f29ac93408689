"""Index checks of the indexing ops in the compiled program.

XLA clamps an out-of-range integer index when reading (``x[5]`` of a length-2 axis
reads row 1) and drops it when writing; NumPy, the test values and Theano raise
``IndexError``. Each indexing node therefore checks its integer indices (scalars and
arrays; slices clamp in NumPy too) through the compiled program's check mechanism
(``symnb.lower_xla.checks``):

- an index known while tracing (a constant, or computed from shapes) is checked then,
  at no run-time cost, and fails like any node that cannot run;
- an index known only at run time becomes a check in the program, unless
  ``config.index_checks`` is False when the function is compiled.

The error names the index variable, the offending value, the axis and its length,
the node and the user's line. Indices made by a run-time ``nonzero`` are not checked:
their padding lies past the end of the axis on purpose (see ``subtensor``).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from symnb.core.graph.config import config
from symnb.core.graph.errors import IndexOutOfBoundsError
from symnb.core.graph.basic import Apply, Constant, Variable
from symnb.core.tensor import subtensor as st
from symnb.core.tensor import subtensor_index as si
from symnb.core.tensor.subtensor_checks import out_of_bounds_message
from symnb.lower_xla.checks import CheckKind, may_check, register_check_kind, require

__all__ = ["index_checker", "from_nonzero"]

#: ``input`` fact of an index written in the op's ``idx_list`` (no node input).
_IN_IDX_LIST = -1


def _message(node: Apply, facts: dict[str, int]) -> str:
    position = facts["input"]
    index_var = node.inputs[position] if position != _IN_IDX_LIST else None
    return out_of_bounds_message(node.inputs[0], facts["value"], facts["axis"], facts["length"],
                                 index_var)


register_check_kind("index", CheckKind(_message, plain=IndexError, error=IndexOutOfBoundsError))


def _checked_inputs(node: Apply) -> list[tuple[int, int]]:
    """(node input position, axis) of each integer index input a check must cover."""
    op = node.op
    idx_list = op.idx_list
    axes = si.entry_axes(idx_list, node.inputs[0].ndim)
    found = []
    for k, entry in enumerate(si.input_entries(idx_list)):
        position = op.n_values + k
        if (idx_list[entry] is si.SCALAR or idx_list[entry] is si.ARRAY) \
                and not from_nonzero(node.inputs[position]):
            found.append((position, axes[entry]))
    return found


def from_nonzero(var: Variable) -> bool:
    """True for indices computed by ``nonzero`` (padded when computed at run time)."""
    return var.owner is not None and isinstance(var.owner.op, (st.Nonzero, st.FlatNonzero))


def index_checker(node: Apply) -> Callable[[Sequence[int], Sequence[Any]], None]:
    """``check(x_shape, index_values)``, run by the node's rule before it indexes: every
    integer index must lie in its axis (``-length <= i < length``).

    Whether indices known only at run time are checked is decided here, when the
    program is built, so the program and ``has_checks`` agree.
    """
    op = node.op
    axes = si.entry_axes(op.idx_list, node.inputs[0].ndim)
    written = [(entry, axes[k]) for k, entry in enumerate(op.idx_list)
               if isinstance(entry, int) and not isinstance(entry, bool)]
    inputs = _checked_inputs(node)
    at_run_time = config.index_checks

    def check(shape: Sequence[int], values: Sequence[Any]) -> None:
        for index, axis in written:
            _require_in_range(np.asarray(index), shape[axis], node, _IN_IDX_LIST, axis)
        for position, axis in inputs:
            index = values[position - op.n_values]
            if at_run_time or not isinstance(index, jax.core.Tracer):
                _require_in_range(index, shape[axis], node, position, axis)

    return check


def _require_in_range(index: Any, length: int, node: Apply, position: int, axis: int) -> None:
    facts = {"input": position, "axis": axis, "length": int(length)}
    if np.size(index) == 0:
        return
    if not isinstance(index, jax.core.Tracer):  # known: checked now, at no run-time cost
        values = np.asarray(index).astype(np.int64, copy=False).ravel()
        bad = values[(values < -length) | (values >= length)]
        require(bad.size == 0, node, "index", value=bad[0] if bad.size else None, **facts)
        return
    index = jnp.asarray(index)
    if index.dtype.itemsize < 4:  # compare in a type that holds the axis length
        index = index.astype(jnp.int32)
    flat = index.ravel()
    signed = jnp.issubdtype(index.dtype, jnp.signedinteger)
    # The first index out of range (or the first index, when none is) and whether it is
    # in range: one reduction and a few operations on scalars, which XLA compiles into
    # fewer kernels than an any() beside the argmax.
    bad = (flat >= length) | (flat < -length) if signed else flat >= length
    value = lax.dynamic_index_in_dim(flat, jnp.argmax(bad), keepdims=False)
    ok = (value < length) & (value >= -length) if signed else value < length
    require(ok, node, "index", value=value, **facts)


def _may_check(op: Any, node: Apply, known: set[int]) -> bool:
    if not config.index_checks:
        return False
    return any(not isinstance(node.inputs[p], Constant) and id(node.inputs[p]) not in known
               for p, _ in _checked_inputs(node))


for _op_class in (st.Subtensor, st.AdvancedSubtensor, st.IncSubtensor, st.AdvancedIncSubtensor):
    may_check.register(_op_class)(_may_check)
