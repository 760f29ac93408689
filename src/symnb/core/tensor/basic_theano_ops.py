"""Ops of Theano's ``theano.tensor.basic`` that symnb's own functions do not build, with
Theano's names and signatures: ``Default`` (``T.default``), ``MaxAndArgmax``, ``Choose``
(``T.choose``), ``PermuteRowElements`` (``T.permute_row_elements``,
``T.inverse_permutation``), ``AllocEmpty``, ``Rebroadcast``, ``Tile`` (deprecated in
Theano: ``T.tile`` builds repeats, as there) and ``T.opt``'s ``MakeVector`` (defined in
``join.py``, beside the ``stack`` that builds it).

Each op has its NumPy ``perform``; the lowering rules are in
``symnb/lower_xla/rules/basic_theano_ops.py``.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from symnb.core.graph.basic import Apply, Variable
from symnb.core.graph.errors import build_error, label
from symnb.core.graph.op import Op
from symnb.core.graph.type import TensorType, is_float, is_integer
from symnb.core.tensor import math as m
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.tensor.elemwise import broadcast_static_shapes
from symnb.core.tensor.join import MakeVector, make_vector  # Theano's T.opt names it here too
from symnb.core.tensor.reduction import Max, sum as _sum
from symnb.core.tensor.shape import normalize_axis, static_int

__all__ = ["Default", "default", "MaxAndArgmax", "Choose", "choose", "PermuteRowElements",
           "permute_row_elements", "inverse_permutation", "AllocEmpty", "Rebroadcast", "Tile",
           "MakeVector", "make_vector"]


class Default(Op):
    """``x``, or a copy of ``default`` where ``x`` is None (Theano's ``T.default``). Both
    must have the same type. symnb's compiled functions take arrays, never None, for a
    tensor input: there ``default(x, d)`` is ``x``."""

    __props__ = ()

    def make_node(self, x: Any, default: Any) -> Apply:
        x, default = as_tensor_variable(x), as_tensor_variable(default)
        if x.type != default.type:
            raise build_error(f"default: both arguments must have the same type; {label(x)!r} is "
                              f"{x.type.short()}, {label(default)!r} is {default.type.short()}",
                              TypeError, op=self, inputs=[x, default])
        return Apply(self, [x, default], [default.type])

    def perform(self, node: Apply, inputs: Sequence[Any]) -> list[np.ndarray]:
        x, default = inputs
        return [np.array(default, copy=True) if x is None else x]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[0]]

    def L_op(self, inputs, outputs, output_grads):
        # the output is x (a compiled function's inputs are never None)
        return [output_grads[0], None]


default = Default()
setdefault = default  # Theano's legacy name


def _reduced_axes(axis: Any, ndim: int, x: Variable) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    axes = [axis] if isinstance(axis, (int, np.integer)) else list(axis)
    return tuple(sorted({normalize_axis(a, ndim, x) for a in axes}))


class MaxAndArgmax(Op):
    """``[max(x, axis), argmax(x, axis)]`` in one node (Theano's op; ``axis``: a tuple of
    ints; the argmax of several axes indexes their flattened block, as Theano's)."""

    __props__ = ("axis",)

    def __init__(self, axis: Any) -> None:
        axes = [axis] if isinstance(axis, (int, np.integer)) else list(axis)
        self.axis = tuple(int(a) for a in axes)

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        axes = _reduced_axes(self.axis, x.ndim, x)
        if axes != self.axis:  # the op holds the axes as sorted non-negative ints
            return MaxAndArgmax(axes).make_node(x)
        kept = tuple(n for d, n in enumerate(x.type.shape) if d not in axes)
        return Apply(self, [x], [TensorType(x.dtype, kept), TensorType("int64", kept)])

    def _blocks(self, x: np.ndarray) -> np.ndarray:
        # the reduced axes last, flattened into one
        kept = [d for d in range(x.ndim) if d not in self.axis]
        moved = np.transpose(x, kept + list(self.axis))
        # the block's length spelled out: -1 is undefined when a kept axis is empty
        return moved.reshape(moved.shape[:len(kept)] + (int(np.prod(moved.shape[len(kept):])),))

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        blocks = self._blocks(np.asarray(inputs[0]))
        if blocks.shape[-1] == 0:
            raise ValueError(f"max_and_argmax: {label(node.inputs[0])!r} is empty along the "
                             f"reduced axes {self.axis}")
        return [np.asarray(np.max(blocks, axis=-1)), np.asarray(np.argmax(blocks, axis=-1), dtype=np.int64)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        kept = tuple(n for d, n in enumerate(input_shapes[0]) if d not in self.axis)
        return [kept, kept]

    def L_op(self, inputs, outputs, output_grads):
        from symnb.core.gradient_types import is_disconnected

        (x,), g_max = inputs, output_grads[0]
        if g_max is None or is_disconnected(g_max) or not is_float(x.dtype):
            return [None]
        # the max's gradient (the argmax has none): Max's, ties sharing it
        return Max(self.axis).L_op([x], [outputs[0]], [g_max])


class Choose(Op):
    """``np.choose(a, choices, mode=mode)``: ``choices`` a tensor whose first axis lists
    the choices (Theano's ``Choose(mode)``; ``mode`` 'raise', 'wrap' or 'clip')."""

    __props__ = ("mode",)

    def __init__(self, mode: str = "raise") -> None:
        if mode not in ("raise", "wrap", "clip"):
            raise ValueError(f"choose: mode={mode!r}; the modes are 'raise', 'wrap' and 'clip'")
        self.mode = mode

    def make_node(self, a: Any, choices: Any) -> Apply:
        a = as_tensor_variable(a)
        choices = _as_choices(choices)
        if not is_integer(a.dtype):
            raise build_error(f"choose: the index array {label(a)!r} must hold integers, not "
                              f"{a.dtype}", TypeError, op=self, inputs=[a, choices])
        if choices.ndim == 0:
            raise build_error(f"choose: choices {label(choices)!r} must have at least one axis "
                              "(the choices)", TypeError, op=self, inputs=[a, choices])
        shape = broadcast_static_shapes([a.type.shape, choices.type.shape[1:]])
        return Apply(self, [a, choices], [TensorType(choices.dtype, shape)])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        a, choices = inputs
        return [np.asarray(np.choose(a, choices, mode=self.mode), dtype=node.outputs[0].type.dtype)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [_broadcast_lengths([input_shapes[0], input_shapes[1][1:]],
                                   node.outputs[0].type.shape)]

    def L_op(self, inputs, outputs, output_grads):
        from symnb.core.gradient_types import grad_not_implemented

        return [None, grad_not_implemented(self, 1, inputs[1], "(as in Theano)")]


def _broadcast_lengths(shapes: Sequence[tuple], static: tuple) -> tuple:
    """The broadcast of symbolic shapes (lengths 1 or equal: their maximum), padded on
    the left, the static length where the output type knows it."""
    ndim = len(static)
    padded = [(1,) * (ndim - len(s)) + tuple(s) for s in shapes]
    out = []
    for d in range(ndim):
        if static[d] is not None:
            out.append(static[d])
            continue
        lengths = [s[d] for s in padded if not (isinstance(s[d], int) and s[d] == 1)]
        length = lengths[0] if lengths else 1
        for other in lengths[1:]:
            length = m.maximum(length, other)
        out.append(length)
    return tuple(out)


def _as_choices(choices: Any) -> Variable:
    from symnb.core.tensor.join import stack

    if isinstance(choices, (list, tuple)):  # Theano took a list of tensors: stacked here
        return stack([as_tensor_variable(c) for c in choices])
    return as_tensor_variable(choices)


def choose(a: Any, choices: Any, out: Any = None, mode: str = "raise") -> Variable:
    """``np.choose`` (Theano's ``T.choose``): ``choices[a[i]][i]`` at each position ``i``,
    ``a`` and each choice broadcast together. ``choices``: a tensor (its first axis lists
    the choices) or a list of tensors of one shape. ``out`` is NumPy's, not supported."""
    if out is not None:
        raise build_error("choose(out=...): symnb builds a new value (out is not supported)",
                          NotImplementedError)
    return Choose(mode)(a, choices)


class PermuteRowElements(Op):
    """Theano's ``PermuteRowElements``: along the last axis of ``x``, the elements taken in
    the order of the permutation ``y`` (``x[..., y]``, row by row), or put in that order
    (``inverse``: ``out[..., y] = x``); the leading axes of ``x`` and ``y`` broadcast."""

    __props__ = ()

    def make_node(self, x: Any, y: Any, inverse: Any = 0) -> Apply:
        x, y = as_tensor_variable(x), as_tensor_variable(y)
        inverse = as_tensor_variable(inverse)
        if not is_integer(y.dtype) or y.ndim == 0:
            raise build_error(f"permute_row_elements: the permutation {label(y)!r} must be an "
                              f"integer vector (or batch of them), not {y.type.short()}",
                              TypeError, op=self, inputs=[x, y])
        if x.ndim == 0 or inverse.ndim != 0:
            raise build_error(f"permute_row_elements: {label(x)!r} must have at least one axis and "
                              "inverse be a scalar", TypeError, op=self, inputs=[x, y])
        ndim = max(x.ndim, y.ndim)
        xs = (1,) * (ndim - x.ndim) + x.type.shape
        ys = (1,) * (ndim - y.ndim) + y.type.shape
        lead = broadcast_static_shapes([xs[:-1], ys[:-1]])
        last = xs[-1] if xs[-1] is not None else ys[-1]
        return Apply(self, [x, y, inverse], [TensorType(x.dtype, lead + (last,))])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x, y, inverse = (np.asarray(v) for v in inputs)
        if x.shape[-1] != y.shape[-1]:
            raise ValueError(f"permute_row_elements: {label(node.inputs[0])!r} has {x.shape[-1]} "
                             f"elements per row, the permutation {label(node.inputs[1])!r} "
                             f"{y.shape[-1]}")
        lead = np.broadcast_shapes(x.shape[:-1], y.shape[:-1])
        x = np.broadcast_to(x, lead + x.shape[-1:])
        y = np.broadcast_to(y, lead + y.shape[-1:])
        if bool(inverse):
            out = np.empty_like(x)
            np.put_along_axis(out, y, x, axis=-1)
            return [out]
        return [np.take_along_axis(x, y, axis=-1)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        xs, ys = input_shapes[0], input_shapes[1]
        static = node.outputs[0].type.shape
        lead = _broadcast_lengths([xs[:-1], ys[:-1]], static[:-1])
        return [lead + (static[-1] if static[-1] is not None else xs[-1],)]

    def L_op(self, inputs, outputs, output_grads):
        x, y, inverse = inputs
        g = output_grads[0]
        # the gradient goes back through the opposite permutation, summed over the
        # leading axes along which x was broadcast
        gx = self(g, y, m.eq(inverse, 0))
        extra = gx.ndim - x.ndim
        axes = tuple(range(extra)) + tuple(
            extra + d for d, n in enumerate(x.type.shape[:-1]) if n == 1 and gx.type.shape[extra + d] != 1)
        if axes:
            gx = _sum(gx, axis=axes, keepdims=False)
            if x.ndim != gx.ndim:  # the kept broadcast axes of x (length 1) are back
                from symnb.core.tensor.shape import reshape
                gx = reshape(gx, x.shape, ndim=x.ndim)
        return [gx, None, None]


def permute_row_elements(x: Any, y: Any, inverse: Any = 0) -> Variable:
    """Theano's ``T.permute_row_elements``: see :class:`PermuteRowElements`."""
    return PermuteRowElements()(x, y, inverse)


def inverse_permutation(perm: Any) -> Variable:
    """The inverse of the permutation(s) ``perm`` (an int vector, or a batch along the last
    axis): ``inv[perm[i]] = i`` (Theano's ``T.inverse_permutation``)."""
    from symnb.core.tensor.alloc import arange
    from symnb.core.tensor.shape import shape_i

    perm = as_tensor_variable(perm)
    return permute_row_elements(m.cast(arange(shape_i(perm, perm.ndim - 1)), perm.dtype), perm,
                                inverse=1)


class AllocEmpty(Op):
    """Theano's ``AllocEmpty(dtype)(*shape)``: an array of ``shape`` whose values are not
    to be read (Theano's were uninitialized memory); symnb's are zeros."""

    __props__ = ("dtype",)
    differentiable = False  # its inputs are lengths

    def __init__(self, dtype: Any) -> None:
        self.dtype = str(np.dtype(dtype))

    def make_node(self, *shape: Any) -> Apply:
        lengths = [as_tensor_variable(n) for n in shape]
        for n in lengths:
            if n.ndim != 0 or not is_integer(n.dtype):
                raise build_error(f"AllocEmpty: each length must be an integer scalar; "
                                  f"{label(n)!r} is {n.type.short()}", TypeError, op=self, inputs=lengths)
        return Apply(self, lengths, [TensorType(self.dtype, tuple(static_int(n) for n in lengths))])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [np.zeros(tuple(int(n) for n in inputs), dtype=self.dtype)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [tuple(node.inputs)]


class Rebroadcast(Op):
    """Theano's ``Rebroadcast((axis, flag), ...)(x)``: ``x`` with the broadcastable flag of
    each ``axis`` set (True: the axis has length 1, checked when the graph runs; False:
    its length is no longer known statically)."""

    __props__ = ("axis",)

    def __init__(self, *axis: tuple[int, bool]) -> None:
        items = dict(axis) if not (len(axis) == 1 and isinstance(axis[0], dict)) else axis[0]
        for a, flag in items.items():
            if not isinstance(a, (int, np.integer)) or not isinstance(flag, (bool, np.bool_)):
                raise TypeError(f"Rebroadcast takes (axis, bool) pairs; got ({a!r}, {flag!r})")
        self.axis = tuple(sorted((int(a), bool(f)) for a, f in items.items()))

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        shape = list(x.type.shape)
        for a, flag in self.axis:
            if not 0 <= a < x.ndim:
                raise build_error(f"Rebroadcast: axis {a} is out of range for {label(x)!r} "
                                  f"({x.type.short()})", ValueError, op=self, inputs=[x])
            if flag and shape[a] not in (None, 1):
                raise build_error(f"Rebroadcast: axis {a} of {label(x)!r} has length {shape[a]}, "
                                  "not 1", ValueError, op=self, inputs=[x])
            shape[a] = 1 if flag else None
        return Apply(self, [x], [x.type.clone(shape=tuple(shape))])

    def check(self, shape: tuple, name: str) -> None:
        """Raise a ValueError when an axis made broadcastable has a length other than 1."""
        for a, flag in self.axis:
            if flag and shape[a] != 1:
                raise ValueError(f"Rebroadcast: {name} has length {shape[a]} along axis {a}, "
                                 f"which is to be broadcastable (length 1)")

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        self.check(np.shape(inputs[0]), repr(label(node.inputs[0])))
        return [inputs[0]]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [tuple(1 if dict(self.axis).get(a) else n for a, n in enumerate(input_shapes[0]))]

    def L_op(self, inputs, outputs, output_grads):
        (x,) = inputs
        # back to the input's flags
        return [Rebroadcast(*[(a, x.type.shape[a] == 1) for a, _ in self.axis])(output_grads[0])]


class Tile(Op):
    """Theano's deprecated ``Tile(ndim)(x, reps)``: ``np.tile(x, reps)`` with ``reps`` an
    int vector of length ``ndim`` (its values known when the program is compiled: XLA's
    shapes are static). ``T.tile`` builds repeats instead, as in Theano 1.0."""

    __props__ = ("ndim",)

    def __init__(self, ndim: int) -> None:
        self.ndim = int(ndim)

    def make_node(self, x: Any, reps: Any) -> Apply:
        x, reps = as_tensor_variable(x), as_tensor_variable(reps)
        if reps.ndim != 1 or not is_integer(reps.dtype):
            raise build_error(f"Tile: reps {label(reps)!r} must be an integer vector, not "
                              f"{reps.type.short()}", TypeError, op=self, inputs=[x, reps])
        if x.ndim > self.ndim:
            raise build_error(f"Tile({self.ndim}): {label(x)!r} has {x.ndim} dimensions, more than "
                              f"{self.ndim}", ValueError, op=self, inputs=[x, reps])
        return Apply(self, [x, reps], [TensorType(x.dtype, (None,) * self.ndim)])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x, reps = inputs
        out = np.tile(x, reps)
        if out.ndim != self.ndim:
            raise ValueError(f"Tile({self.ndim}): the result has {out.ndim} dimensions (reps of "
                             f"length {len(reps)}), not {self.ndim}")
        return [out]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        from symnb.core.tensor.subtensor import getitem

        x_shape = (1,) * (self.ndim - len(input_shapes[0])) + tuple(input_shapes[0])
        count = node.inputs[1].type.shape[0]
        if count is None:
            raise NotImplementedError("Tile.infer_shape: reps of unknown length")
        # reps shorter than ndim applies to the last axes (np.tile)
        counts = [1] * (self.ndim - count) + [getitem(node.inputs[1], i) for i in range(count)]
        return [tuple(n if isinstance(c, int) else m.mul(n, c) for n, c in zip(x_shape, counts))]

    def L_op(self, inputs, outputs, output_grads):
        from symnb.core.gradient_types import grad_not_implemented

        return [grad_not_implemented(self, 0, inputs[0], "(as in Theano)"), None]

