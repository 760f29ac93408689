"""Shape ops: ``shape``, ``shape_i``, ``reshape``, ``dimshuffle`` and the functions built on
them (``transpose``, ``flatten``, ``squeeze``, ``expand_dims``).

Shapes are int64 values. A shape known from the static types (or from constants) is
used at build time, so most size errors are reported on the line that builds the node,
and the compiled program sees static shapes, as XLA requires.
"""

from __future__ import annotations

import numbers
from typing import Any, Sequence

import numpy as np

from symnb.core.graph.errors import build_error, label
from symnb.core.graph.basic import Apply, Variable
from symnb.core.graph.op import Op, operand_text
from symnb.core.graph.static import static_value
from symnb.core.tensor import math as m
from symnb.core.tensor.basic import as_tensor_variable, constant, is_stack
from symnb.core.tensor.specify_shape import specify_shape
from symnb.core.graph.type import TensorType, describe_shape, is_integer
from symnb.core.graph.source import warn_at_user_line

__all__ = [
    "shape", "shape_i", "reshape", "dimshuffle", "transpose", "flatten", "squeeze",
    "expand_dims", "Shape", "ShapeI", "Reshape", "DimShuffle",
]


# -- helpers shared by the shape-taking ops (alloc.py and join.py use them too) -----------

def named(var: Variable) -> str:
    """``var``'s name as build-time and test-value messages show it (quoted). Compiled
    programs may be shared by equal graphs, so lowering rules say ``input #i`` instead."""
    return repr(label(var))


def static_int(var: Any) -> int | None:
    """A Python int when ``var`` (an int or a 0-d variable) is statically known."""
    if isinstance(var, numbers.Integral):
        return int(var)
    value = static_value(var)
    return None if value is None else int(value)


def static_entries(vec: Variable) -> list[int | None]:
    """The statically known entries of an int vector (``None`` where unknown)."""
    length = vec.type.shape[0]
    value = static_value(vec)
    if value is not None:
        return [int(v) for v in value]
    node = vec.owner
    if node is not None and isinstance(node.op, Shape):
        return list(node.inputs[0].type.shape)
    if is_stack(node) and all(v.ndim == 0 for v in node.inputs):
        return [static_int(v) for v in node.inputs]
    return [None] * (length or 0)


def vector_entries(vec: Variable, length: int) -> list[Any]:
    """The entries of an int vector as ints or symbolic int64 scalars (for infer_shape)."""
    known = static_entries(vec)
    node = vec.owner
    entries: list[Any] = []
    for i in range(length):
        if i < len(known) and known[i] is not None:
            entries.append(known[i])
        elif node is not None and isinstance(node.op, Shape):
            entries.append(shape_i(node.inputs[0], i))
        elif is_stack(node) and node.inputs[i].ndim == 0:
            entries.append(node.inputs[i])
        else:
            entries.append(vec[i])
    return entries


def product(factors: Sequence[Any]) -> Any:
    """The product of ints and symbolic int scalars (an int when all are ints)."""
    result: Any = 1
    for f in factors:
        if isinstance(result, int) and isinstance(f, int):
            result *= f
        elif isinstance(result, int) and result == 1:
            result = f
        else:
            result = m.mul(result, f)
    return result


def _is_int(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def as_shape_vector(shape: Any, ndim: int | None = None, what: str = "shape") -> Variable:
    """``shape`` (an int, a sequence of ints and int scalars, or an int vector) as an
    int64 vector of statically known length."""
    if isinstance(shape, Variable) and shape.ndim == 1:
        return _symbolic_shape_vector(shape, ndim, what)
    if isinstance(shape, (Variable, numbers.Integral)):
        shape = (shape,)
    elif isinstance(shape, np.ndarray):
        shape = shape.tolist() if shape.ndim == 1 else (shape.item(),)
    entries = list(shape)
    for entry in entries:
        _check_shape_entry(entry, what)
    if ndim is not None and ndim != len(entries):
        raise build_error(f"{what} has {len(entries)} entries but ndim={ndim}", TypeError)
    if all(_is_int(e) for e in entries):
        return constant(np.array(entries, dtype=np.int64).reshape(len(entries)))
    # A list of variables is stacked (join.py, which builds on this module, installs how).
    return as_tensor_variable([constant(e, "int64") if _is_int(e) else m.cast(e, "int64")
                               for e in entries])


def _check_shape_entry(entry: Any, what: str) -> None:
    if _is_int(entry):
        return
    if isinstance(entry, Variable) and entry.ndim == 0 and is_integer(entry.dtype):
        return
    kind = entry.type.short() if isinstance(entry, Variable) else type(entry).__name__
    name = f" {named(entry)}" if isinstance(entry, Variable) else ""
    raise build_error(f"{what} entries must be ints or integer scalars; got{name} ({kind})",
                      TypeError)


def _symbolic_shape_vector(vec: Variable, ndim: int | None, what: str) -> Variable:
    if not is_integer(vec.dtype):
        raise build_error(f"{what} {named(vec)} must be an integer vector, got {vec.type.short()}",
                          TypeError)
    length = vec.type.shape[0]
    if length is None and ndim is None:
        raise build_error(f"the length of {what} {named(vec)} is not known statically; "
                          f"pass ndim= (the number of output dimensions)", TypeError)
    if length is not None and ndim is not None and length != ndim:
        raise build_error(f"{what} {named(vec)} has {length} entries but ndim={ndim}", TypeError)
    if length is None:  # ndim says how long it is: checked when it runs, known from now on
        return specify_shape(m.cast(vec, "int64"), (ndim,))
    if length == 0:  # no lengths to read (a scalar's x.shape): the graph needs nothing of x
        return constant(np.zeros(0, dtype=np.int64))
    return m.cast(vec, "int64")


# -- shape and shape_i -------------------------------------------------------------------

class Shape(Op):
    """The shape of a tensor, as an int64 vector."""

    differentiable = False
    reads_shape_only = True

    def make_node(self, x: Variable) -> Apply:
        return Apply(self, [x], [TensorType("int64", (x.ndim,))])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [np.array(inputs[0].shape, dtype=np.int64).reshape(inputs[0].ndim)]

    def element(self, node: Apply, index: int) -> Variable | None:
        """A length the static type knows (a row's first), as a constant."""
        shape = node.inputs[0].type.shape
        known = shape[index] if -len(shape) <= index < len(shape) else None
        return None if known is None else constant(known, "int64")

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [(node.inputs[0].ndim,)]


class ShapeI(Op):
    """The length of axis ``i`` of a tensor, as an int64 scalar (Theano's ``Shape_i``)."""

    __props__ = ("i",)
    differentiable = False
    reads_shape_only = True

    def __init__(self, i: int) -> None:
        self.i = int(i)

    def display_name(self) -> str:
        return f"Shape_i{{{self.i}}}"

    def public_name(self) -> str:
        return "shape"

    def words(self, node: Apply, name_of: Any) -> str:
        """``xs.shape[0]``."""
        return f"{operand_text(name_of(node.inputs[0]))}.shape[{self.i}]"

    def make_node(self, x: Variable) -> Apply:
        if not 0 <= self.i < x.ndim:
            raise TypeError(f"Shape_i{{{self.i}}}: {named(x)} has {x.ndim} dimension(s)")
        return Apply(self, [x], [TensorType("int64", ())])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [np.array(inputs[0].shape[self.i], dtype=np.int64)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [()]


def shape(x: Any) -> Variable:
    """The shape of ``x`` as an int64 vector (``x.shape``)."""
    return Shape()(as_tensor_variable(x))


def shape_i(x: Any, i: int) -> Any:
    """The length of axis ``i`` of ``x``: an int64 constant when the static type knows it."""
    x = as_tensor_variable(x)
    axis = normalize_axis(i, x.ndim, x)
    known = x.type.shape[axis]
    if known is not None:
        return constant(known, "int64")
    return ShapeI(axis)(x)


def normalize_axis(axis: Any, ndim: int, x: Variable | None = None) -> int:
    """``axis`` in ``range(ndim)`` (negative counts from the end), or a clear error."""
    if not _is_int(axis):
        raise build_error(f"axis must be an int, got {axis!r}", TypeError)
    if not -ndim <= axis < ndim:
        subject = f"{named(x)} ({x.type.short()})" if x is not None else f"a {ndim}-d tensor"
        # NumPy's AxisError, an IndexError and a ValueError (Theano raised ValueError)
        raise build_error(f"axis {axis} is out of bounds for {subject}", np.exceptions.AxisError)
    return int(axis) % ndim


# -- reshape -------------------------------------------------------------------------------

def resolve_reshape(in_shape: Sequence[int], target: Sequence[int], name: str) -> tuple[int, ...]:
    """NumPy's reshape target with its one ``-1`` filled in, or an error naming the
    input (``name``, as :func:`named` gives it)."""
    target = [int(t) for t in target]
    size = int(np.prod(in_shape, dtype=np.int64))
    unknown = [i for i, t in enumerate(target) if t == -1]
    if len(unknown) > 1 or any(t < -1 for t in target):
        raise ValueError(f"cannot reshape {name} into shape {describe_shape(target)}: "
                         f"lengths must be >= 0, with at most one -1")
    rest = int(np.prod([t for t in target if t != -1], dtype=np.int64))
    if unknown and rest != 0 and size % rest == 0:
        target[unknown[0]] = size // rest
    elif unknown or rest != size:
        raise ValueError(_reshape_mismatch(name, tuple(in_shape), target))
    return tuple(target)


def _reshape_mismatch(name: str, in_shape: tuple, target: Sequence[int | None]) -> str:
    known = [t for t in target if t is not None and t != -1]
    size = int(np.prod(in_shape, dtype=np.int64))
    target_size = int(np.prod(known, dtype=np.int64))
    multiple = "a multiple of " if -1 in target else ""
    return (f"cannot reshape {name} of shape {describe_shape(in_shape)} (size {size}) into shape "
            f"{describe_shape(target)} (size {multiple}{target_size})")


class Reshape(Op):
    """``x`` with a new shape of ``ndim`` lengths (one may be -1), NumPy's ``reshape``."""

    __props__ = ("ndim",)

    def __init__(self, ndim: int) -> None:
        self.ndim = int(ndim)

    def make_node(self, x: Variable, shape: Variable) -> Apply:
        if shape.ndim != 1 or not is_integer(shape.dtype):
            raise TypeError(f"Reshape: the shape must be an int vector, got {shape.type.short()}")
        if shape.type.shape[0] not in (None, self.ndim):
            raise TypeError(f"Reshape{{{self.ndim}}}: the shape has {shape.type.shape[0]} entries")
        out_shape = _static_reshape(self, x, shape, static_entries(shape) or [None] * self.ndim)
        return Apply(self, [x, shape], [TensorType(x.dtype, out_shape)])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x, target = inputs
        if len(target) != self.ndim:
            raise ValueError(f"Reshape{{{self.ndim}}}: the shape has {len(target)} entries")
        return [x.reshape(resolve_reshape(x.shape, target, named(node.inputs[0])))]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        static = node.outputs[0].type.shape
        if None not in static:
            return [static]
        entries = vector_entries(node.inputs[1], self.ndim)
        size, total = product(input_shapes[0]), product(entries)
        out = []
        for known, entry in zip(static, entries):
            if known is not None:
                out.append(known)
            elif isinstance(entry, int) and entry != -1:
                out.append(entry)
            else:  # -1 here (maybe only at run time) stands for size // (product of the others)
                missing = m.floor_div(size, m.neg(total))
                if not isinstance(entry, int):
                    missing = m.switch(m.eq(entry, -1), missing, entry)
                out.append(missing)
        return [tuple(out)]

    def L_op(self, inputs, outputs, output_grads):
        x, _ = inputs
        return [reshape(output_grads[0], shape(x), ndim=x.ndim), None]


def _static_reshape(op: Reshape, x: Variable, target: Variable, entries: list[int | None]
                    ) -> tuple[int | None, ...]:
    """The output's static shape, raising now when the static sizes cannot match (as the
    node would on test values: the same message, layout and error class)."""
    name = named(x)
    if sum(e == -1 for e in entries) > 1 or any(e is not None and e < -1 for e in entries):
        raise build_error(f"cannot reshape {name} into shape {describe_shape(entries)}: "
                          f"lengths must be >= 0, with at most one -1", op=op, inputs=[x, target])
    out = [e if e is not None and e >= 0 else None for e in entries]
    if not x.type.fully_known:
        return tuple(out)
    size = int(np.prod(x.type.shape, dtype=np.int64))
    open_axes = [i for i, e in enumerate(entries) if e is None or e == -1]
    rest = int(np.prod([e for e in out if e is not None], dtype=np.int64))
    mismatch = _reshape_mismatch(name, x.type.shape, entries)
    if not open_axes:
        if rest != size:
            raise build_error(mismatch, op=op, inputs=[x, target])
    elif rest == 0:
        if size != 0 or -1 in entries:  # NumPy refuses -1 next to a zero length
            raise build_error(mismatch, op=op, inputs=[x, target])
    elif size % rest:
        raise build_error(mismatch, op=op, inputs=[x, target])
    elif len(open_axes) == 1:
        out[open_axes[0]] = size // rest
    return tuple(out)


def reshape(x: Any, shape: Any, ndim: int | None = None) -> Variable:
    """``x`` reshaped to ``shape`` (NumPy semantics, one -1 allowed).

    ``shape`` is a tuple/list of ints and symbolic int scalars, or a symbolic int vector
    (give ``ndim`` when its length is not static).
    """
    x = as_tensor_variable(x)
    vec = as_shape_vector(shape, ndim, "reshape target shape")
    length = vec.type.shape[0] if vec.type.shape[0] is not None else ndim
    return Reshape(length)(x, vec)


# -- dimshuffle and friends ----------------------------------------------------------------

class DimShuffle(Op):
    """Theano's dimshuffle: reorder axes, insert broadcastable ones (``'x'``), drop
    length-1 ones (an input axis absent from ``pattern``)."""

    __props__ = ("input_ndim", "pattern")

    def __init__(self, input_ndim: int | Sequence[bool], pattern: Sequence[Any]) -> None:
        broadcastable = None
        if isinstance(input_ndim, (list, tuple)):
            # Theano's DimShuffle(input_broadcastable, new_order)
            broadcastable = tuple(bool(b) for b in input_ndim)
            input_ndim = len(broadcastable)
        pattern = tuple(_pattern_entry(p, input_ndim) for p in pattern)
        axes = [p for p in pattern if p != "x"]
        if len(set(axes)) != len(axes):
            raise build_error(f"dimshuffle pattern {pattern} repeats an axis", ValueError)
        if broadcastable is not None:
            for axis in range(input_ndim):
                if axis not in axes and not broadcastable[axis]:
                    raise build_error(f"dimshuffle pattern {pattern} drops axis {axis}, which is not "
                                      f"broadcastable (input broadcastable {broadcastable})", ValueError)
        self.input_ndim = int(input_ndim)
        self.pattern = pattern

    def display_name(self) -> str:
        return "DimShuffle{" + ",".join(str(p) for p in self.pattern) + "}"

    def public_name(self) -> str:
        return "dimshuffle"

    @property
    def dropped(self) -> tuple[int, ...]:
        return tuple(i for i in range(self.input_ndim) if i not in self.pattern)

    def make_node(self, x: Variable) -> Apply:
        if x.ndim != self.input_ndim:
            raise TypeError(f"{self.display_name()} expects a {self.input_ndim}-d input; "
                            f"{named(x)} is {x.type.short()}")
        for axis in self.dropped:
            if x.type.shape[axis] not in (None, 1):
                raise build_error(_drop_message(self, named(x), x.type.shape, axis), op=self, inputs=[x])
        out_shape = tuple(1 if p == "x" else x.type.shape[p] for p in self.pattern)
        return Apply(self, [x], [TensorType(x.dtype, out_shape)])

    def steps(self, name: str, in_shape: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """(permutation, output shape): the transpose then reshape that do the shuffle;
        raises when a dropped axis does not have length 1."""
        for axis in self.dropped:
            if in_shape[axis] != 1:
                raise ValueError(_drop_message(self, name, in_shape, axis))
        kept = [p for p in self.pattern if p != "x"]
        out_shape = tuple(1 if p == "x" else in_shape[p] for p in self.pattern)
        return tuple(kept) + self.dropped, out_shape

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        (x,) = inputs
        perm, out_shape = self.steps(named(node.inputs[0]), x.shape)
        return [x.transpose(perm).reshape(out_shape)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        (in_shape,) = input_shapes
        return [tuple(1 if p == "x" else in_shape[p] for p in self.pattern)]

    def L_op(self, inputs, outputs, output_grads):
        # Undo the shuffle on g: drop the inserted 'x' axes (length 1), restore the
        # input order, and put back the dropped axes as new length-1 axes.
        position = {p: j for j, p in enumerate(self.pattern) if p != "x"}
        back = [position.get(i, "x") for i in range(self.input_ndim)]
        return [DimShuffle(len(self.pattern), back)(output_grads[0])]


def _pattern_entry(p: Any, input_ndim: int) -> Any:
    if p == "x":
        return "x"
    if not _is_int(p):
        raise build_error(f"dimshuffle pattern entries must be axis indices or 'x', got {p!r}",
                          TypeError)
    if not 0 <= p < input_ndim:
        raise build_error(f"dimshuffle pattern entry {p} is not an axis of a {input_ndim}-d input "
                          f"(use 0..{input_ndim - 1})", ValueError)
    return int(p)


def _drop_message(op: DimShuffle, name: str, shape: tuple, axis: int) -> str:
    return (f"{op.display_name()} drops axis {axis} of {name} (shape {describe_shape(shape)}), "
            f"but its length is {shape[axis]}, not 1")


def dimshuffle(x: Any, pattern: Sequence[Any]) -> Variable:
    """Reorder ``x``'s axes by ``pattern``: axis indices, and ``'x'`` for a new length-1
    axis; an axis left out must have length 1 (checked now when known, else when run)."""
    x = as_tensor_variable(x)
    return DimShuffle(x.ndim, pattern)(x)


def transpose(x: Any, axes: Sequence[int] | None = None) -> Variable:
    """``x`` with its axes permuted (reversed by default), as ``np.transpose``."""
    x = as_tensor_variable(x)
    if axes is None:
        perm = tuple(reversed(range(x.ndim)))
    else:
        perm = tuple(normalize_axis(a, x.ndim, x) for a in axes)
        if sorted(perm) != list(range(x.ndim)):
            raise build_error(f"transpose: axes {tuple(axes)} are not a permutation of the "
                              f"{x.ndim} axes of {named(x)} ({x.type.short()})")
    out = dimshuffle(x, perm)
    if x.name and out is not x and perm == tuple(reversed(range(x.ndim))):
        out.name = x.name + ".T"  # Theano's name of a named variable's full transpose
    return out


def _length(x: Variable, axis: int) -> Any:
    known = x.type.shape[axis]
    return known if known is not None else shape_i(x, axis)


def flatten(x: Any, ndim: int | None = None, outdim: int | None = None) -> Variable:
    """``x`` with its trailing axes merged so it has ``ndim`` dimensions (default 1;
    Theano's ``flatten``: the first ``ndim - 1`` axes are kept). ``outdim`` is Theano
    1.0's deprecated name of ``ndim`` (it warns, as Theano did)."""
    if outdim is not None and ndim is not None:
        raise build_error("You should only specify ndim", ValueError)
    if outdim is not None:
        warn_at_user_line("flatten outdim parameter is deprecated, use ndim instead.")
        ndim = outdim
    ndim = 1 if ndim is None else ndim
    x = as_tensor_variable(x)
    if not _is_int(ndim) or not 1 <= ndim <= max(x.ndim, 1):
        raise build_error(f"flatten: ndim must be in 1..{max(x.ndim, 1)} for {named(x)} "
                          f"({x.type.short()}), got {ndim!r}")
    lead = [_length(x, k) for k in range(ndim - 1)]
    rest = product([_length(x, k) for k in range(ndim - 1, x.ndim)])
    return reshape(x, lead + [rest])


def squeeze(x: Any, axis: int | Sequence[int] | None = None) -> Variable:
    """``x`` without length-1 axes: with ``axis=None`` those statically known to be 1;
    with ``axis``, those axes (checked now when known, else when run)."""
    x = as_tensor_variable(x)
    if axis is None:
        drop = {i for i, n in enumerate(x.type.shape) if n == 1}
    else:
        axes = (axis,) if _is_int(axis) else tuple(axis)
        drop = {normalize_axis(a, x.ndim, x) for a in axes}
        if len(drop) != len(axes):
            raise build_error(f"squeeze: repeated axis in {tuple(axes)}")
        for a in sorted(drop):
            if x.type.shape[a] not in (None, 1):
                raise build_error(f"cannot squeeze axis {a} of {named(x)} (shape "
                                  f"{describe_shape(x.type.shape)}): its length is "
                                  f"{x.type.shape[a]}, not 1")
    return dimshuffle(x, [i for i in range(x.ndim) if i not in drop])


def expand_dims(x: Any, axis: int | Sequence[int]) -> Variable:
    """``x`` with new length-1 axes at the positions ``axis`` of the result (NumPy)."""
    x = as_tensor_variable(x)
    axes = (axis,) if _is_int(axis) else tuple(axis)
    out_ndim = x.ndim + len(axes)
    new = {normalize_axis(a, out_ndim) for a in axes}
    if len(new) != len(axes):
        raise build_error(f"expand_dims: repeated axis in {tuple(axes)}")
    inputs = iter(range(x.ndim))
    return dimshuffle(x, ["x" if i in new else next(inputs) for i in range(out_ndim)])
