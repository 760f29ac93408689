"""cumsum/cumprod, sort/argsort (stable, as the NumPy reference) and specify_shape
(a shape known while tracing: checked then, at no run-time cost)."""

from __future__ import annotations

import jax.numpy as jnp

from symnb.core.graph.errors import label
from symnb.core.tensor import extra_ops
from symnb.lower_xla.registry import lower


@lower.register(extra_ops.CumOp)
def _cumulative(op, node):
    dtype = node.outputs[0].type.dtype
    function = jnp.cumsum if op.mode == "add" else jnp.cumprod
    return lambda x: function(x, axis=op.axis, dtype=dtype)


@lower.register(extra_ops.Sort)
def _sort(op, node):
    return lambda x: jnp.sort(x, axis=op.axis, stable=True)


@lower.register(extra_ops.Argsort)
def _argsort(op, node):
    return lambda x: jnp.argsort(x, axis=op.axis, stable=True).astype(jnp.int64)


@lower.register(extra_ops.SpecifyShape)
def _specify_shape(op, node):
    name = repr(label(node.inputs[0]))

    def run(x):
        op.check(tuple(x.shape), name)  # XLA shapes are static: checked while tracing
        return x

    return run
