"""``symnb.gof``: the names of Theano's ``theano.gof`` that debugging code uses.

``WrapLinkerMany(linkers, wrappers)`` and ``OpWiseCLinker()`` are spelled as Theano's
tutorials write them (``Mode(WrapLinkerMany([OpWiseCLinker()], [callback]))``): the
graph then runs node by node, each node through its XLA lowering, and each wrapper is
called as ``wrapper(i, node, fn)``; ``fn()`` runs the node. There is no C code: every
linker runs the same lowering.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from symnb.compile.linkers import Linker, WrapLinker
from symnb.core.graph.basic import Apply, Constant, Variable
from symnb.core.graph.op import Op
from symnb.gof import graph  # noqa: F401  (theano.gof.graph: inputs, ancestors, ...)

__all__ = ["WrapLinkerMany", "WrapLinker", "OpWiseCLinker", "PerformLinker", "Linker", "Apply",
           "Variable", "Constant", "Op", "graph"]


class OpWiseCLinker(Linker):
    """Theano's node-by-node linker: here, each node runs through its XLA lowering."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass  # Theano's options (allow_gc, nice_errors...) concern C code symnb has not


PerformLinker = OpWiseCLinker


def WrapLinkerMany(linkers: Sequence[Linker], wrappers: Sequence[Callable[[int, Apply, Any], None]]
                   ) -> WrapLinker:
    """A linker calling each of ``wrappers`` around every node (Theano's signature;
    ``linkers`` name how nodes run, which is always their XLA lowering here)."""
    for linker in linkers:
        if not isinstance(linker, Linker):
            raise TypeError(f"WrapLinkerMany: {linker!r} is not a linker (e.g. OpWiseCLinker())")
    return WrapLinker(list(wrappers))
