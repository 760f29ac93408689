"""Elementwise fusion: chains of elementwise nodes become one ``Composite`` node.

One walk from the outputs towards the inputs groups the nodes: an elementwise node
joins the group of its reader when that reader is its only one and is itself in a
group; otherwise it starts a group. A value read by several nodes (or returned) thus
stays a separate result, so no work is duplicated, and each group has one output.
Each group of two or more nodes is replaced by a Composite node, which takes the
creation site of the group's last node; the grouped nodes become its inner graph and
keep their own sites.
"""

from __future__ import annotations

from symnb.core.graph.fgraph import FunctionGraph
from symnb.core.graph.basic import Apply, Constant, Variable
from symnb.core.graph.rewriting import GraphPass
from symnb.core.tensor.composite import Composite
from symnb.core.tensor.elemwise import Elemwise

__all__ = ["FusionPass", "fuse"]


def _fusable(node: Apply) -> bool:
    return isinstance(node.op, Elemwise) and node.op.fusable and len(node.outputs) == 1


class FusionPass(GraphPass):
    """Replace each maximal single-reader chain of elementwise nodes by a Composite."""

    name = "fusion"

    def apply(self, fgraph: FunctionGraph) -> int:
        group_of: dict[Apply, Apply] = {}
        members: dict[Apply, list[Apply]] = {}
        for node in reversed(fgraph.toposort()):
            if not _fusable(node):
                continue
            readers = {client for client, _ in fgraph.clients[node.outputs[0]]}
            reader = readers.pop() if len(readers) == 1 else None
            root = group_of.get(reader) if reader is not None and reader != "output" else None
            if root is None:
                root = node
                members[root] = []
            group_of[node] = root
            members[root].append(node)
        fused = 0
        for root, nodes in members.items():
            if len(nodes) < 2:
                continue
            nodes.reverse()  # into topological order
            composite = fuse(nodes)
            fgraph.replace(root.outputs[0], composite.outputs[0], reason=self.name)
            fused += 1
        return fused


def fuse(nodes: list[Apply]) -> Apply:
    """A Composite node computing the last of ``nodes`` (topologically ordered
    elementwise nodes, each read only by later ones).

    The nodes themselves become the inner graph (they leave the function graph when it
    replaces their result), and the variables they read from outside the group are its
    inputs: inner errors thus name the user's variables and lines. Single-element
    constants stay inline.
    """
    members = set(nodes)
    outer_inputs: list[Variable] = []
    seen: set[Variable] = set()
    for node in nodes:
        for var in node.inputs:
            if var in seen or (var.owner is not None and var.owner in members):
                continue
            seen.add(var)
            if not (isinstance(var, Constant) and var.data.size == 1):
                outer_inputs.append(var)
    root = nodes[-1]
    op = Composite(outer_inputs, [root.outputs[0]], nodes)
    return Apply(op, outer_inputs, [root.outputs[0].type], site=root.site)
