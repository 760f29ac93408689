"""Indexing ops -> jax.numpy indexing and ``x.at[index].set/add``.

XLA needs every shape at trace time. Three consequences:

- Slice bounds must be known when the program is traced (constants, values computed
  from input shapes, or from argument values the function specializes on, see
  ``specialize``); an integer index may be a run-time value (a dynamic slice). XLA would
  clamp an out-of-range index: each node checks its indices (``subtensor_checks``).
- ``nonzero`` of a run-time value has a value-dependent length. It lowers to
  ``jnp.nonzero(m, size=m.size, fill_value=-1)``: padded to the largest possible
  length with -1, an index no nonzero position ever has. ``set_subtensor`` and
  ``inc_subtensor`` turn the padding into an index one past the end of the axis, which
  ``mode='drop'`` skips, so they are exact. Reading ``x[m.nonzero()]`` or ``x[mask]``
  needs the mask while tracing (``static_inputs``): the function specializes on the
  inputs it is computed from, when it can (``symnb.compile.specialize``); any other use
  of such a ``nonzero`` would see the padded length: the compile pipeline refuses those
  graphs before the program is built (``symnb.compile.dynamic_shapes``).
- A constant mask, or one computed from constants, is evaluated with NumPy while
  tracing (exact lengths), so reading ``x[mask]`` works then.
"""

from __future__ import annotations

from typing import Any, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from symnb.core.graph.errors import label
from symnb.core.graph.basic import Apply, Variable
from symnb.core.tensor import subtensor as st
from symnb.core.tensor import subtensor_index as si
from symnb.lower_xla.registry import DynamicShapeError, StaticValueRequired, lower, static_inputs
from symnb.lower_xla.rules.subtensor_checks import from_nonzero, index_checker

__all__ = ["DynamicShapeError", "array_entries", "array_inputs", "nonzero_use_message",
           "mask_read_message"]


# -- reading ----------------------------------------------------------------------------

def _static_scalar(value: Any) -> Any:
    """An int for a value known at trace time (NumPy, or a concrete array when the
    program runs node by node); a traced scalar stays as it is."""
    return value if isinstance(value, jax.core.Tracer) else int(value)


def _jax_index(node: Apply, values: Sequence[Any], x_shape: Sequence[int]) -> tuple:
    """The index for jax.numpy; slice bounds must be known while tracing. A mask known
    while tracing must match ``x`` (of ``x_shape``) along its axes: NumPy's IndexError
    (its nonzero indices would otherwise be clamped or dropped: a wrong value)."""
    idx_list = node.op.idx_list
    index = si.build_index(idx_list, values, scalar=_static_scalar)
    for k, entry in enumerate(index):
        if isinstance(idx_list[k], si.Mask) and isinstance(entry, np.ndarray):
            _check_mask_shape(node, k, entry.shape, x_shape)
    for entry in index:
        if isinstance(entry, slice) and not all(p is None or isinstance(p, int)
                                                for p in (entry.start, entry.stop, entry.step)):
            # Only the slice bounds: a traced integer-array index is fine as it is.
            bounds = _slice_bounds(node.op, node)
            traced = tuple(node.op.n_values + i for i, v in enumerate(values)
                           if node.op.n_values + i in bounds and isinstance(v, jax.core.Tracer))
            raise StaticValueRequired(
                f"the slice [{si.format_idx_list(idx_list)}] of {label(node.inputs[0])} has bounds "
                f"known only at run time, so the result's length depends on values; XLA needs "
                f"static shapes.\n{_where(node)}\nUse bounds computed from shapes or constants, "
                f"or an integer index (x[i]) inside sn.scan", traced)
    return tuple(_expand_static_mask(e) for e in index)


def _check_mask_shape(node: Apply, k: int, mask_shape: tuple, x_shape: Sequence[int]) -> None:
    """NumPy's IndexError for the mask of entry ``k`` whose shape is not ``x``'s there."""
    axis = si.entry_axes(node.op.idx_list, len(x_shape))[k]
    lengths = tuple(x_shape[axis:axis + len(mask_shape)])
    if tuple(mask_shape) != lengths:
        raise IndexError(f"boolean index {label(_mask_var(node, k))} of shape {tuple(mask_shape)} "
                         f"does not match {label(node.inputs[0])} along axes {axis}.."
                         f"{axis + len(mask_shape) - 1} (lengths {lengths})")


def _expand_static_mask(entry: Any) -> Any:
    if isinstance(entry, np.ndarray) and entry.dtype == np.bool_:
        return np.nonzero(entry)  # a tuple inside the index: flattened below
    return entry


def _flatten(index: tuple) -> tuple:
    flat: list[Any] = []
    for entry in index:
        flat.extend(entry if isinstance(entry, tuple) else (entry,))
    return tuple(flat)


@lower.register(st.Subtensor)
@lower.register(st.AdvancedSubtensor)
def _subtensor(op, node):
    padded_inputs = [from_nonzero(v) for v in node.inputs[1:]]
    check_indices = index_checker(node)

    def subtensor(x, *values):
        # A read's length needs the mask: the function specializes on its sources.
        padded = tuple(1 + i for i, (f, v) in enumerate(zip(padded_inputs, values))
                       if f and not isinstance(v, np.ndarray))
        if padded:
            raise StaticValueRequired(nonzero_use_message(node.inputs[padded[0]].owner, node), padded)
        check_indices(np.shape(x), values)
        index = _jax_index(node, values, np.shape(x))
        masks = tuple(p for p in _mask_positions(node) if _is_traced_mask(values[p - 1]))
        if masks:
            raise StaticValueRequired(mask_read_message(node), masks)
        return jnp.asarray(x)[_flatten(index)]  # x may be static while the index is not

    return subtensor


@static_inputs.register(st.Subtensor)
@static_inputs.register(st.IncSubtensor)
@static_inputs.register(st.AdvancedIncSubtensor)
def _slice_bounds(op, node) -> dict[int, str]:
    idx_list = op.idx_list
    return {op.n_values + k: "a slice bound" for k, entry in enumerate(si.input_entries(idx_list))
            if isinstance(idx_list[entry], si.Slice)}


@static_inputs.register(st.AdvancedSubtensor)
def _read_lengths(op, node) -> dict[int, str]:
    """A read's slice bounds, and the masks (or ``nonzero`` positions) it selects with:
    the length of ``x[mask]`` is the number of true values."""
    needs = _slice_bounds(op, node)
    needs.update((p, "a mask") for p in _mask_positions(node))
    needs.update((p, "a mask") for p, var in enumerate(node.inputs) if p >= op.n_values and from_nonzero(var))
    return needs


def _mask_positions(node: Apply) -> list[int]:
    """The positions in ``node.inputs`` of its boolean-mask indices."""
    idx_list, first = node.op.idx_list, node.op.n_values
    return [first + k for k, entry in enumerate(si.input_entries(idx_list))
            if isinstance(idx_list[entry], si.Mask)]


def _is_traced_mask(entry: Any) -> bool:
    return not isinstance(entry, (np.ndarray, tuple)) and getattr(entry, "dtype", None) == np.bool_


# -- writing ----------------------------------------------------------------------------

@lower.register(st.IncSubtensor)
def _inc_subtensor(op, node):
    check_indices = index_checker(node)

    def inc_subtensor(x, y, *values):
        check_indices(np.shape(x), values)
        index = _flatten(_jax_index(node, values, np.shape(x)))
        x = jnp.asarray(x)  # static (e.g. zeros of a gradient) while y is traced
        y = jnp.asarray(y, dtype=x.dtype)
        return _write(x, index, y, op.set_instead_of_inc)

    return inc_subtensor


def _write(x: Any, index: tuple, y: Any, set_instead_of_inc: bool, **mode: Any) -> Any:
    """``x.at[index]`` set to, or incremented by, ``y``; NumPy's ``+=`` on booleans (and
    ``np.add.at``) is a logical or, which JAX's ``add`` refuses: ``max`` is the same.

    An index that selects all of ``x`` (``x[:]``, the gradient of ``bv_t[:]`` in the
    classic RNN-RBM) is written elementwise, never as a scatter: XLA's CPU algebraic
    simplifier turns a scatter with no indices into a ``map``, and then aborts the
    process on a reversal of it (``reverse(map)``: "Invalid binary instruction opcode
    map" in ``HandleReverse``, JAX 0.10), which a scan's gradient makes.
    """
    if _selects_everything(index, x.shape):
        y = jnp.broadcast_to(y, x.shape)
        if set_instead_of_inc:
            return y
        return jnp.logical_or(x, y) if y.dtype == jnp.bool_ else x + y
    target = x.at[index]
    if set_instead_of_inc:
        return target.set(y, **mode)
    if y.dtype == jnp.bool_:
        return target.max(y, **mode)
    return target.add(y, **mode)


def _selects_everything(index: tuple, shape: tuple) -> bool:
    """Whether ``x[index]`` is all of ``x``, in order: full slices only."""
    if len(index) > len(shape):
        return False
    return all(isinstance(entry, slice) and entry.indices(length) == (0, length, 1)
               for entry, length in zip(index, shape))


@lower.register(st.AdvancedIncSubtensor)
def _advanced_inc_subtensor(op, node):
    padded_inputs = {i for i, v in enumerate(node.inputs[2:]) if from_nonzero(v)}
    check_indices = index_checker(node)

    def advanced_inc_subtensor(x, y, *values):
        check_indices(np.shape(x), values)
        padded = any(i in padded_inputs and not isinstance(v, np.ndarray) for i, v in enumerate(values))
        values = [_unpad(v, x, node, i) if i in padded_inputs else v for i, v in enumerate(values)]
        index = _jax_index(node, values, np.shape(x))
        padded = padded or any(_is_traced_mask(e) for e in index)
        index = _flatten(tuple(_dynamic_mask_index(e, x, node, k) for k, e in enumerate(index)))
        x = jnp.asarray(x)
        y = jnp.asarray(y, dtype=x.dtype)
        if padded:
            y = _pad_value(y, x, index, node)
        return _write(x, index, y, op.set_instead_of_inc, mode="drop")

    return advanced_inc_subtensor


def _input_axis(node: Apply, input_position: int) -> int:
    """The axis of x indexed by index input ``input_position``."""
    idx_list = node.op.idx_list
    entry = si.input_entries(idx_list)[input_position]
    return si.entry_axes(idx_list, node.inputs[0].ndim)[entry]


def _unpad(indices: Any, x: Any, node: Apply, position: int) -> Any:
    """Padding (-1) of a traced nonzero becomes one past the end: dropped by mode='drop'."""
    if isinstance(indices, np.ndarray):
        return indices  # computed exactly with NumPy while tracing
    length = x.shape[_input_axis(node, position)]
    return jnp.where(indices < 0, length, indices)


def _dynamic_mask_index(entry: Any, x: Any, node: Apply, k: int) -> Any:
    """A run-time mask as padded nonzero indices, padding one past the end of each axis."""
    if not _is_traced_mask(entry):
        return entry
    axis = si.entry_axes(node.op.idx_list, x.ndim)[k]
    lengths = x.shape[axis:axis + entry.ndim]
    _check_mask_shape(node, k, tuple(entry.shape), x.shape)
    indices = jnp.nonzero(entry, size=entry.size, fill_value=-1)
    return tuple(jnp.where(i < 0, n, i) for i, n in zip(indices, lengths))


def _mask_var(node: Apply, entry_position: int) -> Variable:
    position = si.input_entries(node.op.idx_list).index(entry_position)
    return node.inputs[node.op.n_values + position]


def _pad_value(y: Any, x: Any, index: tuple, node: Apply) -> Any:
    """``y`` with its advanced axis padded (zeros) to the padded index length.

    ``y`` holds one value per real nonzero position; the padded positions are dropped,
    so the values they meet do not matter.
    """
    arrays = [e for e in index if not isinstance(e, (slice, int)) and e is not None and e is not Ellipsis]
    broadcast = np.broadcast_shapes(*(np.shape(a) for a in arrays))
    if len(broadcast) != 1:
        return y
    flat_idx_list = _flat_idx_list(node.op.idx_list)
    position = si.advanced_insert_position(flat_idx_list, x.ndim)
    result_ndim = _result_ndim(flat_idx_list, x.ndim)
    axis = position - (result_ndim - y.ndim)
    if axis < 0 or y.shape[axis] == 1 or y.shape[axis] >= broadcast[0]:
        return y  # broadcasts, or a length JAX will report
    widths = [(0, 0)] * y.ndim
    widths[axis] = (0, broadcast[0] - y.shape[axis])
    return jnp.pad(y, widths)


def _flat_idx_list(idx_list: tuple) -> tuple:
    """``idx_list`` with masks replaced by one ARRAY per axis, matching the flat index."""
    flat: list[Any] = []
    for entry in idx_list:
        flat.extend([si.ARRAY] * entry.ndim if isinstance(entry, si.Mask) else [entry])
    return tuple(flat)


def _result_ndim(idx_list: tuple, ndim: int) -> int:
    shape = si.output_shape(idx_list, (None,) * ndim, (None,), lambda i, e, n: None)
    return len(shape)


# -- nonzero ------------------------------------------------------------------------------

@lower.register(st.Nonzero)
def _nonzero(op, node):
    def nonzero(x):
        indices = jnp.nonzero(x, size=x.size, fill_value=-1)
        if op.return_matrix:
            return jnp.stack(indices).reshape(x.ndim, -1)
        return tuple(indices)

    return nonzero


@lower.register(st.FlatNonzero)
def _flatnonzero(op, node):
    return lambda x: jnp.flatnonzero(x, size=x.size, fill_value=-1)


# -- what the compile pipeline's refusals say (``symnb.compile.dynamic_shapes``) -----------

def array_entries(idx_list: tuple) -> list:
    return [e for e in idx_list if e is si.ARRAY or isinstance(e, si.Mask)]


def array_inputs(node: Apply) -> list[Variable]:
    """The index inputs that are arrays or masks, in order."""
    idx_list = node.op.idx_list
    inputs = node.inputs[node.op.n_values:]
    return [var for var, entry in zip(inputs, si.input_entries(idx_list))
            if idx_list[entry] is si.ARRAY or isinstance(idx_list[entry], si.Mask)]


def _where(node: Apply | None) -> str:
    if node is None or not node.site:
        return "(built by symnb)"
    return node.site.format(1)


def _name(var: Variable, node: Apply, fallback: str) -> str:
    """``var``'s label, unless it would be the name assigned on ``node``'s own line."""
    if var.name is not None or var.owner is None or var.site != node.site:
        return label(var)
    return fallback


def nonzero_use_message(nonzero_node: Apply, client: Apply | None, owner: str = "the function") -> str:
    mask = _name(nonzero_node.inputs[0], nonzero_node, "mask")
    if client is None:
        use = f"it is an output of {owner}"
    elif client.site == nonzero_node.site:
        use = f"it is used on that line by {client.op.display_name()}"
    else:
        use = f"it is used by {client.op.display_name()}:\n{_where(client)}"
    return (f"the length of {mask}.nonzero() depends on the values of {mask}, known only at run "
            f"time; XLA needs static shapes.\n{_where(nonzero_node)}\n{use}\n"
            f"In a compiled function it can index set_subtensor/inc_subtensor "
            f"(e.g. T.set_subtensor(x[{mask}.nonzero()], 0)), and be read when {mask} is "
            f"computed from arguments of a small fixed size or shared variables (the function "
            f"then compiles a program per value); to read masked values otherwise use "
            f"T.switch({mask}, x, 0), or sums like (x * {mask}).sum()")


def mask_read_message(node: Apply) -> str:
    x = _name(node.inputs[0], node, "x")
    mask = _name(array_inputs(node)[0], node, "mask")
    return (f"{x}[{mask}] has a length that depends on the values of {mask}, known only at run "
            f"time; XLA needs static shapes.\n{_where(node)}\n"
            f"Use T.switch({mask}, {x}, 0) to keep the shape, or set_subtensor/inc_subtensor("
            f"{x}[{mask}], y) with the mask as the only array index")
