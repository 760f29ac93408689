"""``sn.function(..., profile=True)``: where the time (and memory) goes, by the user's lines.

Recording (this module) costs a clock read and a few additions per call; the
program itself runs at full speed. A call that traced and compiled the program (the
first call, or a call with an input-shape signature new to the program) is not a
call: it is counted apart, with the shapes that caused it and its time split into
tracing, lowering and XLA compile (JAX's own compile-time events). Calls keep their
wall time each (min/median/mean), and the bytes and number of host-to-device and
device-to-host transfers they made.

The per-node and per-line times are measured when first asked for (``report()``), from
XLA's own trace of the program replayed on the last call's arguments
(``profiling_xla``), and scaled so that the table sums to the real per-call time: the program's share is split by XLA's operation times, and
what happens outside the program (argument checks, dispatch, transfers, copies of the
outputs) is its own row. A program that is not one XLA program (a debugging linker),
or a trace that cannot be made, falls back to the node-by-node replay, labelled so.

That measurement is kept: ``summary()``, ``overview()``, ``node_times()``,
``ProfileView``, the time-coloured ``GraphExplorer`` and ``%%symgraph --profile`` all
read the same one, so they print the same numbers. It is measured again after new
calls, or when asked (``report(refresh=True)``, ``ProfileView``'s Refresh).

``config.profile`` (``profile=True`` as a flag) also prints every profiled function's
summary when the program exits, as Theano did.
"""

from __future__ import annotations

import atexit
import contextlib
import sys
import threading
import time
from typing import Any, TextIO

import jax
import numpy as np

from symnb.compile.linkers import Linker
from symnb.compile.node_by_node import node_by_node_program
from symnb.core.graph.config import config
from symnb.core.graph.basic import Apply
from symnb.compile.profiling_records import CompileRecord as CompileRecord
from symnb.compile.profiling_records import ProfileReport as ProfileReport

__all__ = ["ProfileStats", "CompileRecord", "ProfileReport"]

# JAX's compile-time events (jax/_src/dispatch.py), by the stage they time.
_STAGES = {"/jax/core/compile/jaxpr_trace_duration": "tracing",
           "/jax/core/compile/jaxpr_to_mlir_module_duration": "lowering",
           "/jax/core/compile/backend_compile_duration": "xla_compile"}


class ProfileStats:
    """Calls, compiles, transfers and time of one compiled function (``f.profile``);
    ``summary()`` prints the report."""

    def __init__(self, function: Any, memory: bool = False) -> None:
        self.function = function
        self.memory = memory  # profile_memory: add peak memory and the largest values
        self.call_times: list[float] = []
        self.compiles: list[CompileRecord] = []
        self.h2d_bytes = self.h2d_count = self.d2h_bytes = self.d2h_count = 0
        self._last_arrays: list[Any] | None = None
        self._report: tuple[tuple, ProfileReport] | None = None  # (what it measured, report)
        #: ``(program, argument signature, CompiledFacts)`` of the last report: a report
        #: measured again (after more calls, or refreshed) reuses its executable.
        self.compiled: tuple | None = None
        self._stages = dict.fromkeys(_STAGES.values(), 0.0)
        self._lock = threading.Lock()  # calls record from several threads
        _listen_to_compiles()
        if config.profile:
            _printed_at_exit.append(self)

    # -- recording (called by Function._call_in_full) -------------------------------------
    def begin(self) -> tuple:
        """Mark a call's start: its clock and the program's trace count."""
        _sink.stats = self
        program = self.function._program
        return time.perf_counter(), program, program.traces

    def end(self, token: tuple, arrays: list[Any], outputs: Any) -> None:
        """A call that succeeded: a timed call, or a compile (the program traced)."""
        seconds = time.perf_counter() - token[0]
        _sink.stats = None
        program = token[1]
        compiled = program.traces != token[2] or self.function._program is not program
        with self._lock:
            if not compiled or self._last_arrays is None:  # the tables use a timed call's shapes
                self._last_arrays = arrays
            if compiled:
                shapes = tuple((tuple(np.shape(a)), str(getattr(a, "dtype", ""))) for a in arrays)
                stages, self._stages = self._stages, dict.fromkeys(_STAGES.values(), 0.0)
                self.compiles.append(CompileRecord(shapes, seconds, stages["tracing"],
                                                   stages["lowering"], stages["xla_compile"]))
                return
            self.call_times.append(seconds)
            for a in arrays:
                if type(a) is np.ndarray:  # a host array the call copies to the device
                    self.h2d_bytes += a.nbytes
                    self.h2d_count += 1
            for out in (outputs,) if self.function._single else outputs:
                self.d2h_bytes += out.nbytes
                self.d2h_count += 1

    def abort(self) -> None:
        """A call that failed: nothing is recorded."""
        _sink.stats = None

    def _compile_event(self, stage: str, seconds: float) -> None:
        with self._lock:
            self._stages[stage] += seconds

    # -- figures ----------------------------------------------------------------------
    @property
    def calls(self) -> int:
        """Calls that ran the compiled program (compiles are counted apart)."""
        return len(self.call_times)

    @property
    def call_min(self) -> float:
        return min(self.call_times) if self.call_times else 0.0

    @property
    def call_median(self) -> float:
        import statistics  # here: loading it (and fractions) costs every fresh process

        return statistics.median(self.call_times) if self.call_times else 0.0

    @property
    def call_mean(self) -> float:
        import statistics

        return statistics.fmean(self.call_times) if self.call_times else 0.0

    @property
    def rewrite_seconds(self) -> float:
        """Time spent copying and rewriting the graph when the function was made."""
        return self.function.maker.rewrite_seconds

    def compile_seconds(self) -> dict[str, float]:
        """Compile time by stage: rewriting, tracing, lowering, XLA compile (all compiles)."""
        return {"rewriting": self.rewrite_seconds,
                "tracing": sum(c.tracing for c in self.compiles),
                "lowering": sum(c.lowering for c in self.compiles),
                "xla_compile": sum(c.xla_compile for c in self.compiles)}

    def transfers_per_call(self) -> dict[str, float]:
        """Mean bytes and count of host-to-device and device-to-host copies per call."""
        n = max(self.calls, 1)
        return {"h2d_bytes": self.h2d_bytes / n, "h2d_count": self.h2d_count / n,
                "d2h_bytes": self.d2h_bytes / n, "d2h_count": self.d2h_count / n}

    # -- analysis ---------------------------------------------------------------------
    def report(self, repeats: int = 5, refresh: bool = False) -> ProfileReport | None:
        """Per-node and per-line time (and XLA's analyses), on the last call's arguments;
        None before the first call. Measured once and kept until the function is called
        again (or ``refresh``): every view of the profile reads this one measurement."""
        from symnb.compile import profiling_report

        if self._last_arrays is None:
            return None
        key = (len(self.call_times), len(self.compiles), repeats)
        if refresh or self._report is None or self._report[0] != key:
            self._report = (key, profiling_report.make_report(self, self._last_arrays, repeats))
        return self._report[1]

    def node_seconds(self, repeats: int = 5) -> dict[int, float]:
        """Seconds per call of each node (every toposort index), scaled so that the
        nodes, the work outside any node and outside the program sum to the real call."""
        report = self.report(repeats)
        return dict(report.node_seconds) if report is not None else {}

    def node_times(self, repeats: int = 5) -> dict[Apply, float]:
        """``{node: seconds per call}`` for the nodes of ``f.nodes``: what a graph view
        colours nodes by."""
        nodes = self.function.nodes
        return {nodes[i]: s for i, s in self.node_seconds(repeats).items()}

    def replay_node_seconds(self, arrays: list[Any], repeats: int = 3) -> dict[int, float]:
        """Seconds per toposort index of a node-by-node run (each node through its own
        lowering, eagerly): relative costs of the nodes, not a share of the fused call."""
        fn = self.function
        linker = _TimingLinker()
        program = node_by_node_program(fn._program_inputs, fn.maker.fgraph.outputs, fn.nodes, linker)
        with fn._locks if fn._locks is not None else contextlib.nullcontext(), \
                fn._context() if fn._context is not None else contextlib.nullcontext():
            current = [var._backend_value() for var in fn._all_shared]
            for run in range(repeats + 1):  # the first run compiles each node's operations
                if run == 1:
                    linker.seconds.clear()
                program.call(*(arrays + current))
        return {i: linker.seconds.get(i, 0.0) / repeats for i in range(len(fn.nodes))}

    def summary(self, file: TextIO | str | None = None, n_nodes: int = 20) -> str | None:
        """Print (or with ``file='str'`` return) the profile: calls, compiles, time per
        call, flops and bandwidth, transfers, memory (``profile_memory``), and the
        Apply, Op, Class and by-line tables."""
        from symnb.compile.profiling_tables import write_summary

        return _write(write_summary(self, self.report(), n_nodes), file)

    def overview(self, file: TextIO | str | None = None, n_lines: int = 5,
                 order: str = "time") -> str | None:
        """Print (or with ``file='str'`` return) the profile in a few lines: the time per
        call (inside and outside the XLA program), the compile time, and the ``n_lines``
        costliest lines of the user's code, costliest first, or with ``order="line"`` in
        the code's order (stable from run to run). The same numbers as ``summary()``'s."""
        from symnb.compile.profiling_tables import write_overview

        return _write(write_overview(self, self.report(), n_lines, order), file)

    def line_times(self) -> list[tuple[str, float, float]]:
        """``(line, seconds per call, % of the call)`` for each user line, costliest
        first, with the rows no line owns (outside the program, XLA's own copies)."""
        from symnb.compile.profiling_tables import line_rows

        report = self.report()
        return [] if report is None else [(r.key, r.seconds, r.percent)
                                          for r in line_rows(self, report)]


def _write(text: str, file: TextIO | str | None) -> str | None:
    if file == "str":
        return text
    (file or sys.stdout).write(text)
    return None


class _TimingLinker(Linker):
    def __init__(self) -> None:
        self.seconds: dict[int, float] = {}

    def hook(self, index: int, node: Apply, thunk: Any) -> None:
        start = time.perf_counter()
        jax.block_until_ready(thunk())
        self.seconds[index] = self.seconds.get(index, 0.0) + time.perf_counter() - start


# -- compile-time events ---------------------------------------------------------------

_sink = threading.local()  # .stats: the ProfileStats whose call runs on this thread
_listening = False


def _listen_to_compiles() -> None:
    """Register (once) a listener for JAX's compile-time events; an event reaches the
    profiled function whose call is running on the same thread, if any."""
    global _listening
    if _listening:
        return
    _listening = True

    def on_duration(event: str, seconds: float, **_: Any) -> None:
        stats = getattr(_sink, "stats", None)
        stage = _STAGES.get(event)
        if stats is not None and stage is not None:
            stats._compile_event(stage, seconds)

    jax.monitoring.register_event_duration_secs_listener(on_duration)


# -- profile=True as a flag: every summary at exit ---------------------------------------

_printed_at_exit: list[ProfileStats] = []


@atexit.register
def _print_at_exit() -> None:
    """Theano printed every profiled function's tables when the program ended."""
    if not config.profile:
        return
    for stats in _printed_at_exit:
        if stats.calls or stats.compiles:
            try:
                stats.summary()
            except Exception as error:  # one function's failure must not hide the others
                print(f"(profile of {stats.function.name or 'a function'} failed: {error})")
