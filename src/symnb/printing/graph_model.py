"""What a picture of a graph shows, before it is laid out: :class:`GraphPicture`.

Apply nodes are boxes labelled with the user's name for what they compute (or the
source text that built it) over the op; the graph's roots (inputs, shared variables,
constants) are their own small nodes; every edge carries the type of the value it
moves. A node holding inner graphs (a loop body, condition branches, a fused chain)
can be *expanded*: its inner graphs are drawn inside it. A node can be *collapsed*:
the part of the graph that only feeds it is hidden, and the node counts what it hides.

Node ids are stable for a given graph (``n3``: the fourth node in execution order,
``v0``: the first root met; inner nodes are prefixed by their parent's id and the inner
graph's number, ``n3/0/n1``), so a selection, expansion or collapse survives a redraw.
Nothing here computes a test value: a pending one shows as pending.

A picture can carry each node's time per call (``times``, e.g. ``f.profile.node_times()``):
each timed node then knows its seconds, its share of the nodes' total, and its heat (its
time over the costliest node's), which the drawing shades it by.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from symnb.core.graph.errors import label
from symnb.core.graph.basic import Apply, Constant, Variable, toposort
from symnb.core.tensor.shared import SharedVariable
from symnb.printing._common import graph_parts, output_text, value_text
from symnb.printing._inner import inner_output_notes, inner_to_outer

__all__ = ["GraphPicture", "PictureNode", "PictureEdge", "InnerPicture", "value_of",
           "family_of", "creation_text"]

_LABEL_LIMIT = 40

# Op families (by class name anywhere in the op's class hierarchy) -> the picture's colour
# key; the first match wins.
_FAMILIES = (
    ("Scan", "control"), ("IfElse", "control"), ("Composite", "fused"),
    ("Elemwise", "elemwise"), ("Reduce", "reduce"), ("Sum", "reduce"), ("Max", "reduce"),
    ("Dot", "blas"), ("Gemm", "blas"), ("Gemv", "blas"), ("MatMul", "blas"), ("Conv", "blas"),
    ("Subtensor", "index"), ("Shape", "shape"), ("Reshape", "shape"), ("DimShuffle", "shape"),
    ("Alloc", "shape"), ("Join", "shape"), ("Assert", "check"),
)


def value_of(var: Variable) -> np.ndarray | None:
    """The value a picture shows for ``var``: a shared variable's current value, else the
    test value if it was computed (never computing one)."""
    if isinstance(var, SharedVariable):
        return var.get_value(borrow=True)
    if isinstance(var, Constant):
        return np.asarray(var.data)
    return var._test_value


def family_of(op: Any) -> str:
    """The op's family, which picks its colour: ``elemwise``, ``reduce``, ``blas``..."""
    names = [cls.__name__ for cls in type(op).__mro__]
    for key, family in _FAMILIES:
        if any(key in name for name in names):
            return family
    return "other"


def creation_text(var: Variable) -> str:
    """``Cell In[3]:2: y = x * 2``, or ``(unknown)`` for a variable built by symnb itself."""
    site = var.site
    if not site:
        return "(unknown)"
    line = site.line
    return f"{site.short()}: {line}" if line else site.short()


def _cut(text: str, limit: int = _LABEL_LIMIT) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "\u2026"


@dataclass(eq=False)
class PictureNode:
    """One drawn node: an Apply (``kind`` ``apply``) or a root variable (``input``,
    ``shared``, ``constant``)."""

    id: str
    kind: str
    label: str           # the user's name / source text (apply), the name (root)
    sublabel: str        # the op (apply), the type (root)
    family: str
    obj: Apply | Variable
    is_output: bool = False
    note: str = ""       # an inner graph's output role: then / else / until
    error: bool = False  # named by the error being shown
    has_inner: bool = False
    inner: list["InnerPicture"] = field(default_factory=list)  # when expanded
    hidden: int = 0      # nodes folded into this one when collapsed
    seconds: float | None = None  # time per call, when the picture carries times
    time_share: float = 0.0  # of the timed nodes' total
    heat: float = 0.0        # seconds over the costliest node's: 1.0 for the costliest

    def time_text(self) -> str:
        """``1.2e-04 s per call (35.0% of the nodes' time)``, or "" when untimed."""
        if self.seconds is None:
            return ""
        return f"{self.seconds:.3g} s per call ({100 * self.time_share:.1f}% of the nodes' time)"

    @property
    def variable(self) -> Variable:
        """The variable this node stands for (an Apply's first output)."""
        return self.obj.outputs[0] if isinstance(self.obj, Apply) else self.obj

    def search_text(self) -> str:
        return f"{self.label} {self.sublabel}".lower()


@dataclass(eq=False)
class PictureEdge:
    source: str
    target: str
    label: str           # the type moved, ``float32 (?, 3)``, prefixed by the input position
    variable: Variable
    port: tuple[int, int] = (0, 1)  # (input position, number of inputs) of the target


@dataclass(eq=False)
class InnerPicture:
    """An inner graph drawn inside an expanded node, under ``title``."""

    title: str
    picture: "GraphPicture"


class GraphPicture:
    """The nodes and edges to draw for ``obj`` (a Variable, a list of them, an Apply, a
    compiled function: its optimized graph).

    - ``expanded``: ids of nodes whose inner graphs are drawn inside them;
    - ``collapsed``: ids of nodes that hide the part of the graph feeding only them;
    - ``highlight``: Apply nodes to mark (the node an error names);
    - ``times``: ``{Apply: seconds per call}`` (``f.profile.node_times()``) to shade the
      top-level nodes by.
    """

    def __init__(self, obj: Any, expanded: Iterable[str] = (), collapsed: Iterable[str] = (),
                 highlight: Iterable[Apply] = (), times: Mapping[Apply, float] | None = None,
                 *, _inner: tuple | None = None, prefix: str = "") -> None:
        self.expanded = set(expanded)
        self.collapsed = set(collapsed)
        self.highlight = {id(node) for node in highlight}
        self.prefix = prefix
        self.nodes: dict[str, PictureNode] = {}
        self.edges: list[PictureEdge] = []
        self._ids: dict[int, str] = {}  # id(Apply or root Variable) -> node id
        self._roots = 0
        if _inner is not None:
            outputs, inputs, self._outer_names, notes = _inner
            order = toposort(outputs, inputs)
        else:
            outputs, order = graph_parts(obj)
            order = order if order is not None else toposort(outputs)
            inputs, self._outer_names, notes = [], {}, []
        self.outputs = list(outputs)
        self._build(order, inputs, notes)
        if times:
            self._set_times(times)

    # -- building ---------------------------------------------------------------------
    def _build(self, order: list[Apply], inputs: Sequence[Variable], notes: list[str]) -> None:
        for var in inputs:  # an inner graph's inputs come first, in their order
            self._root(var)
        for position, node in enumerate(order):
            self._ids[id(node)] = f"{self.prefix}n{position}"
        hidden = self._hidden(order)
        for position, node in enumerate(order):
            if id(node) not in hidden:
                self._apply(node, f"{self.prefix}n{position}", hidden)
        for var in self.outputs:
            if var.owner is None or id(var.owner) not in self._ids:
                self._root(var)
        for i, var in enumerate(self.outputs):
            node = self.nodes.get(self._source(var))
            if node is not None:
                node.is_output = True
                if i < len(notes) and notes[i]:
                    node.note = notes[i]

    def _set_times(self, times: Mapping[Apply, float]) -> None:
        seconds = {id(node): float(s) for node, s in times.items()}
        timed = [n for n in self.nodes.values() if n.kind == "apply" and id(n.obj) in seconds]
        total = sum(seconds[id(n.obj)] for n in timed)
        costliest = max((seconds[id(n.obj)] for n in timed), default=0.0)
        for node in timed:
            node.seconds = seconds[id(node.obj)]
            node.time_share = node.seconds / total if total > 0 else 0.0
            node.heat = node.seconds / costliest if costliest > 0 else 0.0

    def _source(self, var: Variable) -> str:
        key = id(var.owner) if var.owner is not None and id(var.owner) in self._ids else id(var)
        return self._ids.get(key, "")

    def _root(self, var: Variable) -> str:
        if id(var) in self._ids:
            return self._ids[id(var)]
        node_id = f"{self.prefix}v{self._roots}"
        self._roots += 1
        self._ids[id(var)] = node_id
        if isinstance(var, Constant):
            kind, name = "constant", var.name or value_text(var.data)
        else:
            kind = "shared" if isinstance(var, SharedVariable) else "input"
            name = label(var)
            outer = self._outer_names.get(id(var))
            if outer:
                name = f"{name} \u2190 {outer}" if name != outer else name
        self.nodes[node_id] = PictureNode(node_id, kind, _cut(name), var.type.short(), kind, var)
        return node_id

    def _apply(self, node: Apply, node_id: str, hidden: set[int]) -> None:
        out = node.outputs[0]
        text = output_text(out) if len(node.outputs) == 1 else node.op.display_name()
        name = label(out) if len(node.outputs) == 1 else text
        picture_node = PictureNode(node_id, "apply", _cut(name), _cut(node.op.display_name(), 48),
                                   family_of(node.op), node, error=id(node) in self.highlight,
                                   has_inner=bool(node.op.inner_graphs))
        if name == text:  # no user name or source text: the op alone says it
            picture_node.label = _cut(node.op.display_name(), 48)
            picture_node.sublabel = out.type.short()
        self.nodes[node_id] = picture_node
        if picture_node.has_inner and node_id in self.expanded:
            picture_node.inner = self._inner_pictures(node, node_id)
        if node_id in self.collapsed:
            picture_node.hidden = sum(1 for h in hidden if self._collapsed_into.get(h) == node_id)
        for k, var in enumerate(node.inputs):
            if (id(var.owner) if var.owner is not None else id(var)) in hidden:
                continue
            source = self._ids[id(var.owner)] if var.owner is not None and id(var.owner) in self._ids \
                else self._root(var)
            if source in self.nodes or source == node_id:
                edge_label = var.type.short() if len(node.inputs) == 1 else f"{k}: {var.type.short()}"
                if var.owner is not None and len(var.owner.outputs) > 1:
                    edge_label = f"out {var.index} \u2192 " + edge_label
                self.edges.append(PictureEdge(source, node_id, edge_label, var,
                                              (k, len(node.inputs))))

    def _hidden(self, order: list[Apply]) -> set[int]:
        """``id`` of the Apply nodes and roots folded into a collapsed node: its ancestors
        whose every consumer is hidden too or is the collapsed node (outputs never are)."""
        self._collapsed_into: dict[int, str] = {}
        if not self.collapsed:
            return set()
        consumers: dict[int, list[Apply]] = {}
        for node in order:
            for var in node.inputs:
                key = id(var.owner) if var.owner is not None else id(var)
                consumers.setdefault(key, []).append(node)
        outputs = {id(v.owner) if v.owner is not None else id(v) for v in self.outputs}
        hidden: set[int] = set()
        for node in reversed(order):
            node_id = self._ids[id(node)]
            if node_id in self.collapsed and id(node) not in hidden:
                self._fold_into(node, node_id, consumers, outputs, hidden)
        return hidden

    def _fold_into(self, top: Apply, top_id: str, consumers: dict, outputs: set, hidden: set) -> None:
        stack = list(top.inputs)
        while stack:
            var = stack.pop()
            key = id(var.owner) if var.owner is not None else id(var)
            if key in hidden or key in outputs or (var.owner is not None and key not in self._ids):
                continue
            if all(c is top or id(c) in hidden for c in consumers.get(key, [])):
                hidden.add(key)
                self._collapsed_into[key] = top_id
                if var.owner is not None:
                    stack.extend(var.owner.inputs)

    def _inner_pictures(self, node: Apply, node_id: str) -> list[InnerPicture]:
        op = node.op
        outer = inner_to_outer(node)
        if not outer and hasattr(op, "inner_inputs"):  # a fused chain: inputs in order
            outer = {id(i): v for i, v in zip(op.inner_inputs, node.inputs)}
        outer_names = {key: label(var) for key, var in outer.items()}
        notes = inner_output_notes(node) if not _is_fused(op) else []
        pictures = []
        graphs = op.inner_graphs
        titles = _inner_titles(op, len(graphs))
        offset = 0
        for g, (graph, title) in enumerate(zip(graphs, titles)):
            graph_notes = notes[offset:offset + len(graph.outputs)]
            offset += len(graph.outputs)
            picture = GraphPicture(None, self._sub(node_id, g, self.expanded),
                                   self._sub(node_id, g, self.collapsed), (),
                                   _inner=(graph.outputs, graph.inputs, outer_names, graph_notes),
                                   prefix=f"{node_id}/{g}/")
            pictures.append(InnerPicture(title, picture))
        return pictures

    @staticmethod
    def _sub(node_id: str, g: int, ids: set[str]) -> set[str]:
        prefix = f"{node_id}/{g}/"
        return {i for i in ids if i.startswith(prefix)}

    # -- reading ----------------------------------------------------------------------
    def find(self, node_id: str) -> PictureNode | None:
        """The node ``node_id``, looked up in expanded inner pictures too."""
        if node_id in self.nodes:
            return self.nodes[node_id]
        for node in self.nodes.values():
            for inner in node.inner:
                found = inner.picture.find(node_id)
                if found is not None:
                    return found
        return None

    def id_of(self, obj: Apply | Variable) -> str | None:
        """The id of the node drawing ``obj`` (an Apply, or a variable: its node or root)."""
        if isinstance(obj, Variable):
            return self._source(obj) or None
        return self._ids.get(id(obj))

    def count(self) -> int:
        """Nodes drawn, inner pictures included."""
        return len(self.nodes) + sum(inner.picture.count() for node in self.nodes.values()
                                     for inner in node.inner)


def _is_fused(op: Any) -> bool:
    return family_of(op) == "fused"


def _inner_titles(op: Any, count: int) -> list[str]:
    family = type(op).__name__
    if family == "IfElse":
        return ["then", "else"]
    if _is_fused(op):
        return ["fused elementwise chain"]
    if family == "Scan":
        return ["loop body (one step)"] if count == 1 else [f"loop body {i}" for i in range(count)]
    return [f"inner graph {i}" for i in range(count)]
