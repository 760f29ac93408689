"""Joining and splitting tensors: ``stack``, ``concatenate``, and ``Split`` (which their
gradients use to hand each input its part of the output gradient).

Inputs of different dtypes are promoted as NumPy does (``np.result_type``); in
``stack``, a Python number is a constant of Theano's dtype for it (``T.stack([x_float32,
1.0])`` stays float32, ``T.stack([1, 2])`` is int8).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from symnb.core.graph.errors import build_error, label
from symnb.core.graph.basic import Apply, Variable
from symnb.core.graph.op import Op
from symnb.core.tensor import math as m
from symnb.core.tensor.alloc import zeros_like
from symnb.core.tensor.basic import as_tensor_args, as_tensor_variable, constant, install_stack, result_dtype
from symnb.core.tensor.scalar_types import upcast
from symnb.core.tensor.subtensor import getitem
from symnb.core.tensor.shape import dimshuffle, named, normalize_axis, shape_i, static_int
from symnb.core.graph.static import NotScalarConstantError, get_scalar_constant_value
from symnb.core.graph.type import TensorType, describe_shape, is_float, is_integer

__all__ = ["stack", "stacklists", "concatenate", "Join", "Stack", "Split", "MakeVector", "make_vector"]


# -- shape checks, shared with the lowering rules --------------------------------------------

def join_mismatch(names: Sequence[str], shapes: Sequence[tuple], axis: int | None) -> str | None:
    """Why ``shapes`` cannot be concatenated along ``axis`` (stacked, when ``axis`` is
    None), or None when they can. ``None`` lengths (unknown) match anything."""
    first = shapes[0]
    for name, shape in zip(names[1:], shapes[1:]):
        if len(shape) != len(first):
            return (f"all inputs must have the same number of dimensions, but {names[0]} has "
                    f"shape {describe_shape(first)} and {name} has shape {describe_shape(shape)}")
        for a, (n0, n) in enumerate(zip(first, shape)):
            if a != axis and n0 is not None and n is not None and n0 != n:
                rule = ("all inputs must have the same shape" if axis is None else
                        f"all lengths except along the concatenation axis {axis} must match")
                return (f"{rule}, but {names[0]} has shape {describe_shape(first)} and {name} "
                        f"has shape {describe_shape(shape)} (they differ on axis {a})")
    return None


def _merged_shape(tensors: Sequence[Variable], axis: int | None) -> list[int | None]:
    """Each axis's static length, taken from whichever input knows it."""
    merged: list[int | None] = list(tensors[0].type.shape)
    for t in tensors[1:]:
        merged = [a if a is not None else b for a, b in zip(merged, t.type.shape)]
    if axis is not None:
        lengths = [t.type.shape[axis] for t in tensors]
        merged[axis] = None if None in lengths else sum(lengths)
    return merged


def _check_static(tensors: Sequence[Variable], axis: int | None, what: str) -> None:
    problem = join_mismatch([named(t) for t in tensors], [t.type.shape for t in tensors], axis)
    if problem is not None:
        raise build_error(f"{what}: {problem}")


def check_values(names: Sequence[str], arrays: Sequence[Any], axis: int | None) -> None:
    """Raise an error naming the inputs when their shapes cannot be joined (rules use it too)."""
    problem = join_mismatch(names, [tuple(a.shape) for a in arrays], axis)
    if problem is not None:
        raise ValueError(problem)


# -- the ops ---------------------------------------------------------------------------------

class Join(Op):
    """Concatenation along an existing axis (``np.concatenate``).

    ``Join(axis)(*tensors)``, or Theano's ``Join()(axis, *tensors)``: the axis first among
    the inputs, a Python int or a constant (symnb's shapes are static, so a symbolic axis
    is refused at build); the node built is then ``Join(axis)``'s."""

    __props__ = ("axis",)

    def __init__(self, axis: int | None = None, view: int = -1) -> None:
        # Theano's Join(view=i) let the output be a view of input i when the others are
        # empty; XLA decides buffers here, so the values are the same and it changes nothing.
        self.axis = None if axis is None else int(axis)

    def make_node(self, *tensors: Variable) -> Apply:
        if self.axis is None:
            if not tensors:
                raise build_error("Join()(axis, *tensors): the axis and at least one tensor are needed",
                                  TypeError)
            axis, tensors = _static_axis(tensors[0]), _checked(tensors[1:], "Join")
            return Join(normalize_axis(axis, tensors[0].ndim)).make_node(*tensors)
        _check_static(tensors, self.axis, "concatenate")
        out = TensorType(result_dtype(*tensors), _merged_shape(tensors, self.axis))
        return Apply(self, tensors, [out])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        check_values([named(v) for v in node.inputs], inputs, self.axis)
        dtype = node.outputs[0].type.dtype
        return [np.concatenate(inputs, axis=self.axis).astype(dtype, copy=False)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        out = list(input_shapes[0])
        static = node.outputs[0].type.shape
        for a, known in enumerate(static):
            if known is not None:
                out[a] = known
        if static[self.axis] is None:
            total = input_shapes[0][self.axis]
            for s in input_shapes[1:]:
                total = m.add(total, s[self.axis])
            out[self.axis] = total
        return [tuple(out)]

    def L_op(self, inputs, outputs, output_grads):
        sizes = [shape_i(x, self.axis) for x in inputs]
        return split(output_grads[0], sizes, self.axis)


class Stack(Op):
    """Inputs of one shape joined along a new axis (``np.stack``)."""

    __props__ = ("axis",)

    def __init__(self, axis: int) -> None:
        self.axis = int(axis)

    def make_node(self, *tensors: Variable) -> Apply:
        _check_static(tensors, None, "stack")
        shape = _merged_shape(tensors, None)
        shape.insert(self.axis, len(tensors))
        return Apply(self, tensors, [TensorType(result_dtype(*tensors), shape)])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        check_values([named(v) for v in node.inputs], inputs, None)
        dtype = node.outputs[0].type.dtype
        return [np.stack(inputs, axis=self.axis).astype(dtype, copy=False)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        out = list(input_shapes[0])
        for a, known in enumerate(node.inputs[0].type.shape):
            out[a] = known if known is not None else out[a]
        out.insert(self.axis, len(node.inputs))
        return [tuple(out)]

    def L_op(self, inputs, outputs, output_grads):
        pieces = split(output_grads[0], [1] * len(inputs), self.axis)
        keep = [a for a in range(outputs[0].ndim) if a != self.axis]
        return [dimshuffle(p, keep) for p in pieces]


class Split(Op):
    """``x`` cut along ``axis`` into ``n`` consecutive pieces of the given lengths.

    Theano's ``Split(n)(x, axis, splits)``: ``axis`` an int or a constant, ``splits`` a
    vector (or list) of the ``n`` lengths; or ``Split(n, axis)(x, *lengths)``, the node
    that one builds."""

    __props__ = ("axis", "n")

    def __init__(self, len_splits: int, axis: int | None = None) -> None:
        self.n, self.axis = int(len_splits), None if axis is None else int(axis)

    def make_node(self, x: Any, *sizes: Any) -> Apply:
        x = as_tensor_variable(x)
        if self.axis is None:  # Theano's (x, axis, splits)
            if len(sizes) != 2:
                raise build_error(f"Split({self.n})(x, axis, splits): got {1 + len(sizes)} inputs", TypeError)
            axis, splits = _static_axis(sizes[0], "Split"), as_tensor_variable(sizes[1])
            lengths = [getitem(splits, i) for i in range(self.n)]
            return Split(self.n, normalize_axis(axis, x.ndim)).make_node(x, *lengths)
        if len(sizes) != self.n:
            raise TypeError(f"{self.display_name()} takes {self.n} sizes, got {len(sizes)}")
        sizes = [m.cast(as_tensor_variable(s), "int64") for s in sizes]
        outputs = []
        for size in sizes:
            shape = list(x.type.shape)
            length = static_int(size)
            shape[self.axis] = length if length is None or length >= 0 else None  # (refused when run)
            outputs.append(TensorType(x.dtype, shape))
        return Apply(self, [x, *sizes], outputs)

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x, sizes = inputs[0], [int(s) for s in inputs[1:]]
        check_split(named(node.inputs[0]), x.shape, sizes, self.axis)
        return np.split(x, np.cumsum(sizes)[:-1], axis=self.axis)

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        x_shape = input_shapes[0]
        return [x_shape[:self.axis] + (size,) + x_shape[self.axis + 1:] for size in node.inputs[1:]]

    def L_op(self, inputs, outputs, output_grads):
        pieces = [g if g is not None else zeros_like(out) for g, out in zip(output_grads, outputs)]
        return [concatenate(pieces, self.axis)] + [None] * self.n


def check_split(name: str, shape: tuple, sizes: Sequence[int], axis: int) -> None:
    """Raise unless ``sizes`` (all >= 0) add up to the length of ``axis``."""
    if any(s < 0 for s in sizes) or sum(sizes) != shape[axis]:
        raise ValueError(f"cannot split {name} of shape {describe_shape(shape)} along axis {axis} "
                         f"into pieces of lengths {list(sizes)} (they must be >= 0 and add up "
                         f"to {shape[axis]})")


def split(x: Variable, sizes: Sequence[Any], axis: int) -> list[Variable]:
    """``x`` cut along ``axis`` into pieces of lengths ``sizes`` (ints or int scalars)."""
    sizes = [constant(s, "int64") if isinstance(s, int) else m.cast(s, "int64") for s in sizes]
    pieces = Split(len(sizes), axis)(x, *sizes)
    return pieces if isinstance(pieces, list) else [pieces]


# -- public functions --------------------------------------------------------------------------

def _checked(tensors: Sequence[Any], name: str) -> list[Variable]:
    """The tensors to concatenate, as variables of one number of dimensions (at least 1)."""
    tensors = [as_tensor_variable(t) for t in tensors]
    if not tensors:
        raise build_error(f"{name}: need at least one tensor to concatenate")
    scalar = next((t for t in tensors if t.ndim == 0), None)
    if scalar is not None:
        raise build_error(f"{name}: zero-dimensional tensors cannot be concatenated; "
                          f"{named(scalar)} is a scalar (use stack)", TypeError)  # (Theano's type)
    odd = next((t for t in tensors if t.ndim != tensors[0].ndim), None)
    if odd is not None:
        raise build_error(f"{name}: all inputs must have the same number of dimensions, but "
                          f"{named(tensors[0])} is {tensors[0].type.short()} and {named(odd)} "
                          f"is {odd.type.short()}", TypeError)
    return tensors


def _static_axis(axis: Any, op: str = "Join") -> int:
    """Theano's ``Join()``'s first input (``Split(n)``'s second), the axis, as a Python int
    (refused when symbolic)."""
    if isinstance(axis, (int, np.integer)):
        return int(axis)
    axis = as_tensor_variable(axis)
    try:
        value = get_scalar_constant_value(axis)
    except NotScalarConstantError:
        raise build_error(f"{op}: the axis {named(axis)} is symbolic; symnb's shapes are "
                          "static, so the axis must be an int or a constant (write "
                          "T.concatenate(tensors, axis=<int>))", NotImplementedError) from None
    if not is_integer(axis.dtype):
        raise build_error(f"{op}: the axis {named(axis)} must be an integer, not {axis.dtype}",
                          TypeError)
    return int(value)


def concatenate(tensors: Sequence[Any], axis: int = 0) -> Variable:
    """Join tensors along an existing ``axis`` (``np.concatenate``, NumPy dtype promotion)."""
    tensors = _checked(tensors, "concatenate")
    return Join(normalize_axis(axis, tensors[0].ndim))(*tensors)


class MakeVector(Op):
    """Theano's ``T.opt.MakeVector(dtype='int64')(*scalars)``: the vector of the scalars,
    each cast to ``dtype`` where that loses nothing (else a TypeError, as Theano)."""

    __props__ = ("dtype",)

    def __init__(self, dtype: Any = "int64") -> None:
        self.dtype = str(np.dtype(dtype))

    def make_node(self, *inputs: Any) -> Apply:
        inputs = [as_tensor_variable(i) for i in inputs]
        odd = next((i for i in inputs if i.ndim != 0), None)
        if odd is not None:
            raise build_error(f"MakeVector: {label(odd)!r} ({odd.type.short()}) is not a scalar",
                              TypeError, op=self, inputs=inputs)
        lossy = [i for i in inputs if np.promote_types(i.dtype, self.dtype) != np.dtype(self.dtype)]
        if lossy:
            raise build_error(f"MakeVector({self.dtype}): inputs of dtypes "
                              f"{[i.dtype for i in lossy]} do not cast to {self.dtype} without loss",
                              TypeError, op=self, inputs=inputs)
        inputs = [m.cast(i, self.dtype) for i in inputs]
        return Apply(self, inputs, [TensorType(self.dtype, (len(inputs),))])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [np.asarray(inputs, dtype=self.dtype).reshape(len(inputs))]

    def element(self, node: Apply, index: int) -> Variable | None:
        return node.inputs[index] if -len(node.inputs) <= index < len(node.inputs) else None

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [(len(node.inputs),)]

    def L_op(self, inputs, outputs, output_grads):
        if not is_float(self.dtype):
            return [None] * len(inputs)
        return [getitem(output_grads[0], i) for i in range(len(inputs))]


make_vector = MakeVector()


def stack(*args: Any, axis: int = 0) -> Variable:
    """Join tensors of one shape along a new ``axis`` (``np.stack``; a Python number
    is a constant of Theano's dtype for it).

    ``stack(tensors, axis=0)`` (a list or tuple first), or Theano's older variadic form
    ``stack(a, b, c)``, which stacks along axis 0 unless ``axis=`` is given.
    """
    if args and isinstance(args[0], (list, tuple)):
        if len(args) > 2:
            raise build_error(f"stack(tensors, axis): got {len(args)} positional arguments", TypeError)
        tensors, axis = args[0], (args[1] if len(args) == 2 else axis)
    else:
        tensors = args
    tensors = as_tensor_args(*tensors)
    if not tensors:
        raise build_error("stack: need at least one tensor to stack")
    axis = normalize_axis(axis, tensors[0].ndim + 1)
    if axis == 0 and all(t.ndim == 0 for t in tensors):
        # Theano's stack of scalars is a MakeVector of their common dtype (its rewrites
        # and tests look for that node)
        return MakeVector(upcast(*[t.dtype for t in tensors]))(*tensors)
    return Stack(axis)(*tensors)


install_stack(stack, (Stack, MakeVector))  # as_tensor_variable([x, y]) and shape vectors (basic.py)


def stacklists(arg: Any) -> Any:
    """Stack nested lists of tensors into one tensor of the lists' structure (Theano's
    ``T.stacklists``): ``stacklists([[a, b], [c, d]])`` of scalars is a 2x2 matrix, of
    matrices a ``(2, 2, rows, cols)`` tensor. Anything that is not a list or tuple is
    returned as it is."""
    if isinstance(arg, (tuple, list)):
        return stack([stacklists(item) for item in arg])
    return arg
