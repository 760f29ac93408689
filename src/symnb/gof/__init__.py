"""``symnb.gof``: the names of Theano's ``theano.gof`` that debugging code uses.

``WrapLinkerMany(linkers, wrappers)`` and ``OpWiseCLinker()`` are spelled as Theano's
tutorials write them (``Mode(WrapLinkerMany([OpWiseCLinker()], [callback]))``): the
graph then runs node by node, each node through its XLA lowering, and each wrapper is
called as ``wrapper(i, node, fn)``; ``fn()`` runs the node. There is no C code: every
linker runs the same lowering.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from symnb.compile.construction import MissingInputError  # theano.gof.MissingInputError
from symnb.compile.optdb import Query  # theano.gof.Query (optdb's queries)
from symnb.core.graph.fgraph import FunctionGraph, InconsistencyError  # theano.gof's
from symnb.compile.linkers import Linker, WrapLinker
from symnb.core.graph.basic import Apply, Constant, Variable
from symnb.core.graph.keywords import checked_keywords
from symnb.core.graph.op import Op, PureOp
from symnb.core.tensor.generic_shared import Generic, generic  # theano.gof.type's
from symnb.core.graph.traceback_filter import entry_points as _entry_points
from symnb.gof import graph  # noqa: F401  (theano.gof.graph: inputs, ancestors, ...)
from symnb.gof import fg, op  # noqa: F401  (theano.gof.fg.MissingInputError, gof.op.get_test_value)
from symnb.gof import utils  # noqa: F401  (theano.gof.utils.MethodNotDefined)

__all__ = ["WrapLinkerMany", "WrapLinker", "OpWiseCLinker", "PerformLinker", "Linker", "Apply",
           "Variable", "Constant", "Op", "PureOp", "graph", "fg", "op", "utils", "MissingInputError",
           "Generic", "generic", "FunctionGraph", "InconsistencyError", "Query"]


class OpWiseCLinker(Linker):
    """Theano's node-by-node linker: here, each node runs through its XLA lowering.

    Theano's options are accepted: ``fallback_on_perform`` and ``nice_errors`` concern C
    code symnb has not, ``allow_gc`` memory XLA manages. A ``schedule`` (an order of the
    nodes) is refused: the wrappers would see the nodes in symnb's order, not in its."""

    @checked_keywords()
    def __init__(self, fallback_on_perform: bool = True, allow_gc: bool | None = None,
                 nice_errors: bool = True, schedule: Any = None) -> None:
        _refuse_schedule(type(self).__name__, schedule)

    def accept(self, fgraph: FunctionGraph, no_recycling: Any = None, profile: Any = None) -> "OpWiseCLinker":
        """Theano's ``linker.accept(fgraph)``: the graph ``make_function`` compiles."""
        self.fgraph = fgraph
        return self

    def make_function(self, unpack_single: bool = True, input_storage: Any = None,
                      output_storage: Any = None, storage_map: Any = None) -> Callable[..., Any]:
        """Theano's ``linker.accept(fgraph).make_function()``: the accepted graph's inputs
        to its outputs, run node by node by this linker (one output alone when
        ``unpack_single``, as Theano's). Theano's storage keywords (the C linker's
        containers) are refused unless None: a compiled program owns its buffers."""
        from symnb.compile.function import function
        from symnb.compile.mode import Mode

        given = [name for name, value in [("input_storage", input_storage),
                                          ("output_storage", output_storage),
                                          ("storage_map", storage_map)] if value is not None]
        if given:
            raise NotImplementedError(f"{type(self).__name__}.make_function: {', '.join(given)} "
                                      f"(Theano's storage containers) cannot be given: a compiled "
                                      f"program owns its buffers; call it with the input values")
        fgraph = getattr(self, "fgraph", None)
        if fgraph is None:
            raise ValueError(f"{type(self).__name__}.make_function: call accept(fgraph) first")
        compiled = function(list(fgraph.inputs), list(fgraph.outputs), mode=Mode(linker=self))
        if unpack_single and len(fgraph.outputs) == 1:
            return lambda *args: compiled(*args)[0]
        return compiled


class PerformLinker(OpWiseCLinker):
    """Theano's Python linker: the same node-by-node linker (there is no C code to skip)."""

    @checked_keywords()
    def __init__(self, allow_gc: bool | None = None, schedule: Any = None) -> None:
        _refuse_schedule(type(self).__name__, schedule)


def _refuse_schedule(linker: str, schedule: Any) -> None:
    if schedule is not None:
        raise NotImplementedError(f"{linker}(schedule={schedule!r}): symnb runs the nodes in "
                                  "its own topological order; a schedule is not supported")


def WrapLinkerMany(linkers: Sequence[Linker], wrappers: Sequence[Callable[[int, Apply, Any], None]]
                   ) -> WrapLinker:
    """A linker calling each of ``wrappers`` around every node (Theano's signature;
    ``linkers`` name how nodes run, which is always their XLA lowering here)."""
    for linker in linkers:
        if not isinstance(linker, Linker):
            raise TypeError(f"WrapLinkerMany: {linker!r} is not a linker (e.g. OpWiseCLinker())")
    return WrapLinker(list(wrappers))


# The functions above are public entry points: an error they raise shows the user's line
# first, without symnb's frames (symnb.core.graph.traceback_filter).
_entry_points(globals())
