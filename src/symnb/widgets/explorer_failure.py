"""The parts of :class:`~symnb.widgets.explorer.GraphExplorer` about a failed call
(``GraphExplorer(err)``): for a failure in a loop body, any iteration's values (the call replayed in NumPy on demand,
:mod:`symnb.core.loop_values`) and a value's summary plotted over the iterations; every
level of nested loops picked on its own."""

from __future__ import annotations

from typing import Any

from symnb.core.failed_call import describe_loops
from symnb.core.graph.basic import Apply, Constant, Variable
from symnb.core.loop_values import MEASURES, iterations_run, summary_over_iterations, values_at
from symnb.printing.failure_card import iteration_values_html, loop_body_variables, summary_plot_svg
from symnb.printing.html import shown_name
from symnb.printing.labels import op_name

__all__ = ["FailureParts"]


class FailureParts:
    """Mixed into ``GraphExplorer``: reads its ``call_values``, ``picked`` (the iteration
    picked at each loop level, outermost first), ``plotted``, ``measure``, ``error`` and
    ``view_model()``."""

    call_values: Any
    picked: list[int]
    plotted: Variable | None
    measure: str
    error: BaseException | None

    def loops(self) -> list[Apply]:
        """The loops around the failing node, outermost first (empty unless the error is a
        failed call's, in a loop body)."""
        return [loop for loop, _ in self.call_values.loops] if self.picked else []

    def _picked_loops(self) -> list[tuple[Apply, int]]:
        return list(zip(self.loops(), self.picked))

    def iteration_count(self, level: int = -1) -> int:
        """How many iterations of loop ``level`` (``-1``: the innermost) the call began,
        in the iterations picked for the loops around it (replayed)."""
        loops = self._picked_loops()
        level = level % len(loops)
        return iterations_run(self.call_values, loops[:level], loops[level][0])

    def pick_iteration(self, iteration: int, level: int = -1) -> str:
        """Show the loop body's values at ``iteration`` of loop ``level`` (``-1``: the
        innermost; nested scans: one level per loop, outermost first), computed by
        replaying the call in NumPy; returns them as HTML. An outer level picked moves the
        loops inside it to their first iteration."""
        if not self.picked:
            raise ValueError("pick_iteration: the explorer's error is not a failed call inside a loop")
        level = level % len(self.picked)
        count = self.iteration_count(level)
        if not 0 <= iteration < count:
            raise ValueError(f"pick_iteration: {op_name(self.loops()[level])} ran iterations "
                             f"0 to {count - 1} in this call, not {iteration}")
        self.picked = self.picked[:level] + [iteration] + [0] * (len(self.picked) - level - 1)
        return self.iteration_html()

    def iteration_values(self) -> dict[Variable, Any]:
        """``{variable: value}`` of the innermost loop body at the picked iterations."""
        return {var: value for var, value in values_at(self.call_values, self._picked_loops()).values()}

    def iteration_html(self) -> str:
        """The picked iterations' values of the failing node's inputs and outputs and of the
        loop body's other values, and the plot of the chosen value over the iterations."""
        loops = self._picked_loops()
        body = loop_body_variables(loops[-1][0], self.call_values.node)
        node = self.call_values.node
        first = [*node.inputs, *node.outputs]
        shown = first + [v for v in body if v not in first and not isinstance(v, Constant)]
        values = values_at(self.call_values, loops)
        return iteration_values_html(self.call_values, loops, values, shown[:40]) + self.plot_svg()

    def plot_svg(self, variable: Variable | None = None, measure: str | None = None) -> str:
        """A small plot (SVG) of ``variable``'s ``measure`` (one of ``MEASURES``: mean,
        max |value|, norm) over the iterations of the innermost loop, the failing
        iteration marked; by default the failing node's output."""
        if variable is not None:
            self.plotted = variable
        if measure is not None:
            if measure not in MEASURES:
                raise ValueError(f"measure must be one of {sorted(MEASURES)}, not {measure!r}")
            self.measure = measure
        var = self.plotted if self.plotted is not None else self.call_values.node.outputs[0]
        loops = self._picked_loops()
        points = summary_over_iterations(self.call_values, loops[:-1], loops[-1][0], var, self.measure)
        count = self.iteration_count(-1)
        failing = self.call_values.loops
        failed_at = failing[-1][1] if [n for _, n in failing[:-1]] == self.picked[:-1] else None
        title = f"{self.measure} of {shown_name(var)} per iteration of {op_name(loops[-1][0])}"
        if len(loops) > 1:
            title += f" ({describe_loops(loops[:-1], op_name)})"
        return summary_plot_svg(points, count, failed_at, title, picked=self.picked[-1])
