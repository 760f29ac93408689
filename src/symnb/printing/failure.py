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
from symnb.printing.html import TEXT_STYLE, array_html, pre, table, value_html
from symnb.printing.values import value_stats

__all__ = ["failure_html", "call_values_html"]


def call_values_html(values: CallValues, arguments: bool = True) -> str:
    """The call's arguments (unless ``arguments=False``), then the failing node's inputs
    and outputs in that call."""
    where = f" at {html.escape(values.where)}" if values.where else ""
    node_rows = [(f"input #{i}", html.escape(label(var)), array_html(value, label(var)))
                 for i, (var, value) in enumerate(values.input_values())]
    node_rows += [(f"output #{i}", html.escape(label(var)), array_html(value, label(var)))
                  for i, (var, value) in enumerate(values.output_values())]
    parts = ['<div class="symnb-call-values">']
    if arguments:
        parts += ["<div><b>This call's arguments</b> (then the shared variables' values before it)</div>",
                  _arguments_table(values)]
    parts += [
        f"<div style=\"margin-top:4px\"><b>Failing node {html.escape(values.node.op.display_name())}"
        f"{where}</b>: its values in this call (replayed in NumPy from the arguments)</div>",
        table(node_rows, header=("", "variable", "value in this call"), escape=False),
    ]
    if values.note:
        parts.append(f"<div><i>{html.escape(values.note)}</i></div>")
    parts.append("</div>")
    return "".join(parts)


def _arguments_table(values: CallValues, compact: bool = False) -> str:
    """The call's arguments and shared values; ``compact``: one line each, no heatmaps."""
    rows = [(html.escape(name), html.escape(value_stats(value)) if compact else array_html(value, name))
            for name, value in values.arguments]
    return table(rows, header=("argument", "value in this call"), escape=False)


def _arguments_folded(values: CallValues) -> str:
    """The arguments behind a toggle, closed: the explorer's picture comes first."""
    names = ", ".join(html.escape(name) for name, _ in values.arguments[:6])
    more = " \u2026" if len(values.arguments) > 6 else ""
    return (f'<details class="symnb-call-arguments" style="margin:4px 0"><summary style="cursor:pointer">'
            f"<b>This call's arguments</b> and shared values ({names}{more}): click to show"
            f"</summary>{_arguments_table(values, compact=True)}</details>")


def _test_values_html(node: Any) -> str:
    rows = [(f"input #{i}", html.escape(label(v)), value_html(v)) for i, v in enumerate(node.inputs)]
    return ("<div><b>Test values</b> of the failing node's inputs (no call: the graph was being "
            "built)</div>" + table(rows, header=("", "variable", "test value"), escape=False))


def failure_html(error: BaseException, explorer: bool = False) -> str:
    """The error as HTML: its kind and message, then the call's values (or, for a build
    error, the failing node's test values, labelled as such). With ``explorer`` (the
    header of ``GraphExplorer(err)``, whose failing node's details show its values): the
    message and the call's arguments folded, one line each, so the picture comes next."""
    values = getattr(error, "call_values", None)
    node = getattr(error, "node", None)
    message = str(error).split("\nValues of this call")[0] if values is not None else str(error)
    parts = [f'<div class="symnb-failure" style="{TEXT_STYLE}">',
             f'<div style="color:#d00000"><b>{html.escape(type(error).__name__)}</b></div>',
             f'<div class="symnb-failure-message">{pre(message, wrap=True)}</div>']
    if values is not None and explorer and values.where:  # its details show that iteration's values
        parts.append(f"<div><b>Failed at {html.escape(values.where)}</b> of this call "
                     f"({html.escape(values.node.op.display_name())} in the loop body)</div>")
    if values is not None:
        parts.append(_arguments_folded(values) if explorer else call_values_html(values))
    elif explorer:
        pass  # the failing node's details, selected first, show its test values
    elif node is not None and hasattr(node, "inputs"):
        parts.append(_test_values_html(node))
    parts.append("</div>")
    return "".join(parts)

