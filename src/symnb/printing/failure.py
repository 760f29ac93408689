"""HTML of a failed call: the error's record, then the values of *that* call.

``failure_html(err)`` is the error's HTML repr (``err`` shown in a notebook cell) and
the header of ``GraphExplorer(err)``. It is drawn from the error's record
(``err.record``, :class:`symnb.core.graph.error_record.ErrorRecord`), as the text
message is, never from the message: the headline, the user's line and the inputs,
then the call's arguments (and the shared variables' values before the call, from
``err.call_values``, see :mod:`symnb.core.failed_call`) and the failing node's inputs
and outputs as the call computed them, each with its dtype, shape, summary and, for a
1-D or 2-D value, its heatmap. A build error (no call) shows its message and the
failing node's test values, labelled as such.
"""

from __future__ import annotations

import html
from typing import Any

from symnb.core.graph.error_record import ErrorRecord
from symnb.core.graph.errors import label, message_of
from symnb.core.failed_call import CallValues, describe_loops
from symnb.printing.html import TEXT_STYLE, array_html, pre, table, value_html
from symnb.printing.labels import node_name, op_name
from symnb.printing.values import value_stats

__all__ = ["failure_html", "call_values_html"]


def call_values_html(values: CallValues, arguments: bool = True, record: ErrorRecord | None = None) -> str:
    """The call's arguments (unless ``arguments=False``), then the failing node's inputs
    and outputs in that call (from ``record``, the error's, which holds them; by default
    the record of ``values`` alone)."""
    if record is None or not record.in_call:
        node = values.node
        record = values.record(ErrorRecord("", node=node, op=node.op.display_name()))
    where = f" at {html.escape(record.where)}" if record.where else ""
    node_rows = [(f"{role} #{v.position}", html.escape(v.name), array_html(v.value, v.name))
                 for role, items in (("input", record.inputs), ("output", record.outputs))
                 for v in items]
    parts = ['<div class="symnb-call-values">']
    if arguments:
        parts += ["<div><b>This call's arguments</b> (then the shared variables' values before it)</div>",
                  _arguments_table(values)]
    parts += [
        f"<div style=\"margin-top:4px\"><b>Failing node {html.escape(record.op)}"
        f"{where}</b>: its values in this call (replayed in NumPy from the arguments)</div>",
        table(node_rows, header=("", "variable", "value in this call"), escape=False),
    ]
    if record.call_note:
        parts.append(f"<div><i>{html.escape(record.call_note)}</i></div>")
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
    """The error as HTML, drawn from its record: its kind and message, then the call's
    values (or, for a build error, the failing node's test values, labelled as such).
    With ``explorer`` (the header of ``GraphExplorer(err)``, whose failing node's details
    show its values): the message and the call's arguments folded, one line each, so
    the picture comes next."""
    values = getattr(error, "call_values", None)
    node = getattr(error, "node", None)
    record = getattr(error, "record", None)
    # The message without the call's values, which the tables below show.
    message = message_of(record, values=False) if isinstance(record, ErrorRecord) else str(error)
    parts = [f'<div class="symnb-failure" style="{TEXT_STYLE}">',
             f'<div style="color:#d00000"><b>{html.escape(type(error).__name__)}</b></div>',
             f'<div class="symnb-failure-message">{pre(message, wrap=True)}</div>']
    where = record.where if isinstance(record, ErrorRecord) and record.in_call else ""
    if values is not None and explorer and where:  # its details show that iteration's values
        # Named as the picture under it names them (scan(step), E[i_t]); the message keeps Theano's.
        where = describe_loops(values.loops, op_name) or where
        parts.append(f"<div><b>Failed at {html.escape(where)}</b> of this call "
                     f"({html.escape(node_name(values.node, {}))} in the loop body)</div>")
    if values is not None:
        parts.append(_arguments_folded(values) if explorer
                     else call_values_html(values, record=record if isinstance(record, ErrorRecord) else None))
    elif explorer:
        pass  # the failing node's details, selected first, show its test values
    elif node is not None and hasattr(node, "inputs"):
        parts.append(_test_values_html(node))
    parts.append("</div>")
    return "".join(parts)
