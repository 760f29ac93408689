"""The part every widget shares: the model is the widget object's plain methods; the
ipywidgets layout (the view) is built on first use, so the model works without a
notebook and ``import symnb.widgets`` does not import ipywidgets."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

__all__ = ["WidgetView"]


class WidgetView(ABC):
    """Base class: subclasses implement ``_build()`` (the ipywidgets layout) and
    ``text()`` (a plain-text summary of what the widget shows)."""

    _widget: Any = None

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

    def display(self) -> None:
        """Show the widget in the notebook."""
        from IPython.display import display

        display(self.widget)

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        # Jupyter shows the ipywidgets view when this object ends a cell.
        return self.widget._repr_mimebundle_(**kwargs)
