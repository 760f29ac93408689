"""Measuring a call's time: XLA's trace of the compiled program (or the node-by-node
replay) on the last call's arguments, scaled so that the operations and the time
outside the program sum to the real call.

Time per operation: JAX 0.10's CPU runtime (the thunk executor) records one trace
event per HLO operation it runs, with the operation's name (``hlo_op``), when
``jax.profiler`` traces. The program is run a few times under a trace; each HLO
operation's own time (its events' durations less the events nested in them, e.g. a
loop's body) is kept whole and given to its nodes by ``attribute.py``.

We chose the trace over the alternatives: XLA's HLO profile (``xla_hlo_profile``) is
not offered by the CPU client of JAX 0.10, and timing each node alone (the replay,
:func:`replay_node_seconds`) measures a different program (no fusion, one dispatch per
node); the replay remains for programs that are not one XLA program (debugging
linkers) or when the profiler cannot be started (another trace running).
"""

from __future__ import annotations

import contextlib
import glob
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any

import jax

from symnb.compile.devices import on_device
from symnb.compile.footprint import storage_footprint
from symnb.compile.linkers import Linker
from symnb.compile.node_by_node import node_by_node_program
from symnb.compile.profiling.attribute import operations_of, where
from symnb.compile.profiling.records import Operation, ProfileReport
from symnb.compile.profiling.xla import compiled_facts, hlo_scopes, module_name
from symnb.core.graph.basic import Apply

__all__ = ["make_report", "trace_operations", "profiler_trace", "OperationTimes", "replay_node_seconds",
           "XLA_TRACE", "REPLAY"]

XLA_TRACE = "XLA's trace of the compiled program (jax.profiler), scaled to the real call"
REPLAY = ("node-by-node replay (each node through its own lowering, not fused), "
          "scaled to the real call")


def make_report(stats: Any, arrays: list[Any], repeats: int) -> ProfileReport:
    fn = stats.function
    program = fn._program
    with fn._locks if fn._locks is not None else contextlib.nullcontext():
        # Copies: the program donates the shared values, which must stay the variables'.
        current = [jax.device_put(on_device(v), may_alias=False) for v in fn._all_shared]
    full = list(arrays) + current
    footprint = storage_footprint(fn._program_inputs, full, fn.nodes, fn._context, program.static)
    if program.whole_graph:
        try:
            return _from_xla_trace(stats, program, full, footprint, repeats)
        except RuntimeError:  # the profiler is busy (a trace of the user's own is running)
            pass
    raw = replay_node_seconds(fn, list(arrays), max(1, repeats // 2))
    call = stats.call_median or sum(raw.values())
    factor = call / (sum(raw.values()) or 1.0)
    operations = tuple(Operation(f"#{i}", s * factor, (i,), (where(fn.nodes[i]),))
                       for i, s in raw.items())
    return ProfileReport(REPLAY, call, call, 0.0, operations, len(fn.nodes), None, footprint)


def _from_xla_trace(stats: Any, program: Any, full: list[Any], footprint: list,
                    repeats: int) -> ProfileReport:
    fn = stats.function
    call_args = program.arguments(full)
    facts = _compiled_once(stats, program, call_args)
    donated = set(program.donate)
    context = fn._context

    def run() -> None:
        # Each run donates fresh copies, so every run sees the same values. The
        # executable compiled above runs (its static arguments compiled in): the one
        # whose operations the HLO text names.
        args = [jax.device_put(a, may_alias=False) if i in donated else a
                for i, a in enumerate(call_args) if i not in program.static]
        with context() if context is not None else contextlib.nullcontext():
            jax.block_until_ready(facts.executable(*args))

    times = trace_operations(run, repeats, module_name(facts.hlo_text))
    operations = operations_of(times.seconds, hlo_scopes(facts.hlo_text), fn.nodes)
    call = stats.call_median or times.run_median
    # The program's time is its XLA operations' own time in the trace (not the traced
    # runs' wall time: the profiler and JAX's dispatch slow those down); the rest of
    # the real call is outside the program.
    measured = sum(op.seconds for op in operations)
    program_seconds = min(measured, call) if measured else min(times.run_median, call)
    factor = program_seconds / measured if measured else 0.0
    return ProfileReport(
        XLA_TRACE, call, program_seconds, call - program_seconds,
        tuple(op._replace(seconds=op.seconds * factor) for op in operations), len(fn.nodes),
        facts, footprint, measured)


def _compiled_once(stats: Any, program: Any, call_args: list[Any]) -> Any:
    """``compiled_facts`` of ``program`` for these arguments, compiled once per program
    and argument signature (``stats.compiled``): it compiles without JAX's persistent
    cache, so a report measured again would otherwise compile the program again."""
    # A StaticArgument has no shape: it stands for itself (hashed by its value).
    signature = tuple((getattr(a, "shape", a), getattr(a, "dtype", None)) for a in call_args)
    kept = stats.compiled
    if kept is not None and kept[0] is program and kept[1] == signature:
        return kept[2]
    facts = compiled_facts(program, call_args, stats.function._context)
    stats.compiled = (program, signature, facts)
    return facts


@dataclass
class OperationTimes:
    """One traced replay: seconds per run of each HLO operation (its own time), and the
    wall time of each run of the program."""

    seconds: dict[str, float] = field(default_factory=dict)
    run_seconds: list[float] = field(default_factory=list)

    @property
    def run_median(self) -> float:
        return statistics.median(self.run_seconds) if self.run_seconds else 0.0


def trace_operations(run: Any, runs: int, module: str) -> OperationTimes:
    """Run ``run()`` (one call of the program, blocking) ``runs`` times under
    ``jax.profiler`` and return each operation of HLO module ``module``'s own time per run.
    Raises RuntimeError when the profiler cannot trace (another trace is running)."""
    times = OperationTimes()
    run()  # warm: the first run may allocate and load what later ones reuse

    def timed_runs() -> None:
        for _ in range(runs):
            start = time.perf_counter()
            run()
            times.run_seconds.append(time.perf_counter() - start)

    data = profiler_trace(timed_runs)
    total: dict[str, float] = {}
    for plane in data.planes:
        for line in plane.lines:
            _own_times(line.events, module, total)
    times.seconds = {name: ns * 1e-9 / runs for name, ns in total.items()}
    return times


def profiler_trace(run: Any) -> Any:
    """``run()`` under ``jax.profiler``: its trace (a ``jax.profiler.ProfileData``).
    Raises RuntimeError when the profiler cannot trace (another trace is running)."""
    from jax.profiler import ProfileData

    with tempfile.TemporaryDirectory(prefix="symnb-profile-") as directory:
        jax.profiler.start_trace(directory)
        try:
            run()
        finally:
            jax.profiler.stop_trace()
        found = glob.glob(f"{directory}/**/*.xplane.pb", recursive=True)
        if not found:
            raise RuntimeError("jax.profiler wrote no trace")
        return ProfileData.from_file(found[0])


def _own_times(events: Any, module: str, total: dict[str, float]) -> None:
    """Add each HLO operation's own time (less the operations nested in it on the same
    thread, e.g. a loop's body inside the loop) to ``total`` (nanoseconds)."""
    ops = []
    for event in events:
        stats = dict(event.stats)
        if stats.get("hlo_module") == module and "hlo_op" in stats:
            ops.append((event.start_ns, event.end_ns, stats["hlo_op"]))
    ops.sort(key=lambda op: (op[0], -op[1]))
    stack: list[list[Any]] = []  # [end, name, own time]
    for start, end, name in ops:
        while stack and stack[-1][0] <= start:
            _, done, own = stack.pop()
            total[done] = total.get(done, 0.0) + own
        if stack:
            stack[-1][2] -= end - start
        stack.append([end, name, end - start])
    for _, name, own in stack:
        total[name] = total.get(name, 0.0) + own


def replay_node_seconds(fn: Any, arrays: list[Any], repeats: int = 3) -> dict[int, float]:
    """Seconds per toposort index of a node-by-node run of ``fn`` (each node through its
    own lowering, eagerly): relative costs of the nodes, not a share of the fused call."""
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


class _TimingLinker(Linker):
    def __init__(self) -> None:
        self.seconds: dict[int, float] = {}

    def hook(self, index: int, node: Apply, thunk: Any) -> None:
        start = time.perf_counter()
        jax.block_until_ready(thunk())
        self.seconds[index] = self.seconds.get(index, 0.0) + time.perf_counter() - start
