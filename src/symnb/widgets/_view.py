"""What every widget shares: a plain model with a live view and a saved snapshot.

The model is the widget object's plain methods (usable without a notebook); its
ipywidgets view is built on first display, so ``import symnb.widgets`` imports no
ipywidgets. Shown in a Jupyter kernel, a widget emits two outputs:

1. the live view (``application/vnd.jupyter.widget-view+json``);
2. its static snapshot (``text/html`` with a ``text/plain`` rendering): the picture and
   values as they were drawn, which a notebook keeps when it is saved.

The snapshot is displayed with a display id (the view's ``snapshot_key``): when the
user changes the view's state (an edited value, the stepper's position, an opened
group, a refreshed profile), ``snapshot_changed()`` sends the new snapshot as an
``update_display_data`` message, which replaces the saved output in the notebook, so
a notebook saved and reopened shows what the user last saw.

While the live view runs, its front end hides the snapshot below it. Where no live view
can run -- a notebook reopened without its kernel, nbconvert, GitHub -- the snapshot is
what shows; in JupyterLab and Notebook 7 its style rule also hides the "model not
found" line the widget output leaves there. In terminal IPython the text is printed.
"""

from __future__ import annotations

import sys
import uuid
from abc import ABC, abstractmethod
from typing import Any

from symnb.printing.html import pre

__all__ = ["WidgetView", "in_kernel", "snapshot_html", "live_marker"]

# A widget output whose model is gone (the notebook was reopened) shows this error line in
# JupyterLab / Notebook 7; the snapshot right after it says the same thing, with pictures.
_HIDE_DEAD_VIEW = ("<style>.jp-OutputArea-child:has(> .jp-OutputArea-output.jupyter-widgets)"
                   ":has(+ .jp-OutputArea-child .symnb-snapshot) { display: none; }</style>")

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


def in_kernel() -> bool:
    """True inside a Jupyter kernel (where widgets can show), False in terminal IPython
    or plain Python."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    return getattr(shell, "kernel", None) is not None


def snapshot_html(key: str, body: str) -> str:
    """The static snapshot of the live view ``key``: ``body`` in a marked block."""
    return f'<div class="symnb-snapshot" data-symnb-key="{key}">{_HIDE_DEAD_VIEW}{body}</div>'


_marker_class = None


def live_marker(key: str) -> Any:
    """An invisible widget that hides snapshot ``key`` while it is displayed (for views
    made of stock ipywidgets, which run no code of their own in the browser)."""
    global _marker_class
    if _marker_class is None:
        import anywidget
        import traitlets

        class SnapshotHider(anywidget.AnyWidget):
            _esm = ("export default { render({ model, el }) {"
                    " const key = model.get('snapshot_key'); const id = 'symnb-live-' + key;"
                    " el.style.display = 'none';"
                    " if (key && !document.getElementById(id)) {"
                    "  const s = document.createElement('style'); s.id = id;"
                    "  s.textContent = '.symnb-snapshot[data-symnb-key=\"' + key + '\"]"
                    " { display: none !important; }';"
                    "  document.head.appendChild(s); } } };")
            snapshot_key = traitlets.Unicode("").tag(sync=True)

        _marker_class = SnapshotHider
    return _marker_class(snapshot_key=key)


class WidgetView(ABC):
    """Base class: subclasses implement ``_build()`` (the ipywidgets layout),
    ``text()`` (a plain-text summary) and may refine ``snapshot_body()`` (the HTML kept
    in the saved notebook; by default the text)."""

    _widget: Any = None
    _key: str = ""
    _shown: bool = False  # the snapshot was displayed in a kernel (and can be updated)

    @property
    def snapshot_key(self) -> str:
        """Pairs the live view with its snapshot in the page."""
        if not self._key:
            self._key = uuid.uuid4().hex[:16]
        return self._key

    @property
    def widget(self) -> Any:
        """The ipywidgets object showing this model (built once)."""
        if self._widget is None:
            self._widget = self._build()
        return self._widget

    @abstractmethod
    def _build(self) -> Any:
        """Build the ipywidgets layout."""

    @abstractmethod
    def text(self) -> str:
        """What the widget shows, as plain text."""

    def snapshot_body(self) -> str:
        """The static HTML of what the widget shows."""
        return pre(self.text())

    def snapshot_text(self) -> str:
        """The snapshot's ``text/plain`` (by default the whole text)."""
        return self.text()

    def snapshot_bundle(self) -> dict[str, str]:
        """The saved form: ``text/html`` (the snapshot) and ``text/plain``."""
        return {"text/html": snapshot_html(self.snapshot_key, self.snapshot_body()),
                "text/plain": self.snapshot_text()}

    def live_bundle(self) -> dict[str, Any]:
        """The live view's output (an empty ``text/plain``: the snapshot carries the text)."""
        view = {"version_major": 2, "version_minor": 0, "model_id": self.widget.model_id}
        return {WIDGET_MIME: view, "text/plain": ""}

    def display(self) -> None:
        """Show the widget (and its snapshot) in the notebook; print the text in a terminal."""
        from IPython.display import display

        if not in_kernel():
            display({"text/plain": self.text()}, raw=True)
            return
        display(self.live_bundle(), raw=True)
        display(self.snapshot_bundle(), raw=True, display_id=self.snapshot_key)
        self._shown = True

    def snapshot_changed(self) -> None:
        """Replace the displayed snapshot with the current state (the output the notebook
        saves); nothing when the widget was not displayed in a kernel."""
        if not self._shown:
            return
        from IPython.display import update_display

        update_display(self.snapshot_bundle(), raw=True, display_id=self.snapshot_key)

    def _ipython_display_(self) -> None:
        self.display()

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        # For front ends that ask for one bundle: the live view, its snapshot and text.
        return {**self.snapshot_bundle(), WIDGET_MIME: self.live_bundle()[WIDGET_MIME]}
