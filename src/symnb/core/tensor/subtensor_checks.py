"""Checks of indexing at build time and clear messages for index errors at run time.

Build time: what static types allow (index dtypes, too many indices, constant indices
out of range on a statically known axis, masks of the wrong shape, advanced indices that
cannot broadcast, values that do not fit ``set_subtensor``). Test-value time: NumPy's
``IndexError`` rephrased with the variable's name, the axis and its length.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from symnb.core.graph.errors import BuildError, BuildIndexTypeError, BuildTypeError, build_error, label
from symnb.core.graph.basic import Apply, Constant, Variable
from symnb.core.tensor import subtensor_index as si
from symnb.core.tensor.elemwise import BroadcastError
from symnb.core.graph.type import describe_shape

__all__ = ["index_error", "static_indexed_shape", "check_value_fits", "rephrase_index_error",
           "out_of_bounds_message"]


def index_error(x: Variable, message: str, op: Any = None, inputs: Sequence[Variable] = (),
                kind: type[IndexError] = IndexError) -> BuildError:
    """An IndexError about indexing ``x``, showing the user's line; from the ``make_node``
    of ``op`` (on ``inputs``), in the layout of the node's failure on test values.
    ``kind``: ``BuildIndexTypeError`` for an index of a kind that cannot index (also the
    TypeError Theano raised)."""
    if op is not None:
        return build_error(message, kind, op=op, inputs=inputs)
    return build_error(f"{message} (indexing {label(x)}, {x.type.short()})", kind)


def static_indexed_shape(idx_list: tuple, x: Variable, index: Sequence[Any], op: Any = None,
                         inputs: Sequence[Variable] = ()) -> tuple:
    """Check the index inputs against ``idx_list`` and ``x``; the static shape of ``x[index]``.

    ``op`` and ``inputs``: the op whose ``make_node`` checks, and its inputs (an index out
    of range is then reported as the node would report it on test values)."""
    if si.index_inputs_count(idx_list) != len(index):
        raise TypeError(f"index [{si.format_idx_list(idx_list)}] takes "
                        f"{si.index_inputs_count(idx_list)} symbolic input(s), got {len(index)}")
    covered = sum(1 if not isinstance(e, si.Mask) else e.ndim
                  for e in idx_list if e is not None and e is not Ellipsis)
    if covered > x.ndim:
        raise index_error(x, f"too many indices: {label(x)} has {x.ndim} dimension(s) but the "
                             f"index [{si.format_idx_list(idx_list)}] covers {covered}")
    for var, position in zip(index, si.input_entries(idx_list)):
        if isinstance(idx_list[position], si.Slice):
            _check_slice_bound(var)
    axes = si.entry_axes(idx_list, x.ndim)
    for entry, axis, var in _entries_with_inputs(idx_list, axes, index):
        _check_entry(x, entry, axis, var, op, inputs)
    try:
        return si.static_output_shape(idx_list, x.type.shape, [v.type.shape for v in index])
    except BroadcastError:
        arrays = [v for (e, _, v) in _entries_with_inputs(idx_list, axes, index)
                  if e is si.ARRAY]
        shapes = ", ".join(f"{label(v)} {describe_shape(v.type.shape)}" for v in arrays)
        raise index_error(x, f"shape mismatch: the index arrays cannot be broadcast together: "
                             f"{shapes}") from None


def _entries_with_inputs(idx_list: tuple, axes: list, index: Sequence[Any]):
    """(entry, axis, input) for each integer, array or mask entry (input None for a constant)."""
    inputs = iter(index)
    for entry, axis in zip(idx_list, axes):
        if isinstance(entry, si.Slice):
            for _ in range(si.index_inputs_count((entry,))):
                next(inputs)  # symbolic slice bounds: checked apart
        elif entry is si.SCALAR or entry is si.ARRAY or isinstance(entry, si.Mask):
            yield entry, axis, next(inputs)
        elif isinstance(entry, int):
            yield entry, axis, None


def _check_slice_bound(var: Variable) -> None:
    if var.ndim != 0 or np.dtype(var.dtype).kind not in "iu":
        raise TypeError(f"slice bound {label(var)} must be an integer scalar, got {var.type.short()}")


def _check_entry(x: Variable, entry: Any, axis: int, var: Variable | None, op: Any,
                 inputs: Sequence[Variable]) -> None:
    length = x.type.shape[axis]
    if isinstance(entry, si.Mask):
        _check_mask(x, entry, axis, var, op, inputs)
        return
    if var is not None:
        if np.dtype(var.dtype).kind not in "iu" or (entry is si.SCALAR and var.ndim != 0):
            raise index_error(x, f"index {label(var)} ({var.type.short()}) must be an integer "
                                 f"{'scalar' if entry is si.SCALAR else 'array'}")
        if not isinstance(var, Constant) or var.data.size == 0:
            return
        values = var.data
    else:
        values = np.asarray(entry)
    if length is not None:
        bad = values[(values < -length) | (values >= length)]
        if bad.size:
            raise index_error(x, out_of_bounds_message(x, int(bad.flat[0]), axis, length), op, inputs)


def out_of_bounds_message(x: Variable, index: int, axis: int, length: int,
                          index_var: Variable | None = None) -> str:
    """What an integer index out of its axis's range says, on every path: the value, the
    axis, its length and, for a symbolic index, the index variable's name."""
    index_text = f"index {index} in {label(index_var)}" if index_var is not None else f"index {index}"
    return (f"{index_text} is out of bounds for axis {axis} of {label(x)}, which has length "
            f"{length} (valid indices: {-length} to {length - 1})")


def _check_mask(x: Variable, entry: si.Mask, axis: int, mask: Variable, op: Any,
                inputs: Sequence[Variable]) -> None:
    if mask.dtype != "bool" or mask.ndim != entry.ndim:
        raise TypeError(f"mask {label(mask)} must be a {entry.ndim}-d bool tensor, got "
                        f"{mask.type.short()}")
    for k, mask_length in enumerate(mask.type.shape):
        length = x.type.shape[axis + k]
        if mask_length is not None and length is not None and mask_length != length:
            raise index_error(x, mask_mismatch_message(x, mask, axis + k, length, mask_length), op,
                              inputs)


def mask_mismatch_message(x: Variable, mask: Variable, axis: int, length: int, mask_length: int) -> str:
    return (f"boolean index {label(mask)} does not match {label(x)} along axis {axis}: "
            f"{label(x)} has length {length} there, the mask {mask_length}")


def check_value_fits(op: Any, x: Variable, y: Variable, indexed: tuple) -> None:
    """``y`` must have a dtype storable in ``x`` and broadcast to the indexed shape."""
    function = "set_subtensor" if op.set_instead_of_inc else "inc_subtensor"
    target = f"{label(x)}[{si.format_idx_list(op.idx_list)}]"
    if not np.can_cast(y.dtype, x.dtype, "same_kind"):
        raise TypeError(f"{function}: cannot store {y.dtype} values ({label(y)}) into {target} "
                        f"of dtype {x.dtype} (NumPy's same_kind casting, as for +=); cast them "
                        f"first with .astype('{x.dtype}')")
    message = (f"{function}: {label(y)} ({y.type.short()}) cannot be broadcast to {target}, of "
               f"static shape {describe_shape(indexed)}")
    if y.ndim > len(indexed):  # Theano's TypeError: more dimensions than the selection
        raise build_error(message, BuildTypeError)
    for y_len, length in zip(reversed(y.type.shape), reversed(indexed)):
        if y_len not in (None, 1) and length is not None and y_len != length:
            raise ValueError(message)


def rephrase_index_error(node: Apply, inputs: Sequence[np.ndarray], err: IndexError) -> IndexError:
    """NumPy's IndexError on test values, naming the variable, the axis and its length."""
    op = node.op
    x_var, x = node.inputs[0], inputs[0]
    index_vars = node.inputs[op.n_values:]
    values = inputs[op.n_values:]
    axes = si.entry_axes(op.idx_list, x.ndim)
    pairs = dict(zip(map(id, index_vars), values))
    for entry, axis, var in _entries_with_inputs(op.idx_list, axes, index_vars):
        value = np.asarray(entry) if var is None else pairs[id(var)]
        if isinstance(entry, si.Mask):
            for k, mask_length in enumerate(value.shape):
                if mask_length != x.shape[axis + k]:
                    return IndexError(mask_mismatch_message(x_var, var, axis + k, x.shape[axis + k],
                                                            mask_length))
            continue
        length = x.shape[axis]
        bad = value[(value < -length) | (value >= length)]
        if bad.size:
            return IndexError(out_of_bounds_message(x_var, int(bad.flat[0]), axis, length, var))
    shapes = ", ".join(f"{label(v)} {describe_shape(np.shape(a))}" for v, a in zip(index_vars, values))
    return IndexError(f"{err}; indexing {label(x_var)} of shape {describe_shape(x.shape)} with "
                      f"[{si.format_idx_list(op.idx_list)}]" + (f" (index inputs: {shapes})" if shapes else ""))
