"""HTML views of symbolic variables and compiled functions (the notebook's rich reprs).

Plain functions returning HTML strings: IPython's ``text/html`` formatter calls them
(registered by ``%load_ext symnb``), and ``%%symgraph`` builds its report from them.
Nothing here imports IPython or JAX, and nothing computes a test value: a pending
value is shown as pending.
"""

from __future__ import annotations

import html
from typing import Any

from symnb.core.errors import label
from symnb.core.graph import Constant, Variable
from symnb.core.shared import SharedVariable
from symnb.printing import debugprint
from symnb.printing._common import summarize_value

__all__ = ["variable_html", "function_html", "variable_rows", "function_rows", "value_summary",
           "kind_of", "creation_text", "pre", "table"]

_MAX_TREE_LINES = 200  # a repr stays readable; %%symgraph shows whole graphs

_TABLE_STYLE = "border-collapse:collapse;text-align:left;font-family:monospace"


def kind_of(var: Variable) -> str:
    """What computes ``var``: its op (``Elemwise{add,no_inplace}``), or the kind of root."""
    if var.owner is not None:
        return var.owner.op.display_name()
    if isinstance(var, Constant):
        return "constant"
    if isinstance(var, SharedVariable):
        return "shared variable"
    return "input"


def value_summary(var: Variable) -> str:
    """The test value's summary (``float32 (3,) [1., 2., 3.]``) without computing anything."""
    if isinstance(var, SharedVariable):
        return summarize_value(var.get_value(borrow=True))
    if var._test_value is not None:
        return summarize_value(var._test_value)
    if var.owner is not None:
        return "pending (computed when .test_value is read)"
    return "no test value"


def creation_text(var: Variable) -> str:
    """``Cell In[3]:2: y = x * 2``, or ``(unknown)`` for a variable built by symnb itself."""
    site = var.site
    if not site:
        return "(unknown)"
    line = site.line
    return f"{site.short()}: {line}" if line else site.short()


def variable_rows(var: Variable) -> list[tuple[str, str]]:
    """The (field, text) rows describing ``var``."""
    return [("name", label(var)), ("type", repr(var.type)), ("computed by", kind_of(var)),
            ("test value", value_summary(var)), ("created at", creation_text(var))]


def pre(text: str) -> str:
    """``text`` as a preformatted HTML block."""
    return f"<pre style=\"margin:0\">{html.escape(text)}</pre>"


def table(rows: list[tuple[str, str]]) -> str:
    cells = "".join(f"<tr><th style=\"padding-right:1em\">{html.escape(key)}</th>"
                    f"<td>{html.escape(value)}</td></tr>" for key, value in rows)
    return f"<table style=\"{_TABLE_STYLE}\">{cells}</table>"


def _details(title: str, text: str) -> str:
    lines = text.splitlines()
    if len(lines) > _MAX_TREE_LINES:
        hidden = len(lines) - _MAX_TREE_LINES
        text = "\n".join(lines[:_MAX_TREE_LINES] + [f"... ({hidden} more lines)"])
    return f"<details><summary>{html.escape(title)}</summary>{pre(text)}</details>"


def variable_html(var: Variable) -> str:
    """A symbolic variable as an HTML table, with its graph folded below it."""
    body = table(variable_rows(var))
    if var.owner is not None:
        tree = debugprint(var, file="str", print_test_value=True)
        body += _details("graph (debugprint with test values)", tree)
    return f"<div class=\"symnb-variable\">{body}</div>"


def function_rows(fn: Any) -> list[tuple[str, str]]:
    """The (field, text) rows describing a compiled function."""
    fgraph = fn.maker.fgraph

    def names(variables: list[Variable]) -> str:
        return ", ".join(f"{label(v)}: {v.type.short()}" for v in variables) or "(none)"

    return [
        ("function", fn.name or "(unnamed)"),
        ("inputs", names(fn.inputs)),
        ("outputs", names(fn.outputs)),
        ("optimizer", repr(fn.maker.optimizer)),
        ("nodes", f"{len(fn.nodes)} after {len(fgraph.history)} rewrite(s)"),
        ("profile", "on" if fn.profile is not None else "off"),
    ]


def function_html(fn: Any) -> str:
    """A compiled function as an HTML table, with its optimized graph folded below it."""
    tree = debugprint(fn, file="str", print_type=True)
    body = table(function_rows(fn)) + _details("optimized graph (debugprint)", tree)
    return f"<div class=\"symnb-function\">{body}</div>"
