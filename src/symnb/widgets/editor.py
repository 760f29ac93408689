"""``TestValueEditor``: edit the inputs' test values, see the outputs' new values.

Setting an input's test value does not recompute the values of nodes built earlier
(see :mod:`symnb.core.graph.test_value`: they keep what they computed when built, as in
Theano). So the editor sets the inputs' test values (graphs built afterwards start
from them) and computes the watched outputs itself, by evaluating the graph with the
NumPy reference (:func:`symnb.core.graph.evaluate.evaluate_graph`) on the edited values.
The outputs' own ``.test_value`` are left as they were; the editor says so.
"""

from __future__ import annotations

import ast
import html
from typing import Any, Sequence

import numpy as np

from symnb.core.graph.errors import label
from symnb.core.graph.evaluate import evaluate_graph
from symnb.core.graph.basic import Variable
from symnb.core.tensor.shared import function_inputs
from symnb.printing._common import summarize_value
from symnb.printing.html import TEXT_STYLE, table
from symnb.printing.values import heatmap_html, value_stats
from symnb.widgets._view import WidgetView, live_marker

__all__ = ["TestValueEditor"]

_LITERAL_SIZE = 64  # larger values are not spelled out in a text field
_NOTE = ("Values computed from the edited inputs with the NumPy reference; the outputs' "
         "stored .test_value keep the values computed when they were built.")


class TestValueEditor(WidgetView):
    """Text fields for the test values of the inputs of ``outputs`` (a variable or a
    list), as Python/NumPy literals (``[1, 2, 3]``, ``np.ones((2, 3))``); each change
    sets that input's test value and shows the outputs recomputed from the inputs."""

    __test__ = False  # not a pytest test class, despite its name

    def __init__(self, outputs: Variable | Sequence[Variable]) -> None:
        self.outputs = [outputs] if isinstance(outputs, Variable) else list(outputs)
        for i, var in enumerate(self.outputs):
            if not isinstance(var, Variable):
                raise TypeError(f"TestValueEditor: item {i} is {type(var).__name__}, not a Variable")
        self.inputs = function_inputs(self.outputs)
        self.error: str | None = None
        self.values: list[np.ndarray] | None = None
        self.stale = False  # the outputs shown were computed from other inputs than the fields'
        self.recompute()

    # -- model ----------------------------------------------------------------------
    def input_text(self, var: Variable) -> str:
        """The literal shown for ``var``'s current test value ('' when none or too large)."""
        value = var._test_value
        if value is None or value.size > _LITERAL_SIZE:
            return ""
        return repr(value.tolist())

    def set_text(self, var: Variable | int, text: str) -> None:
        """Parse ``text``, set it as the test value of input ``var`` (or input number
        ``var``), and recompute the outputs. Errors are kept in ``self.error``."""
        var = self.inputs[var] if isinstance(var, int) else var
        if not any(var is v for v in self.inputs):
            raise ValueError(f"{label(var)!r} is not an input of the edited outputs")
        if not text.strip():
            return  # an empty field keeps the current value
        try:
            value = parse_value(text)
        except Exception as err:  # whatever the typed text raises: shown, not raised
            self.error = f"{label(var)}: cannot read {text!r}: {type(err).__name__}: {err}"
            self.stale = True
            return
        try:
            var.test_value = value  # checks dtype and shape against the input's type
        except (TypeError, ValueError) as err:
            self.error = str(err)
            self.stale = True
            return
        self.recompute()

    def recompute(self) -> None:
        """Evaluate the outputs from the inputs' current test values."""
        missing = [label(v) for v in self.inputs if v._test_value is None]
        if missing:
            self.values, self.error = None, f"no test value yet for: {', '.join(missing)}"
            return
        try:
            self.values = evaluate_graph(self.outputs, {v: v._test_value for v in self.inputs})
        except Exception as err:  # the user's graph on the user's values: report, not raise
            self.values, self.error = None, f"the outputs cannot be computed: {type(err).__name__}: {err}"
            return
        self.error, self.stale = None, False

    def output_lines(self) -> list[str]:
        """``name: summary`` for each output (from the last successful evaluation)."""
        if self.values is None:
            return [f"{label(v)}: (not computed)" for v in self.outputs]
        return [f"{label(v)}: {summarize_value(value)}" for v, value in zip(self.outputs, self.values)]

    def text(self) -> str:
        lines = [f"{label(v)} = {self.input_text(v) or summarize_value(v._test_value)}"
                 for v in self.inputs]
        lines += ["-> (stale: not recomputed from the inputs above)" if self.stale else "->"]
        lines += self.output_lines()
        if self.error:
            lines.append(f"error: {self.error}")
        return "\n".join(lines)

    def outputs_html(self) -> str:
        """The outputs as a table (summary and heatmap), faded and marked when stale, and
        the error in red."""
        if self.values is None:
            rows = [(label(v), "(not computed)") for v in self.outputs]
        else:
            rows = [(html.escape(label(v)), html.escape(value_stats(value)) + "<br>"
                     + heatmap_html(value, title=label(v))) for v, value in zip(self.outputs, self.values)]
        stale = self.stale or self.values is None
        style = "opacity:.45" if stale else ""
        note = ('<div class="symnb-stale" style="color:#b06000">stale: the outputs were computed '
                "from other input values; fix the input to recompute them</div>") if self.stale else ""
        error = (f'<div class="symnb-error" style="color:#d00000;white-space:pre-wrap">'
                 f"error: {html.escape(self.error)}</div>") if self.error else ""
        state = "stale" if stale else "fresh"
        return (f'<div class="symnb-editor-outputs" data-state="{state}" style="{TEXT_STYLE}">'
                f'<div style="{style}">{table(rows, escape=False)}</div>{note}{error}</div>')

    def snapshot_body(self) -> str:
        inputs = [(html.escape(label(v)), html.escape(self.input_text(v) or summarize_value(v._test_value)))
                  for v in self.inputs]
        return (f'<div class="symnb-editor-snapshot" style="{TEXT_STYLE}"><b>inputs</b>'
                f"{table(inputs, escape=False)}<b>outputs</b>{self.outputs_html()}"
                f"<small>{html.escape(_NOTE)}</small></div>")

    # -- view -----------------------------------------------------------------------
    def _build(self) -> Any:
        import ipywidgets as w

        self.fields = []
        for var in self.inputs:
            field = w.Text(value=self.input_text(var), description=label(var),
                           placeholder=summarize_value(var._test_value), continuous_update=False,
                           layout=w.Layout(width="60%"), style={"description_width": "initial"})
            field.add_class("symnb-editor-field")
            field.observe(lambda change, var=var: self._on_edit(var, change["new"]), names="value")
            self.fields.append(field)
        self.result = w.HTML()
        self.result.add_class("symnb-editor-result")
        self._refresh()
        return w.VBox([*self.fields, self.result, w.HTML(f"<small>{_NOTE}</small>"),
                       live_marker(self.snapshot_key)])

    def _on_edit(self, var: Variable, text: str) -> None:
        self.set_text(var, text)
        self._refresh()
        self.snapshot_changed()  # the saved notebook keeps the edited values

    def _refresh(self) -> None:
        self.result.value = self.outputs_html()


def parse_value(text: str) -> Any:
    """A Python literal (``[1, 2.5]``), or a NumPy expression over ``np`` (``np.ones(3)``)."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        pass
    # Typed by the user in their own kernel; only NumPy is in scope, to read as a literal.
    return eval(text, {"__builtins__": {}, "np": np, "numpy": np})  # noqa: S307
