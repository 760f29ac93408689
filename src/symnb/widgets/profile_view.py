"""``ProfileView``: a compiled function's profile as tables with bars, by the user's
lines first, then by node; the rows sort by time, line or op (``sort``)."""

from __future__ import annotations

import html
from typing import Any, NamedTuple

from symnb.printing.graph_model import creation_text
from symnb.printing.html import table
from symnb.widgets._view import WidgetView, live_marker

__all__ = ["ProfileView", "ProfileRow"]


class ProfileRow(NamedTuple):
    percent: float
    seconds: float
    index: int  # position in the execution order (f.nodes)
    node: str   # the node, as its op applied to its inputs
    op: str
    line: str   # where the user built it


class ProfileView(WidgetView):
    """The profile of ``function`` (compiled with ``profile=True`` and called at least
    once): the time per call by the user's lines, then per node (% time, time per call,
    node, op, user line), costliest first unless ``sort`` says otherwise ('time',
    'line', 'op'). The times come from ``f.profile.report()`` (XLA's trace of the
    program on the last call's arguments, scaled to the real call); ``refresh()``
    measures again. ``f.profile.node_times()`` gives the same times by node, for a
    graph view to colour nodes by."""

    SORTS = ("time", "line", "op")

    def __init__(self, function: Any) -> None:
        if getattr(function, "profile", None) is None:
            raise ValueError("ProfileView needs a function compiled with profile=True, "
                             "e.g. sn.function(inputs, outputs, profile=True)")
        self.function = function
        self.rows: list[ProfileRow] = []
        self.line_rows: list[tuple[float, float, str]] = []  # (% of the call, seconds, line)
        self.sort = "time"
        self.refresh()

    # -- model ----------------------------------------------------------------------
    def refresh(self) -> None:
        """Measure again (on the last call's arguments)."""
        from symnb.compile.profiling_tables import line_rows

        profile = self.function.profile
        report = profile.report()
        if report is None:
            self.rows, self.line_rows = [], []
            return
        seconds = report.node_seconds
        total = sum(seconds.values()) or 1.0
        nodes = self.function.nodes
        self.rows = [ProfileRow(100.0 * s / total, s, i, repr(nodes[i]), nodes[i].op.display_name(),
                                creation_text(nodes[i].outputs[0]))
                     for i, s in sorted(seconds.items(), key=lambda item: item[1], reverse=True)]
        self.line_rows = [(r.percent, r.seconds, r.key) for r in line_rows(profile, report)]

    def graph(self) -> Any:
        """The function's graph (a :class:`GraphExplorer`) coloured by this profile's
        node times, without measuring again."""
        from symnb.widgets.explorer import GraphExplorer

        nodes = self.function.nodes
        return GraphExplorer(self.function, times={nodes[r.index]: r.seconds for r in self.rows})

    def sorted_rows(self) -> list[ProfileRow]:
        """The node rows in the order ``self.sort`` asks."""
        if self.sort not in self.SORTS:
            raise ValueError(f"sort must be one of {self.SORTS}, got {self.sort!r}")
        # Ties go by toposort index, so an order by line or op is the same on every run.
        key = {"time": lambda r: -r.seconds, "line": lambda r: (r.line, r.index),
               "op": lambda r: (r.op, r.index)}
        return sorted(self.rows, key=key[self.sort])

    def sorted_line_rows(self) -> list[tuple[float, float, str]]:
        """The by-line rows: costliest first, or by line for any other order."""
        if self.sort == "time":
            return list(self.line_rows)
        return sorted(self.line_rows, key=lambda row: row[2])

    def text(self) -> str:
        if not self.rows:
            return "no profile yet: call the function once"
        return "\n".join(f"{r.percent:5.1f}%  {r.seconds:.2e}s  #{r.index}  {r.node}  {r.line}"
                         for r in self.sorted_rows())

    def table_html(self) -> str:
        """The by-line table, then the node rows, as left-aligned HTML tables with bars."""
        if not self.rows:
            return "<p>No profile yet: call the function once.</p>"
        lines = [(_bar(p), f"{p:.1f}%", f"{s:.2e} s", html.escape(line))
                 for p, s, line in self.sorted_line_rows()]
        nodes = [(_bar(r.percent), f"{r.percent:.1f}%", f"{r.seconds:.2e} s", str(r.index),
                  html.escape(r.node), html.escape(r.op), html.escape(r.line))
                 for r in self.sorted_rows()]
        return ("<p><b>By line</b> (share of the real call)</p>"
                + table(lines, header=("", "% time", "time per call", "line"), escape=False,
                        row_header=False)
                + "<p><b>By node</b> (share of the program)</p>"
                + table(nodes, header=("", "% time", "time per call", "#", "node", "op", "built at"),
                        escape=False, row_header=False))

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
        return w.VBox([button, self.table, live_marker(self.snapshot_key), order])

    def _on_refresh(self) -> None:
        self.refresh()
        self.table.value = self.table_html()

    def _on_sort(self, value: str) -> None:
        self.sort = value
        self.table.value = self.table_html()


def _bar(percent: float) -> str:
    """A horizontal bar as wide as ``percent`` of its cell."""
    width = max(0.0, min(100.0, percent))
    return (f'<div style="width:6em;background:#eee"><div style="width:{width:.1f}%;'
            f'height:0.8em;background:#d9534f"></div></div>')
