"""What ``%%symgraph`` shows, as plain functions (no IPython here).

- :mod:`symnb.magics.cell_variables`: the symbolic variables a cell (re)assigned, and
  under what names (``gW[0]`` for an element of a list);
- :func:`function_inputs`: the inputs a shown graph is compiled over;
- :class:`SymgraphReport`: the report: the variables folded (:mod:`symnb.magics.folded`),
  one picture of their graph (optimized with ``--optimized``), with ``--profile`` a profile of timed calls
  (:func:`profile_calls`): its overview, the tables one click away.
"""

from __future__ import annotations

import html
import time
from typing import Any, Sequence

from symnb.core.graph.errors import label
from symnb.core.graph.basic import Variable
from symnb.core.tensor.shared import function_inputs as function_inputs
from symnb.magics.cell_variables import SymgraphUsageError
from symnb.magics.folded import folded_html, folded_text
from symnb.printing import debugprint
from symnb.printing.html import pre

__all__ = ["function_inputs", "compile_shown", "SymgraphReport", "symgraph_report",
           "profile_calls"]


def compile_shown(shown: Sequence[tuple[str, Variable]], profile: bool) -> Any:
    """One function computing the shown variables that have an owner (``None`` if none
    has), over their :func:`function_inputs`."""
    from symnb.compile.function import function  # imports JAX: only when --optimized/--profile asks

    outputs = [var for _, var in shown if var.owner is not None]
    if not outputs:
        return None
    name = ", ".join(name for name, var in shown if var.owner is not None)
    return function(function_inputs(outputs), outputs, profile=profile, name=name)


def _profile_arguments(fn: Any) -> list[Any]:
    missing = [label(v) for v in fn.inputs if v._test_value is None]
    if missing:
        raise SymgraphUsageError("%%symgraph --profile calls the function on the inputs' test values; "
                                 f"no test value for: {', '.join(missing)}")
    return [v._test_value for v in fn.inputs]


class SymgraphReport:
    """What ``%%symgraph`` shows for the (name, variable) pairs ``shown``: the variables,
    folded (a line each, a list or dict a line), and one picture (an explorer) of their
    graph -- the compiled, optimized graph with ``optimized`` -- then, with ``profile``,
    a profile of calls on the inputs' test values (:func:`profile_calls`): its overview,
    the tables one click away."""

    def __init__(self, shown: Sequence[tuple[str, Variable]], optimized: bool = False,
                 profile: bool = False, notes: Sequence[str] = ()) -> None:
        from symnb.widgets.explorer import GraphExplorer

        self.shown = list(shown)
        self.function = None
        self.explorer = None
        self.optimized = optimized
        self.notes: list[str] = list(notes)  # first: what the cell bound that is not shown
        self.profile_text = ""
        if not self.shown:
            self.notes.append("%%symgraph: no symbolic variable to show." if self.notes
                              else "%%symgraph: the cell assigned no symbolic variable.")
            return
        computed = [var for _, var in self.shown if var.owner is not None]
        if optimized or profile:
            self.function = compile_shown(self.shown, profile)
            if self.function is None:
                self.notes.append("Nothing to compile: the variables shown are all inputs.")
        self.profile_view = None
        if profile and self.function is not None:
            self.profile_view = profile_calls(self.function, _profile_arguments(self.function))
            self.profile_text = self.function.profile.overview(file="str")
        if optimized and self.function is not None:
            fn = self.function
            inputs = ", ".join(label(v) for v in fn.inputs) or "no inputs"
            self.notes.append(f"Optimized graph (optimizer={fn.maker.optimizer!r}, inputs: {inputs}, "
                              f"{len(fn.maker.fgraph.history)} rewrite(s))")
            picture_of = fn
        else:
            picture_of = computed
        if picture_of:
            self.explorer = GraphExplorer(picture_of, header=self._header(), footer=self._footer())

    def _header(self) -> str:
        notes = "".join(f"<p style=\"margin:2px 0\">{html.escape(n)}</p>" for n in self.notes)
        return folded_html(self.shown) + notes if self.shown else notes

    def _footer(self) -> str:
        if self.profile_view is None:
            return ""
        profile = self.function.profile
        title = (f"Profile of {profile.calls} calls on the test values of "
                 + (", ".join(label(v) for v in self.function.inputs) or "no inputs")
                 + (" (after the call that compiled it)" if profile.compiles
                    else " (the program came from a cache: every call timed)"))
        full = self.function.profile.summary(file="str")
        return (f"<h4 style=\"margin:6px 0 2px\">{html.escape(title)}</h4>"
                f"{self.profile_view.table_html()}"
                '<details class="symnb-profile-summary"><summary style="cursor:pointer">'
                f"All tables as text (f.profile.summary())</summary>{pre(full)}</details>")

    def html(self) -> str:
        """The report as static HTML (the explorer's snapshot when there is a picture)."""
        if self.explorer is not None:
            return f'<div class="symnb-symgraph">{self.explorer.snapshot_body()}</div>'
        return f'<div class="symnb-symgraph">{self._header()}</div>'

    def text(self) -> str:
        """The report as text, folded as the HTML is: a line per variable (a line per
        list, tuple or dict), the graph as debugprint cut after :data:`MOST_TREE_LINES`
        lines (saying how to print it whole), the profile."""
        lines = folded_text(self.shown) + self.notes
        if self.function is not None and self.optimized:
            tree = debugprint(self.function, file="str", print_test_value=True)
            lines.append(_cut(tree, "sn.printing.debugprint(f) of the compiled function f"))
        elif self.explorer is not None:
            done: dict = {}  # shared across the trees: a subgraph already shown is referenced
            tree = "".join(debugprint(var, file="str", print_test_value=True, done=done)
                           for _, var in self.shown if var.owner is not None)
            lines.append(_cut(tree, "sn.printing.debugprint(var) of each"))
        if self.profile_text:
            lines.append(self.profile_text.rstrip())
        return "\n".join(lines)


#: The graph's debugprint in the terminal report: a model's runs to thousands of lines.
MOST_TREE_LINES = 60


def _cut(tree: str, whole: str) -> str:
    lines = tree.rstrip().split("\n")
    if len(lines) <= MOST_TREE_LINES:
        return "\n".join(lines)
    return "\n".join(lines[:MOST_TREE_LINES] + [f"... {len(lines) - MOST_TREE_LINES} more lines "
                                                 f"({whole} prints them all)"])


def profile_calls(fn: Any, arguments: list[Any], budget: float = 0.3, most: int = 20) -> Any:
    """Call the profiled ``fn`` on ``arguments``: once to compile it, then again until
    ``budget`` seconds or ``most`` calls (at least 3) are timed; its ``ProfileView``."""
    from symnb.widgets.profile_view import ProfileView

    fn(*arguments)  # traces and compiles: counted apart from the timed calls
    started = time.perf_counter()
    for n in range(most):
        if n >= 3 and time.perf_counter() - started > budget:
            break
        fn(*arguments)
    return ProfileView(fn)


def symgraph_report(shown: Sequence[tuple[str, Variable]], optimized: bool = False,
                    profile: bool = False, notes: Sequence[str] = ()) -> SymgraphReport:
    """The ``%%symgraph`` report for ``shown`` (name, variable) pairs, with ``notes``."""
    return SymgraphReport(shown, optimized, profile, notes)
