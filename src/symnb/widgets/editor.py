"""``TestValueEditor``: edit the inputs' test values, see the outputs' new values.

Setting an input's test value does not recompute the values of nodes built earlier
(see :mod:`symnb.core.graph.test_value`: they keep what they computed when built, as in
Theano). So the editor sets the inputs' test values (graphs built afterwards start
from them) and computes the watched outputs itself, by evaluating the graph with the
NumPy reference (:func:`symnb.core.graph.evaluate.evaluate_graph`) on the edited values.
The outputs' own ``.test_value`` are left as they were; the editor says so.

An edit lives in the kernel only: the cell still says what it said, and running it again
brings the old value back. So an input whose value differs from the one it had when the
editor was made is marked *edited here, not in the code*, live and in the saved
notebook, with the line of code that sets it (:func:`value_code`), which re-creates the
edited value exactly (dtype, shape and every element), ready to copy into the cell.
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
from symnb.core.graph.traceback_filter import api_boundary

__all__ = ["TestValueEditor"]

_LITERAL_SIZE = 64  # larger values are not spelled out in a text field
_CODE_SIZE = 4096  # larger values are set in code from the text typed, not spelled out
_EDITED = "edited here, not in the code"
_COPY_STYLE = ("margin:2px 0;padding:2px 6px;background:#f4f6f9;border:1px solid #d8dee8;"
               "user-select:all;white-space:pre-wrap;overflow-wrap:anywhere")
_NOTE = ("Values computed from the edited inputs with the NumPy reference; the outputs' "
         "stored .test_value keep the values computed when they were built.")


class TestValueEditor(WidgetView):
    """Text fields for the test values of the inputs of ``outputs`` (a variable or a
    list), as Python/NumPy literals (``[1, 2, 3]``, ``np.ones((2, 3))``); each change
    sets that input's test value and shows the outputs recomputed from the inputs."""

    __test__ = False  # not a pytest test class, despite its name

    @api_boundary  # the user calls it: errors show the user's line
    def __init__(self, outputs: Variable | Sequence[Variable]) -> None:
        self.outputs = [outputs] if isinstance(outputs, Variable) else list(outputs)
        for i, var in enumerate(self.outputs):
            if not isinstance(var, Variable):
                raise TypeError(f"TestValueEditor: item {i} is {type(var).__name__}, not a Variable")
        self.inputs = function_inputs(self.outputs)
        # The values the code gave the inputs: an input whose value differs is "edited".
        self.original = {id(v): v._test_value for v in self.inputs}
        self.typed: dict[int, str] = {}  # the text last set for each input
        self.error: str | None = None
        self.values: list[np.ndarray] | None = None
        self.stale = False  # the outputs shown were computed from other inputs than the fields'
        self.recompute()

    # -- model ----------------------------------------------------------------------
    def input_text(self, var: Variable) -> str:
        """The literal shown for ``var``'s current test value ('' when none or too large),
        a row a line for a matrix."""
        value = var._test_value
        if value is None or value.size > _LITERAL_SIZE:
            return ""
        return _nested(value)

    def edited(self) -> list[Variable]:
        """The inputs whose test value is not the one the code gave them."""
        return [v for v in self.inputs if not _same(v._test_value, self.original[id(v)])]

    def code(self, var: Variable) -> str:
        """The line that gives ``var`` its current (edited) test value in the cell."""
        return value_code(var, self.typed.get(id(var), ""))

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
        self.typed[id(var)] = text
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
        lines = []
        for v in self.inputs:
            shown = self.input_text(v) or summarize_value(v._test_value)
            lines.append(f"{label(v)} = " + shown.replace("\n", "\n" + " " * len(f"{label(v)} = ")))
            if any(v is e for e in self.edited()):
                lines += [f"  ({_EDITED}; to keep it, in the cell:)", f"  {self.code(v)}"]
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

    def edited_html(self, var: Variable) -> str:
        """The mark of an edited input and the code that sets its value ('' if not edited)."""
        if not any(var is v for v in self.edited()):
            return ""
        return (f'<div class="symnb-edited" style="{TEXT_STYLE}"><b style="color:#b06000">{_EDITED}</b>'
                " &mdash; to keep it, put this line in the cell:"
                f'<pre class="symnb-edited-code" style="{TEXT_STYLE};{_COPY_STYLE}">'
                f"{html.escape(self.code(var))}</pre></div>")

    def snapshot_body(self) -> str:
        inputs = [(html.escape(label(v)),
                   f'<pre style="margin:0;{TEXT_STYLE}">'
                   f"{html.escape(self.input_text(v) or summarize_value(v._test_value))}</pre>"
                   + self.edited_html(v))
                  for v in self.inputs]
        return (f'<div class="symnb-editor-snapshot" style="{TEXT_STYLE}"><b>inputs</b>'
                f"{table(inputs, escape=False)}<b>outputs</b>{self.outputs_html()}"
                f"<small>{html.escape(_NOTE)}</small></div>")

    # -- view -----------------------------------------------------------------------
    def _build(self) -> Any:
        import ipywidgets as w

        self.fields, self.marks, rows = [], [], []
        for var in self.inputs:
            # A text area: a matrix is typed (and shown) a row a line; its value is read
            # when the field loses focus.
            text = self.input_text(var)
            field = w.Textarea(value=text, description=label(var), rows=max(1, min(text.count("\n") + 1, 12)),
                               placeholder=summarize_value(var._test_value), continuous_update=False,
                               layout=w.Layout(width="60%"), style={"description_width": "initial"})
            field.add_class("symnb-editor-field")
            field.observe(lambda change, var=var: self._on_edit(var, change["new"]), names="value")
            mark = w.HTML()
            mark.add_class("symnb-editor-mark")
            self.fields.append(field)
            self.marks.append(mark)
            rows += [field, mark]
        self.result = w.HTML()
        self.result.add_class("symnb-editor-result")
        self._refresh()
        return w.VBox([*rows, self.result, w.HTML(f"<small>{_NOTE}</small>"),
                       live_marker(self.snapshot_key)])

    def _on_edit(self, var: Variable, text: str) -> None:
        self.set_text(var, text)
        self._refresh()
        self.snapshot_changed()  # the saved notebook keeps the edited values

    def _refresh(self) -> None:
        self.result.value = self.outputs_html()
        for var, mark in zip(self.inputs, self.marks):
            mark.value = self.edited_html(var)


def value_code(var: Variable, typed: str = "") -> str:
    """The line setting ``var``'s current test value: ``x.tag.test_value = np.array([...],
    dtype='float32')``, every element spelled out (``repr`` of a float reads back to the
    same number; NaN and infinities as ``np.nan``, ``np.inf``), so running it re-creates
    the value exactly. A value of more than a few thousand elements is set from the text
    ``typed`` instead, when given."""
    value = var._test_value
    name = var.name or "var"
    dtype = str(value.dtype)
    if value.size > _CODE_SIZE and typed.strip():
        return f"{name}.tag.test_value = np.asarray({' '.join(typed.split())}, dtype={dtype!r})"
    literal = _nested(value, indent=len(f"{name}.tag.test_value = np.array("))
    if value.size == 0:  # [] or [[], []]: the list does not say the shape
        return f"{name}.tag.test_value = np.array({literal}, dtype={dtype!r}).reshape({tuple(value.shape)!r})"
    return f"{name}.tag.test_value = np.array({literal}, dtype={dtype!r})"


def _number_code(number: np.generic) -> str:
    """One element as code that reads back to it: the shortest digits of its own dtype
    (``1.1`` for float32's 1.1, not float64's 1.100000023841858), checked, else float64's."""
    if number.dtype.kind == "f":
        if not np.isfinite(number):
            return "np.nan" if np.isnan(number) else ("np.inf" if number > 0 else "-np.inf")
        short = str(number)
        # Read as a Python float, then rounded to the dtype: the digits must survive both.
        return short if number.dtype.type(float(short)) == number else repr(float(number))
    if number.dtype.kind == "c":
        return f"complex({_number_code(number.real)}, {_number_code(number.imag)})"
    return repr(number.item())


def _nested(value: np.ndarray, indent: int = 0) -> str:
    """An array as a nested list literal: a matrix's rows a line each, aligned."""
    if value.ndim == 0:
        return _number_code(value[()])
    if value.ndim == 1:
        return "[" + ", ".join(_number_code(v) for v in value) + "]"
    rows = [_nested(row, indent + 1) for row in value]
    return "[" + (",\n" + " " * (indent + 1)).join(rows) + "]"


def _same(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is b
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")


def parse_value(text: str) -> Any:
    """A Python literal (``[1, 2.5]``), or a NumPy expression over ``np`` (``np.ones(3)``)."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        pass
    # Typed by the user in their own kernel; only NumPy is in scope, to read as a literal.
    return eval(text, {"__builtins__": {}, "np": np, "numpy": np})  # noqa: S307
