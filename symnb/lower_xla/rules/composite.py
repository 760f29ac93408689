"""Composite (fused elementwise) nodes -> the inner ops' own rules, in order.

An inner op that fails while tracing (inputs whose shapes do not broadcast) is
reported as a ``NodeFailure`` for the *inner* node, which carries the user's line
that built it (e.g. ``z = z + y``); the function finds the Composite holding it
(``maker.failing_node``).
"""

from __future__ import annotations

from typing import Any

import jax

from symnb.core.graph import Constant
from symnb.core.tensor.composite import Composite
from symnb.lower_xla.convert import as_dtype
from symnb.lower_xla.interpreter import NodeFailure, scope_name
from symnb.lower_xla.registry import lower


@lower.register(Composite)
def _composite(op, node):
    # Each inner op keeps its own named scope (its user's line) in the jaxpr/HLO.
    steps = [(inner, lower(inner.op, inner), inner.outputs[0].type.dtype, scope_name(inner))
             for inner in op.graph.nodes]
    constants = {v: v.data for inner in op.graph.nodes for v in inner.inputs if isinstance(v, Constant)}

    def composite(*arrays: Any):
        env = dict(constants)
        env.update(zip(op.graph.inputs, arrays))
        for index, (inner, rule, dtype, scope) in enumerate(steps):
            args = [env[v] for v in inner.inputs]
            with jax.named_scope(scope):
                try:
                    value = rule(*args)
                except Exception as err:  # the inner node cannot run on these shapes
                    raise NodeFailure(inner, index, args, err) from err
            env[inner.outputs[0]] = as_dtype(value, dtype)
        return tuple(env[v] for v in op.graph.outputs)

    return composite
