"""Composite (fused elementwise) nodes -> their inner graph, run by the interpreter.

The inner graph goes through ``build_program``, the loop every program uses: each
inner op keeps its own rule and its named scope (its user's line) in the jaxpr/HLO,
and an inner op that fails while tracing (inputs whose shapes do not broadcast) is
reported as a ``NodeFailure`` for the *inner* node, which carries the user's line
that built it (e.g. ``z = z + y``); the function finds the Composite holding it
(``interpreter.failing_node``).
"""

from __future__ import annotations

from symnb.core.tensor.composite import Composite
from symnb.lower_xla.interpreter import build_program
from symnb.lower_xla.registry import lower


@lower.register(Composite)
def _composite(op, node):
    (graph,) = op.inner_graphs
    return build_program(graph.inputs, graph.outputs, graph.nodes)
