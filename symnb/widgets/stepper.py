"""``RewriteStepper``: the rewrites compiling a function applied, one at a time."""

from __future__ import annotations

import html
from typing import Any, NamedTuple

from symnb.printing.graph_model import creation_text
from symnb.printing.html import pre
from symnb.printing import debugprint
from symnb.widgets._view import WidgetView

__all__ = ["RewriteStepper", "Step"]

_DEPTH = 3  # the replaced node, its inputs and theirs: enough context, short enough to read


class Step(NamedTuple):
    name: str    # the rewrite
    before: str  # debugprint of the node it replaced
    after: str   # debugprint of what computes the value now
    line: str    # where the user built the replaced node


class RewriteStepper(WidgetView):
    """Step through ``function.maker.fgraph.history``: each rewrite's name, the node
    before and after (debugprint), and the user line of the node it replaced."""

    def __init__(self, function: Any) -> None:
        self.function = function
        self.history = list(function.maker.fgraph.history)
        self.position = 0

    # -- model ----------------------------------------------------------------------
    def step(self, index: int | None = None) -> Step:
        """Rewrite ``index`` (default: the current one)."""
        if not self.history:
            raise IndexError("no rewrites were applied to this function "
                             f"(optimizer={self.function.maker.optimizer!r})")
        record = self.history[self.position if index is None else index]
        before = record.before if record.before is not None else record.old
        after = record.after if record.after is not None else record.new
        return Step(record.name, debugprint(before, file="str", depth=_DEPTH),
                    debugprint(after, file="str", depth=_DEPTH), creation_text(record.old))

    def next(self) -> int:
        """Move to the next rewrite (stays on the last); returns the position."""
        self.position = min(self.position + 1, max(len(self.history) - 1, 0))
        return self.position

    def previous(self) -> int:
        """Move to the previous rewrite (stays on the first); returns the position."""
        self.position = max(self.position - 1, 0)
        return self.position

    def title(self) -> str:
        if not self.history:
            return f"No rewrites were applied (optimizer={self.function.maker.optimizer!r})."
        return f"Rewrite {self.position + 1} of {len(self.history)}: {self.step().name}"

    def text(self) -> str:
        if not self.history:
            return self.title()
        step = self.step()
        return (f"{self.title()}\nreplaces the node built at {step.line}\nbefore:\n"
                f"{step.before}after:\n{step.after}")

    # -- view -----------------------------------------------------------------------
    def _build(self) -> Any:
        import ipywidgets as w

        self.previous_button = w.Button(description="Previous", icon="arrow-left")
        self.next_button = w.Button(description="Next", icon="arrow-right")
        self.previous_button.on_click(lambda _: self._move(self.previous))
        self.next_button.on_click(lambda _: self._move(self.next))
        self.page = w.HTML()
        self._refresh()
        return w.VBox([w.HBox([self.previous_button, self.next_button]), self.page])

    def _move(self, move: Any) -> None:
        move()
        self._refresh()

    def _refresh(self) -> None:
        last = len(self.history) - 1
        self.previous_button.disabled = self.position <= 0
        self.next_button.disabled = self.position >= last
        if not self.history:
            self.page.value = f"<p>{html.escape(self.title())}</p>"
            return
        step = self.step()
        self.page.value = (
            f"<h4>{html.escape(self.title())}</h4>"
            f"<p>replaces the node built at <code>{html.escape(step.line)}</code></p>"
            f"<table><tr><th>before</th><th>after</th></tr><tr>"
            f"<td style=\"vertical-align:top\">{pre(step.before)}</td>"
            f"<td style=\"vertical-align:top\">{pre(step.after)}</td></tr></table>")
