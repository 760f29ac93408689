"""Theano's ``tensor.basic`` ops of :mod:`symnb.core.tensor.basic_theano_ops`: Default
(the input: a compiled function's inputs are never None), MaxAndArgmax, Choose (its
indices out of range a run-time check in mode 'raise'), PermuteRowElements, AllocEmpty
(zeros), Rebroadcast (a length checked while tracing), Tile (its counts known while
tracing) and MakeVector."""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np

from symnb.core.graph.basic import Constant
from symnb.core.graph.errors import GraphRuntimeError, label
from symnb.core.tensor import basic_theano_ops as ops
from symnb.lower_xla.checks import CheckKind, may_check, register_check_kind, require
from symnb.lower_xla.registry import lower, static_inputs
from symnb.lower_xla.rules.extra_ops import checked_while_tracing
from symnb.lower_xla.rules.shape import static_argument


@lower.register(ops.Default)
def _default(op, node):
    return lambda x, default: x


@lower.register(ops.MaxAndArgmax)
def _max_and_argmax(op, node):
    def run(x):
        kept = [d for d in range(x.ndim) if d not in op.axis]
        blocks = jnp.transpose(x, kept + list(op.axis))
        # the block's length spelled out: -1 is undefined when a kept axis is empty
        blocks = blocks.reshape(blocks.shape[:len(kept)] + (math.prod(blocks.shape[len(kept):]),))
        return [jnp.max(blocks, axis=-1), jnp.argmax(blocks, axis=-1).astype(jnp.int64)]

    return run


def _choose_message(node, facts):
    return (f"choose: index {facts['value']} is out of range for the {facts['count']} choices "
            f"{label(node.inputs[1])!r} (mode='raise')")


class ChooseOutOfRange(ValueError):
    """An index of ``choose`` out of range in mode 'raise' (NumPy's ValueError); a class
    of its own, as ``checks.runtime_error_class`` needs."""


register_check_kind("choose", CheckKind(_choose_message, plain=ChooseOutOfRange, error=GraphRuntimeError))


@lower.register(ops.Choose)
def _choose(op, node):
    dtype = node.outputs[0].type.dtype

    def run(a, choices):
        count = choices.shape[0]
        if op.mode == "raise":
            bad = (a < 0) | (a >= count)
            first = jnp.where(jnp.any(bad), a.ravel()[jnp.argmax(bad.ravel())], 0) if a.size else 0
            require(~jnp.any(bad), node, "choose", value=first, count=int(count))
        mode = "wrap" if op.mode == "wrap" else "clip"
        return jnp.choose(a, choices, mode=mode).astype(dtype)

    return run


@may_check.register(ops.Choose)
def _choose_may_check(op, node, known):
    return op.mode == "raise" and any(not isinstance(v, Constant) and id(v) not in known
                                      for v in node.inputs)


@lower.register(ops.PermuteRowElements)
def _permute_row_elements(op, node):
    def run(x, y, inverse):
        lead = jnp.broadcast_shapes(x.shape[:-1], y.shape[:-1])
        x = jnp.broadcast_to(x, lead + x.shape[-1:])
        y = jnp.broadcast_to(y, lead + y.shape[-1:])
        taken = jnp.take_along_axis(x, y, axis=-1)
        # inverse: out[..., y] = x, i.e. x taken in the order of y's inverse
        put = jnp.take_along_axis(x, jnp.argsort(y, axis=-1), axis=-1)
        return jnp.where(inverse != 0, put, taken)

    return run


@lower.register(ops.AllocEmpty)
def _alloc_empty(op, node):
    def run(*lengths):
        shape = tuple(int(static_argument(n, node, i, "length")) for i, n in enumerate(lengths))
        return jnp.zeros(shape, dtype=op.dtype)

    return run


@static_inputs.register(ops.AllocEmpty)
def _alloc_empty_static(op, node) -> dict[int, str]:
    return {i: "a shape" for i in range(len(node.inputs))}


# Rebroadcast checks its lengths as SpecifyShape does (``op.check`` while tracing): one rule.
lower.register(ops.Rebroadcast)(checked_while_tracing)


@lower.register(ops.Tile)
def _tile(op, node):
    def run(x, reps):
        counts = [int(r) for r in np.asarray(static_argument(reps, node, 1, "reps"))]
        out = jnp.tile(x, counts)
        if out.ndim != op.ndim:
            raise ValueError(f"Tile({op.ndim}): the result has {out.ndim} dimensions (reps of "
                             f"length {len(counts)}), not {op.ndim}")
        return out

    return run


@static_inputs.register(ops.Tile)
def _tile_static(op, node) -> dict[int, str]:
    return {1: "a shape"}


@lower.register(ops.MakeVector)
def _make_vector(op, node):
    return lambda *scalars: jnp.asarray(jnp.stack(scalars) if scalars else jnp.zeros((0,)), dtype=op.dtype)
