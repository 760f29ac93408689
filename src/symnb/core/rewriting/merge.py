"""Merging: one node per distinct computation, one constant per distinct value.

Common-subexpression elimination in one walk over the graph in topological order:
equal constants (same type, same bytes) become one, then two nodes applying equal ops
to the same inputs become one. Since the walk goes from inputs to outputs, the
inputs of each node are already merged when the node is looked at, so one walk
reaches the fixpoint.
"""

from __future__ import annotations

import hashlib
from typing import Any

from symnb.core.graph.fgraph import FunctionGraph
from symnb.core.graph.basic import Apply, Constant
from symnb.core.graph.rewriting import GraphPass

__all__ = ["MergePass", "constant_key"]

_INLINE_BYTES = 256  # larger constants are keyed by a digest of their bytes


def constant_key(const: Constant) -> tuple[Any, ...]:
    """Equal for constants of the same type and bytes (so -0.0 and 0.0 differ, and
    NaNs with the same bits are equal)."""
    own_key = getattr(const, "merge_key", None)
    if own_key is not None:  # a constant whose data is no array (a sparse matrix's)
        return own_key()
    data = const.data
    if data.nbytes <= _INLINE_BYTES:
        return (const.type, data.tobytes())
    contiguous = data if data.flags.c_contiguous else data.copy(order="C")
    return (const.type, hashlib.blake2b(memoryview(contiguous).cast("B")).digest())


class MergePass(GraphPass):
    """Merge equal constants, then equal nodes (equal op, same inputs)."""

    name = "merge"

    def apply(self, fgraph: FunctionGraph) -> int:
        merged = 0
        constants: dict[tuple, Constant] = {}
        nodes: dict[tuple, Apply] = {}
        for node in fgraph.toposort():
            if node not in fgraph.apply_nodes:  # dropped by an earlier merge
                continue
            for inp in node.inputs:
                if isinstance(inp, Constant) and inp in fgraph.clients:
                    kept = constants.setdefault(constant_key(inp), inp)
                    if kept is not inp:
                        fgraph.replace(inp, kept, reason=self.name)
                        merged += 1
            key = (node.op, tuple(node.inputs))
            kept_node = nodes.setdefault(key, node)
            if kept_node is node or not _same_types(node, kept_node):
                continue
            for old, new in zip(node.outputs, kept_node.outputs):
                if old in fgraph.clients:
                    fgraph.replace(old, new, reason=self.name)
            merged += 1
        return merged


def _same_types(a: Apply, b: Apply) -> bool:
    return len(a.outputs) == len(b.outputs) and all(
        x.type == y.type for x, y in zip(a.outputs, b.outputs))
