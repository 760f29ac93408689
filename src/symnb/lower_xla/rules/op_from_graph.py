"""OpFromGraph nodes -> their inner graph inlined into the program.

The inner graph goes through ``build_program``, as a fused chain's does: each inner op
keeps its own rule and its user's line in the jaxpr/HLO, and XLA fuses the inlined
computation with its neighbours (Theano's ``inline=True`` in effect, whatever the op says:
the values are the same).
"""

from __future__ import annotations

from symnb.core.op_from_graph import OpFromGraph
from symnb.lower_xla.interpreter import build_program
from symnb.lower_xla.registry import lower


@lower.register(OpFromGraph)
def _op_from_graph(op, node):
    (graph,) = op.inner_graphs
    return build_program(graph.inputs, graph.outputs, graph.nodes)
