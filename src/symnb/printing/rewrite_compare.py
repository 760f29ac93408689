"""One rewrite step as a graph comparison, as Model Explorer compares two graphs.

The graph before the step and the graph after it (read back from the function graph's
history: :mod:`symnb.core.graph.history`) are matched node by node, structurally: a node
is unchanged when the other graph has one applying an equal op to matched inputs
(:func:`symnb.core.graph_compare.rewrite_changes`). The comparison draws

- the rewritten region, before and after in one picture: the removed nodes (red, dashed)
  under the replaced value, the added ones (green) under its replacement, the unchanged
  values they read once, shared by both sides (so they line up);
- where the region sits: the path from an output of the function down to the replaced
  node, and, for a graph small enough to read, the whole graph with the removed nodes
  marked;
- a text diff cut where the picture is cut (at the unchanged values) on both sides, so
  that only removed and added lines are marked.

Pictures are drawn from copies of the nodes (their inputs as they were at the step):
nothing of the compiled function is touched.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Sequence

from symnb.core.graph.basic import Apply, Variable, toposort
from symnb.core.graph.config import config
from symnb.core.graph.errors import label
from symnb.core.graph.history import GraphState, state_before
from symnb.core.graph_compare import RewriteChanges, StructuralKeys, rewrite_changes
from symnb.printing._common import collector_paused
from symnb.printing.graph_model import GraphPicture
from symnb.printing.labels import node_name, op_name, role_label
from symnb.printing.layout import layout
from symnb.printing.svg import picture_svg

__all__ = ["RewriteComparison", "DiffLine", "OVERVIEW_UP_TO"]

OVERVIEW_UP_TO = 60  # nodes: a larger graph is located by its path from the outputs only
_NAME_LIMIT = 40


class DiffLine(NamedTuple):
    """One line of a side of the text diff: ``depth`` levels under the region's top,
    ``mark`` ``"removed"``, ``"added"`` or ``""`` (unchanged)."""

    depth: int
    text: str
    mark: str


class _Copier:
    """Copies the nodes of a region of one graph state, the values it reads made roots.

    Copies are keyed by structural number, so that the two sides of a comparison share
    the copy of each unchanged value they read."""

    def __init__(self, keys: StructuralKeys, origins: dict[int, str]) -> None:
        self.keys = keys
        self.origins = origins
        self.marks: dict[int, str] = {}     # id(copied node) -> "removed" / "added" / ""
        self.real: dict[int, Any] = {}      # id(copy) -> the node or variable it copies
        self._memo: dict[int, Variable] = {}

    def copy(self, top: Variable, state: GraphState, inside: set[int], numbers: dict[int, int],
             mark: str) -> Variable:
        """A copy of ``top`` down through the nodes of ``inside`` (read as in ``state``)."""
        def inputs_of(node: Apply) -> Sequence[Variable]:
            return state.inputs_of(node) if id(node) in inside else ()

        for node in toposort([top], inputs_of=inputs_of):
            if id(node) not in inside:
                continue
            inputs = [self._copy_of(var, numbers) for var in state.inputs_of(node)]
            twin = Apply(node.op, inputs, [out.type for out in node.outputs], site=node.site)
            role = role_label(node, self.origins)
            for out, copy in zip(node.outputs, twin.outputs):
                copy.name = role if role and len(node.outputs) == 1 else out.name
                copy._site = out._site
                copy._test_value = out._test_value  # read, never computed
                self._memo[self.keys.of_variable(out, numbers)] = copy
            self.marks[id(twin)] = mark
            self.real[id(twin)] = node
        return self._copy_of(top, numbers)

    def _copy_of(self, var: Variable, numbers: dict[int, int]) -> Variable:
        number = self.keys.of_variable(var, numbers)
        if number not in self._memo:
            leaf = var.clone() if var.owner is None else self._leaf(var)
            self.real[id(leaf)] = var
            self._memo[number] = leaf
        return self._memo[number]

    def _leaf(self, var: Variable) -> Variable:
        """A computed value the region reads, drawn as one box named as the picture of
        the whole graph names its node."""
        leaf = type(var)(var.type, site=var.site)
        leaf._test_value = var._test_value
        leaf.name = _name(var.owner, self.origins) if len(var.owner.outputs) == 1 else _short(label(var))
        return leaf


class RewriteComparison:
    """Step ``step`` of ``fgraph.history`` compared: ``removed`` and ``added`` (the real
    nodes, structurally matched), ``picture()``/``svg()`` of the region, ``lines()`` of
    the text diff, ``path()`` from an output to the replaced node, ``overview_svg()``.
    ``before``/``after``: the states around the step, when the caller has them."""

    def __init__(self, fgraph: Any, step: int, before: GraphState | None = None,
                 after: GraphState | None = None) -> None:
        self.record = fgraph.history[step]
        self.before = before if before is not None else state_before(fgraph, step)
        self.after = after if after is not None else state_before(fgraph, step + 1)
        with collector_paused():
            self.changes: RewriteChanges = rewrite_changes(self.before, self.after, self.record)
        self.origins = _made_by(fgraph.history[:step + 1])
        self._copier = _Copier(self.changes.keys, self.origins)
        removed, added = {id(n) for n in self.removed}, {id(n) for n in self.added}
        self.top_before = self._copier.copy(self.record.old, self.before, removed,
                                            self.changes.before_numbers, "removed")
        self.top_after = self._copier.copy(self.record.new, self.after, added,
                                           self.changes.after_numbers, "added")

    @property
    def removed(self) -> list[Apply]:
        return self.changes.removed

    @property
    def added(self) -> list[Apply]:
        return self.changes.added

    # -- the picture of the region ------------------------------------------------------
    def picture(self) -> GraphPicture:
        """Before and after in one picture: the unchanged values both read drawn once."""
        tops = [self.top_before] if self.top_before is self.top_after else [self.top_before, self.top_after]
        picture = GraphPicture(tops)
        _mark(picture, self._copier.marks, self._copier.real)
        for top, note in ((self.top_before, "before"), (self.top_after, "after")):
            node = picture.find(picture.id_of(top) or "")
            if node is not None:  # in the label, which the layout sizes the box by
                node.label = f"{node.label} [{note}]"
        return picture

    def svg(self, max_width: int | None = 900) -> str:
        picture = self.picture()
        return picture_svg(picture, layout(picture), max_width=max_width)

    # -- the text diff ------------------------------------------------------------------
    def lines(self, side: str) -> list[DiffLine]:
        """``side`` (``"before"`` / ``"after"``) as an indented tree from the replaced
        value (its replacement), expanded through the removed (added) nodes only: both
        sides stop at the same unchanged values."""
        top = self.top_before if side == "before" else self.top_after
        lines: list[DiffLine] = []
        shown: set[int] = set()
        stack = [(top, 0)]
        while stack:
            var, depth = stack.pop()
            node = var.owner
            if node is None:
                lines.append(DiffLine(depth, _leaf_text(var), ""))
                continue
            name = _name(node, {})  # a copy: named for what made it (_Copier.copy)
            op = op_name(node)  # said once: ``fused: mul·add``, not ``fused: mul·add  fused``
            text = name if name == op or name.startswith(f"{op}:") else f"{name}  {op}"
            if id(node) in shown:  # a value read twice: its inputs are listed above
                lines.append(DiffLine(depth, text + "  (above)", self._copier.marks[id(node)]))
                continue
            shown.add(id(node))
            lines.append(DiffLine(depth, text, self._copier.marks[id(node)]))
            stack.extend((inp, depth + 1) for inp in reversed(node.inputs))
        return lines

    # -- where the region sits ----------------------------------------------------------
    def path(self) -> list[str]:
        """From an output of the function down to the replaced value: the names of the
        nodes on the shortest path (the output first, the replaced node last)."""
        order = self.changes.before_order
        readers = self.before.readers(order)
        trail = {id(self.record.old): None}
        frontier = [self.record.old]
        while frontier:
            found = None
            next_frontier = []
            for var in frontier:
                for reader, position in readers.get(id(var), ()):
                    if reader == "output":
                        found = (var, position)
                        break
                    for out in reader.outputs:
                        if id(out) not in trail:
                            trail[id(out)] = var
                            next_frontier.append(out)
                if found:
                    break
            if found:
                return self._path_names(found[0], found[1], trail)
            frontier = next_frontier
        return []

    def _path_names(self, var: Variable, output: int, trail: dict) -> list[str]:
        names = []
        while var is not None:
            names.append(_name(var.owner, self.origins) if var.owner is not None else label(var))
            var = trail[id(var)]
        names[0] = f"output {output}: {names[0]}"
        return names

    def overview_svg(self, max_width: int = 420) -> str | None:
        """The whole graph before the step, the removed nodes marked; None for a graph
        of more than ``OVERVIEW_UP_TO`` nodes (its :meth:`path` locates the step)."""
        order = self.changes.before_order
        if len(order) > OVERVIEW_UP_TO:
            return None
        removed = {id(n) for n in self.removed}
        copier = _Copier(StructuralKeys(), self.origins)
        everything = {id(n) for n in order}
        numbers = copier.keys.of_graph(order, self.before.inputs_of)[0]
        outputs = [copier.copy(out, self.before, everything, numbers, "") for out in self.before.outputs]
        copier.marks = {key: "removed" if id(copier.real[key]) in removed else ""
                        for key in copier.marks}
        picture = GraphPicture(outputs)
        _mark(picture, copier.marks, copier.real)
        return picture_svg(picture, layout(picture, with_labels=False), max_width=max_width)


def _mark(picture: GraphPicture, marks: dict[int, str], real: dict[int, Any]) -> None:
    """Set each drawn node's change mark; a root standing for a computed value (an
    unchanged one the region reads) is drawn as a plain box, not as an input."""
    for node in picture.nodes.values():
        if node.kind == "apply":
            node.change = marks.get(id(node.obj), "")
        elif getattr(real.get(id(node.obj)), "owner", None) is not None:
            node.family = "other"


def _made_by(history: Sequence[Any]) -> dict[int, str]:
    """``{id(node): the rewrite that brought it into the graph}``, the first one."""
    origins: dict[int, str] = {}
    for record in history:
        for node in record.imported:
            origins.setdefault(id(node), record.name)
    return origins


def _name(node: Apply, origins: dict[int, str]) -> str:
    """What a node is called in the comparison: as in the pictures (the user's name or
    source text, or what made it), else its op's short name."""
    return _short(node_name(node, origins))


def _leaf_text(var: Variable) -> str:
    if var.name is not None:
        return _short(var.name)
    return _short(label(var))


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _NAME_LIMIT else text[:_NAME_LIMIT - 1] + "\u2026"
