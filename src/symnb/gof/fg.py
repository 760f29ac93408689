"""``symnb.gof.fg``: the names of Theano's ``theano.gof.fg`` that libraries use (PyMC3
catches ``MissingInputError`` when it compiles a graph with an input not given), and
``FunctionGraph(inputs, outputs)``: the graph symnb's rewrites edit (a copy of the graph
between them, with ``toposort()``, ``clients``, ``replace``), which
``symnb.compile.mode.optdb.query(...).optimize(fgraph)`` rewrites."""

from symnb.compile.construction import MissingInputError as MissingInputError
from symnb.core.graph.fgraph import FunctionGraph as FunctionGraph
from symnb.core.graph.fgraph import InconsistencyError as InconsistencyError

__all__ = ["MissingInputError", "FunctionGraph", "InconsistencyError"]
