"""``sn.function(..., profile=True)``: where the time goes, by the user's lines.

Each call's wall time is recorded (the compiled program runs at full speed). The
per-node table comes from a separate node-by-node run on the last call's arguments:
every node is timed through its own XLA lowering and reported with the line that
built it, so a profile names the user's code. Nodes inside one ``jax.jit`` program are
fused by XLA, so the per-node times show relative costs rather than a decomposition
of the compiled call's time.
"""

from __future__ import annotations

import contextlib
import io
import sys
import threading
import time
from typing import Any, TextIO

import jax

from symnb.compile.linkers import Linker
from symnb.compile.node_by_node import node_by_node_program
from symnb.core.graph import Apply
from symnb.core.type import describe_shape

__all__ = ["ProfileStats"]


class _TimingLinker(Linker):
    def __init__(self) -> None:
        self.seconds: dict[int, float] = {}

    def hook(self, index: int, node: Apply, thunk: Any) -> None:
        start = time.perf_counter()
        jax.block_until_ready(thunk())
        self.seconds[index] = self.seconds.get(index, 0.0) + time.perf_counter() - start


class ProfileStats:
    """Calls and time of one compiled function; ``summary()`` prints the report."""

    def __init__(self, function: Any) -> None:
        self.function = function
        self.calls = 0
        self.call_seconds = 0.0
        self.first_call_seconds = 0.0  # includes tracing and compiling the program
        self._last_arrays: list[Any] | None = None
        self._lock = threading.Lock()  # calls record from several threads

    def record(self, seconds: float, arrays: list[Any]) -> None:
        """One call's time and its arguments (the shared variables' values are read
        when the per-node profile is made: a later call may donate the call's own)."""
        with self._lock:
            if self.calls == 0:
                self.first_call_seconds = seconds
            else:
                self.call_seconds += seconds
            self.calls += 1
            self._last_arrays = arrays

    def node_seconds(self, repeats: int = 3) -> dict[int, float]:
        """Seconds per toposort index, from a node-by-node run of the last call's arguments."""
        if self._last_arrays is None:
            return {}
        fn = self.function
        linker = _TimingLinker()
        program = node_by_node_program(fn._program_inputs, fn.maker.fgraph.outputs, fn.nodes, linker)
        locks = fn._locks if fn._locks is not None else contextlib.nullcontext()
        context = fn._context() if fn._context is not None else contextlib.nullcontext()
        # The shared values are read, and the run made, while no call can donate them;
        # values become JAX arrays inside the call's context (64-bit types kept).
        with locks, context:
            current = [var._backend_value() for var in fn._all_shared]
            arrays = self._last_arrays + current
            for _ in range(repeats + 1):  # the first run compiles each node's operations
                if _ == 1:
                    linker.seconds.clear()
                program.call(*arrays)
        return {i: s / repeats for i, s in linker.seconds.items()}

    def summary(self, file: TextIO | str | None = None, n_nodes: int = 20) -> str | None:
        """Print (or with ``file='str'`` return) the profile: calls, time, costliest nodes."""
        out = io.StringIO()
        fn = self.function
        title = fn.name or "<unnamed function>"
        out.write(f"Function profile: {title}\n")
        out.write(f"  {self.calls} call(s); the first took {self.first_call_seconds:.3e} s "
                  f"(including tracing and compiling, when the program was new)\n")
        if self.calls > 1:
            mean = self.call_seconds / (self.calls - 1)
            out.write(f"  the other {self.calls - 1}: {self.call_seconds:.3e} s in total, "
                      f"{mean:.3e} s per call (one compiled XLA program)\n")
        if fn.shardings is not None and self._last_arrays is not None:
            out.write("\n" + "".join(f"  {line}\n" for line in fn.sharding_lines(*self._last_arrays)))
        seconds = self.node_seconds()
        if seconds:
            _write_nodes(out, fn.nodes, seconds, n_nodes)
        else:
            out.write("  (call the function once for a per-node profile)\n")
        text = out.getvalue()
        if file == "str":
            return text
        (file or sys.stdout).write(text)
        return None


def _write_nodes(out: io.StringIO, nodes: list[Apply], seconds: dict[int, float], limit: int) -> None:
    total = sum(seconds.values()) or 1.0
    out.write("\nApply (node by node, each through its own XLA lowering)\n")
    out.write("  <% time> <sum %> <time per call> <id> <op> <output> <built at>\n")
    running = 0.0
    for index in sorted(seconds, key=seconds.get, reverse=True)[:limit]:
        node = nodes[index]
        share = seconds[index] / total * 100
        running += share
        output = node.outputs[0].type
        where = node.site.describe(verb="") if node.site else "(built by symnb)"
        out.write(f"  {share:6.1f}% {running:6.1f}%  {seconds[index]:.2e}s  {index:4d}  "
                  f"{node.op.display_name()}  {output.dtype} {describe_shape(output.shape)}  {where}\n")
