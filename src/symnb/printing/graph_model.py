"""What a picture of a graph shows, before it is laid out: :class:`GraphPicture`.

Apply nodes are boxes labelled with the user's name for what they compute (or the
source text that built it) over the op; a node ``sn.grad`` or a rewrite made is labelled
by what it is (``grad of tanh``, ``fused: mul·add``); the graph's roots (inputs, shared
variables, constants) are their own small nodes; every edge carries the concrete shape
of the value it moves (``float32 (256, 784)``; :class:`~symnb.printing.labels.Shapes`).

Nodes sit in groups (the calls of the user's functions, ``sn.name_scope`` blocks,
``sn.grad`` calls: :mod:`symnb.printing.groups`); a closed group is one box (kind
``group``) counting its nodes, inputs and outputs, and the edges crossing into it are
merged per pair of boxes. Groups are ids ``g0``, ``g1``... stable for a given graph. A node holding inner graphs (a loop body, condition branches, a fused chain)
can be *expanded*: its inner graphs are drawn inside it.

Node ids are stable for a given graph (``n3``: the fourth node in execution order,
``v0``: the first root met; inner nodes are prefixed by their parent's id and the inner
graph's number, ``n3/0/n1``), so a selection or expansion survives a redraw.
Nothing here computes a test value: a pending one shows as pending.

A picture can carry each node's time per call (``times``, e.g. ``f.profile.node_times()``):
each timed node then knows its seconds, its share (of ``time_total``, the real call's
seconds, when given, as the profile's tables count it; else of the nodes' total), and its
heat (its time over the costliest unit's), which the drawing shades it by. A profile's
times (a ``NodeTimes``) also carry the rest of the call: each fused XLA operation, one
unit whose member nodes have no time of their own (they are marked with the unit's
label, ``F1``), and the time outside the program; these are the picture's
``time_units``, drawn above the graph, so the shares drawn add up to the whole call.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

from symnb.core.graph.errors import label
from symnb.core.graph.basic import Apply, Constant, Variable, toposort
from symnb.core.tensor.shared import SharedVariable
from symnb.printing._common import collector_paused, cut_text, graph_parts, value_text
from symnb.printing._inner import inner_outer_names, inner_output_notes, inner_titles, is_fused
from symnb.printing.groups import GroupTree
from symnb.printing.labels import Shapes, crossings, node_name, op_name, role_label, rewrite_origins
from symnb.printing.node_facts import creation_text as creation_text
from symnb.printing.node_facts import family_of as family_of
from symnb.printing.node_facts import value_of as value_of
from symnb.printing.picture_nodes import InnerPicture, PictureEdge, PictureNode, TimeUnit

__all__ = ["GraphPicture", "PictureNode", "PictureEdge", "TimeUnit", "InnerPicture", "root_variables", "node_ids", "value_of",
           "family_of", "creation_text", "first_opened"]

LABEL_LIMIT = 40  # characters of a box's label
OPEN_UP_TO = 60  # nodes: a larger graph opens with its groups closed
FIRST_BOXES = 24  # boxes a larger graph's first picture may grow to by opening groups


def first_opened(tree: GroupTree, size: int, highlight: Iterable[Apply] = ()) -> set[str]:
    """The groups a graph of ``size`` nodes grouped by ``tree`` opens first: all of a small
    graph's (up to ``OPEN_UP_TO`` nodes), a larger one's within ``FIRST_BOXES`` boxes
    (``GroupTree.first_opened``), and always those around the ``highlight`` nodes (the
    node an error names is in sight)."""
    opened = {g.id for g in tree.groups()} if size <= OPEN_UP_TO else tree.first_opened(FIRST_BOXES)
    for node in highlight:
        opened.update(g.id for g in tree.group_of(node).ancestors())
    return opened


def root_variables(order: list[Apply], inputs: Sequence[Variable],
                   outputs: Sequence[Variable]) -> list[Variable]:
    """Every root of a graph, in the order a picture meets them (which numbers them
    ``v0``...): ``inputs`` first, then as the nodes of ``order`` read them, then the
    outputs that are roots."""
    roots: dict[int, Variable] = {id(v): v for v in inputs}
    for node in order:
        for var in node.inputs:
            if var.owner is None:
                roots.setdefault(id(var), var)
    for var in outputs:
        if var.owner is None:
            roots.setdefault(id(var), var)
    return list(roots.values())


def node_ids(order: Sequence[Apply], roots: Sequence[Variable], prefix: str = "") -> dict[int, str]:
    """THE ids of a graph's nodes, ``{id(Apply or root): id}``: ``n3`` the fourth Apply in
    ``order``, ``v0`` the first of ``roots`` (:func:`root_variables`); an inner graph's
    prefixed by its holder's id and its number (``n3/0/n1``). Every view numbers a graph
    so (the picture, the viewer's model and its loop bodies, the Model Explorer JSON): the
    kernel answers to the ids the browser shows."""
    ids = {id(node): f"{prefix}n{i}" for i, node in enumerate(order)}
    ids.update((id(var), f"{prefix}v{k}") for k, var in enumerate(roots))
    return ids


class GraphPicture:
    """The nodes and edges to draw for ``obj`` (a Variable, a list of them, an Apply, a
    compiled function: its optimized graph).

    - ``opened``: ids of the groups (:mod:`symnb.printing.groups`) drawn open; the others
      are one box each. ``None`` (the default): every group open for a graph of up to
      ``OPEN_UP_TO`` nodes, else its top-level groups closed, the largest opened while
      the picture stays within ``FIRST_BOXES`` boxes; the groups holding a highlighted
      node are always open;
    - ``expanded``: ids of nodes whose inner graphs are drawn inside them;
    - ``highlight``: Apply nodes to mark (the node an error names);
    - ``times``: ``{Apply: seconds per call}`` (``f.profile.node_times()``) to shade the
      top-level nodes by;
    - ``like``: a picture of the same ``obj`` whose order and groups are reused (a redraw
      after a click: 50,000 nodes are not grouped again);
    - ``call_shapes``: ``{variable: (dtype, shape)}`` the edges carry (a failed call's).
    """

    def __init__(self, obj: Any, expanded: Iterable[str] = (),
                 highlight: Iterable[Apply] = (), times: Mapping[Apply, float] | None = None,
                 opened: Iterable[str] | None = None, *, time_total: float | None = None,
                 like: "GraphPicture | None" = None, _inner: tuple | None = None,
                 prefix: str = "", call_shapes: Mapping | None = None) -> None:
        with collector_paused():
            self._make(obj, expanded, highlight, times, time_total, opened, like,
                       _inner, prefix, call_shapes)

    def _make(self, obj: Any, expanded: Iterable[str],
              highlight: Iterable[Apply], times: Mapping[Apply, float] | None,
              time_total: float | None, opened: Iterable[str] | None,
              like: "GraphPicture | None", _inner: tuple | None, prefix: str,
              call_shapes: Mapping | None) -> None:
        self.expanded = set(expanded)
        highlight = list(highlight)
        self.highlight = {id(node) for node in highlight}
        self._highlighted = highlight  # an inner graph's failing node is marked in it too
        self.prefix = prefix
        self.nodes: dict[str, PictureNode] = {}
        self.max_share = 0.0  # the costliest timed unit's share (the legend's red end)
        self.time_units: list[TimeUnit] = []  # fused operations, the time outside the program
        self.share_of = "the nodes' time"
        self.edges: list[PictureEdge] = []
        # A called function's edges carry its last call's shapes (read, never computed).
        self.shapes = Shapes(failed=self.highlight, called=call_shapes or getattr(obj, "last_shapes", None))
        self._ids: dict[int, str] = {}  # id(Apply or root Variable) -> node id
        self._edge_index: dict[tuple[str, str], int] = {}
        self._edge_carries: dict[int, set[int]] = {}  # edge index -> id of its variables
        self._group_box: dict[int, str] = {}  # id(group) -> its box ('' when open)
        self._members: dict[str, list] = {}
        if _inner is not None:
            outputs, inputs, self._outer_names, notes = _inner
            order = toposort(outputs, inputs)
            self.origins: dict[int, str] = {}
        elif like is not None:  # the same graph redrawn: its order and groups are known
            outputs, order, self.origins, self.tree = like.outputs, like.order, like.origins, like.tree
            inputs, self._outer_names, notes = [], {}, []
        else:
            outputs, order = graph_parts(obj)
            order = order if order is not None else toposort(outputs)
            inputs, self._outer_names, notes = [], {}, []
            self.origins = rewrite_origins(obj, order)
        self.outputs = list(outputs)
        self.order = order
        self.roots = like.roots if like is not None else self._root_variables(order, inputs)
        if _inner is not None:
            self.tree = None
        elif like is None:
            self.tree = GroupTree(order, self.roots)
        self.opened = self._resolve_opened(opened, highlight)
        self._build(order, inputs, notes)
        if times:
            self._set_times(times, time_total)

    # -- building ---------------------------------------------------------------------
    def _root_variables(self, order: list[Apply], inputs: Sequence[Variable]) -> list[Variable]:
        return root_variables(order, inputs, self.outputs)

    def _resolve_opened(self, opened: Iterable[str] | None, highlight: list[Apply]) -> set[str]:
        if self.tree is None:
            return set()
        if opened is None:
            return first_opened(self.tree, len(self.order), highlight)
        opened = {i for i in opened if self.tree.get(i) is not None}
        for node in highlight:  # the node an error names is always in sight
            opened.update(g.id for g in self.tree.group_of(node).ancestors())
        return opened

    def _box_of(self, obj: Apply | Variable) -> str:
        """The id of the box drawing ``obj``: its own, or its outermost closed group's."""
        if self.tree is not None:
            group = self.tree._of.get(id(obj), self.tree.top)
            box = self._group_box.get(id(group))
            if box is None:
                closed = [g.id for g in group.ancestors() if g.id not in self.opened]
                box = self._group_box[id(group)] = closed[0] if closed else ""
            if box:
                return box
        return self._ids[id(obj)]

    def _build(self, order: list[Apply], inputs: Sequence[Variable], notes: list[str]) -> None:
        self._ids.update(node_ids(order, self.roots, self.prefix))
        groups: dict[str, list] = {}
        for var in self.roots:
            self._box(var, groups)
        for node in order:
            self._box(node, groups)
        for node in order:
            self._edges_into(node)
        self._crossing = crossings(self.edges)
        self._members = groups  # a closed group's box -> the nodes and roots inside
        for group_id, members in groups.items():
            self.nodes[group_id] = self._group_node(group_id, members)
        for i, var in enumerate(self.outputs):
            node = self.nodes.get(self._box_of(var.owner if var.owner is not None else var))
            if node is not None:
                node.is_output = True
                if i < len(notes) and notes[i] and node.kind != "group":
                    node.note = notes[i]

    def _box(self, obj: Apply | Variable, groups: dict[str, list]) -> None:
        box = self._box_of(obj)
        if box != self._ids[id(obj)]:
            groups.setdefault(box, []).append(obj)
        elif isinstance(obj, Apply):
            self._apply(obj, box)
        else:
            self._root(obj)

    def _set_times(self, times: Mapping[Apply, float], time_total: float | None) -> None:
        """Each drawn node's own time, and the units that are no node's (``times.fused``,
        ``times.outside`` of a profile's NodeTimes); a closed group's time is the sum of
        its nodes' and of the fused operations all inside it. Shares are of
        ``time_total`` (the call's time) when given, else of the units' total."""
        seconds = {id(node): float(s) for node, s in times.items()}
        fused = list(getattr(times, "fused", ()))
        names = {unit.name: f"F{k + 1}" for k, unit in enumerate(fused)}
        member_of: dict[int, str] = {}
        for unit in fused:
            for node in unit.members:
                member_of.setdefault(id(node), names[unit.name])
        spent, marked = {}, {}
        for node_id, node in self.nodes.items():
            if node.kind not in ("apply", "group"):
                continue
            inside = self._members.get(node_id, [node.obj]) if node.kind == "group" else [node.obj]
            ids = {id(m) for m in inside}
            timed = [seconds[id(m)] for m in inside if id(m) in seconds]
            timed += [unit.seconds for unit in fused
                      if node.kind == "group" and all(id(m) in ids for m in unit.members)]
            if node.kind == "apply" and not any(timed) and id(node.obj) in member_of:
                marked[node_id] = member_of[id(node.obj)]  # no time of its own: in a unit
            elif timed:
                spent[node_id] = sum(timed)
        units = [(f"{names[u.name]}: fused XLA operation {u.name!r} of "
                  f"{', '.join(self._node_label(m) for m in u.members)}", u.seconds) for u in fused]
        if getattr(times, "unnamed", 0.0) > 0:
            units.append(("XLA work no node names (copies, layouts)", times.unnamed))
        if getattr(times, "call_seconds", None) is not None:  # a profile's: the whole call
            units.append(("outside the XLA program: argument checks, dispatch, transfers, "
                          "output copies", times.outside))
        time_total = time_total or getattr(times, "call_seconds", None)
        total = time_total if time_total else sum(spent.values()) + sum(s for _, s in units)
        self.share_of = "the call" if time_total else "the nodes' time"
        costliest = max([*spent.values(), *(s for _, s in units)], default=0.0)

        def heat(s: float) -> float:
            return s / costliest if costliest > 0 else 0.0

        def share(s: float) -> float:
            return s / total if total > 0 else 0.0

        self.time_units = [TimeUnit(text, s, share(s), heat(s)) for text, s in units]
        for node_id, node_seconds in spent.items():
            node = self.nodes[node_id]
            node.seconds, node.time_share, node.heat = node_seconds, share(node_seconds), heat(node_seconds)
            node.share_of = self.share_of
        for node_id, name in marked.items():
            self.nodes[node_id].fused_in = name
        self.max_share = max([n.time_share for n in self.nodes.values()] + [u.share for u in self.time_units],
                             default=0.0)

    def _node_label(self, node: Apply) -> str:
        """``tanh (n3)``: a node as a unit's text names it."""
        node_id = self._ids.get(id(node), "")
        return f"{op_name(node)}{' (' + node_id + ')' if node_id else ''}"

    def _source(self, var: Variable) -> str:
        key = id(var.owner) if var.owner is not None and id(var.owner) in self._ids else id(var)
        return self._ids.get(key, "")

    def _root(self, var: Variable) -> str:
        node_id = self._ids[id(var)]
        if isinstance(var, Constant):
            kind, name = "constant", var.name or value_text(var.data)
        else:
            kind = "shared" if isinstance(var, SharedVariable) else "input"
            name = label(var)
            outer = self._outer_names.get(id(var))
            if outer:
                name = f"{name} \u2190 {outer}" if name != outer else name
        self.nodes[node_id] = PictureNode(node_id, kind, cut_text(name, LABEL_LIMIT), self.shapes.text(var),
                                          kind, var)
        return node_id

    def _apply(self, node: Apply, node_id: str) -> None:
        out = node.outputs[0]
        role = role_label(node, self.origins)
        name = node_name(node, self.origins)
        op = op_name(node)
        picture_node = PictureNode(node_id, "apply", cut_text(name, LABEL_LIMIT), cut_text(op, 48),
                                   family_of(node.op), node, error=id(node) in self.highlight,
                                   has_inner=bool(node.op.inner_graphs), role=role or "")
        if name == op:  # no user name or source text: the op alone says it
            picture_node.sublabel = self.shapes.text(out)
        self.nodes[node_id] = picture_node
        if picture_node.has_inner and node_id in self.expanded:
            picture_node.inner = self._inner_pictures(node, node_id)

    def _edges_into(self, node: Apply) -> None:
        """The edges drawn into ``node``'s box: one per input, or, between two groups'
        boxes, one per pair of boxes (carrying every variable that crosses)."""
        target = self._box_of(node)
        own = target == self._ids[id(node)]
        box_of = self._box_of
        for k, var in enumerate(node.inputs):
            # An inner graph's input may be an outer variable (a fused chain's): a root here.
            owner = var.owner if var.owner is not None and id(var.owner) in self._ids else None
            source = box_of(owner if owner is not None else var)
            if source == target:
                continue
            if own:
                self.edges.append(PictureEdge(source, target, self._edge_label(var, k, node), var,
                                              (k, len(node.inputs))))
                continue
            self._merge_edge(source, target, var)

    def _merge_edge(self, source: str, target: str, var: Variable) -> None:
        index = self._edge_index.setdefault((source, target), len(self.edges))
        if index == len(self.edges):
            self.edges.append(PictureEdge(source, target, "", var, (0, 1)))
        edge = self.edges[index]
        carried = self._edge_carries.setdefault(index, {id(edge.variable)})
        if id(var) not in carried:
            carried.add(id(var))
            edge.variables.append(var)
        count = len(edge.variables)
        edge.label = self.shapes.text(var) if count == 1 else f"{count} values"

    def _edge_label(self, var: Variable, position: int, node: Apply) -> str:
        text = self.shapes.text(var)
        text = text if len(node.inputs) == 1 else f"{position}: {text}"
        if var.owner is not None and len(var.owner.outputs) > 1:
            text = f"out {var.index} \u2192 " + text
        return text

    def _group_node(self, group_id: str, members: list) -> PictureNode:
        group = self.tree.get(group_id)
        ins, outs = self._crossing.get(group_id, ({}, {}))
        # What the graph returns from inside the group leaves it too (a gradient group's
        # gradients feed no other box, yet they are what it produces).
        outs = {**outs, **{id(v): v for v in self.outputs if v.owner is not None
                           and self._box_of(v.owner) == group_id}}
        sublabel = (f"{group.size} nodes \u00b7 {len(ins)} in \u00b7 {len(outs)} out"
                    if group.kind != "roots" else f"{len(group.roots)} variables")
        node = PictureNode(group_id, "group", cut_text(group.title, LABEL_LIMIT), sublabel, "group", group)
        node.group_inputs, node.group_outputs = list(ins.values()), list(outs.values())
        return node

    def _inner_pictures(self, node: Apply, node_id: str) -> list[InnerPicture]:
        op = node.op
        outer_names = inner_outer_names(node)
        notes = inner_output_notes(node) if not is_fused(op) else []
        pictures = []
        graphs = op.inner_graphs
        titles = inner_titles(op, len(graphs))
        offset = 0
        for g, (graph, title) in enumerate(zip(graphs, titles)):
            graph_notes = notes[offset:offset + len(graph.outputs)]
            offset += len(graph.outputs)
            picture = GraphPicture(None, self._sub(node_id, g, self.expanded), self._highlighted,
                                   _inner=(graph.outputs, graph.inputs, outer_names, graph_notes),
                                   prefix=f"{node_id}/{g}/")
            pictures.append(InnerPicture(title, picture))
        return pictures

    @staticmethod
    def _sub(node_id: str, g: int, ids: set[str]) -> set[str]:
        prefix = f"{node_id}/{g}/"
        return {i for i in ids if i.startswith(prefix)}

    # -- reading ----------------------------------------------------------------------
    def frames(self) -> list[tuple[str, str, str, list[str]]]:
        """The open groups to frame, parents first: ``(group id, title, parent group id
        ('' at the top), ids of the boxes directly inside)``."""
        if self.tree is None:
            return []
        homes = {node_id: node.obj.parent if node.kind == "group" else self.tree.group_of(node.obj)
                 for node_id, node in self.nodes.items()}
        return self.tree.frames(homes, self.opened)

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

    def backward_ids(self) -> set[str]:
        """The boxes of the gradient graph: closed ``sn.grad`` groups and nodes in open ones."""
        tree = self.tree
        return set() if tree is None else {
            node_id for node_id, node in self.nodes.items()
            if any(g.kind == "grad" for g in (node.obj if node.kind == "group" else tree.group_of(node.obj)).ancestors())}

    def node_id(self, obj: Apply | Variable) -> str | None:
        """The id of ``obj``'s own node (an Apply or a root), drawn or inside a closed group."""
        return self._ids.get(id(obj))

    def id_of(self, obj: Apply | Variable) -> str | None:
        """The id of the box drawing ``obj`` (an Apply, or a variable: its node or root):
        its own, or its closed group's."""
        if isinstance(obj, Variable) and obj.owner is not None and id(obj.owner) in self._ids:
            obj = obj.owner
        if id(obj) not in self._ids:
            return None
        return self._box_of(obj)

    def count(self) -> int:
        """Nodes drawn, inner pictures included."""
        return len(self.nodes) + sum(inner.picture.count() for node in self.nodes.values()
                                     for inner in node.inner)
