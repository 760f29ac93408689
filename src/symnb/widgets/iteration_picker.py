"""The iteration picker of ``GraphExplorer(err)`` for a call that failed in a loop body:
one slider per loop level (nested scans: the outermost first, each named), the value
to plot and the summary plotted (mean, max |value|, norm), and the values of the picked
iteration with the plot, computed by replaying the call in NumPy when asked (stock
ipywidgets: nothing of its own runs in the browser)."""

from __future__ import annotations

import html
from typing import Any

__all__ = ["iteration_picker"]


def iteration_picker(explorer: Any) -> Any:
    """The picker's widget for ``explorer`` (a :class:`GraphExplorer` of a failed call in a
    loop body); each change replays the call and redraws the values and the plot."""
    import ipywidgets as widgets

    from symnb.core.loop_values import MEASURES
    from symnb.printing.failure_card import loop_body_variables
    from symnb.printing.html import shown_name
    from symnb.printing.labels import op_name

    call = explorer.call_values
    loops = explorer.loops()
    sliders = []
    for level, loop in enumerate(loops):
        count = explorer.iteration_count(level)
        slider = widgets.IntSlider(value=explorer.picked[level], min=0, max=max(count - 1, 0),
                                   description=f"iteration of {op_name(loop)}",
                                   style={"description_width": "initial"},
                                   layout=widgets.Layout(width="520px"))
        slider.add_class("symnb-iteration-slider")
        sliders.append(slider)
    body = loop_body_variables(loops[-1], call.node)
    first = [*call.node.outputs, *call.node.inputs]
    choices = [v for v in first + [v for v in body if v not in first] if v.dtype != "bool"]
    variable = widgets.Dropdown(options=[(shown_name(v), k) for k, v in enumerate(choices)], value=0,
                                description="plot", layout=widgets.Layout(width="360px"))
    measure = widgets.Dropdown(options=list(MEASURES), value=explorer.measure, description="summary",
                               layout=widgets.Layout(width="260px"))
    shown = widgets.HTML(explorer.iteration_html())
    shown.add_class("symnb-iteration-values-live")

    def redraw(level: int | None = None) -> None:
        if level is not None:
            explorer.pick_iteration(sliders[level].value, level)
            for inner in range(level + 1, len(sliders)):  # the loops inside restart at 0
                sliders[inner].unobserve_all("value")
                sliders[inner].max = max(explorer.iteration_count(inner) - 1, 0)
                sliders[inner].value = 0
                sliders[inner].observe(lambda _change, i=inner: redraw(i), "value")
        explorer.plotted, explorer.measure = choices[variable.value], measure.value
        shown.value = explorer.iteration_html()
        explorer.iterations_changed()  # the saved view keeps the values last shown

    for level, slider in enumerate(sliders):
        slider.observe(lambda _change, i=level: redraw(i), "value")
    variable.observe(lambda _change: redraw(), "value")
    measure.observe(lambda _change: redraw(), "value")
    title = widgets.HTML(f"<b>Any iteration of the loop</b> (values replayed in NumPy from "
                         f"{html.escape(call.values_from)} when picked)")
    box = widgets.VBox([title, *sliders, widgets.HBox([variable, measure]), shown])
    box.add_class("symnb-iteration-picker")
    return box
