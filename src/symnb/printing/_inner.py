"""What the printers show of ops holding inner graphs, read from the interface every such
op implements (``Op.inner_graphs``, ``inner_inputs``, ``inner_outputs``, ``inner_feeds``,
``inner_output_notes``, ``names_inner_graph``; see :mod:`symnb.core.graph.inner_graph`)."""

from __future__ import annotations

from typing import Any

from symnb.core.graph.basic import Apply, Variable
from symnb.core.graph.errors import label

__all__ = ["has_inner_graphs", "inner_to_outer", "inner_outer_names", "inner_output_notes", "inner_summary", "is_fused",
           "inner_titles"]


def has_inner_graphs(node: Apply) -> bool:
    """True when ``node``'s op holds inner graphs that printing shows apart (a loop body,
    condition branches); not when its display name spells them out already (a fused
    ``Composite{tanh((i0 + i1))}``, as Theano printed it)."""
    return bool(node.op.inner_graphs) and not node.op.names_inner_graph


def inner_to_outer(node: Apply) -> dict[int, Variable]:
    """``id(inner input) -> the outer input of node that feeds it``."""
    op = node.op
    return {id(inner): outer for inner, outer in zip(op.inner_inputs, op.inner_feeds(node))
            if outer is not None}


def inner_outer_names(node: Apply) -> dict[int, str]:
    """``id(inner input) -> the label of the outer variable feeding it`` (a fused chain's
    inner inputs: its node's inputs, in order)."""
    op = node.op
    outer = inner_to_outer(node)
    if not outer and hasattr(op, "inner_inputs"):
        outer = {id(i): v for i, v in zip(op.inner_inputs, node.inputs)}
    return {key: label(var) for key, var in outer.items()}


def inner_output_notes(node: Apply) -> list[str]:
    """A short note per inner output, '' where the output needs none (``then``/``else``,
    ``until``)."""
    return node.op.inner_output_notes()


def inner_summary(node: Apply) -> str:
    """One line on what ``node`` holds, e.g. ``inner graph: 3 nodes`` or
    ``then: 1 node, else: 2 nodes`` (for pictures, which do not draw inner graphs)."""
    graphs = node.op.inner_graphs
    if all(graph.role for graph in graphs):
        return ", ".join(f"{graph.role}: {_count(graph.nodes)}" for graph in graphs)
    if len(graphs) == 1:
        return f"inner graph: {_count(graphs[0].nodes)}"
    return "inner graphs: " + ", ".join(_count(graph.nodes) for graph in graphs)


def _count(nodes: list[Apply]) -> str:
    return f"{len(nodes)} node{'' if len(nodes) == 1 else 's'}"


def is_fused(op: Any) -> bool:
    """A fused elementwise chain (a ``Composite``)."""
    return type(op).__name__ == "Composite"


def inner_titles(op: Any, count: int) -> list[str]:
    """The titles of an op's ``count`` inner graphs as drawn: ``then``/``else``, ``loop body``."""
    family = type(op).__name__
    if family == "IfElse":
        return ["then", "else"]
    if is_fused(op):
        return ["fused elementwise chain"]
    if family == "Scan":
        return ["loop body (one step)"] if count == 1 else [f"loop body {i}" for i in range(count)]
    return [f"inner graph {i}" for i in range(count)]
