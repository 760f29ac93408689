"""Indexing: ``x[...]``, ``set_subtensor``/``inc_subtensor`` and ``nonzero``, NumPy 2 semantics.

``x[index]`` builds a ``Subtensor`` (basic indexing: ints, slices, None, Ellipsis) or an
``AdvancedSubtensor`` (integer or boolean arrays), following NumPy's rules for where
the advanced dimensions go. ``set_subtensor(x[index], y)`` reads ``x`` and the index
back from the node that computed ``x[index]`` (Theano's API) and builds an
``IncSubtensor``/``AdvancedIncSubtensor``, which returns a new tensor: graphs never
modify a value in place. With repeated advanced indices, ``inc_subtensor`` accumulates
(``np.add.at``); ``set_subtensor`` keeps one of the values.

The index structure lives in each op's ``idx_list`` (see ``subtensor_index``); its
symbolic parts are the node's inputs after ``x`` (and ``y``).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from symnb.core.graph.errors import BuildIndexTypeError, label
from symnb.core.graph.basic import Apply, Constant, Variable
from symnb.core.graph.op import Op, operand_text
from symnb.core.tensor import math as m
from symnb.core.tensor import subtensor_index as si
from symnb.core.tensor.basic import as_tensor_variable, constant
from symnb.core.tensor.broadcast import sum_to_shape
from symnb.core.tensor.shape import dimshuffle
from symnb.core.tensor.subtensor_checks import (
    check_value_fits, index_error, rephrase_index_error, static_indexed_shape,
)
from symnb.core.graph.type import TensorType, describe_shape, is_float

__all__ = ["getitem", "set_subtensor", "inc_subtensor", "nonzero", "flatnonzero", "nonzero_values"]


class _IndexOp(Op):
    """Shared by the indexing ops: the index structure ``idx_list`` and its display."""

    __props__: tuple[str, ...] = ("idx_list",)
    #: Inputs before the index inputs: x (and y for the inc/set ops).
    n_values = 1

    def __init__(self, idx_list: Sequence[si.Entry]) -> None:
        self.idx_list = tuple(idx_list)

    def display_name(self) -> str:
        return f"{type(self).__name__}{{{si.format_idx_list(self.idx_list)}}}"

    def indexed(self, node: Apply, name_of: Any) -> str:
        """``x[t]``, ``x[1:n]``: the indexing as the user wrote it."""
        names = [name_of(v) for v in node.inputs[self.n_values:]]
        return f"{operand_text(name_of(node.inputs[0]))}[{si.format_idx_list(self.idx_list, names)}]"

    def index_values(self, inputs: Sequence[Any]) -> tuple:
        return si.build_index(self.idx_list, inputs[self.n_values:])


class _GetOp(_IndexOp):
    """``x[index]``; subclasses differ in lowering only."""

    def public_name(self) -> str:
        return "getitem"

    def words(self, node: Apply, name_of: Any) -> str:
        return self.indexed(node, name_of)

    def make_node(self, x: Any, *index: Variable) -> Apply:
        x = as_tensor_variable(x)
        index = [as_tensor_variable(v) for v in index]
        shape = static_indexed_shape(self.idx_list, x, index, self, [x, *index])
        return Apply(self, [x, *index], [TensorType(x.dtype, shape)])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x = inputs[0]
        try:
            result = x[self.index_values(inputs)]
        except IndexError as err:
            raise rephrase_index_error(node, inputs, err) from None
        return [np.asarray(result)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [_symbolic_indexed_shape(node, self.idx_list, input_shapes)]

    def L_op(self, inputs, outputs, output_grads):
        from symnb.core.tensor.alloc import zeros_like

        x, *index = inputs
        if not is_float(x.dtype):
            return [None] * len(inputs)
        gx = self.inc_op(set_instead_of_inc=False)(zeros_like(x), output_grads[0], *index)
        return [gx] + [None] * len(index)

    def inc_op(self, set_instead_of_inc: bool) -> "_SetOp":
        """The op of ``inc_subtensor``/``set_subtensor`` on this indexing (Theano's pairs:
        ``Subtensor``/``IncSubtensor``, ``AdvancedSubtensor1``/``AdvancedIncSubtensor1``...)."""
        return IncSubtensor(self.idx_list, set_instead_of_inc=set_instead_of_inc)


class Subtensor(_GetOp):
    """Basic indexing: integers, slices (symbolic bounds too), None and Ellipsis."""

    def scalar_source(self, node: Apply, known: Any) -> Variable | None:
        """One element, at a known index, of a vector whose node names it
        (``stack([b, 2, 3])[1]`` holds 2 whatever ``b``: Theano's look through MakeVector)."""
        x, owner = node.inputs[0], node.inputs[0].owner
        if owner is None or len(self.idx_list) != 1 or x.ndim != 1:
            return None
        entry = self.idx_list[0]
        index = known(node.inputs[1]) if entry is si.SCALAR else entry
        if index is None or not isinstance(entry, int) and entry is not si.SCALAR:
            return None
        return owner.op.element(owner, int(index))


class AdvancedSubtensor(_GetOp):
    """Indexing with integer or boolean arrays (NumPy's advanced indexing)."""

    def inc_op(self, set_instead_of_inc: bool) -> "_SetOp":
        return AdvancedIncSubtensor(self.idx_list, set_instead_of_inc=set_instead_of_inc)


class AdvancedSubtensor1(AdvancedSubtensor):
    """Theano's ``x[ilist]``: an integer vector indexing the first axis (``x.take(ilist,
    axis=0)``), what ``x[ivector]`` builds. ``AdvancedSubtensor1()(x, ilist)``, as in Theano
    (``sparse_grad`` asked for a sparse gradient: symnb's gradients are dense, and the
    same numbers)."""

    def __init__(self, sparse_grad: bool = False) -> None:
        super().__init__((si.ARRAY,))
        self.sparse_grad = bool(sparse_grad)

    def make_node(self, x: Any, *index: Variable) -> Apply:
        _check_index_vector(self, x, index)
        return super().make_node(x, *index)

    def inc_op(self, set_instead_of_inc: bool) -> "_SetOp":
        return AdvancedIncSubtensor1(set_instead_of_inc=set_instead_of_inc)


class AdvancedBooleanSubtensor(AdvancedSubtensor):
    """Theano's indexing with a boolean mask (``x[x > 0]``): advanced indexing whose index
    holds a boolean array."""

    def inc_op(self, set_instead_of_inc: bool) -> "_SetOp":
        return AdvancedBooleanIncSubtensor(self.idx_list, set_instead_of_inc=set_instead_of_inc)


def _check_index_vector(op: Op, x: Any, index: Sequence[Any]) -> None:
    """Theano's checks of ``AdvancedSubtensor1``/``AdvancedIncSubtensor1``'s index (the same
    TypeErrors, with the names)."""
    x = as_tensor_variable(x)
    if len(index) != 1:
        raise TypeError(f"{type(op).__name__} takes one index vector, got {len(index)} indices")
    ilist = as_tensor_variable(index[0])
    if np.dtype(ilist.dtype).kind not in "iu":
        raise TypeError(f"index must be integers: {label(ilist)} is {ilist.type.short()} "
                        f"(indexing {label(x)})")
    if ilist.ndim != 1:
        raise TypeError(f"index must be vector: {label(ilist)} is {ilist.type.short()} "
                        f"(indexing {label(x)})")
    if x.ndim == 0:
        raise TypeError(f"cannot index into a scalar: {label(x)} is {x.type.short()}")


class _SetOp(_IndexOp):
    """``x`` with ``x[index]`` replaced by (or incremented by) ``y``, broadcast."""

    __props__ = ("idx_list", "set_instead_of_inc")
    n_values = 2

    def __init__(self, idx_list: Sequence[si.Entry], inplace: bool = False,
                 set_instead_of_inc: bool = False, destroyhandler_tolerate_aliased: Any = None) -> None:
        # Theano's signature. ``inplace`` and ``destroyhandler_tolerate_aliased`` asked
        # Theano to overwrite x's buffer: the result is the same, and XLA decides buffer
        # reuse, so they are kept (Theano's attributes) and change nothing.
        super().__init__(idx_list)
        self.inplace = bool(inplace)
        self.set_instead_of_inc = bool(set_instead_of_inc)
        self.destroyhandler_tolerate_aliased = list(destroyhandler_tolerate_aliased or [])

    def public_name(self) -> str:
        return "set_subtensor" if self.set_instead_of_inc else "inc_subtensor"

    def words(self, node: Apply, name_of: Any) -> str:
        """``inc_subtensor(x[t], y)``, as written with Theano's functions."""
        return f"{self.public_name()}({self.indexed(node, name_of)}, {name_of(node.inputs[1])})"

    def display_name(self) -> str:
        mode = "set" if self.set_instead_of_inc else "inc"
        return f"{type(self).__name__}{{{mode}; {si.format_idx_list(self.idx_list)}}}"

    def make_node(self, x: Any, y: Any, *index: Variable) -> Apply:
        x, y = as_tensor_variable(x), as_tensor_variable(y)
        index = [as_tensor_variable(v) for v in index]
        indexed = static_indexed_shape(self.idx_list, x, index, self, [x, y, *index])
        check_value_fits(self, x, y, indexed)
        return Apply(self, [x, y, *index], [x.type])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x, y = inputs[0], inputs[1]
        out = np.array(x, copy=True)
        index = self.index_values(inputs)
        try:
            target = out[index].shape
        except IndexError as err:
            raise rephrase_index_error(node, inputs, err) from None
        if not _broadcasts_to(y.shape, target):
            raise ValueError(_value_shape_message(node, y.shape, target))
        y = y.astype(out.dtype, copy=False)
        if self.set_instead_of_inc:
            out[index] = y
        elif isinstance(self, AdvancedIncSubtensor):
            np.add.at(out, index, y)  # repeated indices accumulate
        else:
            out[index] += y
        return [out]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[0]]

    def L_op(self, inputs, outputs, output_grads):
        x, y, *index = inputs
        g = output_grads[0]
        if self.set_instead_of_inc:  # the set positions no longer depend on x
            gx = self.get_op().inc_op(set_instead_of_inc=True)(g, constant(0, dtype=g.dtype), *index)
        else:
            gx = g
        gy = sum_to_shape(self.get_op()(g, *index), y) if is_float(y.dtype) else None
        return [gx if is_float(x.dtype) else None, gy] + [None] * len(index)

    def get_op(self) -> _GetOp:
        """The indexing op this one writes through (``Subtensor`` for ``IncSubtensor``...)."""
        return Subtensor(self.idx_list)


class IncSubtensor(_SetOp):
    """``set_subtensor``/``inc_subtensor`` on a basic index."""


class AdvancedIncSubtensor(_SetOp):
    """``set_subtensor``/``inc_subtensor`` on an advanced index (``np.add.at`` for inc)."""

    def get_op(self) -> _GetOp:
        return AdvancedSubtensor(self.idx_list)


class AdvancedIncSubtensor1(AdvancedIncSubtensor):
    """Theano's ``inc_subtensor(x[ilist], y)``/``set_subtensor`` for an integer vector on
    the first axis: ``AdvancedIncSubtensor1(inplace=False, set_instead_of_inc=False)(x, y,
    ilist)``, as in Theano (repeated indices accumulate for inc)."""

    def __init__(self, inplace: bool = False, set_instead_of_inc: bool = False) -> None:
        super().__init__((si.ARRAY,), inplace=inplace, set_instead_of_inc=set_instead_of_inc)

    def make_node(self, x: Any, y: Any, *index: Variable) -> Apply:
        _check_index_vector(self, x, index)
        return super().make_node(x, y, *index)

    def get_op(self) -> _GetOp:
        return AdvancedSubtensor1()


class AdvancedBooleanIncSubtensor(AdvancedIncSubtensor):
    """Theano's ``inc_subtensor``/``set_subtensor`` through a boolean mask."""

    def get_op(self) -> _GetOp:
        return AdvancedBooleanSubtensor(self.idx_list)


def _broadcasts_to(shape: tuple, target: tuple) -> bool:
    try:
        return np.broadcast_shapes(shape, target) == target
    except ValueError:
        return False


def _value_shape_message(node: Apply, y_shape: tuple, target: tuple) -> str:
    x, y = node.inputs[0], node.inputs[1]
    return (f"{label(y)} of shape {describe_shape(y_shape)} cannot be broadcast to "
            f"{label(x)}[{si.format_idx_list(node.op.idx_list)}], of shape {describe_shape(target)}")


# -- nonzero ------------------------------------------------------------------------

class Nonzero(Op):
    """Indices of the nonzero elements: one int64 vector per axis (or a matrix of them).

    The length depends on the values, so a compiled program can use it only where
    padding is harmless (the index of ``set_subtensor``/``inc_subtensor``) unless the
    input is known when the program is traced (a constant).
    """

    __props__ = ("return_matrix",)
    differentiable = False

    def __init__(self, return_matrix: bool = False) -> None:
        self.return_matrix = bool(return_matrix)

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        if x.ndim == 0:
            raise ValueError(f"nonzero of the 0-d tensor {label(x)} is not defined (NumPy 2); "
                             f"index a 1-d view instead, e.g. {label(x)}.reshape((1,)).nonzero()")
        length = 0 if 0 in x.type.shape else None
        if self.return_matrix:
            return Apply(self, [x], [TensorType("int64", (x.ndim, length))])
        return Apply(self, [x], [TensorType("int64", (length,))] * x.ndim)

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        indices = [np.asarray(i, dtype=np.int64) for i in np.nonzero(inputs[0])]
        if self.return_matrix:
            return [np.stack(indices).reshape(len(indices), -1)]
        return indices

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        count = _count_nonzero(node.inputs[0])
        if self.return_matrix:
            return [(node.inputs[0].ndim, count)]
        return [(count,)] * len(node.outputs)


class FlatNonzero(Op):
    """Indices of the nonzero elements of the flattened input (``np.flatnonzero``)."""

    differentiable = False

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        return Apply(self, [x], [TensorType("int64", (0 if 0 in x.type.shape else None,))])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [np.asarray(np.flatnonzero(inputs[0]), dtype=np.int64)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [(_count_nonzero(node.inputs[0]),)]


def _count_nonzero(x: Variable) -> Variable:
    from symnb.core.tensor.reduction import sum as sum_

    return m.cast(sum_(m.neq(x, 0)), "int64")


# -- index parsing -------------------------------------------------------------------

def _parse_index(x: Variable, index: Any) -> tuple[tuple, list[Variable]]:
    """``idx_list`` and the symbolic index inputs of ``x[index]``."""
    entries = index if isinstance(index, tuple) else (index,)
    if sum(e is Ellipsis for e in entries) > 1:
        raise index_error(x, "an index can only have a single ellipsis ('...')")
    idx_list, inputs = [], []
    for entry in entries:
        parsed, parts = _parse_entry(x, entry)
        idx_list.append(parsed)
        inputs.extend(parts)
    return tuple(idx_list), inputs


def _parse_entry(x: Variable, entry: Any) -> tuple[si.Entry, list[Variable]]:
    if entry is None or entry is Ellipsis:
        return entry, []
    if isinstance(entry, slice):
        return _parse_slice(x, entry)
    if isinstance(entry, (bool, np.bool_)):
        raise index_error(x, f"a boolean scalar ({entry}) as an index is not supported; "
                             f"use None (np.newaxis) to add an axis")
    if isinstance(entry, (int, np.integer)):
        return _int64_index(x, entry), []
    if not isinstance(entry, Variable):
        entry = _constant_index(x, entry)
    return _parse_variable(x, entry)


def _constant_index(x: Variable, entry: Any) -> Variable:
    """A list or array index as a constant (an empty list is an integer index, as in NumPy)."""
    if isinstance(entry, (list, tuple)) and any(isinstance(e, Variable) for e in entry):
        return as_tensor_variable(entry)
    array = np.asarray(entry)
    if array.size == 0 and array.dtype.kind == "f" and not isinstance(entry, np.ndarray):
        array = array.astype(np.int64)
    return constant(array)


def _parse_variable(x: Variable, var: Variable) -> tuple[si.Entry, list[Variable]]:
    kind = np.dtype(var.dtype).kind
    if kind == "b":
        if var.ndim == 0:
            raise index_error(x, f"a boolean scalar index ({label(var)}) is not supported; "
                                 f"use T.switch for a condition")
        return si.Mask(var.ndim), [var]
    if kind not in "iu":
        raise index_error(x, f"{label(var)} ({var.type.short()}) cannot index {label(x)}: only "
                             f"integers, slices, None, Ellipsis and integer or boolean arrays are "
                             f"valid indices; cast it with .astype('int64')", kind=BuildIndexTypeError)
    if var.ndim > 0:
        return si.ARRAY, [var]
    if isinstance(var, Constant):
        return int(var.data), []
    return si.SCALAR, [var]


_INT64 = np.iinfo(np.int64)


def _int64_index(x: Variable, value: Any) -> int:
    """A constant index or slice bound, which must fit in int64 (Theano's error: the
    compiled program's indices are int64)."""
    value = int(value)
    if not _INT64.min <= value <= _INT64.max:
        raise index_error(x, f"the index {value} does not fit in int64 (the compiled "
                             f"program's indices are int64)")
    return value


def _parse_slice(x: Variable, entry: slice) -> tuple[si.Slice, list[Variable]]:
    parts, inputs = [], []
    for part in (entry.start, entry.stop, entry.step):
        value, var = _slice_part(x, part)
        parts.append(value)
        inputs.extend(var)
    if parts[2] == 0:
        raise index_error(x, "slice step cannot be zero")
    return si.Slice(*parts), inputs


def _slice_part(x: Variable, part: Any) -> tuple[Any, list[Variable]]:
    if part is None:
        return None, []
    if isinstance(part, (int, np.integer)) and not isinstance(part, (bool, np.bool_)):
        return _int64_index(x, part), []
    var = part if isinstance(part, Variable) else constant(np.asarray(part))
    if var.ndim != 0 or np.dtype(var.dtype).kind not in "iu":
        raise index_error(x, f"slice bounds must be integer scalars or None; got {label(var)} "
                             f"({var.type.short()})", kind=BuildIndexTypeError)
    if isinstance(var, Constant):
        return int(var.data), []
    return si.SCALAR, [var]


# -- symbolic shapes (infer_shape) -------------------------------------------------------

def _symbolic_indexed_shape(node: Apply, idx_list: tuple, input_shapes: Sequence[tuple]) -> tuple:
    x_shape = input_shapes[0]
    index_inputs = node.inputs[node.op.n_values:]
    index_shapes = input_shapes[node.op.n_values:]
    parts = _slice_parts_by_entry(idx_list, index_inputs)
    advanced = []
    for entry, var, shape in zip(_flat_entries(idx_list), index_inputs, index_shapes):
        if entry is si.ARRAY:
            advanced.append(shape)
        elif isinstance(entry, si.Mask):
            advanced.append((_count_nonzero(var),))
    broadcast = _symbolic_broadcast(advanced)

    def slice_length(i: int, entry: si.Slice, length: Any) -> Any:
        if isinstance(length, int) and si.SCALAR not in entry:
            return si.static_slice_length(entry, length)
        return _symbolic_slice_length(*parts[i], length)

    shape = si.output_shape(idx_list, x_shape, broadcast, slice_length)
    static = node.outputs[0].type.shape
    return tuple(s if s is not None else d for s, d in zip(static, shape))


def _flat_entries(idx_list: tuple) -> list:
    """One entry per index input, in input order (slices give their SCALAR parts)."""
    return [si.SCALAR if isinstance(idx_list[i], si.Slice) else idx_list[i]
            for i in si.input_entries(idx_list)]


def _slice_parts_by_entry(idx_list: tuple, index_inputs: Sequence[Variable]) -> dict[int, tuple]:
    """For each slice entry, its (start, stop, step) with symbolic parts as variables."""
    inputs = iter(index_inputs)
    parts = {}
    for i, entry in enumerate(idx_list):
        if isinstance(entry, si.Slice):
            parts[i] = tuple(next(inputs) if p is si.SCALAR else p for p in entry)
        elif entry is si.SCALAR or entry is si.ARRAY or isinstance(entry, si.Mask):
            next(inputs)
    return parts


def _symbolic_broadcast(shapes: Sequence[tuple]) -> tuple:
    ndim = max((len(s) for s in shapes), default=0)
    padded = [(1,) * (ndim - len(s)) + tuple(s) for s in shapes]
    result = []
    for axis in range(ndim):
        lengths = [s[axis] for s in padded if not (isinstance(s[axis], int) and s[axis] == 1)]
        length = lengths[0] if lengths else 1
        for other in lengths[1:]:
            # Lengths that broadcast are equal or one is 1: the other (a mask's count of 1
            # and another's of 0 give 0, which a maximum would not).
            length = m.switch(m.eq(length, 1), other, length)
        result.append(length)
    return tuple(result)


def _symbolic_slice_length(start: Any, stop: Any, step: Any, n: Any) -> Variable:
    """``len(range(*slice(start, stop, step).indices(n)))`` as a graph (NumPy's clamping)."""
    step = 1 if step is None else step
    n = m.cast(as_tensor_variable(n), "int64")

    def bound(value: Any, default: Any, low: Any, high: Any) -> Variable:
        if value is None:
            return m.cast(as_tensor_variable(default), "int64")
        value = m.cast(as_tensor_variable(value), "int64")
        value = m.switch(m.lt(value, 0), m.add(value, n), value)
        return m.minimum(m.maximum(value, low), high)

    up = m.sub(bound(stop, n, 0, n), bound(start, 0, 0, n))
    down = m.sub(bound(start, m.sub(n, 1), -1, m.sub(n, 1)), bound(stop, -1, -1, m.sub(n, 1)))
    step = m.cast(as_tensor_variable(step), "int64")
    up_len = m.floor_div(m.add(up, m.sub(step, 1)), step)              # ceil(up / step)
    down_len = m.floor_div(m.sub(down, m.add(step, 1)), m.neg(step))   # ceil(down / -step)
    return m.maximum(m.switch(m.gt(step, 0), up_len, down_len), 0)


# -- public functions ----------------------------------------------------------------

def getitem(x: Any, index: Any) -> Variable:
    """``x[index]`` with NumPy 2 semantics (what ``Variable.__getitem__`` calls).

    ``index`` may hold ints, slices (bounds may be symbolic integer scalars), None,
    Ellipsis, integer arrays (symbolic, lists or NumPy) and boolean masks.
    """
    x = as_tensor_variable(x)
    if isinstance(index, list) and any(i is None or i is Ellipsis or isinstance(i, slice)
                                       for i in index):
        # Theano (and NumPy before 1.23) read a list holding slices as a tuple:
        # x[[slice(None), slice(0, 2)]] is x[:, 0:2]. No integer array holds a slice, so
        # this reading is never ambiguous.
        index = tuple(index)
    idx_list, inputs = _parse_index(x, index)
    if _drops_length_one_axes(x, idx_list):
        return _theano_newaxis(x, index)
    return _indexing_op(x, idx_list, inputs)(x, *inputs)


_FULL = si.Slice(None, None, None)


def _indexing_op(x: Variable, idx_list: tuple, inputs: Sequence[Variable]) -> _GetOp:
    """The op of ``x[idx_list]``, Theano's class for each kind of index (all compute
    NumPy's ``x[index]``): ``AdvancedSubtensor1`` for an integer vector on the first axis
    (Theano's ``x.take(ilist, axis=0)``), ``AdvancedBooleanSubtensor`` for an index with a
    boolean mask, ``AdvancedSubtensor`` for other advanced indices, else ``Subtensor``."""
    if idx_list[:1] == (si.ARRAY,) and all(e == _FULL for e in idx_list[1:]) and inputs[0].ndim == 1 \
            and 0 < x.ndim >= len(idx_list):  # (else NumPy's IndexError: too many indices)
        # x[ilist, :, :] is x[ilist]: the trailing full slices select everything.
        return AdvancedSubtensor1()
    if any(isinstance(e, si.Mask) for e in idx_list):
        return AdvancedBooleanSubtensor(idx_list)
    if si.is_advanced(idx_list):
        return AdvancedSubtensor(idx_list)
    return Subtensor(idx_list)


def _drops_length_one_axes(x: Variable, idx_list: tuple) -> bool:
    """Whether Theano 1.0 read ``x[idx_list]`` otherwise than NumPy: a basic index with
    None (np.newaxis), no Ellipsis, naming fewer axes than ``x`` has, the others all of
    length 1 (broadcastable). Theano dimshuffled the named axes only, dropping the
    others: ``col[:, None]`` is (n, 1) in Theano, (n, 1, 1) in NumPy. (Had one of them a
    length other than 1, Theano raised; symnb then follows NumPy.)"""
    if None not in idx_list or Ellipsis in idx_list or si.is_advanced(idx_list):
        return False
    named_axes = sum(entry is not None for entry in idx_list)
    rest = x.type.shape[named_axes:]
    return bool(rest) and all(n == 1 for n in rest)


def _theano_newaxis(x: Variable, index: Any) -> Variable:
    """``x[index]`` as Theano 1.0 built it (var.py's ``__getitem__``): ``x`` dimshuffled
    by the index ('x' for each None, the named axes in order, the others dropped), then
    indexed by the entries that are not None."""
    entries = index if isinstance(index, tuple) else (index,)
    pattern, rest, axis = [], [], 0
    for entry in entries:
        if entry is None:
            pattern.append("x")
            rest.append(slice(None))
        else:
            pattern.append(axis)
            axis += 1
            rest.append(entry)
    view = dimshuffle(x, pattern)
    if all(isinstance(e, slice) and e == slice(None) for e in rest):
        return view
    return getitem(view, tuple(rest))


def inc_subtensor(x: Any, y: Any, inplace: bool = False, set_instead_of_inc: bool = False,
                  tolerate_inplace_aliasing: bool = False) -> Variable:
    """A copy of the tensor indexed by ``x`` with ``y`` added at ``x``'s positions.

    ``x`` must be the result of indexing, e.g. ``inc_subtensor(a[idx], y)`` (Theano's
    API): the tensor and the index are read from the node that built it. ``y``
    broadcasts to ``x``'s shape; repeated advanced indices accumulate (``np.add.at``).
    ``inplace`` and ``tolerate_inplace_aliasing`` (Theano's "don't use") change nothing:
    the result is a new tensor, and XLA decides buffer reuse.
    """
    owner = getattr(x, "owner", None)
    if owner is None or not isinstance(owner.op, _GetOp):
        function = "set_subtensor" if set_instead_of_inc else "inc_subtensor"
        raise TypeError(_not_indexed_message(function, x))
    base, *index = owner.inputs
    y = as_tensor_variable(y)  # a Python number: Theano's constant dtype (stored as base's)
    return owner.op.inc_op(set_instead_of_inc)(base, y, *index)


def set_subtensor(x: Any, y: Any, inplace: bool = False, tolerate_inplace_aliasing: bool = False) -> Variable:
    """A copy of the tensor indexed by ``x`` with ``y`` stored at ``x``'s positions.

    ``set_subtensor(a[idx], y)`` is NumPy's ``a[idx] = y`` on a copy of ``a``.
    """
    return inc_subtensor(x, y, set_instead_of_inc=True)


def _not_indexed_message(function: str, x: Any) -> str:
    if not isinstance(x, Variable):
        what = f"a {type(x).__name__}"
    elif x.owner is None:
        what = f"{label(x)!r}, an input ({x.type.short()})"
    else:
        what = f"{label(x)!r}, computed by {x.owner.op.display_name()} {x.site.describe('at')}"
    return (f"{function}: the first argument must be the result of indexing, as in "
            f"{function}(x[idx], y); got {what}")


def nonzero(x: Any, return_matrix: bool = False) -> tuple[Variable, ...] | Variable:
    """Indices of the nonzero elements of ``x``: a tuple of int64 vectors, one per axis.

    With ``return_matrix=True``, one int64 matrix of shape ``(x.ndim, count)``. Use the
    tuple as an index: ``set_subtensor(data[mask.nonzero()], 0)``.
    """
    outputs = Nonzero(return_matrix)(as_tensor_variable(x))
    if return_matrix:
        return outputs
    return tuple(outputs) if isinstance(outputs, list) else (outputs,)


def flatnonzero(x: Any) -> Variable:
    """Indices of the nonzero elements of ``x`` flattened (``np.flatnonzero``)."""
    return FlatNonzero()(as_tensor_variable(x))


def nonzero_values(x: Any) -> Variable:
    """The nonzero elements of ``x``, in row-major order (``x[x.nonzero()]``)."""
    x = as_tensor_variable(x)
    return getitem(x, nonzero(x))
