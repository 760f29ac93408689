"""``RewriteStepper``: the rewrites compiling a function applied, one at a time.

Each step shows the node a rewrite replaced and what computes its value now (debugprint,
three levels deep), with the lines that changed highlighted: removed in red, added in
green. Steps that changed nothing a reader can see (the same text before and after) are
skipped and counted.
"""

from __future__ import annotations

import difflib
import html
import re
from typing import Any, NamedTuple

from symnb.printing import debugprint
from symnb.printing.graph_model import creation_text
from symnb.printing.html import TEXT_STYLE
from symnb.widgets._view import WidgetView, live_marker

__all__ = ["RewriteStepper", "Step"]

_DEPTH = 3  # the replaced node, its inputs and theirs: enough context, short enough to read
_REMOVED = "background:#ffd7d5"
_ADDED = "background:#ccf5d3"
_ID = re.compile(r" \[id [A-Z]+\]")


class Step(NamedTuple):
    name: str    # the rewrite
    before: str  # debugprint of the node it replaced
    after: str   # debugprint of what computes the value now
    line: str    # where the user built the replaced node


class RewriteStepper(WidgetView):
    """Step through ``function.maker.fgraph.history``: each rewrite's name, the node
    before and after (debugprint, changes highlighted), and the user line of the node it
    replaced. ``history`` holds the steps shown; ``skipped`` counts the no-op ones."""

    def __init__(self, function: Any) -> None:
        self.function = function
        self.history = []
        self.skipped = 0
        for record in function.maker.fgraph.history:
            if _texts(record)[0] == _texts(record)[1]:
                self.skipped += 1  # nothing visible changed: not a step worth a click
            else:
                self.history.append(record)
        self.position = 0

    # -- model ----------------------------------------------------------------------
    def step(self, index: int | None = None) -> Step:
        """Rewrite ``index`` (default: the current one)."""
        if not self.history:
            raise IndexError("no rewrites were applied to this function "
                             f"(optimizer={self.function.maker.optimizer!r})")
        record = self.history[self.position if index is None else index]
        before, after = _texts(record)
        return Step(record.name, before, after, creation_text(record.old))

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
            skipped = f" ({self.skipped} changed nothing visible)" if self.skipped else ""
            return f"No rewrites were applied (optimizer={self.function.maker.optimizer!r}){skipped}."
        skipped = f" ({self.skipped} no-op step(s) skipped)" if self.skipped else ""
        return f"Rewrite {self.position + 1} of {len(self.history)}: {self.step().name}{skipped}"

    def changes(self) -> tuple[list[tuple[str, bool]], list[tuple[str, bool]]]:
        """The lines before and after, each with whether it changed (removed / added)."""
        step = self.step()
        before, after = step.before.splitlines(), step.after.splitlines()
        removed, added = set(range(len(before))), set(range(len(after)))
        # debugprint's ids are letters in order of appearance: compared without them, an
        # input that stays (`` |b [id E]`` then `` |b [id C]``) is not a change.
        same = difflib.SequenceMatcher(a=[_ID.sub("", line) for line in before],
                                       b=[_ID.sub("", line) for line in after], autojunk=False)
        for a, b, size in same.get_matching_blocks():
            removed -= set(range(a, a + size))
            added -= set(range(b, b + size))
        return ([(line, i in removed) for i, line in enumerate(before)],
                [(line, i in added) for i, line in enumerate(after)])

    def text(self) -> str:
        if not self.history:
            return self.title()
        step = self.step()
        before, after = self.changes()
        mark = lambda lines, sign: "".join(f"{sign if changed else ' '} {line}\n" for line, changed in lines)  # noqa: E731
        return (f"{self.title()}\nreplaces the node built at {step.line}\nbefore:\n"
                f"{mark(before, '-')}after:\n{mark(after, '+')}")

    def page_html(self) -> str:
        """The current step as HTML: title, line, before and after side by side."""
        if not self.history:
            return f"<p>{html.escape(self.title())}</p>"
        step = self.step()
        before, after = self.changes()
        cell = "vertical-align:top;text-align:left;padding:0 12px 0 0;border:none"
        return (f'<div class="symnb-stepper-page" style="{TEXT_STYLE}">'
                f"<h4 style=\"margin:4px 0\">{html.escape(self.title())}</h4>"
                f"<div>replaces the node built at <code>{html.escape(step.line)}</code></div>"
                f'<table style="border-collapse:collapse"><tr><th style="{cell}">before</th>'
                f'<th style="{cell}">after</th></tr><tr>'
                f'<td style="{cell}">{_lines_html(before, _REMOVED, "symnb-removed")}</td>'
                f'<td style="{cell}">{_lines_html(after, _ADDED, "symnb-added")}</td></tr></table></div>')

    def snapshot_body(self) -> str:
        return self.page_html()

    # -- view -----------------------------------------------------------------------
    def _build(self) -> Any:
        import ipywidgets as w

        self.previous_button = w.Button(description="Previous", icon="arrow-left")
        self.next_button = w.Button(description="Next", icon="arrow-right")
        self.previous_button.on_click(lambda _: self._move(self.previous))
        self.next_button.on_click(lambda _: self._move(self.next))
        self.page = w.HTML()
        self.page.add_class("symnb-stepper")
        self._refresh()
        return w.VBox([w.HBox([self.previous_button, self.next_button]), self.page,
                       live_marker(self.snapshot_key)])

    def _move(self, move: Any) -> None:
        move()
        self._refresh()
        self.snapshot_changed()  # the saved notebook keeps the step the user reached

    def _refresh(self) -> None:
        last = len(self.history) - 1
        self.previous_button.disabled = self.position <= 0
        self.next_button.disabled = self.position >= last
        self.page.value = self.page_html()


def _texts(record: Any) -> tuple[str, str]:
    before = record.before if record.before is not None else record.old
    after = record.after if record.after is not None else record.new
    return debugprint(before, file="str", depth=_DEPTH), debugprint(after, file="str", depth=_DEPTH)


def _lines_html(lines: list[tuple[str, bool]], style: str, css_class: str) -> str:
    body = "".join(f'<span class="{css_class}" style="{style}">{html.escape(line)}</span>\n'
                   if changed else f"{html.escape(line)}\n" for line, changed in lines)
    return f'<pre style="margin:0;{TEXT_STYLE}">{body}</pre>'
