"""IPython front end: ``%load_ext symnb`` registers the ``%%symgraph`` cell magic and
rich HTML reprs for symbolic variables and compiled functions.

Imported only by :func:`symnb.load_ipython_extension`: ``import symnb`` stays free of
IPython. The HTML is built by plain functions (:mod:`symnb.magics.html`,
:mod:`symnb.magics.report`) that can be used without IPython.
"""

from __future__ import annotations

from typing import Any

from symnb.core.graph import Variable
from symnb.magics.html import function_html, variable_html

__all__ = ["load_ipython_extension", "unload_ipython_extension"]

# Compiled functions are registered by name: the formatter resolves it when it first meets
# one, so loading the extension does not import JAX.
_FUNCTION_TYPE = ("symnb.compile.function", "Function")


def load_ipython_extension(ipython: Any) -> None:
    """Register ``%%symgraph`` and the ``text/html`` reprs on ``ipython``."""
    from symnb.magics.symgraph import SymgraphMagics

    ipython.register_magics(SymgraphMagics)
    formatter = ipython.display_formatter.formatters["text/html"]
    formatter.for_type(Variable, variable_html)
    formatter.for_type_by_name(*_FUNCTION_TYPE, function_html)


def unload_ipython_extension(ipython: Any) -> None:
    """Remove what :func:`load_ipython_extension` registered."""
    ipython.magics_manager.magics["cell"].pop("symgraph", None)
    formatter = ipython.display_formatter.formatters["text/html"]
    formatter.pop(Variable, None)
    formatter.pop(".".join(_FUNCTION_TYPE), None)
