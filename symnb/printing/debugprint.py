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
"""

from __future__ import annotations

import sys
from typing import IO, Any

from symnb.core.graph import Apply, Variable
from symnb.printing._common import char_id, graph_parts, leaf_text, output_text, summarize_value

__all__ = ["debugprint"]

_ID_STYLES = ("CHAR", "int", "id", "")


def debugprint(obj: Any, file: Any = None, print_type: bool = False, ids: str = "CHAR",
               depth: int = -1, print_test_value: bool = False, done: dict | None = None,
               stop_on_name: bool = False) -> Any:
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
    """
    outputs, order = graph_parts(obj)
    printer = _TreePrinter(ids, print_type, print_test_value, stop_on_name, order,
                           {} if done is None else done)
    lines: list[str] = []
    for var in outputs:
        lines.extend(printer.tree(var, depth))
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

    def tree(self, root: Variable, depth: int) -> list[str]:
        """The lines for ``root`` and, depth first, everything it depends on not yet shown."""
        lines = []
        # Entries: (variable, prefix of its line, prefix of its children's lines, depth left).
        stack: list[tuple[Variable, str, str, int]] = [(root, "", "", depth)]
        while stack:
            var, prefix, child_prefix, levels = stack.pop()
            if levels == 0:
                continue
            node = var.owner
            if node is None:
                lines.append(prefix + self._leaf_line(var))
                continue
            expand = node not in self.done and not (self.stop_on_name and var.name is not None)
            lines.append(prefix + self._node_line(var))
            if expand:
                stack.extend(reversed(self._children(node, child_prefix, levels - 1)))
        return lines

    @staticmethod
    def _children(node: Apply, child_prefix: str,
                  levels: int) -> list[tuple[Variable, str, str, int]]:
        last = len(node.inputs) - 1
        # Theano's drawing: " |" before each input; below the last input the bar stops.
        return [(inp, child_prefix + " |", child_prefix + ("  " if i == last else " |"), levels)
                for i, inp in enumerate(node.inputs)]

    def _node_line(self, var: Variable) -> str:
        node = var.owner
        parts = [output_text(var), self._id(node), self._type(var), f"'{var.name or ''}'"]
        line = " ".join(part for part in parts if part)
        if id(node) in self.position:
            line += f"   {self.position[id(node)]}"  # Theano's spacing before the index
        return line + self._value(var)

    def _leaf_line(self, var: Variable) -> str:
        parts = [leaf_text(var), self._id(var), self._type(var)]
        return " ".join(part for part in parts if part) + self._value(var)

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
