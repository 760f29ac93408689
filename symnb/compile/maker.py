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
from symnb.core.graph import Apply, Place, Variable, node_places, walk_nodes
from symnb.core.rewriting import optimize
from symnb.core.tensor.composite import Composite

__all__ = ["FunctionMaker", "failing_node", "place_lines", "collector_paused"]


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


def failing_node(failure: Any, program_nodes: Sequence[Apply], nodes: Sequence[Apply]) -> Place:
    """The place of the user's failing node in this function's graph (``nodes``): the
    node, its toposort index in its own graph, and the nodes holding that graph (a
    loop, a condition, or the Composite it was fused into), if any.

    The program may have been built for an equal graph compiled earlier (the compile
    cache), so the failure is located by position (in a walk that goes into inner
    graphs) and mapped onto this function's own nodes, whose creation sites are this
    function's.
    """
    for node, place in zip(walk_nodes(program_nodes), node_places(nodes)):
        if node is failure.node:
            return place
    # A rule that reported a node of its own.
    return Place(failure.node, failure.index, len(nodes), ())


def place_lines(place: Place, optimizer: Any = None) -> list[str]:
    """Where a failing node sits, for error reports: its toposort index in its graph,
    then each node holding that graph (innermost first)."""
    lines = [f"Toposort index: {place.index} of {place.count}"
             + (" in its inner graph" if place.enclosing else "")]
    for holder in reversed(place.enclosing):
        if isinstance(holder.node.op, Composite):
            level = f" ({optimizer!r})" if optimizer is not None else ""
            lines.append(f"The optimizer{level} fused this operation into "
                         f"{holder.node.op.display_name()}; the line above is where it was built.")
        else:
            lines.append(f"Inside {holder.node.op.display_name()} built at "
                         f"{holder.node.site.short()}: {holder.node.site.line} "
                         f"(toposort index {holder.index} of {holder.count})")
    return lines
