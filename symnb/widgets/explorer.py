"""``GraphExplorer``: the nodes of a graph as a tree to select from, with details."""

from __future__ import annotations

from typing import Any, NamedTuple

from symnb.core.errors import label
from symnb.core.graph import Variable
from symnb.magics.html import creation_text, kind_of, pre, value_summary
from symnb.printing._common import graph_parts, leaf_text, output_text
from symnb.widgets._view import WidgetView

__all__ = ["GraphExplorer", "Entry"]

_INDENT = "\u00a0\u00a0"  # non-breaking: option labels keep their indentation in HTML


class Entry(NamedTuple):
    """One line of the tree: a variable at ``depth``; ``repeat`` when it was expanded above."""

    depth: int
    variable: Variable
    repeat: bool


class GraphExplorer(WidgetView):
    """Browse a graph: ``GraphExplorer(var)`` (or a list of variables, or a compiled
    function, whose optimized graph is shown). Each line of the tree is a variable;
    selecting it shows the op computing it, its creation line, its inputs' and outputs'
    types and test value summaries. Nothing is computed: pending values show as pending.
    """

    def __init__(self, obj: Any) -> None:
        outputs, order = graph_parts(obj)
        self.position = {id(node): i for i, node in enumerate(order or ())}
        self.entries = _tree(outputs)

    # -- model ----------------------------------------------------------------------
    def labels(self) -> list[str]:
        """The tree's lines, indented by depth (debugprint's order)."""
        return [_INDENT * e.depth + self._entry_text(e) for e in self.entries]

    def _entry_text(self, entry: Entry) -> str:
        var = entry.variable
        if var.owner is None:
            text = leaf_text(var)
        else:
            text, name = output_text(var), label(var)
            if name != text:  # the user's name, or the source text that built it
                text += f" '{name}'"
            if id(var.owner) in self.position:
                text += f"  #{self.position[id(var.owner)]}"
        return text + ("  (shown above)" if entry.repeat else "")

    def describe(self, index: int) -> str:
        """The details of entry ``index``: op, creation line, inputs and outputs."""
        var = self.entries[index].variable
        name, kind = label(var), kind_of(var)
        lines = [name if name == kind else f"{name}: {kind}", f"created at {creation_text(var)}"]
        if var.owner is None:
            lines += [f"type: {var.type!r}", f"test value: {value_summary(var)}"]
            return "\n".join(lines)
        lines.append("inputs:")
        lines += [_io_line(i, v) for i, v in enumerate(var.owner.inputs)]
        lines.append("outputs:")
        lines += [_io_line(i, v) + ("   <- selected" if v is var else "")
                  for i, v in enumerate(var.owner.outputs)]
        return "\n".join(lines)

    def text(self) -> str:
        return "\n".join(self.labels())

    # -- view -----------------------------------------------------------------------
    def _build(self) -> Any:
        import ipywidgets as w

        options = [(text, i) for i, text in enumerate(self.labels())]
        self.select = w.Select(options=options, value=0 if options else None,
                               rows=min(max(len(options), 2), 16),
                               layout=w.Layout(width="45%"))
        self.details = w.HTML(pre(self.describe(0)) if options else "")
        self.select.observe(self._on_select, names="value")
        return w.HBox([self.select, self.details])

    def _on_select(self, change: dict) -> None:
        if change["new"] is not None:
            self.details.value = pre(self.describe(change["new"]))


def _io_line(position: int, var: Variable) -> str:
    return f"  #{position} {label(var)}: {var.type!r}  {value_summary(var)}"


def _tree(outputs: list[Variable]) -> list[Entry]:
    """Depth-first entries from each output; a node's inputs are listed once, where first met."""
    entries: list[Entry] = []
    expanded: set[int] = set()
    for out in outputs:
        stack = [(out, 0)]
        while stack:
            var, depth = stack.pop()
            node = var.owner
            repeat = node is not None and id(node) in expanded
            entries.append(Entry(depth, var, repeat))
            if node is not None and not repeat:
                expanded.add(id(node))
                stack.extend((inp, depth + 1) for inp in reversed(node.inputs))
    return entries
