"""Shape ops -> jax.numpy. Shapes are static under ``jax.jit``: ``Shape`` and ``Shape_i``
give NumPy values while tracing, so shapes computed from them stay static too.

A compiled program may serve every equal graph (the compile cache), so checks run here
name inputs by position (``input #0``) through :func:`with_input_names`, whose errors
say their message again with the names of the graph that was called.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Sequence, TypeVar

import jax
import jax.numpy as jnp
import numpy as np

from symnb.core.graph.basic import Apply
from symnb.core.tensor.shape import DimShuffle, Reshape, Shape, ShapeI, resolve_reshape
from symnb.lower_xla.registry import StaticValueRequired, lower, static_inputs


def input_name(index: int) -> str:
    """How a rule's error message names the node's input ``index``."""
    return f"input #{index}"


T = TypeVar("T")


def with_input_names(check: Callable[[list[str]], T], count: int, quoted: bool = True) -> T:
    """``check(names)`` (a build-time check that names ``count`` inputs in its message)
    run with the inputs named by position. An error it raises can say its message again
    with other names, the labels of the graph that failed (``err.with_names(labels)``,
    which the error report calls): the check runs again with them, quoted (``'x'``) as
    build-time and test-value messages name them (``symnb.core.tensor.shape.named``)
    unless ``quoted`` is False (products: ``x has shape ...``)."""
    try:
        return check([input_name(i) for i in range(count)])
    except Exception as error:
        error.with_names = functools.partial(_said_with, check, error, quoted)
        raise


def refuse(problem: str | None) -> None:
    """Raise ``ValueError(problem)`` when a check found one (a message, or None)."""
    if problem is not None:
        raise ValueError(problem)


def _said_with(check: Callable[[list[str]], Any], error: Exception, quoted: bool,
               labels: Sequence[str]) -> str:
    """What ``check`` raises with ``labels`` (``error``'s message if it no longer fails)."""
    try:
        check([repr(name) if quoted else name for name in labels])
    except type(error) as again:
        return str(again)
    return str(error)


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
        return jnp.reshape(x, with_input_names(lambda names: resolve_reshape(x.shape, target, names[0]), 1))

    return reshape


@static_inputs.register(Reshape)
def _reshape_shape(op, node) -> dict[int, str]:
    return {1: "a shape"}


@lower.register(DimShuffle)
def _dimshuffle(op, node):
    def dimshuffle(x):
        perm, out_shape = with_input_names(lambda names: op.steps(names[0], tuple(x.shape)), 1)
        return jnp.reshape(jnp.transpose(x, perm), out_shape)

    return dimshuffle
