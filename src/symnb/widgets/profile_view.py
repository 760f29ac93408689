"""``ProfileView``: a compiled function's profile as a table, by the user's lines."""

from __future__ import annotations

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
    """The per-node profile of ``function`` (compiled with ``profile=True`` and called
    at least once), costliest first: % time, time per call, node, op, user line.
    The times come from ``f.profile.node_seconds()`` (a node-by-node run of the last
    call's arguments); ``refresh()`` measures again."""

    def __init__(self, function: Any) -> None:
        if getattr(function, "profile", None) is None:
            raise ValueError("ProfileView needs a function compiled with profile=True, "
                             "e.g. sn.function(inputs, outputs, profile=True)")
        self.function = function
        self.rows: list[ProfileRow] = []
        self.refresh()

    # -- model ----------------------------------------------------------------------
    def refresh(self) -> None:
        """Measure the nodes again (on the last call's arguments)."""
        seconds = self.function.profile.node_seconds()
        total = sum(seconds.values()) or 1.0
        nodes = self.function.nodes
        self.rows = [ProfileRow(100.0 * s / total, s, i, repr(nodes[i]), nodes[i].op.display_name(),
                                creation_text(nodes[i].outputs[0]))
                     for i, s in sorted(seconds.items(), key=lambda item: item[1], reverse=True)]

    def text(self) -> str:
        if not self.rows:
            return "no profile yet: call the function once"
        return "\n".join(f"{r.percent:5.1f}%  {r.seconds:.2e}s  #{r.index}  {r.node}  {r.line}"
                         for r in self.rows)

    def table_html(self) -> str:
        """The rows as a left-aligned HTML table."""
        if not self.rows:
            return "<p>No profile yet: call the function once.</p>"
        rows = [(f"{r.percent:.1f}%", f"{r.seconds:.2e} s", str(r.index), r.node, r.op, r.line)
                for r in self.rows]
        return table(rows, header=("% time", "time per call", "#", "node", "op", "built at"),
                     row_header=False)

    def snapshot_body(self) -> str:
        return self.table_html()

    # -- view -----------------------------------------------------------------------
    def _build(self) -> Any:
        import ipywidgets as w

        self.table = w.HTML(self.table_html())
        button = w.Button(description="Refresh")
        button.on_click(lambda _: self._on_refresh())
        return w.VBox([button, self.table, live_marker(self.snapshot_key)])

    def _on_refresh(self) -> None:
        self.refresh()
        self.table.value = self.table_html()
