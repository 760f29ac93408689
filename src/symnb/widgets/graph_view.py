"""The browser side of :class:`~symnb.widgets.explorer.GraphExplorer`: one anywidget.

anywidget (on top of ipywidgets 8) ships its JavaScript with the widget's state, so the
view needs no JupyterLab extension of its own and runs wherever widgets run: JupyterLab,
Notebook 7, VS Code. The front end is the client-side viewer (:mod:`symnb.widgets.viewer`):
Python sends it the graph's model ONCE (``model_data``, encoded by
``symnb.printing.view_model.encode_view_model``) and the state to start from; the browser
opens, closes, selects, searches and colours with no kernel message. Custom messages:

- browser to kernel: ``{"details": id}`` (the user asked for a node's heatmap and
  inputs' values) and ``{"state": {...}}`` (one, debounced, after the user stops
  changing the view: what the saved notebook keeps);
- kernel to browser: ``{"details_for": id, "html": ...}`` and ``{"command": {"open":
  [...], "selected": id}}`` (the Python API's ``open``, ``select``, ...).
"""

from __future__ import annotations

from typing import Any

__all__ = ["graph_view_class"]

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

    from symnb.widgets.viewer import viewer_css, widget_esm

    class GraphView(anywidget.AnyWidget):
        """The client-side graph viewer (model sent once; state kept in the browser)."""

        _esm = widget_esm()
        _css = viewer_css()

        model_data = traitlets.Unicode("").tag(sync=True)  # the encoded view model
        view_state = traitlets.Dict().tag(sync=True)  # {open, selected, overlay} to start from
        snapshot_key = traitlets.Unicode("").tag(sync=True)
        header = traitlets.Unicode("").tag(sync=True)
        footer = traitlets.Unicode("").tag(sync=True)

    return GraphView
