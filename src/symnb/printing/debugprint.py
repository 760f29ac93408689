"""``debugprint``: Theano's indented text tree of a graph.

    Elemwise{mul,no_inplace} [id A] ''
     |TensorConstant{2.0} [id B]
     |Elemwise{add,no_inplace} [id C] 'z'
       |<TensorType(float32, shape=())> [id D]
       |<TensorType(float32, shape=())> [id E]

One line per variable: the op computing it (or its name, value or type for an input),
an id, its type when asked, its name in quotes, its position in the execution order for
a compiled function, and a summary of its test value when asked. A node shown once is
shown again as its line only, so shared subgraphs are printed once.

Ops holding inner graphs (Scan's loop body, IfElse's branches) are listed after the
tree, as Theano does, each followed by its inner outputs' trees behind `` >``; an inner
input shows the id of the outer input feeding it::

    Inner graphs:

    Scan{step} [id A] ''
     >Elemwise{add,no_inplace} [id E] ''
     > |s0[t-1] [id F] -> [id D]
     > |x[t] [id G] -> [id C]
"""

from __future__ import annotations

import sys
from typing import IO, Any

from symnb.core.graph.basic import Apply, Variable
from symnb.printing._common import char_id, graph_parts, leaf_text, output_text, summarize_value
from symnb.printing._inner import has_inner_graphs, inner_output_notes, inner_to_outer

__all__ = ["debugprint"]

_ID_STYLES = ("CHAR", "int", "id", "")


def debugprint(obj: Any, file: Any = None, print_type: bool = False, ids: str = "CHAR",
               depth: int = -1, print_test_value: bool = False, done: dict | None = None,
               stop_on_name: bool = False, print_inner_graphs: bool = True) -> Any:
    """Print the graph of ``obj`` as an indented tree (Theano's ``debugprint``).

    ``obj`` is a Variable, a list of Variables, an Apply node or a compiled function
    (whose lines end with each node's index in the execution order, as in Theano).

    - ``file``: None prints to stdout (returns None); ``'str'`` returns the text; a
      file-like object is written to and returned.
    - ``print_type``: add each variable's type, ``<TensorType(float32, shape=(?, 3))>``.
    - ``ids``: ``'CHAR'`` (``[id A]``, ``[id B]``, ... ``[id BA]``), ``'int'``
      (``[id 0]``), ``'id'`` (Python object ids) or ``''`` (none).
    - ``depth``: levels to print (-1: all).
    - ``print_test_value``: add a summary of each test value (dtype, shape, and the
      values when small, else min/max and NaN/Inf counts). Nothing is computed:
      pending test values show as ``no test value``.
    - ``done``: a dict shared between calls so ids and "already printed" carry over.
    - ``stop_on_name``: do not expand below a named variable.
    - ``print_inner_graphs``: after the tree, print the inner graphs of the Scan and
      IfElse nodes shown (nested ones included), under ``Inner graphs:``.
    """
    outputs, order = graph_parts(obj)
    printer = _TreePrinter(ids, print_type, print_test_value, stop_on_name, order,
                           {} if done is None else done)
    lines: list[str] = []
    for var in outputs:
        lines.extend(printer.tree(var, depth))
    if print_inner_graphs and printer.inner_nodes:
        lines.extend(printer.inner_section(depth))
    # A function over several devices: each variable's sharding, XLA's collectives.
    sharding_lines = getattr(obj, "sharding_lines", None)
    if callable(sharding_lines):
        lines.extend(sharding_lines())
    lines.extend(transfer_section(obj))
    return _emit("".join(line + "\n" for line in lines), file)


def _emit(text: str, file: Any) -> Any:
    if isinstance(file, str):
        if file != "str":
            raise ValueError(f"file must be None, 'str' or a file-like object, got {file!r}")
        return text
    out: IO[str] = sys.stdout if file is None else file
    out.write(text)
    if file is None:
        out.flush()
        return None
    return file


class _TreePrinter:
    """Formats the lines of one ``debugprint`` call; ``done`` maps what was printed to its id."""

    def __init__(self, ids: str, print_type: bool, print_test_value: bool, stop_on_name: bool,
                 order: list[Apply] | None, done: dict) -> None:
        if ids not in _ID_STYLES:
            raise ValueError(f"ids must be one of {_ID_STYLES}, got {ids!r}")
        self.ids = ids
        self.print_type = print_type
        self.print_test_value = print_test_value
        self.stop_on_name = stop_on_name
        self.position = {id(node): i for i, node in enumerate(order or ())}
        self.done = done
        self.inner_nodes: list[Apply] = []  # nodes with inner graphs, in the order met
        self._inner_seen: set[int] = set()
        # id(inner input) -> (its position among its op's inner inputs, the outer input feeding it)
        self.links: dict[int, tuple[int, Variable | None]] = {}

    def tree(self, root: Variable, depth: int, prefix: str = "", note: str = "") -> list[str]:
        """The lines for ``root`` and, depth first, everything it depends on not yet shown.

        ``prefix`` starts every line (`` >`` in an inner graph); ``note`` ends the root's line.
        """
        lines = []
        # Entries: (variable, prefix of its line, prefix of its children's lines, depth left).
        stack: list[tuple[Variable, str, str, int]] = [(root, prefix, prefix, depth)]
        while stack:
            var, line_prefix, child_prefix, levels = stack.pop()
            if levels == 0:
                continue
            suffix = f" ({note})" if note and var is root else ""
            node = var.owner
            if node is None:
                lines.append(line_prefix + self._leaf_line(var, suffix))
                continue
            self._note_inner_graphs(node)
            expand = node not in self.done and not (self.stop_on_name and var.name is not None)
            lines.append(line_prefix + self._node_line(var, suffix))
            if expand:
                stack.extend(reversed(self._children(node, child_prefix, levels - 1)))
        return lines

    def inner_section(self, depth: int) -> list[str]:
        """Theano's ``Inner graphs:`` section: each node holding inner graphs, then its
        inner outputs' trees behind `` >``. Nested loops found on the way are added to
        the list being walked, so they get their own entry."""
        lines = ["", "Inner graphs:"]
        for node in self.inner_nodes:  # grows while it is walked
            lines.append("")
            lines.append(self._header_line(node))
            self._link_inputs(node)
            for out, note in zip(node.op.inner_outputs, inner_output_notes(node)):
                lines.extend(self.tree(out, depth, prefix=" >", note=note))
        return lines

    def _note_inner_graphs(self, node: Apply) -> None:
        if has_inner_graphs(node) and id(node) not in self._inner_seen:
            self._inner_seen.add(id(node))
            self.inner_nodes.append(node)

    def _link_inputs(self, node: Apply) -> None:
        feeds = inner_to_outer(node)
        for position, var in enumerate(node.op.inner_inputs):
            self.links[id(var)] = (position, feeds.get(id(var)))

    @staticmethod
    def _children(node: Apply, child_prefix: str,
                  levels: int) -> list[tuple[Variable, str, str, int]]:
        last = len(node.inputs) - 1
        # Theano's drawing: " |" before each input; below the last input the bar stops.
        return [(inp, child_prefix + " |", child_prefix + ("  " if i == last else " |"), levels)
                for i, inp in enumerate(node.inputs)]

    def _node_line(self, var: Variable, suffix: str) -> str:
        node = var.owner
        parts = [output_text(var), self._id(node), self._type(var), f"'{var.name or ''}'"]
        line = " ".join(part for part in parts if part)
        if id(node) in self.position:
            line += f"   {self.position[id(node)]}"  # Theano's spacing before the index
        return line + suffix + self._value(var)

    def _header_line(self, node: Apply) -> str:
        """The op's line heading its inner graphs: its name and id (and, for a single
        output, the output's name, as in the tree)."""
        parts = [node.op.display_name(), self._id(node)]
        if len(node.outputs) == 1:
            parts.append(f"'{node.outputs[0].name or ''}'")
        return " ".join(part for part in parts if part)

    def _leaf_line(self, var: Variable, suffix: str) -> str:
        parts = [self._leaf_text(var), self._id(var), self._type(var), self._outer_link(var)]
        return " ".join(part for part in parts if part) + suffix + self._value(var)

    def _leaf_text(self, var: Variable) -> str:
        """An unnamed inner input shows its position first, as in Theano: ``*1-<TensorType(..)>``."""
        text = leaf_text(var)
        if id(var) in self.links and var.name is None:
            return f"*{self.links[id(var)][0]}-{text}"
        return text

    def _outer_link(self, var: Variable) -> str:
        """``-> [id C]``: the id of the outer input feeding an inner input."""
        _, outer = self.links.get(id(var), (None, None))
        if outer is None:
            return ""
        outer_id = self._id(outer if outer.owner is None else outer.owner)
        return f"-> {outer_id}" if outer_id else ""

    def _id(self, obj: Variable | Apply) -> str:
        if obj in self.done:
            return self.done[obj]
        if self.ids == "CHAR":
            text = f"[id {char_id(len(self.done))}]"
        elif self.ids == "int":
            text = f"[id {len(self.done)}]"
        elif self.ids == "id":
            text = f"[id {id(obj)}]"
        else:
            text = ""
        self.done[obj] = text
        return text

    def _type(self, var: Variable) -> str:
        return f"<{var.type!r}>" if self.print_type else ""

    def _value(self, var: Variable) -> str:
        if not self.print_test_value:
            return ""
        return " -> " + summarize_value(var._test_value)


def variable_notes(fn: Any) -> list[tuple[str, str]]:
    """``(variable, note)`` for each argument, shared variable and output of a compiled
    function: where its value crosses between host and device on each call. The one
    place a per-variable annotation of a function's boundary belongs (placement, sharding)."""
    from symnb.core.graph.errors import label

    notes = []
    for var in fn.inputs:
        notes.append((label(var), "host -> device each call (a NumPy argument; none for a jax.Array "
                                  "already on the device)"))
    for var in getattr(fn, "_all_shared", ()):
        notes.append((label(var), "shared: stays on the device (no transfer)"))
    for var in fn.outputs:
        notes.append((label(var), "device -> host each call (copied into a NumPy array)"))
    return notes


def transfer_section(obj: Any) -> list[str]:
    """For a profiled compiled function: ``Transfers per call:`` with each boundary
    variable's note and the measured bytes and counts per call (a function compiled
    without ``profile=True`` prints as before)."""
    if getattr(obj, "maker", None) is None or getattr(obj, "profile", None) is None:
        return []
    lines = ["", "Transfers per call:"]
    lines += [f" {name}: {note}" for name, note in variable_notes(obj)]
    profile = obj.profile
    if profile.calls:
        t = profile.transfers_per_call()
        lines.append(f" measured: host->device {t['h2d_count']:g} ({int(t['h2d_bytes'])} bytes), "
                     f"device->host {t['d2h_count']:g} ({int(t['d2h_bytes'])} bytes) per call")
    return lines
