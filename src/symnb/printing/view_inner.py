"""The inner graphs of the viewer's model: a loop's body, a condition's branches, an
``OpFromGraph``'s graph, each one group of kind ``inner`` holding that graph's nodes, so
the viewer opens a loop in place (``Scan{step} body``) and draws a failing node inside it.

The ids are the kernel pictures' (:meth:`GraphPicture._inner_pictures`): the group of inner
graph ``g`` of holder ``n3`` is ``n3/0``, its nodes ``n3/0/n1`` (Apply nodes in execution
order) and ``n3/0/v0`` (its inputs, then its constants), so the kernel's explorer answers
to the viewer's ids. Fused elementwise chains (``Composite``) are left out: their box's
name spells them out already. The inner group starts closed (the viewer then draws it as
its holder's box) unless it holds the failing node.
"""

from __future__ import annotations

from typing import Any

from symnb.core.graph.basic import Apply, Constant, Variable, toposort
from symnb.printing._common import cut_text, value_text
from symnb.printing._inner import inner_outer_names, inner_titles, is_fused
from symnb.printing.graph_model import node_ids, root_variables
from symnb.printing.labels import node_name, op_name
from symnb.printing.node_facts import runs_as
from symnb.printing.values import value_numbers, value_stats

__all__ = ["InnerParts", "shows_inner"]

_LABEL_LIMIT = 60


def shows_inner(node: Apply) -> bool:
    """True when the viewer draws ``node``'s inner graphs as groups (a loop, a condition,
    an OpFromGraph; not a fused elementwise chain)."""
    return bool(node.op.inner_graphs) and not is_fused(node.op)


class InnerParts:
    """The inner groups, nodes and edges of every holder in ``builder.order`` (a
    :class:`~symnb.printing.view_model._Builder`), nested loops at any depth."""

    def __init__(self, builder: Any) -> None:
        self.builder = builder
        self.nodes: list[dict] = []
        self.edges: list[dict] = []
        self.groups: list[dict] = []
        self.objects: list[tuple[str, Any]] = []  # (node id, its Apply or root)
        self.failing_open: list[str] = []  # inner groups around a failing node, outermost first

    def add_all(self, outer_nodes: list[dict]) -> "InnerParts":
        by_id = {n["id"]: n for n in outer_nodes}
        for node in self.builder.order:
            holder_id = self.builder.ids[id(node)]
            holder = by_id.get(holder_id)
            if holder is not None and shows_inner(node):
                self._add(node, holder_id, holder["group"], holder["region"], [])
        return self

    def _add(self, node: Apply, holder_id: str, parent: str | None, region: str, around: list[str]) -> bool:
        """The groups of ``node``'s inner graphs; True when one holds a failing node."""
        op = node.op
        graphs = op.inner_graphs
        titles = inner_titles(op, len(graphs))
        display = op_name(node)
        outer_names = inner_outer_names(node)
        holds_failing = False
        for g, (graph, title) in enumerate(zip(graphs, titles)):
            group_id = f"{holder_id}/{g}"
            label = f"{display} body" if len(graphs) == 1 else f"{display} {title}"
            self.groups.append({"id": group_id, "kind": "inner", "parent": parent, "label": label,
                                "region": region, "holder": holder_id, "mirrors": None, "series": None})
            if self._graph(graph, group_id, region, outer_names, around + [group_id]):
                holds_failing = True
        return holds_failing

    def _graph(self, graph: Any, group_id: str, region: str, outer_names: dict, around: list[str]) -> bool:
        """One inner graph's nodes and edges (the same order and ids as the kernel's
        picture of it); True when it holds a failing node."""
        order = toposort(graph.outputs, graph.inputs)
        roots = root_variables(order, graph.inputs, graph.outputs)
        ids = node_ids(order, roots, f"{group_id}/")
        shown = list(roots) + [node.outputs[0] for node in order]
        values = [self.builder.value(var) for var in shown]
        summaries = {id(var): None if value is None else value_stats(value, numbers)
                     for var, value, numbers in zip(shown, values, value_numbers(values))}
        inputs = {id(v) for v in graph.inputs}
        outputs = {id(v.owner) if v.owner is not None else id(v) for v in graph.outputs}
        failing = False
        for var in roots:
            node = self._root(var, ids[id(var)], group_id, region, id(var) in inputs, outer_names)
            node["summary"], node["is_output"] = summaries[id(var)], id(var) in outputs
            self.nodes.append(node)
            self.objects.append((node["id"], var))
        for node in order:
            node_id = ids[id(node)]
            entry = self._apply(node, node_id, group_id, region)
            entry["summary"], entry["is_output"] = summaries[id(node.outputs[0])], id(node) in outputs
            self.nodes.append(entry)
            self.objects.append((node_id, node))
            for var in node.inputs:
                source = ids.get(id(var.owner) if var.owner is not None and id(var.owner) in ids else id(var))
                if source is not None:
                    self.edges.append({"src": source, "out": var.index if var.owner is not None else 0,
                                       "dst": node_id})
            if entry["failing"] and not failing:
                failing = True
                self.failing_open.extend(g for g in around if g not in self.failing_open)
            if shows_inner(node) and self._add(node, node_id, group_id, region, around):
                failing = entry["failing"] = True  # a nested loop holding the failing node: marked too
        return failing

    def _root(self, var: Variable, node_id: str, group_id: str, region: str, is_input: bool,
              outer_names: dict) -> dict:
        texts = self.builder.texts
        if isinstance(var, Constant) and not is_input:
            kind, text = "constant", var.name or value_text(var.data)
        else:
            kind, text = "inner_input", texts.label(var)
            outer = outer_names.get(id(var))
            if outer and outer != text:
                text = f"{text} \u2190 {outer}"  # what feeds it, as the kernel's picture says
        line, code = texts.where(var.site)
        return {"id": node_id, "kind": kind, "label": cut_text(text, _LABEL_LIMIT), "op": None, "name": var.name,
                "group": group_id, "region": region, "line": line, "code": code,
                "outs": [self.builder._out(var)], "failing": False}

    def _apply(self, node: Apply, node_id: str, group_id: str, region: str) -> dict:
        texts = self.builder.texts
        display = op_name(node)
        text = node_name(node, {}, texts.label)
        line, code = texts.where(node.site)
        first = node.outputs[0]
        return {"id": node_id, "kind": "op", "label": cut_text(text, _LABEL_LIMIT), "op": display,
                "name": first.name if len(node.outputs) == 1 or first.name else None,
                "group": group_id, "region": region, "line": line, "code": code,
                "outs": [self.builder._out(v) for v in node.outputs],
                "failing": id(node) in self.builder.failing, "has_inner": bool(node.op.inner_graphs),
                "runs": runs_as(node.op)}
