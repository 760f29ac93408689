"""``sn.function(..., profile=True)``: recording a function's calls (``f.profile``).

Recording costs a clock read and a few additions per call; the program itself runs at
full speed. A call that traced and compiled the program (the first call, or a call
with an input-shape signature new to the program) is not a timed call: it is counted
apart, with the shapes that caused it and its time split into tracing, lowering and
XLA compile (JAX's own compile-time events). Calls keep their wall time each
(min/median/mean), and the bytes and number of host-to-device and device-to-host
transfers they made.

The time of each operation is measured when first asked for (``report()``,
``measure.py``), given to the nodes and lines (``attribute.py``), and written as text
(``render.py``); one call's timeline is traced on demand (``timeline.py``). That
measurement is kept: ``summary()``, ``overview()``, ``node_times()``, ``ProfileView``,
the time-coloured graphs and ``%%symgraph --profile`` all read the same one, so they
print the same numbers. It is measured again after new calls, or when asked
(``report(refresh=True)``, ``ProfileView``'s Refresh).

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

from symnb.compile.profiling.attribute import NodeTimes, node_times
from symnb.compile.profiling.records import CompileRecord, ProfileReport
from symnb.core.graph.config import config

__all__ = ["ProfileStats"]

# JAX's compile-time events (jax/_src/dispatch.py), by the stage they time.
_STAGES = {"/jax/core/compile/jaxpr_trace_duration": "tracing",
           "/jax/core/compile/jaxpr_to_mlir_module_duration": "lowering",
           "/jax/core/compile/backend_compile_duration": "xla_compile"}


class ProfileStats:
    """Calls, compiles, transfers and time of one compiled function (``f.profile``);
    ``summary()`` prints the report."""

    def __init__(self, function: Any = None, memory: bool = False, *,
                 atexit_print: bool | None = None, flag_time_thunks: Any = None,
                 gpu_checks: bool = True, message: str | None = None) -> None:
        """The profile of ``function`` (``sn.function`` makes it). Theano's spelling
        ``ProfileStats(atexit_print=False, gpu_checks=False)``, passed as
        ``sn.function(..., profile=stats)``, makes one the function then records into
        (``flag_time_thunks`` and ``gpu_checks`` concern Theano's C and GPU thunks and
        have no effect; ``atexit_print`` prints the summary when the program exits;
        ``message`` is kept as Theano's attribute)."""
        self.function = function
        self.memory = memory  # profile_memory: add peak memory and the largest values
        #: Theano's ``message`` (the summary's title in Theano), when given.
        self.message = message
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
        #: A line the summary shows under its title (a split function's last program says
        #: how it is specialized: compile/split_program.py).
        self.note: str | None = None
        self._paused = False  # a call the profile makes itself (a timeline's) is no call
        _listen_to_compiles()
        if config.profile if atexit_print is None else atexit_print:
            _printed_at_exit.append(self)

    def bind(self, function: Any, memory: bool) -> "ProfileStats":
        """This profile, recording ``function``'s calls from now on (``profile=stats``);
        a profile records one function: a second is refused (each has its own)."""
        if self.function is not None and self.function is not function:
            raise ValueError("sn.function(profile=stats): this ProfileStats already records "
                             "another compiled function; make one per function "
                             "(Theano's summed several, symnb's profile is per function)")
        self.function = function
        self.memory = self.memory or memory
        return self

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
        if self._paused:
            return
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
        from symnb.compile.profiling import measure

        if self._last_arrays is None:
            return None
        key = (len(self.call_times), len(self.compiles), repeats)
        if refresh or self._report is None or self._report[0] != key:
            self._report = (key, measure.make_report(self, self._last_arrays, repeats))
        return self._report[1]

    def node_seconds(self, repeats: int = 5) -> dict[int, float]:
        """Each node's own seconds per call (every toposort index): the operations that
        do its work alone. A node whose work XLA fused with other nodes' has no time of
        its own: the fused operation's time is one unit (``report().fused``)."""
        report = self.report(repeats)
        return report.node_seconds if report is not None else {}

    def node_times(self, repeats: int = 5) -> NodeTimes:
        """``{node: own seconds per call}`` for the nodes of ``f.nodes``, with the fused
        operations, XLA's unnamed work and the time outside the program (a
        :class:`~symnb.compile.profiling.attribute.NodeTimes`): what a graph view
        colours by, covering the whole call."""
        return node_times(self.report(repeats), self.function.nodes)

    def timeline(self, *args: Any, **kwargs: Any) -> Any:
        """One call of the function on ``args`` (by default the last call's arguments),
        traced by ``jax.profiler``: its host work and its XLA operations in time, shown
        in the notebook as a picture (:class:`~symnb.compile.profiling.timeline.Timeline`).
        The call is not counted among the profile's calls."""
        from symnb.compile.profiling.timeline import trace_call

        if not args and not kwargs:
            if self._last_arrays is None:
                raise ValueError("f.profile.timeline() without arguments traces a call on the "
                                 "last call's arguments: call the function once first, or pass "
                                 "the arguments")
            args = tuple(self._last_arrays)
        return trace_call(self, args, kwargs)

    @contextlib.contextmanager
    def paused(self) -> Any:
        """Calls made inside are not recorded (a timeline's traced call)."""
        self._paused = True
        try:
            yield
        finally:
            self._paused = False

    def summary(self, file: TextIO | str | None = None, n_nodes: int = 20) -> str | None:
        """Print (or with ``file='str'`` return) the profile: calls, compiles, time per
        call, flops and bandwidth, transfers, memory (``profile_memory``), and the
        Apply, Op, Class and by-line tables."""
        from symnb.compile.profiling.render import write_summary

        return _write(write_summary(self, self.report(), n_nodes), file)

    def overview(self, file: TextIO | str | None = None, n_lines: int = 5,
                 order: str = "time") -> str | None:
        """Print (or with ``file='str'`` return) the profile in a few lines: the time per
        call (inside and outside the XLA program), the compile time, and the ``n_lines``
        costliest lines of the user's code, costliest first, or with ``order="line"`` in
        the code's order (stable from run to run). The same numbers as ``summary()``'s."""
        from symnb.compile.profiling.render import write_overview

        return _write(write_overview(self, self.report(), n_lines, order), file)

    def line_times(self) -> list[tuple[str, float, float]]:
        """``(line, seconds per call, % of the call)`` for each user line with a time of
        its own, costliest first, with the rows no line owns (a fused operation of several
        lines, the time outside the program, XLA's own copies): they add up to the call."""
        from symnb.compile.profiling.render import line_rows

        report = self.report()
        # A line whose work is all in fused operations has no time of its own: it is
        # named in the fused operation's row, not listed at "0 s".
        return [] if report is None else [(r.key, r.seconds, r.percent)
                                          for r in line_rows(self, report)
                                          if r.seconds or not r.fused_in]


def _write(text: str, file: TextIO | str | None) -> str | None:
    if file == "str":
        return text
    (file or sys.stdout).write(text)
    return None


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
