"""The failing node of a failed call, as the failure view shows it: what it read at the
iteration that failed, that its output was not computed, and, for a loop body, any
iteration's values and a plot of one value's summary over the iterations.

Every value here is the call's, replayed in NumPy from its arguments
(:mod:`symnb.core.failed_call`; another iteration: :mod:`symnb.core.loop_values`), and
every value of a loop body says which iteration it is of. Every level of nested loops is
named. Names are the user's: a step's input by the parameter it is passed to (``i_t``,
reading ``idx[t]``), never a type's repr or a rewrite's name.
"""

from __future__ import annotations

import html
import math
from typing import Any, Sequence

import numpy as np

from symnb.core.failed_call import CallValues, describe_loops
from symnb.core.graph.basic import Apply, Constant, Variable
from symnb.printing.labels import node_name, op_name, words_of
from symnb.printing.html import TEXT_STYLE, array_html, shown_name, table
from symnb.printing.values import value_stats

__all__ = ["failing_card_html", "iteration_values_html", "summary_plot_svg",
           "loop_body_variables"]

_CARD = ("border:2px solid #d93025;border-radius:6px;padding:8px 12px;background:#fffafa;"
         "text-align:left;margin:6px 0")


def _e(text: Any) -> str:
    return html.escape(str(text))


def _name_and_value(var: Variable, value: Any) -> str:
    """``i_t = 7`` for a scalar, else the name."""
    array = np.asarray(value) if value is not None else None
    parameter = getattr(var.tag, "step_parameter", None) if var._tag is not None else None
    name = parameter or words_of(var)
    if array is not None and array.ndim == 0 and array.dtype.kind in "biuf":
        return f"{name} = {array.item():.6g}" if array.dtype.kind == "f" else f"{name} = {array.item()}"
    return name


def failing_card_html(call: CallValues) -> str:
    """The failing node's card: the loops around it (every level), its inputs at the
    failing evaluation, and its outputs: not computed (or, where the replay computed them
    -- a NaN check's verdict on an output --, their values)."""
    node = call.node
    title = node_name(node, {})
    spoken = describe_loops(call.loops, op_name)  # the loops as the picture names them
    where = spoken or "this call"
    at = f"at {spoken}" if spoken else "in this call"
    head = (f'<div class="symnb-failing-card" style="{TEXT_STYLE};{_CARD}">'
            f'<div style="font-size:14px;margin-bottom:4px"><b style="color:#d93025">Failed: '
            f"{_e(title)}</b> ({_e(op_name(node))}) {_e(at)}</div>")
    parts = [head, _levels_html(call)]
    rows = []
    for var, value in call.input_values():
        rows.append((_e(_name_and_value(var, value)), _e(_reads(var)),
                     array_html(value, f"{words_of(var)} at {where}", "not known (the replay did not reach it)")))
    parts.append(f"<div style=\"margin-top:4px\"><b>Its inputs {_e(at)}</b> "
                 f"(replayed in NumPy from {_e(call.values_from)})</div>")
    parts.append(table(rows, header=("input", "", "value"), escape=False))
    outputs = []
    for var, value in call.output_values():
        text = (array_html(value, f"{words_of(var)} at {where}") if value is not None else
                _e(f"not computed: computing it {at} raised the error"))
        outputs.append((_e(shown_name(var)), text))
    parts.append("<div style=\"margin-top:4px\"><b>Its output</b></div>")
    parts.append(table(outputs, header=("output", "value"), escape=False))
    if call.note:
        parts.append(f"<div><i>{_e(call.note)}</i></div>")
    parts.append("</div>")
    return "".join(parts)


def _reads(var: Variable) -> str:
    """What a step's input reads (``idx[t]``), when the card names it by its parameter."""
    parameter = getattr(var.tag, "step_parameter", None) if var._tag is not None else None
    name = words_of(var)
    if isinstance(var, Constant):
        return "constant"
    return f"reads {name}" if parameter and parameter != name else ""


def _levels_html(call: CallValues) -> str:
    """Every loop level around the failing node, outermost first, each with its iteration."""
    if not call.loops:
        return ""
    items = []
    for depth, (loop, iteration) in enumerate(call.loops):
        where = loop.site.short() if loop.site else ""
        inside = "loop" if depth == 0 else f"loop nested {depth} level{'s' if depth > 1 else ''} deep"
        items.append(f'<li class="symnb-loop-level" data-depth="{depth}">{_e(inside)} '
                     f"<b>{_e(op_name(loop))}</b>{_e(' (' + where + ')' if where else '')}: "
                     f"failed in <b>iteration {iteration}</b></li>")
    return f'<ul style="margin:2px 0 2px 1.2em;padding:0">{"".join(items)}</ul>'


def loop_body_variables(loop: Apply, node: Apply) -> list[Variable]:
    """The variables of the graph of ``loop``'s body holding ``node`` (at any depth):
    its inputs, then every node's outputs, in execution order (what a plot can show)."""
    for graph in loop.op.inner_graphs:
        if _in_graph(graph, node):
            found = list(graph.inputs) + [v for n in graph.nodes for v in n.outputs]
            return list(dict.fromkeys(found))
    return []


def _in_graph(graph: Any, node: Apply) -> bool:
    return node in graph.nodes or any(_in_graph(g, node) for n in graph.nodes for g in n.op.inner_graphs)


def iteration_values_html(call: CallValues, loops: Sequence[tuple[Apply, int]],
                          values: dict[int, tuple[Variable, Any]], variables: Sequence[Variable]) -> str:
    """``variables``' values at the iterations ``loops`` picked (``values``: from
    :func:`symnb.core.loop_values.values_at`), each row saying its iteration."""
    where = describe_loops(loops, op_name)
    failing = _same(loops, call.loops)
    rows = []
    for var in variables:
        entry = values.get(id(var))
        value = entry[1] if entry is not None and entry[0] is var else None
        if value is None:
            text = ("not computed: computing it raised the error" if failing and var.owner is call.node
                    else "not reached at this iteration: the call failed before reading or computing it")
        else:
            text = value_stats(value)
        rows.append((_e(_name_and_value(var, value)), _e(text)))
    note = " (the iteration that failed)" if failing else ""
    return (f'<div class="symnb-iteration-values"><b>Values at {_e(where)}</b>{_e(note)}, '
            f"replayed in NumPy from {_e(call.values_from)}</div>"
            + table(rows, header=("variable", "value at this iteration"), escape=False))


def _same(a: Sequence[tuple[Apply, int]], b: Sequence[tuple[Apply, int]]) -> bool:
    return len(a) == len(b) and all(x is y and i == j for (x, i), (y, j) in zip(a, b))


_PLOT_W, _PLOT_H, _PAD = 360, 120, 34


def summary_plot_svg(points: Sequence[tuple[int, float]], count: int, failed_at: int | None,
                     title: str, picked: int | None = None) -> str:
    """A small line plot (inline SVG, no library) of ``points`` = ``[(iteration,
    number)]`` over iterations ``0 .. count-1``; the failing iteration marked red (where
    the value was not computed, a red tick says so), the ``picked`` one by a grey line."""
    finite = [(i, y) for i, y in points if math.isfinite(y)]
    width, height = _PLOT_W, _PLOT_H
    left, right, top, bottom = _PAD + 16, width - 10, 26, height - 22
    parts = [f'<svg class="symnb-iteration-plot" xmlns="http://www.w3.org/2000/svg" width="{width}" '
             f'height="{height}" viewBox="0 0 {width} {height}" style="font:10px monospace;background:#fff">',
             f'<text x="{left}" y="11" fill="#333">{_e(title)}</text>',
             f'<line x1="{left}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="#999"/>',
             f'<line x1="{left}" y1="{top}" x2="{left}" y2="{bottom}" stroke="#999"/>']
    last = max(count - 1, 1)

    def x_of(i: int) -> float:
        return left + (right - left) * i / last

    if picked is not None and picked != failed_at:
        x = x_of(picked)
        parts.append(f'<line class="symnb-picked-iteration" x1="{x:.1f}" y1="{top}" x2="{x:.1f}" '
                     f'y2="{bottom}" stroke="#888" stroke-dasharray="2 2"/>')
        parts.append(f'<text x="{x:.1f}" y="{top - 2}" text-anchor="middle" fill="#555">{picked}</text>')
    if finite:
        lo, hi = min(y for _, y in finite), max(y for _, y in finite)
        span = hi - lo or (abs(hi) or 1.0)
        base = lo if hi > lo else lo - span / 2

        def y_of(y: float) -> float:
            return bottom - (bottom - top) * (y - base) / span

        line = " ".join(f"{x_of(i):.1f},{y_of(y):.1f}" for i, y in finite)
        parts.append(f'<polyline points="{line}" fill="none" stroke="#1a73e8" stroke-width="1.5"/>')
        for i, y in finite:
            colour = "#d93025" if i == failed_at else "#1a73e8"
            parts.append(f'<circle cx="{x_of(i):.1f}" cy="{y_of(y):.1f}" r="2.5" fill="{colour}" '
                         f'data-iteration="{i}" data-value="{y:.6g}"><title>iteration {i}: {y:.4g}</title></circle>')
        parts.append(f'<text x="{left - 3}" y="{top + 4}" text-anchor="end" fill="#333">{hi:.3g}</text>')
        parts.append(f'<text x="{left - 3}" y="{bottom}" text-anchor="end" fill="#333">{lo:.3g}</text>')
    if failed_at is not None and all(i != failed_at for i, _ in finite):
        x = x_of(failed_at)
        parts.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{bottom}" stroke="#d93025" '
                     'stroke-dasharray="3 2"/>')
        parts.append(f'<text x="{x - 3:.1f}" y="{bottom - 4}" text-anchor="end" fill="#d93025">'
                     f"iteration {failed_at}: failed, not computed</text>")
    parts.append(f'<text x="{left}" y="{height - 6}" fill="#333">0</text>')
    parts.append(f'<text x="{right}" y="{height - 6}" text-anchor="end" fill="#333">iteration {count - 1}</text>')
    parts.append("</svg>")
    return "".join(parts)
