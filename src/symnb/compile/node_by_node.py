"""Programs for the debugging linkers: the graph run node by node, eagerly.

Each node still runs through its XLA lowering rule, but outside ``jax.jit``, so a
linker's hook sees every node's concrete input and output values in execution order.
"""

from __future__ import annotations

from typing import Any, Sequence

import jax.numpy as jnp

from symnb.core.graph.basic import Apply, Variable
from symnb.lower_xla.cache import Program
from symnb.lower_xla.interpreter import build_program

__all__ = ["node_by_node_program"]


def node_by_node_program(inputs: Sequence[Variable], outputs: Sequence[Variable],
                         nodes: list[Apply], linker: Any, bare: bool = False) -> Program:
    """A :class:`Program` running ``nodes`` one by one through ``linker.hook``
    (``bare``: it returns its one output itself, as ``Program.bare`` says)."""
    run = build_program(inputs, outputs, nodes, hook=linker.hook)

    def call(*arrays: Any) -> Any:
        linker.start_call()
        # Inputs become device arrays: NumPy values would be taken as known while
        # tracing and computed by the NumPy reference instead of the lowering.
        results = run(*(jnp.asarray(a) for a in arrays))
        return results[0] if bare else results

    return Program(jitted=call, nodes=nodes, bare=bare)
