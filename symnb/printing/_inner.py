"""What the printers read from ops that hold inner graphs (Scan, IfElse).

Such an op exposes ``inner_graphs`` (every op holding graphs does, see ``Op``),
``inner_inputs`` and ``inner_outputs``. Printing also needs to know which outer input
feeds each inner input (debugprint's ``x[t] [id F] -> [id C]``) and what each inner
output is (an IfElse's ``then``/``else`` branch, a ``scan_until`` loop's condition);
that layout is op-specific and read here, so the ops themselves stay free of printing
concerns.
"""

from __future__ import annotations

from symnb.core.graph import Apply, Variable
from symnb.core.ifelse import IfElse
from symnb.core.scan.op import Scan
from symnb.core.tensor.composite import Composite

__all__ = ["has_inner_graphs", "inner_to_outer", "inner_output_notes", "inner_summary"]


def has_inner_graphs(node: Apply) -> bool:
    """True when ``node``'s op holds inner graphs that printing shows apart (a loop body,
    condition branches). A ``Composite``'s display name already spells its fused graph
    out (``Composite{tanh((i0 + i1))}``), as Theano printed it."""
    return bool(node.op.inner_graphs) and not isinstance(node.op, Composite)


def inner_to_outer(node: Apply) -> dict[int, Variable]:
    """``id(inner input) -> the outer input of node that feeds it`` (empty for an op
    whose layout is unknown here)."""
    op = node.op
    if isinstance(op, IfElse):
        outer = list(node.inputs[1:])  # after the condition, one outer value per inner input
    elif isinstance(op, Scan):
        outer = _scan_feeds(op, node)
    else:
        return {}
    return {id(inner): var for inner, var in zip(op.inner_inputs, outer)}


def _scan_feeds(op: Scan, node: Apply) -> list[Variable]:
    """The outer input of each inner input, in inner-input order: a sequence feeds one
    inner input per tap, a recurrent output's initial state one per tap, then the
    non-sequences one each."""
    _, seqs, inits, non_seqs = op.split(node.inputs)
    feeds = [seq for seq, taps in zip(seqs, op.info.seq_taps) for _ in taps]
    for init, j in zip(inits, op.info.recurrent):
        feeds.extend([init] * len(op.info.out_taps[j]))
    return feeds + non_seqs


def inner_output_notes(node: Apply) -> list[str]:
    """A short note per inner output, '' where the output needs none: ``then``/``else``
    (numbered when the IfElse has several outputs), ``until`` for a loop's condition."""
    op = node.op
    if isinstance(op, IfElse):
        count = len(op.then_graph.outputs)
        numbered = [""] if count == 1 else [f" {i}" for i in range(count)]
        return [f"then{n}" for n in numbered] + [f"else{n}" for n in numbered]
    notes = [""] * len(op.inner_outputs)
    if isinstance(op, Scan) and op.info.as_while:
        notes[-1] = "until"
    return notes


def inner_summary(node: Apply) -> str:
    """One line on what ``node`` holds, e.g. ``inner graph: 3 nodes`` or
    ``then: 1 node, else: 2 nodes`` (for pictures, which do not draw inner graphs)."""
    op = node.op
    if isinstance(op, IfElse):
        return f"then: {_count(op.then_graph.nodes)}, else: {_count(op.else_graph.nodes)}"
    graphs = op.inner_graphs
    if len(graphs) == 1:
        return f"inner graph: {_count(graphs[0].nodes)}"
    return "inner graphs: " + ", ".join(_count(g.nodes) for g in graphs)


def _count(nodes: list[Apply]) -> str:
    return f"{len(nodes)} node{'' if len(nodes) == 1 else 's'}"
