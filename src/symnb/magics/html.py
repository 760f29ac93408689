"""The notebook reprs of symbolic variables and compiled functions.

- :func:`variable_html`, :func:`function_html`: static HTML (a table, the graph's
  picture, its debugprint folded below), IPython's ``text/html`` repr everywhere;
- :func:`show_variable`, :func:`show_function`: in a Jupyter kernel, the same table
  over a live :class:`~symnb.widgets.GraphExplorer` (click a node, open a loop), with
  the static HTML kept as its snapshot.

Nothing here imports IPython or JAX, and nothing computes a test value.
"""

from __future__ import annotations

import html
from typing import Any

from symnb.core.graph.basic import Variable
from symnb.printing import debugprint
from symnb.printing.html import function_rows, pre, table, variable_rows
from symnb.printing.svg import graph_svg, picture_img

__all__ = ["variable_html", "function_html", "variable_header", "function_header",
           "show_variable", "show_function"]

_MAX_TREE_LINES = 200  # a repr stays readable; the picture shows whole graphs


def _details(title: str, text: str) -> str:
    lines = text.splitlines()
    if len(lines) > _MAX_TREE_LINES:
        hidden = len(lines) - _MAX_TREE_LINES
        text = "\n".join(lines[:_MAX_TREE_LINES] + [f"... ({hidden} more lines)"])
    return f"<details><summary>{html.escape(title)}</summary>{pre(text)}</details>"


def variable_header(var: Variable) -> str:
    return table(variable_rows(var), escape=False)


def function_header(fn: Any) -> str:
    return table(function_rows(fn))


def _variable_footer(var: Variable) -> str:
    if var.owner is None:
        return ""
    tree = debugprint(var, file="str", print_test_value=True)
    return _details("graph as text (debugprint with test values)", tree)


def _function_footer(fn: Any) -> str:
    return _details("optimized graph as text (debugprint)", debugprint(fn, file="str", print_type=True))


def variable_html(var: Variable) -> str:
    """A symbolic variable as static HTML: its table, its graph's picture, its debugprint."""
    picture = picture_img(graph_svg(var)) if var.owner is not None else ""
    return (f'<div class="symnb-variable">{variable_header(var)}{picture}'
            f"{_variable_footer(var)}</div>")


def function_html(fn: Any) -> str:
    """A compiled function as static HTML: its table and its optimized graph."""
    return (f'<div class="symnb-function">{function_header(fn)}{picture_img(graph_svg(fn))}'
            f"{_function_footer(fn)}</div>")


def show_variable(var: Variable) -> None:
    """Display ``var`` as a live explorer under its table (in a Jupyter kernel)."""
    from symnb.widgets import GraphExplorer

    if var.owner is None:  # a root: nothing to draw, the table says it all
        from IPython.display import display

        display({"text/html": f'<div class="symnb-variable">{variable_header(var)}</div>',
                 "text/plain": repr(var)}, raw=True)
        return
    GraphExplorer(var, header=variable_header(var), footer=_variable_footer(var)).display()


def show_function(fn: Any) -> None:
    """Display a compiled function as a live explorer of its optimized graph."""
    from symnb.widgets import GraphExplorer

    GraphExplorer(fn, header=function_header(fn), footer=_function_footer(fn)).display()
