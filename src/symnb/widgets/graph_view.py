"""The browser side of :class:`~symnb.widgets.explorer.GraphExplorer`: one anywidget.

anywidget (on top of ipywidgets 8) ships its JavaScript with the widget's state, so the
view needs no JupyterLab extension of its own and runs wherever widgets run: JupyterLab,
Notebook 7, VS Code. The front end is ``static/graph_view.js``; Python sends it the
picture (SVG) and the selected node's details (HTML), and hears which node was clicked
and which nodes or groups the user opened or collapsed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["graph_view_class"]

_STATIC = Path(__file__).parent / "static"
_class = None


def graph_view_class() -> Any:
    """The ``GraphView`` widget class (built on first use: imports anywidget)."""
    global _class
    if _class is None:
        _class = _define()
    return _class


def _define() -> Any:
    import anywidget
    import traitlets

    class GraphView(anywidget.AnyWidget):
        """A clickable graph picture with a details panel, search, zoom and pan."""

        _esm = (_STATIC / "graph_view.js").read_text(encoding="utf-8")
        _css = (_STATIC / "graph_view.css").read_text(encoding="utf-8")

        svg = traitlets.Unicode("").tag(sync=True)
        details = traitlets.Unicode("").tag(sync=True)
        selected = traitlets.Unicode("").tag(sync=True)
        expanded = traitlets.List(traitlets.Unicode()).tag(sync=True)
        collapsed = traitlets.List(traitlets.Unicode()).tag(sync=True)
        opened = traitlets.List(traitlets.Unicode()).tag(sync=True)
        status = traitlets.Unicode("").tag(sync=True)
        snapshot_key = traitlets.Unicode("").tag(sync=True)
        header = traitlets.Unicode("").tag(sync=True)
        footer = traitlets.Unicode("").tag(sync=True)
        query = traitlets.Unicode("").tag(sync=True)  # the search box's text
        matches = traitlets.List(traitlets.Unicode()).tag(sync=True)  # Python's hits
        match_boxes = traitlets.List(traitlets.Unicode()).tag(sync=True)  # the box drawing each
        answered = traitlets.Unicode("").tag(sync=True)  # the query those hits answer

    return GraphView
