"""``pydotprint``: a picture of a graph, drawn by Graphviz through pydot.

Apply nodes are boxes labelled with their op (coloured by op family, as in Theano);
a node holding inner graphs (Scan, IfElse) is a 3-D box whose second line counts the
nodes inside (``inner graph: 3 nodes``, ``then: 1 node, else: 2 nodes``) -- the inner
graphs themselves are not drawn (``debugprint`` prints them).
Variables are drawn as their own nodes when they matter to a reader:

- inputs: green ellipses;  shared variables: gold cylinders;  constants: grey notes;
- outputs: blue ellipses with a double border;
- named intermediate variables: white ellipses (unnamed ones are only edges, unless
  ``compact=False``);  outputs nobody uses: grey ellipses.

Every edge carries the type of the value it moves (``float32 (?, 3)``), prefixed by the
input's position when an op has several inputs.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from typing import Any

from symnb.core.graph.errors import SymnbError, label
from symnb.core.graph.basic import Apply, Constant, Variable, toposort
from symnb.core.ifelse import IfElse
from symnb.core.tensor.shared import SharedVariable
from symnb.printing._common import graph_parts, leaf_text, output_text
from symnb.printing._inner import has_inner_graphs, inner_summary

__all__ = ["pydotprint", "pydotprint_variables", "GraphvizNotFoundError"]

_logger = logging.getLogger("symnb.printing")  # Theano's theano.printing logger

_FORMATS = ("png", "svg", "pdf", "jpg", "jpeg", "gif", "dot")

# Op families by class name (matched anywhere in the op's class hierarchy), as in Theano.
_COLOR_CODES = {
    "Elemwise": "#FFAABB", "Subtensor": "#FFAAFF", "Alloc": "#FFAA22", "Shape": "cyan",
    "Scan": "yellow", "IfElse": "magenta",
}

_STYLES = {
    "apply": dict(shape="box", style="filled", fillcolor="white"),
    "inner": dict(shape="box3d", style="filled", fillcolor="white"),
    "input": dict(shape="ellipse", style="filled", fillcolor="#9BE39B"),
    "shared": dict(shape="cylinder", style="filled", fillcolor="#FFD966"),
    "constant": dict(shape="note", style="filled", fillcolor="#DDDDDD"),
    "output": dict(shape="ellipse", style="filled", fillcolor="#9EC9FF", peripheries="2"),
    "intermediate": dict(shape="ellipse", style="filled", fillcolor="white"),
    "unused": dict(shape="ellipse", style="filled", fillcolor="#BBBBBB"),
}

_INSTALL_HINT = (
    "Install Graphviz: `apt-get install graphviz` (Debian/Ubuntu), `conda install graphviz` "
    "or `brew install graphviz` (macOS). pydotprint(..., format='dot') returns the graph's "
    "dot source without Graphviz.")


class GraphvizNotFoundError(SymnbError, RuntimeError):
    """Graphviz's ``dot`` program, which renders the picture, is not installed."""


def pydotprint(fct: Any, outfile: str | os.PathLike | None = None, format: str | None = None,
               return_image: bool = False, compact: bool = True, with_ids: bool = False,
               max_label_size: int = 70, print_output_file: bool = True,
               var_with_name_simple: bool = False, high_contrast: bool = True,
               cond_highlight: Any = None, colorCodes: Any = None, scan_graphs: bool = False) -> Any:
    """Draw the graph of ``fct`` (a compiled function, a Variable, a list of Variables or
    an Apply node) with Graphviz.

    - ``format``: ``'png'``, ``'svg'``, ``'pdf'``, ``'jpg'``, ``'gif'`` or ``'dot'`` (the
      graph source); by default taken from ``outfile``'s suffix, else ``'png'``.
    - ``return_image=True``: return the picture instead of writing a file: the SVG (or
      dot) text as ``str``, other formats as ``bytes`` (e.g. for ``IPython.display``).
    - otherwise the picture is written to ``outfile`` (``.<format>`` is appended when
      missing; default: ``symnb.pydotprint.<format>`` in the temporary directory) and its
      path is returned (and printed, unless ``print_output_file=False``).
    - ``compact=False`` draws every intermediate variable as a node.
    - ``with_ids=True`` adds each node's position in the execution order (``id=2``),
      the number debugprint shows for a compiled function.
    - ``var_with_name_simple=True`` labels a named variable with its name only (no type).
    - Theano's ``high_contrast``, ``cond_highlight``, ``colorCodes`` and ``scan_graphs``
      are accepted (``cond_highlight`` on a graph without ``ifelse`` logs Theano's
      warning); the picture's colours are symnb's, and loop bodies are summarized
      in their node (draw one with ``pydotprint`` of the scan's inner outputs).
    """
    fmt = _choose_format(outfile, format)
    outputs, order = graph_parts(fct)
    nodes = order if order is not None else toposort(outputs)
    if cond_highlight and not any(isinstance(node.op, IfElse) for node in nodes):
        _logger.warning("pydotprint: cond_highlight is set but there is no IfElse node in the graph")
    pydot = _import_pydot()
    builder = _DotBuilder(pydot, outputs, nodes, compact, with_ids, max_label_size)
    builder.output_names = _update_names(fct, outputs)
    builder.name_only = var_with_name_simple
    graph = builder.build()
    data = graph.to_string().encode() if fmt == "dot" else _render(graph, fmt)
    if return_image:
        return data.decode() if fmt in ("svg", "dot") else data
    path = _output_path(outfile, fmt)
    with open(path, "wb") as handle:
        handle.write(data)
    if print_output_file:
        print("The output file is available at", path)
    return path


def _update_names(fct: Any, outputs: list[Variable]) -> dict[int, str]:
    """``{output position: 'w (update)'}`` for a compiled function's shared updates, which
    follow its outputs in the program."""
    updated = getattr(fct, "updated_shared", None)
    if not updated or not hasattr(fct, "maker"):
        return {}
    first = len(outputs) - len(updated)
    return {first + i: f"{label(var)} (update)" for i, var in enumerate(updated)}


def _choose_format(outfile: Any, fmt: str | None) -> str:
    if fmt is None:
        suffix = os.path.splitext(os.fspath(outfile))[1][1:].lower() if outfile is not None else ""
        fmt = suffix if suffix in _FORMATS else "png"
    fmt = fmt.lower()
    if fmt not in _FORMATS:
        raise ValueError(f"format must be one of {', '.join(_FORMATS)}, got {fmt!r}")
    return fmt


def _output_path(outfile: Any, fmt: str) -> str:
    if outfile is None:
        return os.path.join(tempfile.gettempdir(), f"symnb.pydotprint.{fmt}")
    path = os.fspath(outfile)
    return path if path.lower().endswith("." + fmt) else f"{path}.{fmt}"


def _import_pydot() -> Any:
    try:
        import pydot
    except ImportError:
        raise ImportError("pydotprint needs the pydot package: `pip install pydot`. "
                          + _INSTALL_HINT) from None
    return pydot


def pydot_usable() -> bool:
    """Theano's ``printing.pydot_imported``: whether :func:`pydotprint` can draw, i.e. pydot
    imports and Graphviz's ``dot`` program is on PATH."""
    try:
        _import_pydot()
    except ImportError:
        return False
    return shutil.which("dot") is not None


def _render(graph: Any, fmt: str) -> bytes:
    # Checked up front: pydot's own error for a missing program does not say what to install.
    if shutil.which("dot") is None:
        raise GraphvizNotFoundError("pydotprint needs Graphviz's `dot` program, which is not "
                                    f"on PATH. {_INSTALL_HINT}")
    try:
        return graph.create(prog="dot", format=fmt)
    except FileNotFoundError as err:
        raise GraphvizNotFoundError(f"Graphviz's `dot` could not be run ({err}). "
                                    f"{_INSTALL_HINT}") from None


def _quote(lines: list[str], limit: int) -> str:
    """A Graphviz string (always quoted: a bare ``<...>`` would be read as HTML)."""
    cut = [line if len(line) <= limit else line[:limit - 3] + "..." for line in lines]
    escaped = [line.replace("\\", "\\\\").replace('"', '\\"') for line in cut]
    return '"' + "\\n".join(escaped) + '"'


class _DotBuilder:
    """Builds the pydot graph of ``nodes`` (in execution order) computing ``outputs``."""

    def __init__(self, pydot: Any, outputs: list[Variable], nodes: list[Apply], compact: bool,
                 with_ids: bool, max_label_size: int) -> None:
        self.pydot = pydot
        self.graph = pydot.Dot("symnb", graph_type="digraph")
        self.outputs = outputs
        self.nodes = nodes
        self.compact = compact
        self.with_ids = with_ids
        self.limit = max_label_size
        self.output_index = {id(v): i for i, v in enumerate(outputs)}
        self.output_names: dict[int, str] = {}  # position -> label, e.g. 'w (update)'
        self.consumed = {id(v) for node in nodes for v in node.inputs}
        self.in_graph = {id(node) for node in nodes}
        self.dot_names: dict[int, str] = {}  # id(Apply or Variable) -> dot node name
        self.name_only = False  # var_with_name_simple: a named variable shows its name alone

    def build(self) -> Any:
        for position, node in enumerate(self.nodes):
            self._add_apply(node, position)
        for node in self.nodes:
            for var in node.outputs:
                if self._drawn(var):
                    self._add_variable(var)
                    self._edge(node, var, self._output_edge_label(var))
            for k, var in enumerate(node.inputs):
                source = self._add_variable(var) if self._drawn(var) else var.owner
                label = var.type.short() if len(node.inputs) == 1 else f"{k} {var.type.short()}"
                self._edge(source, node, label)
        for var in self.outputs:
            if self._is_root(var):  # an input returned as it is
                self._add_variable(var)
        return self.graph

    def _is_root(self, var: Variable) -> bool:
        """An input of the drawn graph (its node, if any, is not drawn)."""
        return var.owner is None or id(var.owner) not in self.in_graph

    def _drawn(self, var: Variable) -> bool:
        return (self._is_root(var) or not self.compact or var.name is not None
                or id(var) in self.output_index or id(var) not in self.consumed)

    def _add_apply(self, node: Apply, position: int) -> None:
        lines = [node.op.display_name() + (f" id={position}" if self.with_ids else "")]
        style = dict(_STYLES["apply"])
        if has_inner_graphs(node):
            lines.append(inner_summary(node))
            style = dict(_STYLES["inner"])
        color = _op_color(node)
        if color is not None:
            style["fillcolor"] = color
        self._node(node, lines, style)

    def _add_variable(self, var: Variable) -> Variable:
        if id(var) not in self.dot_names:
            is_root = self._is_root(var)
            is_output = id(var) in self.output_index
            kind = _variable_kind(var, is_root, is_output, id(var) in self.consumed)
            style = dict(_STYLES[kind])
            if is_root and is_output:
                style["peripheries"] = "2"  # an input that is also an output
            self._node(var, self._variable_label(var), style)
        return var

    def _variable_label(self, var: Variable) -> list[str]:
        if self.name_only and var.name is not None:
            return [var.name]
        if self._is_root(var):
            if var.name is None and not isinstance(var, Constant):
                return [leaf_text(var)]  # already the type: <TensorType(float32, shape=(?,))>
            return [leaf_text(var), var.type.short()]
        if var.name is not None:
            return [var.name, var.type.short()]
        if id(var) in self.output_index:
            position = self.output_index[id(var)]
            return [self.output_names.get(position, f"output {position}"), var.type.short()]
        return [output_text(var), var.type.short()]

    @staticmethod
    def _output_edge_label(var: Variable) -> str:
        outputs = var.owner.outputs
        return var.type.short() if len(outputs) == 1 else f"{var.index} {var.type.short()}"

    def _node(self, obj: Apply | Variable, lines: list[str], style: dict) -> None:
        name = f"{'a' if isinstance(obj, Apply) else 'v'}{len(self.dot_names)}"
        self.dot_names[id(obj)] = name
        self.graph.add_node(self.pydot.Node(name, label=_quote(lines, self.limit), **style))

    def _edge(self, source: Apply | Variable, target: Apply | Variable, label: str) -> None:
        self.graph.add_edge(self.pydot.Edge(self.dot_names[id(source)], self.dot_names[id(target)],
                                            label=_quote([label], self.limit)))


def _variable_kind(var: Variable, is_root: bool, is_output: bool, is_consumed: bool) -> str:
    if is_root:
        if isinstance(var, Constant):
            return "constant"
        return "shared" if isinstance(var, SharedVariable) else "input"
    if is_output:
        return "output"
    return "intermediate" if is_consumed else "unused"


def _op_color(node: Apply) -> str | None:
    names = [cls.__name__ for cls in type(node.op).__mro__]
    for family, color in _COLOR_CODES.items():
        if any(family in name for name in names):
            return color
    return None


def pydotprint_variables(vars: Any, outfile: str | os.PathLike | None = None, format: str = "png",
                         depth: int = -1, high_contrast: bool = True, colorCodes: Any = None,
                         max_label_size: int = 50, var_with_name_simple: bool = False) -> Any:
    """Theano's ``pydotprint_variables``: draw the graph computing ``vars`` (a variable or
    a list); same picture as :func:`pydotprint`. ``depth`` (how far up to draw) must be
    -1: the whole graph is drawn."""
    if depth != -1:
        raise NotImplementedError("pydotprint_variables: depth= is not supported; the whole "
                                  "graph is drawn (depth=-1)")
    return pydotprint(vars, outfile=outfile, format=format, max_label_size=max_label_size,
                      var_with_name_simple=var_with_name_simple)
