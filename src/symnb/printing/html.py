"""HTML views of variables, compiled functions and graph nodes (the notebook's reprs,
``%%symgraph``'s report, the explorer's details panel and every saved snapshot).

Plain functions returning HTML strings, with inline styles only: they show the same in
JupyterLab (whose stylesheet right-aligns table cells unless told otherwise), Notebook 7,
VS Code, nbconvert and GitHub. One monospace font for code and values. Nothing here
imports IPython or JAX, and nothing computes a test value: a pending value shows as
pending.
"""

from __future__ import annotations

import html
from typing import Any, Sequence

from symnb.core.graph.errors import label
from symnb.core.graph.basic import Constant, Variable
from symnb.core.tensor.shared import SharedVariable
from symnb.printing.graph_model import GraphPicture, PictureNode, creation_text, value_of
from symnb.printing.svg import MONOSPACE
from symnb.printing.values import heatmap_html, value_stats

__all__ = ["kind_of", "value_summary", "value_html", "pre", "table", "variable_rows",
           "variables_table", "node_details_html", "function_rows", "TEXT_STYLE"]

TEXT_STYLE = f"font-family:{MONOSPACE};font-size:12px"
_CELL = "text-align:left;vertical-align:top;padding:1px 10px 1px 0;border:none"


def _e(text: Any) -> str:
    return html.escape(str(text))


def kind_of(var: Variable) -> str:
    """What computes ``var``: its op (``Elemwise{add,no_inplace}``), or the kind of root."""
    if var.owner is not None:
        return var.owner.op.display_name()
    if isinstance(var, Constant):
        return "constant"
    if isinstance(var, SharedVariable):
        return "shared variable"
    return "input"


def value_summary(var: Variable) -> str:
    """The one-line summary of ``var``'s value, computing nothing."""
    value = value_of(var)
    if value is not None:
        return value_stats(value)
    if var.owner is not None:
        return "pending (computed when .test_value is read)"
    return "no test value"


def value_html(var: Variable) -> str:
    """The value's summary line and, for a 1-D or 2-D value, its heatmap."""
    picture = heatmap_html(value_of(var), title=f"{label(var)}: {value_summary(var)}")
    text = f"<span>{_e(value_summary(var))}</span>"
    return f"{text}<br>{picture}" if picture else text


def pre(text: str) -> str:
    """``text`` as a preformatted block, in the monospace font."""
    return (f'<pre style="margin:0;text-align:left;{TEXT_STYLE};white-space:pre">'
            f"{html.escape(text)}</pre>")


def table(rows: Sequence[Sequence[str]], header: Sequence[str] | None = None,
          escape: bool = True, row_header: bool = True) -> str:
    """A left-aligned table; cells are text (escaped) unless ``escape=False`` (HTML)."""
    def cell(tag: str, content: str) -> str:
        return f'<{tag} style="{_CELL}">{_e(content) if escape else content}</{tag}>'

    head = ""
    if header is not None:
        head = "<tr>" + "".join(cell("th", h) for h in header) + "</tr>"
    body = "".join(
        "<tr>" + "".join(cell("th" if row_header and i == 0 else "td", c) for i, c in enumerate(row))
        + "</tr>" for row in rows)
    return (f'<table class="symnb-table" style="border-collapse:collapse;margin:0;{TEXT_STYLE}">'
            f"{head}{body}</table>")


def variable_rows(var: Variable) -> list[tuple[str, str]]:
    """The (field, HTML) rows describing ``var``."""
    return [("name", _e(label(var))), ("type", _e(repr(var.type))), ("computed by", _e(kind_of(var))),
            ("test value", value_html(var)), ("created at", _e(creation_text(var)))]


def variables_table(named: Sequence[tuple[str, Variable]]) -> str:
    """One compact table of several variables: name, type, op, value, line."""
    rows = [(_e(name), _e(var.type.short()), _e(kind_of(var)), value_html(var),
             _e(creation_text(var))) for name, var in named]
    return table(rows, header=("name", "type", "computed by", "test value", "created at"),
                 escape=False)


def _button(action: str, node_id: str, text: str) -> str:
    return (f'<button class="symnb-action" data-action="{action}" data-node="{_e(node_id)}" '
            f'style="{TEXT_STYLE}">{_e(text)}</button>')


def node_details_html(picture: GraphPicture, node_id: str) -> str:
    """The details of one node of ``picture``: what it is, its value, where it was built,
    and its inputs with their lines; buttons to open its inner graphs or collapse it."""
    node = picture.find(node_id)
    if node is None:
        return '<p style="margin:0">Click a node to see its op, type, value and line.</p>'
    var = node.variable
    title = f"<b>{_e(node.label)}</b>"
    rows = [("op", _e(kind_of(var))), ("type", _e(var.type.short())),
            ("value", value_html(var)), ("created at", _e(creation_text(var)))]
    if node.seconds is not None:
        rows.append(("time", _e(node.time_text())))
    if node.error:
        rows.insert(0, ("error", '<b style="color:#d00000">the error names this node</b>'))
    parts = [f'<div class="symnb-node-details" data-node="{_e(node_id)}" style="{TEXT_STYLE}">',
             title, table(rows, escape=False)]
    parts.append(_actions(node))
    if node.kind == "apply":
        parts.append(_io_table("inputs", node.obj.inputs))
        if len(node.obj.outputs) > 1:
            parts.append(_io_table("outputs", node.obj.outputs))
    parts.append("</div>")
    return "".join(parts)


def _actions(node: PictureNode) -> str:
    buttons = []
    if node.has_inner:
        buttons.append(_button("close", node.id, "close inner graph") if node.inner
                       else _button("expand", node.id, "open inner graph"))
    if node.kind == "apply":
        buttons.append(_button("uncollapse", node.id, f"show the {node.hidden} hidden node(s)")
                       if node.hidden else _button("collapse", node.id, "collapse its inputs"))
    return f"<div>{''.join(buttons)}</div>" if buttons else ""


def _io_table(title: str, variables: Sequence[Variable]) -> str:
    rows = [(str(i), _e(label(v)), _e(v.type.short()), value_html(v), _e(creation_text(v)))
            for i, v in enumerate(variables)]
    return (f"<div style=\"margin-top:4px\"><b>{title}</b></div>"
            + table(rows, header=("#", "name", "type", "value", "created at"), escape=False))


def function_rows(fn: Any) -> list[tuple[str, str]]:
    """The (field, text) rows describing a compiled function."""
    fgraph = fn.maker.fgraph

    def names(variables: list[Variable]) -> str:
        return ", ".join(f"{label(v)}: {v.type.short()}" for v in variables) or "(none)"

    return [
        ("function", fn.name or "(unnamed)"),
        ("inputs", names(fn.inputs)),
        ("outputs", names(fn.outputs)),
        ("optimizer", repr(fn.maker.optimizer)),
        ("nodes", f"{len(fn.nodes)} after {len(fgraph.history)} rewrite(s)"),
        ("profile", "on" if fn.profile is not None else "off"),
    ]
