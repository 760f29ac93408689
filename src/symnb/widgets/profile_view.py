"""``ProfileView``: a compiled function's profile: a short overview (time per call,
compile time, the costliest lines), then, one click away, tables with bars by the
user's lines and by node; the rows sort by time, line or op (``sort``); and one call
in time (its timeline: the ``timeline`` button, or ``view.timeline()``).

It reads the function's kept measurement (``f.profile.report()``), the one
``f.profile.summary()`` prints and the time-coloured graph shades by: the same
seconds and shares, written by the same formatter."""

from __future__ import annotations

import html
from typing import Any, NamedTuple

from symnb.compile.profiling.format import percent_text, seconds_text
from symnb.printing.graph_model import creation_text
from symnb.printing.html import TEXT_STYLE, pre, table
from symnb.printing.labels import node_name, op_name, rewrite_origins
from symnb.widgets._view import WidgetView, live_marker
from symnb.core.graph.traceback_filter import api_boundary

__all__ = ["ProfileView", "ProfileRow"]


class ProfileRow(NamedTuple):
    percent: float  # of the real call, as in f.profile.summary()'s Apply table
    seconds: float  # per call
    index: int  # position in the execution order (f.nodes); -1: a row that is no node
    node: str   # the node in the user's words (its name, source text or role); else what the row is
    op: str     # its op's public name (``labels.op_name``)
    line: str   # where the user built it
    fused_in: tuple = ()  # XLA operations that fused this node's work with others'
    members: tuple = ()   # a fused operation's row: its nodes' indices

    @property
    def share(self) -> str:
        """The share as the tables write it: ``-`` for a node whose work is all in fused
        operations (no time of its own)."""
        return "-" if self.fused_in and not self.seconds else percent_text(self.percent)

    @property
    def time(self) -> str:
        return "-" if self.fused_in and not self.seconds else seconds_text(self.seconds)


class ProfileView(WidgetView):
    """The profile of ``function`` (compiled with ``profile=True`` and called at least
    once): an overview (``f.profile.overview()``), then the time per call by the user's
    lines and by node (% of the call, time per call, node, op, user line), costliest
    first unless ``sort`` says otherwise ('time', 'line', 'op'). A fused XLA operation is
    one row (its members listed, with no time of their own); the time outside the
    program is a row too, so the shares add up to 100%. The times are
    ``f.profile.report()``'s, the numbers ``f.profile.summary()`` prints; ``refresh()``
    measures again (for every view). ``graph()`` draws the same times; ``timeline()``
    (the view's ``timeline`` button) traces one call and shows it in the view, under
    the tables (kept in the saved notebook)."""

    SORTS = ("time", "line", "op")

    @api_boundary  # the user calls it: errors show the user's line
    def __init__(self, function: Any) -> None:
        if getattr(function, "profile", None) is None:
            raise ValueError("ProfileView needs a function compiled with profile=True, "
                             "e.g. sn.function(inputs, outputs, profile=True)")
        self.function = function
        self.rows: list[ProfileRow] = []
        self.line_rows: list[Any] = []  # the Lines table's rows (render.Row), costliest first
        self.sort = "time"
        self._overviews: dict[str, str] = {}
        #: The last traced call (:meth:`timeline`), shown under the tables; None until asked.
        self.traced: Any = None
        self._load(self.function.profile.report())

    # -- model ----------------------------------------------------------------------
    def refresh(self) -> None:
        """Measure again (on the last call's arguments): this view, ``summary()`` and the
        graph all read the new measurement; the saved snapshot follows."""
        self._load(self.function.profile.report(refresh=True))
        self.snapshot_changed()

    def _load(self, report: Any) -> None:
        from symnb.compile.profiling.render import apply_rows, line_rows

        profile = self.function.profile
        self.report = report
        self._overviews = {order: profile.overview(file="str", order=order) for order in ("time", "line")}
        if report is None:
            self.rows, self.line_rows = [], []
            return
        nodes = self.function.nodes
        origins = rewrite_origins(self.function, list(nodes))
        self.rows = [self._row(r, nodes, origins) for r in apply_rows(profile, report)]
        self.line_rows = line_rows(profile, report)

    @staticmethod
    def _row(r: Any, nodes: Any, origins: dict[int, str]) -> ProfileRow:
        if r.index < 0:
            return ProfileRow(r.percent, r.seconds, -1, r.key, "", "", (), r.members)
        node = nodes[r.index]
        # Named as the graph views name it: ``loss``, ``fused: mul·add``, not Theano's
        # ``Sum{axis=(0,)}(Composite{...})`` (f.profile.summary() keeps that).
        return ProfileRow(r.percent, r.seconds, r.index, node_name(node, origins), op_name(node),
                          creation_text(node.outputs[0]), r.fused_in)

    @property
    def overview(self) -> str:
        """``f.profile.overview()`` of the measurement shown, its costliest lines in the
        order the view sorts by (by line: the code's order, the same from run to run)."""
        return self._overviews["line" if self.sort == "line" else "time"]

    def graph(self) -> Any:
        """The function's graph (a :class:`GraphExplorer`) coloured by this profile's
        times, without measuring again: each node's own time, each fused operation and
        the time outside the program as units of their own."""
        from symnb.compile.profiling.attribute import node_times
        from symnb.widgets.explorer import GraphExplorer

        times = node_times(self.report, self.function.nodes)
        return GraphExplorer(self.function, times=times, time_total=times.call_seconds)

    def timeline(self) -> Any:
        """One call on the last call's arguments, traced (``f.profile.timeline()``), and
        shown in this view under the tables (the saved snapshot follows); returns it."""
        self.traced = self.function.profile.timeline()
        if getattr(self, "table", None) is not None:  # the live view: drawn now
            self.table.value = self.table_html()
        self.snapshot_changed()
        return self.traced

    def sorted_rows(self) -> list[ProfileRow]:
        """The node rows in the order ``self.sort`` asks."""
        self._check_sort()
        # Ties go by toposort index, so an order by line or op is the same on every run
        # (the rows that are no node's last, by what they are).
        key = {"time": lambda r: -r.seconds, "line": lambda r: (r.index < 0, r.line, r.index, r.node),
               "op": lambda r: (r.index < 0, r.op, r.index, r.node)}
        return sorted(self.rows, key=key[self.sort])

    def _check_sort(self) -> None:
        if self.sort not in self.SORTS:
            raise ValueError(f"sort must be one of {self.SORTS}, got {self.sort!r}")

    def sorted_line_rows(self) -> list[Any]:
        """The by-line rows: costliest first, or by line for any other order."""
        if self.sort == "time":
            return list(self.line_rows)
        return sorted(self.line_rows, key=lambda row: row.key)

    def text(self) -> str:
        if not self.rows:
            return "no profile yet: call the function once"
        return self.overview + "\n".join(
            f"{r.share:>6}  {r.time:>10}  {'#' + str(r.index) if r.index >= 0 else '-':>4}  {r.node}"
            f"{'  ' + r.line if r.line else ''}{_fused_note(r)}" for r in self.sorted_rows())

    def table_html(self, open_tables: bool = False) -> str:
        """The overview, then (in a ``<details>`` block, open with ``open_tables``) the
        by-line table and the node rows as HTML tables with bars, as wide as the output
        (long cells wrap)."""
        if not self.rows:
            return "<p>No profile yet: call the function once.</p>"
        lines = [(_bar(r.percent), r.share, r.own_time(r.seconds), html.escape(r.key + r.fused_note))
                 for r in self.sorted_line_rows()]
        nodes = [(_bar(r.percent if r.share != "-" else 0.0), r.share, r.time,
                  str(r.index) if r.index >= 0 else "-",
                  html.escape(r.node + _fused_note(r)), html.escape(r.op), html.escape(r.line))
                 for r in self.sorted_rows()]
        tables = ("<p><b>By line</b> (share of the real call)</p>"
                  + table(lines, header=("", "% time", "time per call", "line"), escape=False,
                          row_header=False, widths=("6.5em", "5em", "7em", "auto"))
                  + "<p><b>By node</b> (share of the real call; a fused XLA operation is one row, "
                    "its time measured for the whole: its member nodes have none of their own)</p>"
                  + table(nodes, header=("", "% time", "time per call", "#", "node", "op", "built at"),
                          escape=False, row_header=False,
                          widths=("6.5em", "5em", "7em", "3em", "auto", "20%", "25%")))
        return (f'<div class="symnb-profile">{pre(self.overview, wrap=True)}'
                f'<details class="symnb-profile-tables"{" open" if open_tables else ""}>'
                f'<summary style="{TEXT_STYLE};cursor:pointer">Tables by line and by node '
                f"({len(self.line_rows)} lines, {len(self.rows)} rows)</summary>{tables}</details>"
                f"{self._timeline_html()}</div>")

    def _timeline_html(self) -> str:
        """The traced call's picture, else how to get one."""
        if self.traced is None:
            return (f'<p class="symnb-profile-no-timeline" style="{TEXT_STYLE}">Timeline of one call: '
                    "press <b>timeline</b> (or <code>view.timeline()</code>) to trace one</p>")
        return f'<div style="{TEXT_STYLE}">{self.traced._repr_html_()}</div>'  # the tables' font

    def snapshot_body(self) -> str:
        return self.table_html()

    # -- view -----------------------------------------------------------------------
    def _build(self) -> Any:
        import ipywidgets as w

        self.table = w.HTML(self.table_html())
        button = w.Button(description="Refresh")
        button.on_click(lambda _: self._on_refresh())
        order = w.Dropdown(options=self.SORTS, value=self.sort, description="sort by")
        order.observe(lambda change: self._on_sort(change["new"]), names="value")
        trace = w.Button(description="timeline", tooltip="trace one call on the last call's arguments")
        trace.on_click(lambda _: self.timeline())
        return w.VBox([w.HBox([button, trace]), self.table, live_marker(self.snapshot_key), order])

    def _on_refresh(self) -> None:
        self.refresh()
        self.table.value = self.table_html()

    def _on_sort(self, value: str) -> None:
        self.sort = value
        self.table.value = self.table_html(open_tables=True)  # the user is reading them
        self.snapshot_changed()


def _fused_note(row: ProfileRow) -> str:
    if row.fused_in:
        return f" [work in fused operation(s) {', '.join(repr(n) for n in row.fused_in)}]"
    return ""


def _bar(percent: float) -> str:
    """A horizontal bar as wide as ``percent`` of its cell."""
    width = max(0.0, min(100.0, percent))
    return (f'<div style="width:6em;background:#eee"><div style="width:{width:.1f}%;'
            f'height:0.8em;background:#d9534f"></div></div>')
