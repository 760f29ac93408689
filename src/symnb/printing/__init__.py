"""Text and pictures of graphs (Theano's ``theano.printing``).

- :func:`debugprint`: the indented tree, ``Elemwise{mul,no_inplace} [id A] ''``;
- :func:`pprint` (``pp``): the algebraic form, ``gt((1.0 / (1.0 + exp((-x)))), 0.5)``;
- :func:`min_informative_str`: the lettered tree, stopping at named variables;
- :func:`pydotprint`: a PNG/SVG/PDF picture through pydot and Graphviz;
- :func:`graph_svg`: a laid-out picture as SVG (Graphviz when installed, else symnb's
  own layered layout), the picture the notebook views show;
- :func:`graph_picture`: the same picture as a notebook output that renders trusted or
  not, in nbconvert's HTML and on GitHub;
- :class:`Print`: the op that prints a value when the graph computes it;
- :func:`to_model_explorer`: the graph as Google Model Explorer's graph JSON, its groups as
  namespaces, with node data overlays (test values, a call's values, the profile).

Importing this package does not import JAX.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from symnb.core.graph.errors import (
    register_error_html, register_high_verbosity_section, register_node_printer,
)
from symnb.core.graph.traceback_filter import entry_point as _entry_point
from symnb.core.graph.traceback_filter import entry_points as _entry_points
from symnb.core.tensor.print_op import Print
from symnb.printing.debugprint import debugprint
from symnb.printing.min_informative_str import min_informative_str
from symnb.printing.pprint import pp, pprint, register_pprinter

if TYPE_CHECKING:  # loaded on first use: see _ON_FIRST_USE
    from symnb.printing.failure import call_values_html, failure_html
    from symnb.printing.picture import GraphImage, graph_picture
    from symnb.printing.pydot import GraphvizNotFoundError, pydotprint, pydotprint_variables
    from symnb.printing.model_explorer import ModelExplorerGraph, to_model_explorer
    from symnb.printing.svg import graph_svg

__all__ = [
    "debugprint", "pprint", "pp", "register_pprinter", "min_informative_str", "pydotprint",
    "pydotprint_variables",
    "GraphvizNotFoundError", "Print", "graph_svg", "graph_picture", "GraphImage", "failure_html",
    "call_values_html", "to_model_explorer", "ModelExplorerGraph",
]


def _debugprint_text(node) -> str:
    return debugprint(node, file="str").rstrip()


def _debugprint_section(node) -> list[str]:
    return ["Debugprint of the apply node:", _debugprint_text(node)]


# exception_verbosity='high' messages show the failing node's debugprint, and NanGuardMode's
# always do: the lower layers reach it through these hooks (core/graph/errors.py).
register_high_verbosity_section(_debugprint_section)
register_node_printer(_debugprint_text)


def _failure_html(error: BaseException) -> str:
    from symnb.printing.failure import failure_html

    return failure_html(error)


# A SymnbError shown in a notebook cell renders as HTML (core/graph/error_base.py).
register_error_html(_failure_html)

#: The pictures and the HTML (layout, SVG, Graphviz, about 20 modules) load when one
#: of these names is first used: every fresh process imports this package, and a
#: script that trains a model draws nothing (bench/bench_first_result.py).
_ON_FIRST_USE = {
    "failure_html": "failure", "call_values_html": "failure",
    "pydotprint": "pydot", "pydotprint_variables": "pydot", "GraphvizNotFoundError": "pydot",
    "graph_svg": "svg", "graph_picture": "picture", "GraphImage": "picture",
    "to_model_explorer": "model_explorer", "ModelExplorerGraph": "model_explorer",
}

from symnb.core.absent import module_getattr  # noqa: E402

_absent = module_getattr("symnb.printing")  # Theano names symnb lacks: say so
del module_getattr


def __getattr__(name: str) -> Any:
    if name == "pydot_imported":  # Theano's flag: can pydotprint draw? (imports pydot: on first use)
        from symnb.printing.pydot import pydot_usable

        globals()[name] = pydot_usable()
        return globals()[name]
    module = _ON_FIRST_USE.get(name)
    if module is None:
        return _absent(name)
    value = _entry_point(getattr(importlib.import_module(f"symnb.printing.{module}"), name))
    globals()[name] = value  # found directly from now on
    return value


# The functions above are public entry points: an error they raise shows the user's line
# first, without symnb's frames (symnb.core.graph.traceback_filter); those loaded on
# first use become entry points as they load (__getattr__).
_entry_points(globals())
