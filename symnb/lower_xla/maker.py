"""What compiling a function made (``f.maker``), and how a failure in the compiled
program is traced back to the user's node.

``f.maker.fgraph`` is the optimized graph the program runs: a copy of the user's graph,
rewritten at the mode's optimizer level (``f.maker.fgraph.history`` lists the rewrites).
"""

from __future__ import annotations

import contextlib
import gc
import time
from typing import Any, Iterator, Sequence

from symnb.compile.mode import Mode
from symnb.core.fgraph import FunctionGraph
from symnb.core.graph import Apply, Variable
from symnb.core.rewriting import optimize

__all__ = ["FunctionMaker", "failing_node", "collector_paused"]


class FunctionMaker:
    """The compile-time record of a function: ``fgraph``, ``mode``, ``optimizer`` (the
    level used), ``rewrite_seconds`` (time spent copying and rewriting the graph) and
    ``notes`` (under DebugMode: the values changed by rewrites declared inexact, one
    note per rewrite and node)."""

    def __init__(self, inputs: Sequence[Variable], outputs: Sequence[Variable], mode: Mode) -> None:
        self.mode = mode
        self.optimizer = mode.effective_optimizer
        self.notes: list[str] = []
        start = time.perf_counter()
        with collector_paused():
            self.fgraph = FunctionGraph(inputs, outputs, clone=True)
            optimize(self.fgraph, self.optimizer)
        self.rewrite_seconds = time.perf_counter() - start

    def __repr__(self) -> str:
        return f"FunctionMaker(optimizer={self.optimizer!r}, fgraph={self.fgraph!r})"


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector: copying, rewriting and tracing a graph
    allocate many objects that all stay alive, and the collections this triggers
    re-scan every live object of the session (measured: ~40% of the rewrite time of a
    10,000-node graph next to a few hundred thousand live objects)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def failing_node(failure: Any, program_nodes: list[Apply], nodes: list[Apply]
                 ) -> tuple[Apply, int, Apply | None]:
    """(the user's failing node, its toposort index, the Composite it was fused into).

    The program may have been built for an equal graph compiled earlier (the compile
    cache), so the failure is located by position and mapped onto this function's own
    nodes, whose creation sites are this function's.
    """
    fused_in = getattr(failure, "fused_in", None)
    if fused_in is None:
        index = failure.index
        if 0 <= index < len(program_nodes) and program_nodes[index] is failure.node:
            return nodes[index], index, None
        return failure.node, index, None  # reported by a rule for a node of its own
    outer = next(i for i, n in enumerate(program_nodes) if n is fused_in)
    composite = nodes[outer]
    return composite.op.inner_nodes[failure.index], outer, composite
