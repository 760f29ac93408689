"""What compiling a function made (``f.maker``).

``f.maker.fgraph`` is the optimized graph the program runs: a copy of the user's graph,
rewritten at the mode's optimizer level (``f.maker.fgraph.history`` lists the rewrites).
"""

from __future__ import annotations

import time
from typing import Sequence

from symnb.compile.mode import Mode
from symnb.core.graph.collector import collector_paused
from symnb.core.graph.fgraph import FunctionGraph
from symnb.core.graph.basic import Variable
from symnb.core.rewriting import optimize

__all__ = ["FunctionMaker"]


class FunctionMaker:
    """The compile-time record of a function: ``inputs`` and ``outputs`` (the graph as
    written: the program's inputs, the function's outputs then the updates), ``fgraph``,
    ``mode``, ``optimizer`` (the level used), ``rewrite_seconds`` (time spent copying
    and rewriting the graph) and ``notes`` (under DebugMode: the values changed by
    rewrites declared inexact, one note per rewrite and node)."""

    def __init__(self, inputs: Sequence[Variable], outputs: Sequence[Variable], mode: Mode) -> None:
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        self.mode = mode
        self.optimizer = mode.effective_optimizer
        self.notes: list[str] = []
        start = time.perf_counter()
        with collector_paused():
            self.fgraph = FunctionGraph(inputs, outputs, clone=True)
            optimize(self.fgraph, self.optimizer, mode.rewrite_query)
        self.rewrite_seconds = time.perf_counter() - start

    def __repr__(self) -> str:
        return f"FunctionMaker(optimizer={self.optimizer!r}, fgraph={self.fgraph!r})"
