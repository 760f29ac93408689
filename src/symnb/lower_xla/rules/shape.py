"""Shape ops -> jax.numpy. Shapes are static under ``jax.jit``: ``Shape`` and ``Shape_i``
give NumPy values while tracing, so shapes computed from them stay static too.

A compiled program may serve every equal graph (the compile cache), so errors raised
here name inputs by position (``input #0``); the function's report lists them with the
names and lines of the graph that was called.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from symnb.core.graph.basic import Apply
from symnb.core.tensor.shape import DimShuffle, Reshape, Shape, ShapeI, resolve_reshape
from symnb.lower_xla.registry import StaticValueRequired, lower, static_inputs


def input_name(index: int) -> str:
    """How a rule's error message names the node's input ``index``."""
    return f"input #{index}"


def static_argument(value: Any, node: Apply, index: int, what: str) -> np.ndarray:
    """Input ``index`` of ``node`` as a NumPy value, or ``StaticValueRequired`` if traced
    (the compiled function then specializes on the input values it comes from)."""
    if isinstance(value, np.ndarray):
        return value
    if not isinstance(value, jax.core.Tracer):  # a concrete array: node-by-node modes
        return np.asarray(value)
    raise StaticValueRequired(
        f"{node.op.display_name()} needs a static {what}, but it depends on input *values* "
        f"(through {input_name(index)}); XLA needs static shapes: compute it from "
        f"input shapes (x.shape[i]) and constants.", (index,))


@lower.register(Shape)
def _shape(op, node):
    return lambda x: np.array(np.shape(x), dtype=np.int64).reshape(len(np.shape(x)))


@lower.register(ShapeI)
def _shape_i(op, node):
    return lambda x: np.array(np.shape(x)[op.i], dtype=np.int64)


@lower.register(Reshape)
def _reshape(op, node):
    def reshape(x, shape):
        target = static_argument(shape, node, 1, "target shape")
        if len(target) != op.ndim:
            raise ValueError(f"Reshape{{{op.ndim}}}: the shape has {len(target)} entries")
        return jnp.reshape(x, resolve_reshape(x.shape, target, input_name(0)))

    return reshape


@static_inputs.register(Reshape)
def _reshape_shape(op, node) -> dict[int, str]:
    return {1: "a shape"}


@lower.register(DimShuffle)
def _dimshuffle(op, node):
    def dimshuffle(x):
        perm, out_shape = op.steps(input_name(0), tuple(x.shape))
        return jnp.reshape(jnp.transpose(x, perm), out_shape)

    return dimshuffle
