"""The browser side of :class:`~symnb.widgets.explorer.GraphExplorer`: one anywidget.

anywidget (on top of ipywidgets 8) ships its JavaScript with the widget's state, so the
view needs no JupyterLab extension of its own and runs wherever widgets run: JupyterLab,
Notebook 7, VS Code. The front end is the client-side viewer (:mod:`symnb.widgets.viewer`):
Python sends it the graph's model ONCE (``model_data``, encoded by
``symnb.printing.view_model.encode_view_model``) and the state to start from; the browser
opens, closes, selects, searches and colours with no kernel message. Custom messages:

- browser to kernel: ``{"details": id}`` (the user asked for a node's heatmap and
  inputs' values), ``{"state": {...}}`` (one, debounced, after the user stops
  changing the view: what the saved notebook keeps) and ``{"elk": true}`` (the first
  view on a page asks for ELK's source, which the widget's module does not carry: it is
  saved with every view's widget state);
- kernel to browser: ``{"details_for": id, "html": ...}``, ``{"command": {"open":
  [...], "close": [...], "selected": id}}`` (the Python API's ``open``, ``select``, ...:
  the groups it opens and closes, added to what the user opened in the browser) and
  ``{"elk_source": text}`` (answered here, by the widget itself).
"""

from __future__ import annotations

from typing import Any

from symnb.widgets.viewer import elk_source, viewer_css, widget_esm

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

    class GraphView(anywidget.AnyWidget):
        """The client-side graph viewer (model sent once; state kept in the browser)."""

        _esm = widget_esm()
        _css = viewer_css()

        model_data = traitlets.Unicode("").tag(sync=True)  # the encoded view model
        view_state = traitlets.Dict().tag(sync=True)  # {open, selected, overlay} to start from
        snapshot_key = traitlets.Unicode("").tag(sync=True)
        header = traitlets.Unicode("").tag(sync=True)
        footer = traitlets.Unicode("").tag(sync=True)

        def __init__(self, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.on_msg(_answer_elk)

    return GraphView


def _answer_elk(view: Any, content: Any, _buffers: Any) -> None:
    """Send ELK's source to the view that asked for it (once per page: the views on a
    page share it)."""
    if isinstance(content, dict) and content.get("elk") is True:
        view.send({"elk_source": elk_source()})
