"""IPython front end: ``%load_ext symnb`` registers the ``%%symgraph`` cell magic and
rich reprs for symbolic variables and compiled functions.

Imported only by :func:`symnb.load_ipython_extension`: ``import symnb`` stays free of
IPython. The HTML is built by plain functions (:mod:`symnb.printing.html`,
:mod:`symnb.magics.html`, :mod:`symnb.magics.report`) that can be used without IPython.

- everywhere: ``text/html`` reprs (a table, the graph's picture, its debugprint);
- in a Jupyter kernel: a variable or function ending a cell shows a live explorer, with
  the static HTML kept as its snapshot.
"""

from __future__ import annotations

from typing import Any

from symnb.core.graph.basic import Variable
from symnb.magics.html import function_html, show_function, show_variable, variable_html
from symnb.widgets._view import in_kernel

__all__ = ["load_ipython_extension", "unload_ipython_extension"]

# Compiled functions are registered by name: the formatter resolves it when it first meets
# one, so loading the extension does not import JAX.
_FUNCTION_TYPE = ("symnb.compile.function", "Function")


def load_ipython_extension(ipython: Any) -> None:
    """Register ``%%symgraph`` and the reprs on ``ipython``."""
    from symnb.magics.symgraph import HIDDEN_NAME, SymgraphMagics, transform_symgraph_cell

    ipython.register_magics(SymgraphMagics)
    # What a transformed %%symgraph cell calls; hidden from %who and from %%symgraph itself.
    ipython.push({HIDDEN_NAME: ipython.magics_manager.registry["SymgraphMagics"]}, interactive=False)
    if transform_symgraph_cell not in ipython.input_transformers_cleanup:
        ipython.input_transformers_cleanup.append(transform_symgraph_cell)
    formatter = ipython.display_formatter.formatters["text/html"]
    formatter.for_type(Variable, variable_html)
    formatter.for_type_by_name(*_FUNCTION_TYPE, function_html)
    if in_kernel():
        live = ipython.display_formatter.ipython_display_formatter
        live.for_type(Variable, show_variable)
        live.for_type_by_name(*_FUNCTION_TYPE, show_function)


def unload_ipython_extension(ipython: Any) -> None:
    """Remove what :func:`load_ipython_extension` registered."""
    from symnb.magics.symgraph import HIDDEN_NAME, transform_symgraph_cell

    ipython.magics_manager.magics["cell"].pop("symgraph", None)
    ipython.drop_by_id({HIDDEN_NAME: ipython.user_ns.get(HIDDEN_NAME)})
    ipython.magics_manager.registry.pop("SymgraphMagics", None)
    if transform_symgraph_cell in ipython.input_transformers_cleanup:
        ipython.input_transformers_cleanup.remove(transform_symgraph_cell)
    for formatter in (ipython.display_formatter.formatters["text/html"],
                      ipython.display_formatter.ipython_display_formatter):
        formatter.type_printers.pop(Variable, None)
        formatter.deferred_printers.pop(_FUNCTION_TYPE, None)
        for cls in [c for c in formatter.type_printers if
                    (c.__module__, c.__name__) == _FUNCTION_TYPE]:
            formatter.type_printers.pop(cls)
