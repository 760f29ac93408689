"""Ops that undo or redo NumPy broadcasting, used by gradient rules.

The gradient of a broadcast input is the output gradient summed back to the input's
shape. Whether an axis was broadcast is often known only at run time (a static
length ``None`` that turns out to be 1), so these ops take the reference variable
itself and read its shape when they run.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from symnb.core.graph.basic import Apply, Variable
from symnb.core.graph.op import Op
from symnb.core.graph.type import TensorType

__all__ = ["sum_to_shape", "broadcast_like", "SumToShape", "BroadcastLike", "reduction_axes"]


def reduction_axes(from_shape: tuple[int, ...], to_shape: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Axes to sum so an array of ``from_shape`` becomes ``to_shape``.

    Returns (leading axes to drop, remaining axes to sum with keepdims).
    """
    lead = len(from_shape) - len(to_shape)
    dropped = tuple(range(lead))
    kept = tuple(lead + i for i, n in enumerate(to_shape) if n == 1 and from_shape[lead + i] != 1)
    return dropped, kept


def sum_array_to_shape(array, shape: tuple[int, ...], xp=np):
    """Sum ``array`` down to ``shape`` (the inverse of broadcasting); ``xp`` is np or jnp."""
    dropped, kept = reduction_axes(tuple(array.shape), tuple(shape))
    if kept:
        array = xp.sum(array, axis=kept, keepdims=True)
    if dropped:
        array = xp.sum(array, axis=dropped)
    return array


class SumToShape(Op):
    """``g`` summed over the axes along which ``like`` was broadcast to ``g``'s shape."""

    def make_node(self, g: Variable, like: Variable) -> Apply:
        return Apply(self, [g, like], [TensorType(g.dtype, like.type.shape)])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        g, like = inputs
        out = sum_array_to_shape(g, like.shape)
        return [np.asarray(out, dtype=node.outputs[0].type.dtype).reshape(like.shape)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[1]]

    def L_op(self, inputs, outputs, output_grads):
        g, like = inputs
        return [broadcast_like(output_grads[0], g), None]


class BroadcastLike(Op):
    """``x`` broadcast to the shape of ``like``."""

    def make_node(self, x: Variable, like: Variable) -> Apply:
        return Apply(self, [x, like], [TensorType(x.dtype, like.type.shape)])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x, like = inputs
        return [np.array(np.broadcast_to(x, like.shape), dtype=node.outputs[0].type.dtype)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[1]]

    def L_op(self, inputs, outputs, output_grads):
        x, like = inputs
        return [sum_to_shape(output_grads[0], x), None]


def sum_to_shape(g: Variable, like: Variable) -> Variable:
    """The gradient ``g`` of a broadcast result, summed back to ``like``'s shape.

    No node is added when the static shapes show that nothing was broadcast.
    """
    if g.ndim == like.ndim and all(n is not None and n != 1 for n in like.type.shape):
        return g  # no axis of ``like`` can have been broadcast
    if g.type.shape == like.type.shape and None not in like.type.shape:
        return g
    return SumToShape()(g, like)


def broadcast_like(x: Variable, like: Variable) -> Variable:
    """``x`` broadcast to ``like``'s shape (no node when the static shapes already agree)."""
    if x.type.shape == like.type.shape and None not in x.type.shape:
        return x
    return BroadcastLike()(x, like)
