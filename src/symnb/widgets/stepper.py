"""``RewriteStepper``: the rewrites compiling a function applied, one at a time, each as
a graph comparison (:class:`~symnb.printing.rewrite_compare.RewriteComparison`).

Each step shows the rewritten region before and after in one picture, the nodes matched
structurally: removed ones red and dashed, added ones green, the unchanged values both
sides read drawn once; where the region sits (the path from an output, and the whole
graph when it is small); and a text diff cut at the same unchanged values on both sides,
so that only what changed is marked. Steps that changed nothing (the replacement
computes what the replaced value did, node for node) are skipped and counted once.
"""

from __future__ import annotations

import html
from typing import Any, NamedTuple

from symnb.core.graph.history import states_backwards
from symnb.core.graph_compare import same_computation
from symnb.printing.graph_model import creation_text
from symnb.printing.html import TEXT_STYLE
from symnb.printing.rewrite_compare import DiffLine, RewriteComparison
from symnb.printing.svg import CHANGE_FILLS, picture_img
from symnb.widgets._view import WidgetView, live_marker
from symnb.core.graph.traceback_filter import api_boundary

__all__ = ["RewriteStepper", "Step"]

_SIGN = {"removed": "-", "added": "+", "": " "}


class Step(NamedTuple):
    name: str    # the rewrite
    before: str  # the replaced value's tree, down to the unchanged values it reads
    after: str   # its replacement's tree, cut at the same values
    line: str    # where the user built the replaced node


class RewriteStepper(WidgetView):
    """Step through ``function.maker.fgraph.history``: each rewrite's name, the region
    it rewrote before and after (a picture with nodes matched, and a text diff), where
    it sits in the function's graph, and the user line of the node it replaced.
    ``history`` holds the steps shown; ``skipped`` counts the no-op ones."""

    @api_boundary  # the user calls it: errors show the user's line
    def __init__(self, function: Any) -> None:
        self.function = function
        fgraph = function.maker.fgraph
        shown = []
        self.skipped = 0
        for k, before, after in states_backwards(fgraph):
            record = fgraph.history[k]
            if same_computation(record.old, record.new, before.inputs_of, after.inputs_of):
                self.skipped += 1  # the replacement is the same computation: nothing to see
            else:
                shown.append(k)
        self._steps = shown[::-1]  # positions in fgraph.history
        self.history = [fgraph.history[k] for k in self._steps]
        self.position = 0
        self._compared: dict[int, RewriteComparison] = {}

    # -- model ----------------------------------------------------------------------
    def comparison(self, index: int | None = None) -> RewriteComparison:
        """Rewrite ``index`` (default: the current one) compared node by node."""
        if not self.history:
            raise IndexError("no rewrites were applied to this function "
                             f"(optimizer={self.function.maker.optimizer!r})")
        index = self.position if index is None else index
        if index not in self._compared:
            self._compared = {index: RewriteComparison(self.function.maker.fgraph, self._steps[index])}
        return self._compared[index]

    def step(self, index: int | None = None) -> Step:
        """Rewrite ``index`` (default: the current one)."""
        compared = self.comparison(index)
        return Step(compared.record.name, _text(compared.lines("before")),
                    _text(compared.lines("after")), creation_text(compared.record.old))

    def next(self) -> int:
        """Move to the next rewrite (stays on the last); returns the position."""
        self.position = min(self.position + 1, max(len(self.history) - 1, 0))
        return self.position

    def previous(self) -> int:
        """Move to the previous rewrite (stays on the first); returns the position."""
        self.position = max(self.position - 1, 0)
        return self.position

    def summary(self) -> str:
        """What the stepper holds, said once: the rewrites shown and the no-op ones."""
        optimizer = self.function.maker.optimizer
        skipped = (f"; {self.skipped} more changed nothing (the replacement computes the same, "
                   "node for node) and are not shown") if self.skipped else ""
        if not self.history:
            return f"No rewrites were applied (optimizer={optimizer!r}){skipped}."
        return f"{len(self.history)} rewrite(s) changed the graph{skipped}."

    def title(self) -> str:
        if not self.history:
            return self.summary()
        record = self.history[self.position]
        return f"Rewrite {self.position + 1} of {len(self.history)}: {record.name}"

    def changes(self) -> tuple[list[tuple[str, bool]], list[tuple[str, bool]]]:
        """The lines before and after, each with whether it changed (removed / added)."""
        compared = self.comparison()
        return ([(_line(line), bool(line.mark)) for line in compared.lines("before")],
                [(_line(line), bool(line.mark)) for line in compared.lines("after")])

    def text(self) -> str:
        if not self.history:
            return self.title()
        compared, step = self.comparison(), self.step()
        lines = [self.title(), self.summary(), f"replaces the node built at {step.line}"]
        if compared.record.domain is not None:
            lines.append(f"exact {compared.record.domain}")
        lines.append("where: " + " \u2192 ".join(compared.path()))
        lines.append("before:")
        lines += [f"{_SIGN[line.mark]} {_line(line)}" for line in compared.lines("before")]
        lines.append("after:")
        lines += [f"{_SIGN[line.mark]} {_line(line)}" for line in compared.lines("after")]
        return "\n".join(lines) + "\n"

    def page_html(self, inline_svg: bool = True) -> str:
        """The current step as HTML: title, the comparison picture, where it sits, and
        the text diff side by side. ``inline_svg=False``: pictures as ``<img>`` (the saved
        snapshot: notebook viewers drop inline SVG)."""
        if not self.history:
            return f'<div class="symnb-stepper-page"><p>{html.escape(self.title())}</p></div>'
        compared, step = self.comparison(), self.step()
        picture = compared.svg(max_width=640)
        overview = compared.overview_svg()
        if not inline_svg:
            picture = picture_img(picture)
            overview = picture_img(overview) if overview else None
        cell = "vertical-align:top;text-align:left;padding:0 12px 0 0;border:none"
        exact = (f"<div>exact {html.escape(compared.record.domain)}</div>"
                 if compared.record.domain is not None else "")
        where = html.escape(" \u2192 ".join(compared.path()))
        legend = (f'<span style="background:{CHANGE_FILLS["removed"]};border:2px dashed #c62828;padding:0 4px">'
                  f'removed ({len(compared.removed)})</span> '
                  f'<span style="background:{CHANGE_FILLS["added"]};border:2px solid #2e7d32;padding:0 4px">'
                  f'added ({len(compared.added)})</span> unchanged values: plain boxes, shared by both sides')
        overview_cell = (f'<td style="{cell}"><div>the whole graph before this rewrite</div>{overview}</td>'
                         if overview else "")
        return (f'<div class="symnb-stepper-page" style="{TEXT_STYLE}">'
                f'<h4 style="margin:4px 0">{html.escape(self.title())}</h4>'
                f'<div class="symnb-stepper-summary">{html.escape(self.summary())}</div>'
                f"<div>replaces the node built at <code>{html.escape(step.line)}</code></div>{exact}"
                f'<div class="symnb-stepper-where">where: {where}</div>'
                f'<div style="margin:4px 0">{legend}</div>'
                f'<table style="border-collapse:collapse"><tr><td style="{cell}">'
                f'<div class="symnb-stepper-picture">{picture}</div></td>{overview_cell}</tr></table>'
                f'<table style="border-collapse:collapse"><tr><th style="{cell}">before</th>'
                f'<th style="{cell}">after</th></tr><tr>'
                f'<td style="{cell}">{_lines_html(compared.lines("before"))}</td>'
                f'<td style="{cell}">{_lines_html(compared.lines("after"))}</td></tr></table></div>')

    def snapshot_body(self) -> str:
        return self.page_html(inline_svg=False)

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


def _line(line: DiffLine) -> str:
    return "  " * line.depth + line.text


def _text(lines: list[DiffLine]) -> str:
    return "\n".join(_line(line) for line in lines)


def _lines_html(lines: list[DiffLine]) -> str:
    styles = {"removed": f"background:{CHANGE_FILLS['removed']}", "added": f"background:{CHANGE_FILLS['added']}"}
    body = "".join(f'<span class="symnb-{line.mark}" style="{styles[line.mark]}">'
                   f"{html.escape(_SIGN[line.mark] + ' ' + _line(line))}</span>\n" if line.mark
                   else f"{html.escape('  ' + _line(line))}\n" for line in lines)
    return f'<pre style="margin:0;{TEXT_STYLE}">{body}</pre>'
