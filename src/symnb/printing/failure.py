"""HTML of a failed call: the error's message, then the values of *that* call.

``failure_html(err)`` is the error's HTML repr (``err`` shown in a notebook cell) and
the header of ``GraphExplorer(err)``: the message, the call's arguments (and the shared
variables' values before the call) and the failing node's inputs and outputs as the
call computed them (``err.call_values``, see :mod:`symnb.core.failed_call`), each with
its dtype, shape, summary and, for a 1-D or 2-D value, its heatmap. A build error (no
call) shows its message and the failing node's test values, labelled as such.
"""

from __future__ import annotations

import html
from typing import Any

from symnb.core.graph.errors import label
from symnb.core.failed_call import CallValues
from symnb.printing.html import TEXT_STYLE, pre, table, value_html
from symnb.printing.values import heatmap_html, value_stats

__all__ = ["failure_html", "call_values_html"]


def _value_cell(value: Any, title: str) -> str:
    text = f"<span>{html.escape(value_stats(value) if value is not None else 'not computed')}</span>"
    picture = heatmap_html(value, title=title) if value is not None else ""
    return f"{text}<br>{picture}" if picture else text


def call_values_html(values: CallValues, arguments: bool = True) -> str:
    """The call's arguments (unless ``arguments=False``), then the failing node's inputs
    and outputs in that call."""
    where = f" at {html.escape(values.where)}" if values.where else ""
    argument_rows = [(html.escape(name), _value_cell(value, name)) for name, value in values.arguments]
    node_rows = [(f"input #{i}", html.escape(label(var)), _value_cell(value, label(var)))
                 for i, (var, value) in enumerate(values.input_values())]
    node_rows += [(f"output #{i}", html.escape(label(var)), _value_cell(value, label(var)))
                  for i, (var, value) in enumerate(values.output_values())]
    parts = ['<div class="symnb-call-values">']
    if arguments:
        parts += ["<div><b>This call's arguments</b> (then the shared variables' values before it)</div>",
                  table(argument_rows, header=("argument", "value in this call"), escape=False)]
    parts += [
        f"<div style=\"margin-top:4px\"><b>Failing node {html.escape(values.node.op.display_name())}"
        f"{where}</b>: its values in this call (replayed in NumPy from the arguments)</div>",
        table(node_rows, header=("", "variable", "value in this call"), escape=False),
    ]
    if values.note:
        parts.append(f"<div><i>{html.escape(values.note)}</i></div>")
    parts.append("</div>")
    return "".join(parts)


def _test_values_html(node: Any) -> str:
    rows = [(f"input #{i}", html.escape(label(v)), value_html(v)) for i, v in enumerate(node.inputs)]
    return ("<div><b>Test values</b> of the failing node's inputs (no call: the graph was being "
            "built)</div>" + table(rows, header=("", "variable", "test value"), escape=False))


def failure_html(error: BaseException) -> str:
    """The error as HTML: its kind and message, then the call's values (or, for a build
    error, the failing node's test values, labelled as such)."""
    values = getattr(error, "call_values", None)
    node = getattr(error, "node", None)
    message = str(error).split("\nValues of this call")[0] if values is not None else str(error)
    parts = [f'<div class="symnb-failure" style="{TEXT_STYLE}">',
             f'<div style="color:#d00000"><b>{html.escape(type(error).__name__)}</b></div>',
             f'<div class="symnb-failure-message">{pre(message, wrap=True)}</div>']
    if values is not None:
        parts.append(call_values_html(values))
    elif node is not None and hasattr(node, "inputs"):
        parts.append(_test_values_html(node))
    parts.append("</div>")
    return "".join(parts)

