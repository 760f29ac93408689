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

from symnb.core.graph.config import config
from symnb.core.graph.errors import label
from symnb.core.graph.basic import Apply, Constant, Variable
from symnb.core.failed_call import CallValues, describe_loops
from symnb.core.tensor.shared import SharedVariable
from symnb.compile.profiling.format import percent_text, seconds_text
from symnb.printing._common import cut_text
from symnb.printing.node_facts import creation_text, runs_as, value_of
from symnb.printing.labels import op_name, role_label, words_of
from symnb.printing.svg import MONOSPACE
from symnb.printing.values import heatmap_html, value_stats
from symnb.printing.view_model import ViewModelParts

__all__ = ["kind_of", "shown_name", "value_summary", "value_html", "array_html", "pre", "table",
           "variable_rows", "node_details_html", "group_facts", "function_rows", "TEXT_STYLE",
           "PENDING", "NOT_COMPUTED"]

TEXT_STYLE = f"font-family:{MONOSPACE};font-size:12px"
#: The summary of a value not computed yet.
PENDING = "pending (computed when .test_value is read)"
#: The summary of a value its node could not compute (the node an error names).
NOT_COMPUTED = "not computed: computing it raised the error above"
_CELL = "text-align:left;vertical-align:top;padding:1px 10px 1px 0;border:none"


def _e(text: Any) -> str:
    return html.escape(str(text))


def kind_of(var: Variable) -> str:
    """What computes ``var``: its op (``add``, :func:`~symnb.printing.labels.op_name`), or
    the kind of root."""
    if var.owner is not None:
        return op_name(var.owner)
    if isinstance(var, Constant):
        return "constant"
    if isinstance(var, SharedVariable):
        return "shared variable"
    return "input"


def shown_name(var: Variable) -> str:
    """The name a view shows for ``var``: a loop step's input as the parameter it is
    passed to (``i_t (reads idx[t])``, ``tag.step_parameter``), else its words (``labels.words_of``)."""
    name = words_of(var)  # the user's words: ``tanh``, not ``Elemwise{tanh,no_inplace}``
    parameter = getattr(var.tag, "step_parameter", None) if var._tag is not None else None
    if parameter and parameter != name:
        return f"{parameter} (reads {name})"
    return name


def value_summary(var: Variable, failed: Apply | None = None) -> str:
    """The one-line summary of ``var``'s value, computing nothing; ``failed``: the node
    an error names, whose outputs are not pending but could not be computed."""
    value = value_of(var)
    if value is not None:
        return value_stats(value)
    if var.owner is not None:
        return NOT_COMPUTED if failed is not None and var.owner is failed else PENDING
    return "no test value"


def value_html(var: Variable, failed: Apply | None = None) -> str:
    """The value's summary line and, for a 1-D or 2-D value, its heatmap (``failed``: see
    :func:`value_summary`)."""
    summary = value_summary(var, failed)
    picture = heatmap_html(value_of(var), title=f"{words_of(var)}: {summary}")
    text = f"<span>{_e(summary)}</span>"
    return f"{text}<br>{picture}" if picture else text


def array_html(value: Any, title: str, missing: str = "not computed") -> str:
    """A value's summary line and, for a 1-D or 2-D value, its heatmap; ``missing`` when
    there is no value."""
    text = f"<span>{_e(value_stats(value) if value is not None else missing)}</span>"
    picture = heatmap_html(value, title=title) if value is not None else ""
    return f"{text}<br>{picture}" if picture else text


def pre(text: str, wrap: bool = False) -> str:
    """``text`` as a preformatted block, in the monospace font; with ``wrap``, a line
    wider than the output breaks onto the next (an error message must be read whole:
    the output area clips what passes its right edge)."""
    spacing = "white-space:pre-wrap;overflow-wrap:anywhere" if wrap else "white-space:pre"
    return (f'<pre style="margin:0;text-align:left;{TEXT_STYLE};{spacing}">'
            f"{html.escape(text)}</pre>")


def table(rows: Sequence[Sequence[str]], header: Sequence[str] | None = None,
          escape: bool = True, row_header: bool = True,
          widths: Sequence[str] | None = None) -> str:
    """A left-aligned table; cells are text (escaped) unless ``escape=False`` (HTML).
    With ``widths`` (a CSS width per column, e.g. ``"6em"``, ``"auto"``) the table fits
    the output's width: long cells wrap instead of running past its right edge."""
    def cell(tag: str, content: str) -> str:
        # A header ("input #0", "created at") on one line: a wide value column otherwise
        # squeezes it to a word a line.
        style = _CELL + (";" + _ONE_LINE if tag == "th" and widths is None else "") \
            + (";" + _WRAP if widths is not None else "")
        return f'<{tag} style="{style}">{_e(content) if escape else content}</{tag}>'

    head = ""
    if header is not None:
        head = "<tr>" + "".join(cell("th", h) for h in header) + "</tr>"
    body = "".join(
        "<tr>" + "".join(cell("th" if row_header and i == 0 else "td", c) for i, c in enumerate(row))
        + "</tr>" for row in rows)
    if widths is not None:
        columns = "".join(f'<col style="width:{w}">' for w in widths)
        return (f'<table class="symnb-table" style="border-collapse:collapse;margin:0;'
                f'table-layout:fixed;width:100%;{TEXT_STYLE}"><colgroup>{columns}</colgroup>'
                f"{head}{body}</table>")
    return (f'<table class="symnb-table" style="border-collapse:collapse;margin:0;{TEXT_STYLE}">'
            f"{head}{body}</table>")


def variable_rows(var: Variable) -> list[tuple[str, str]]:
    """The (field, HTML) rows describing ``var``."""
    return [("name", _e(words_of(var))), ("type", _e(repr(var.type))), ("computed by", _e(kind_of(var))),
            ("test value", value_html(var)), ("created at", _e(creation_text(var)))]


_CARD = ("border:1px solid #c8d0dc;border-radius:6px;padding:8px 12px;background:#fbfcfe;"
         "text-align:left")
_ONE_LINE = "white-space:nowrap"
_WRAP = "white-space:normal;overflow-wrap:anywhere"
_VALUE_MIN_WIDTH = "40ch"  # a value's summary line in an inputs table, about one line


def node_details_html(parts: ViewModelParts, node_id: str, call: CallValues | None = None,
                      failed: Apply | None = None) -> str:
    """The details of node (or group) ``node_id`` of a view model (``parts``:
    :func:`~symnb.printing.view_model.view_model_parts`), as a card: what it is (and what
    made it, for a gradient or rewrite node), its shape, static type and value (a heatmap
    with its scale), where it was built (on one line), the groups it sits in, its time,
    and its inputs with their lines. A group's card says what made it and lists what
    enters and leaves it. With ``call`` (a failed call's :class:`CallValues`), the values
    of that call come first, labelled so, and the test values follow as one-line
    summaries. ``failed``: the node an error names (its outputs: not computed, not
    pending). Every view's card: the browser's viewer asks the kernel for it."""
    node = parts.node(node_id) or parts.node(node_id.split("@", 1)[0]) or parts.copy_of(node_id)
    node_id = node["id"] if node is not None else node_id
    if node is None and parts.group(node_id) is not None:
        return _group_details(parts, parts.group(node_id), call)
    obj = parts.obj_of(node_id)
    if obj is None:
        return '<p style="margin:0">Click a node to see its op, type, value and line; click a group to open it.</p>'
    if node is None:  # a node the model does not draw (inside a fused chain): its holder's groups
        holder = parts.node(node_id.split("/", 1)[0])
        node = {"label": cut_text(words_of(obj.outputs[0] if isinstance(obj, Apply) else obj), 60),
                "group": holder["group"] if holder is not None else None,
                "failing": failed is not None and obj is failed}
    var = obj.outputs[0] if isinstance(obj, Apply) else obj
    rows = [("op", _e(kind_of(var)))]
    runs = runs_as(obj.op) if isinstance(obj, Apply) else None
    if runs:
        rows.append(("runs", _e(runs)))
    role = role_label(obj, parts.origins) if isinstance(obj, Apply) else None
    if role:
        rows.append(("made by", _e(_maker(role, obj, parts.origins))))
    value = value_html(var, failed) if call is None else _e(value_summary(var, failed))
    if role and value_of(var) is None and not role.startswith("grad"):
        value = _e("not computed yet: a rewrite made this node after the test values were computed"
                   "; explorer.compute(id) computes it")
    origin = parts.shapes.origin(var)
    if call is not None:
        rows.append((f"value {_during(call)}", _call_value(call, var)))
    rows += [(f"shape ({origin})" if origin else "shape", _e(parts.shapes.text(var))),
             ("static type", _e(var.type.short())),
             ("test value" if call is None else "test value (not this call's)", value),
             ("created at", f'<span style="{_ONE_LINE}">{_e(creation_text(var))}</span>')]
    groups = parts.groups_around(node["group"])
    if groups:
        rows.append(("in group", _e(" \u203a ".join(g["label"] for g in groups))))
    time = _time_text(parts, node_id, obj)
    if time:
        rows.append(("time", _e(time)))
    if node["failing"]:
        rows.insert(0, ("error", '<b style="color:#d00000">the error names this node</b>'))
    where = describe_loops(call.loops, op_name) if call is not None else ""  # the loops as pictured
    if call is not None and obj is call.node and (where or call.note):
        rows.insert(1, (_during(call), _e("; ".join(t for t in (where, call.note) if t))))
    parts_html = [_card_head(node_id, node["label"]), _card_table(rows)]
    if isinstance(obj, Apply):
        parts_html.append(_io_table("inputs", obj.inputs, call, failed=failed))
        if len(obj.outputs) > 1 or (call is not None and obj is call.node):
            parts_html.append(_io_table("outputs", obj.outputs, call, failed=failed))
    parts_html.append("</div>")
    return "".join(parts_html)


def _time_text(parts: ViewModelParts, node_id: str, obj: Any) -> str:
    """``1.200e-04s per call (35.0% of the call)`` (the time overlay's share), a fused
    operation's member's note, or "" when untimed."""
    overlay = parts.model["overlays"].get("time_share")
    if overlay is None:
        return ""
    share = overlay["values"].get(node_id)
    seconds = parts.times.get(obj) if parts.times is not None and isinstance(obj, Apply) else None
    if share is not None and seconds is not None:
        whole = "the call" if parts.time_total else "the nodes' time"
        return f"{seconds_text(seconds)} per call ({percent_text(100 * share)} of {whole})"
    unit = next((k for k, u in enumerate(overlay.get("fused", ())) if node_id in u["members"]), None)
    if unit is not None:  # numbered as the profile numbers them
        return (f"no time of its own: its work is in the fused XLA operation F{unit + 1} "
                f"({overlay['fused'][unit]['name']!r}), timed as one unit")
    return ""


def _during(call: CallValues) -> str:
    """``in this call``, or, for a loop that failed as its graph was built (its values
    replayed on the test values), ``as built``."""
    return "in this call" if call.values_from == "this call's arguments" else "as built (test values)"



def _call_value(call: CallValues, var: Variable) -> str:
    """``var``'s value in the failed call (replayed in NumPy from its arguments); a loop
    body's value labelled with its iteration; the failing node's outputs: not computed
    (never another iteration's value)."""
    value = call.value_of(var)
    if value is None:
        where = describe_loops(call.loops, op_name)
        at = f" at {where}" if where else ""
        if var.owner is call.node:
            return _e(f"not computed: this node failed{at} {_during(call)}")
        if any(holder is var.owner for holder, _ in call.levels):  # a loop whose body failed
            return _e(f"not computed: {words_of(call.node.outputs[0])} inside it failed{at} {_during(call)}")
        return _e(f"not computed {_during(call)} (the replay did not reach it)")
    iteration = call.iteration_of(var, op_name)  # a loop body's variable: the iteration shown
    title = f"{words_of(var)} {_during(call)}" + (f", {iteration}" if iteration else "")
    shown = array_html(value, title)
    return f"<span>{_e(iteration)}:</span> {shown}" if iteration else shown


def _maker(role: str, node: Apply, origins: dict[int, str]) -> str:
    """What made a node its line did not: ``sn.grad``, or the rewrite that did."""
    if role.startswith("grad"):
        return "sn.grad (its source line is the sn.grad call)"
    rewrite = origins.get(id(node), "fusion" if role.startswith("fused") else "")
    if rewrite != "fusion" and config.exception_verbosity != "high":  # its name is internal
        rewrite = "of the optimizer"
    return f"the rewrite {rewrite} (its source line is the line of the node it replaced)"


def _card_table(rows: list[tuple[str, str]]) -> str:
    """A card's rows: field names on one line ("static type"), values as given (HTML)."""
    return table([(f'<span style="{_ONE_LINE}">{_e(name)}</span>', value) for name, value in rows],
                 escape=False)


def _card_head(node_id: str, title: str) -> str:
    return (f'<div class="symnb-node-details" data-node="{_e(node_id)}" style="{TEXT_STYLE};{_CARD}">'
            f'<div style="font-size:14px;margin-bottom:4px"><b>{_e(title)}</b></div>')


def group_facts(parts: ViewModelParts, group: dict) -> tuple[str, str, str, list[Variable], list[Variable]]:
    """What a view model group is: what made it (``call of layer()``), what it holds
    (``12 nodes · 3 in · 1 out``), where it was called ('' if nowhere), and the values
    entering and leaving it."""
    inside = _nodes_inside(parts, group["id"])
    entering, leaving = _crossing(parts, inside)
    operations = sum(parts.node(i)["kind"] == "op" for i in inside)
    view = next((g for g in parts.groups.groups if g.id == group["id"]), None)
    source = view.source if view is not None else None
    made = source.describe() if source is not None else _GROUP_KINDS.get(group["kind"], group["kind"])
    holds = f"{operations} nodes \u00b7 {len(entering)} in \u00b7 {len(leaving)} out"
    return made, holds, source.where() if source is not None else "", entering, leaving


def _group_details(parts: ViewModelParts, group: dict, call: CallValues | None = None) -> str:
    """A group's card: what made it, where, its size, what enters and leaves it."""
    made, holds, where, entering, leaving = group_facts(parts, group)
    rows = [("group", _e(made)), ("holds", _e(holds))]
    if where:
        rows.append(("called at", f'<span style="{_ONE_LINE}">{_e(where)}</span>'))
    parts_html = [_card_head(group["id"], group["label"]), _card_table(rows)]
    # One line per value, no heatmaps: a gradient group reads dozens of inputs, and
    # their heatmaps made a panel thousands of pixels tall (click a node for its picture).
    for title, variables in (("inputs", entering), ("outputs", leaving)):
        if variables:
            parts_html.append(_io_table(title, variables, call, compact=True))
    parts_html.append("</div>")
    return "".join(parts_html)


#: What a group the viewer made (no call or scope of the user's) is, on its card.
_GROUP_KINDS = {"series": "calls of one function side by side, folded", "part": "a run of a series' calls",
                "opcall": "the ops one call of the user's built", "inner": "an inner graph (a loop's body, a branch)"}


def _nodes_inside(parts: ViewModelParts, group_id: str) -> set[str]:
    """The ids of the model's nodes inside group ``group_id`` (at any depth)."""
    inside: dict[str | None, bool] = {group_id: True}

    def within(gid: str | None) -> bool:
        if gid not in inside:
            group = parts.group(gid)
            inside[gid] = group is not None and within(group["parent"])
        return inside[gid]

    return {n["id"] for n in parts.model["nodes"] if n["group"] is not None and within(n["group"])}


def _crossing(parts: ViewModelParts, inside: set[str]) -> tuple[list[Variable], list[Variable]]:
    """The values entering a group's nodes from outside it, and those leaving it (read
    outside, or returned by the graph), each once, in the model's edge order."""
    def value(edge: dict) -> Variable:
        obj = parts.objects[edge["src"]]
        return obj.outputs[edge["out"]] if isinstance(obj, Apply) else obj

    entering: dict[int, Variable] = {}
    leaving: dict[int, Variable] = {}
    for edge in parts.model["edges"]:
        if edge["dst"] in inside and edge["src"] not in inside:
            var = value(edge)
            entering.setdefault(id(var), var)
        elif edge["src"] in inside and edge["dst"] not in inside:
            var = value(edge)
            leaving.setdefault(id(var), var)
    for node in parts.model["nodes"]:
        node_id = node["id"]
        if node_id in inside and node["is_output"] and "/" not in node_id:  # a gradient group's gradients feed no other box
            obj = parts.objects[node_id]
            for var in obj.outputs if isinstance(obj, Apply) else [obj]:
                leaving.setdefault(id(var), var)
    return list(entering.values()), list(leaving.values())


def _io_table(title: str, variables: Sequence[Variable], call: CallValues | None = None,
              compact: bool = False, failed: Apply | None = None) -> str:
    """Variables in rows: name, type, value, line. With ``call``, the value in that call
    first, then the test value's summary; ``compact``: summaries only, no heatmaps."""
    def line(text: str) -> str:
        return f'<span style="{_ONE_LINE}">{_e(text)}</span>'

    def cell(content: str) -> str:
        # A floor under the value's width: the one-line "created at" beside it otherwise
        # squeezed the value's summary to a word a line.
        return f'<div style="min-width:{_VALUE_MIN_WIDTH}">{content}</div>'

    def values(v: Variable) -> list[str]:
        test = _e(value_summary(v, failed)) if compact or call is not None else value_html(v, failed)
        if call is None:
            return [cell(test)]
        now = call.value_of(v)
        return [cell(_e(value_stats(now)) if compact and now is not None else _call_value(call, v)), cell(test)]

    head = ("#", "name", "type") + (("test value",) if call is None else (f"value {_during(call)}", "test value"))
    rows = [(str(i), line(shown_name(v)), line(v.type.short()), *values(v), line(creation_text(v)))
            for i, v in enumerate(variables)]
    return (f"<div style=\"margin-top:4px\"><b>{title}</b></div>"
            + table(rows, header=head + ("created at",), escape=False))


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
