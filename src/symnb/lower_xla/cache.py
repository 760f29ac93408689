"""Reusing compiled programs.

Compiling the same graph twice (same structure, types, constants and mode) gives the
same ``jax.jit`` callable, so the second function reuses the traces and executables
of the first. The key is a structural signature of the optimized graph, computed in
one walk over its nodes. Executables are also kept on disk between processes, found
before tracing (``executable_cache.py``, on by default; ``persistent_cache.py``).

The cache keeps at most ``ProgramCache.maxsize`` programs and ``config.program_cache_mb``
of their memory (``program_memory.py``). A program holds executables in native memory,
which Python's garbage collector cannot see: no object of a program refers back to it
(what its traces record lives in a :class:`TraceRecord`), so a program the cache drops
is freed as soon as no function uses it, not at the collector's next full collection.
"""

from __future__ import annotations

import collections
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import jax
import numpy as np

from symnb.core.graph.collector import collector_paused
from symnb.core.graph.config import config
from symnb.core.graph.basic import Apply, Constant, Variable
from symnb.core.rewriting.merge import constant_key
from symnb.lower_xla.check_flag import carrier_position, carries, pack, unpack
from symnb.lower_xla.checks import (
    CheckTable, checkified_outcome, checks_in_inner_graphs, has_checks, own_checks, with_checks,
)
from symnb.lower_xla.interpreter import TraceShapes, build_program
from symnb.lower_xla.jax_private import checkify_predicates_readable
from symnb.lower_xla.executable_cache import disk_cached_call
from symnb.lower_xla.packed_outputs import OutputLayout, packing
from symnb.lower_xla.persistent_cache import enable_persistent_cache, executables_folder
from symnb.lower_xla.program_memory import graph_bytes, trace_bytes
from symnb.lower_xla.registry import holds_host_ops

__all__ = ["Program", "TraceRecord", "StaticArgument", "ProgramCache", "program_cache", "graph_signature",
           "compiled_program", "ChangedShape", "copy_array"]


def graph_signature(inputs: Sequence[Variable], outputs: Sequence[Variable],
                    nodes: Sequence[Apply]) -> tuple:
    """Equal for graphs computing the same thing the same way: input types, each node's
    op, where its inputs come from and its output types, constants by value."""
    position: dict[Variable, int] = {v: i for i, v in enumerate(inputs)}
    parts: list[Any] = [tuple(v.type for v in inputs)]

    def ref(var: Variable) -> Any:
        found = position.get(var)
        if found is not None:
            return found
        if isinstance(var, Constant):
            return ("c", constant_key(var))
        raise ValueError(f"{var!r} is neither an input, a constant nor computed by the graph")

    for node in nodes:
        parts.append((node.op, tuple(ref(v) for v in node.inputs),
                      tuple(v.type for v in node.outputs)))
        for out in node.outputs:
            position[out] = len(position)
    parts.append(tuple(ref(v) for v in outputs))
    return tuple(parts)


class HashedKey:
    """A cache key that hashes its parts once.

    A graph's signature is a tuple of every node's op and types, and a tuple rehashes
    its parts at every dictionary operation: each lookup, and each program the cache
    drops (``OrderedDict.popitem`` hashes the key again), which made the cache's
    bookkeeping a fifth of the time of a long run of small functions (Theano's tests).
    """

    __slots__ = ("parts", "_hash")

    def __init__(self, parts: tuple) -> None:
        self.parts = parts
        self._hash = hash(parts)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, HashedKey) and self._hash == other._hash
                and self.parts == other.parts)


@dataclass
class TraceRecord:
    """What a program's traces record. The functions JAX traces write it, and hold it
    rather than the :class:`Program`, which holds them: a program in no reference cycle
    is freed, with its executables, as soon as the cache and its functions drop it."""

    #: How many times the program was traced (once per new argument signature).
    traces: int = 0
    #: The checks its traces made (a failed check's id indexes it): ``lower_xla/checks.py``.
    checks: CheckTable = field(default_factory=CheckTable)
    #: The shapes and dtypes its last trace saw (for the last new argument signature):
    #: each input's, then each node's outputs', in the order of ``nodes``; None before
    #: the first trace. Recorded while tracing only, so calls cost nothing more.
    last_trace: TraceShapes | None = None
    #: The memory the program holds, in bytes (estimated: ``program_memory.py``): its
    #: graph's arrays, and what JAX keeps of each trace.
    nbytes: int = 0


@dataclass(frozen=True)
class Program:
    """A runnable program and the node list it was built from (for error reports),
    made whole by one constructor call and never changed.

    A program returns its results as a function's call path takes them: the one
    result itself (``bare``: one output and no update), else the list of the outputs
    followed by the updates; a ``checked`` program returns ``(error, results)``.
    ``keeps_old_values``: it donates its updated arguments anyway, and returns their
    old values in place of the updates when a check failed (which the caller must then
    put back); ``static``: argument positions passed as :class:`StaticArgument`
    (specialized on). ``traces``, ``checks``, ``last_trace`` and ``nbytes`` are its
    :class:`TraceRecord`'s.
    """

    jitted: Callable[..., Any]
    nodes: list[Apply]
    checked: bool = False
    keeps_old_values: bool = False
    static: tuple[int, ...] = ()
    #: Runs as ``call(*arrays) -> results`` with no checks, static arguments or
    #: rewrite checks to handle (the function's fast path).
    plain: bool = False
    #: One output and no update: the program returns that output itself, not a list
    #: of it. JAX then builds no list per call, a measurable part of a tiny function's
    #: call (bench/bench_calls.py).
    bare: bool = False
    #: Argument positions whose buffers a call donates (the updated shared variables).
    donate: tuple[int, ...] = ()
    #: The whole graph as one ``jax.jit`` program (``jitted.lower`` shows it), not a
    #: graph run node by node.
    whole_graph: bool = False
    #: What runs the program: ``jitted``, or the same program with its executables
    #: kept on disk (``executable_cache.py``), both dispatched by JAX's C++ code.
    run: Callable[..., Any] | None = None
    #: How a call runs: ``call(*arguments) -> results``; ``run`` itself unless the
    #: program donates (see :func:`donating_call`).
    call: Callable[..., Any] | None = None
    #: The same program returning its outputs packed in one array, and where each lies
    #: in it (``packed_outputs.py``), or None: what the fast path runs, for several
    #: small outputs of one dtype and no update.
    packed: "PackedRun | None" = None
    record: TraceRecord = field(default_factory=TraceRecord, repr=False)

    def __post_init__(self) -> None:
        # Defaults of the frozen fields, settled as the program is made.
        if self.run is None:
            object.__setattr__(self, "run", self.jitted)
        if self.call is None:
            object.__setattr__(self, "call", self.run)

    @property
    def traces(self) -> int:
        return self.record.traces

    @property
    def checks(self) -> CheckTable:
        return self.record.checks

    @property
    def last_trace(self) -> TraceShapes | None:
        return self.record.last_trace

    @property
    def nbytes(self) -> int:
        return self.record.nbytes

    def arguments(self, arrays: list[Any]) -> list[Any]:
        """``arrays`` as the program takes them: static positions wrapped."""
        if not self.static:
            return arrays
        return [StaticArgument(a) if i in self.static else a for i, a in enumerate(arrays)]


@dataclass(frozen=True)
class PackedRun:
    """A program's packed variant (``Program.packed``): ``run(*arrays)`` returns one
    flat array whose parts ``layout`` gives (or, for a trace whose outputs do not fit
    it, the list of the outputs, as the program itself)."""

    run: Callable[..., Any]
    layout: OutputLayout


def donating_call(run: Callable[..., Any], donate: tuple[int, ...]) -> Callable[..., Any]:
    """The call of a program that donates the buffers at ``donate``. The first call for
    new argument shapes (a new executable, whose memory needs are unknown until it runs)
    donates copies: an executable that fails when it runs (out of memory) has consumed
    what it was donated, and the caller's values must stay intact. Once the shapes have
    run, calls donate the values themselves (JAX compiles per shape, so the same shapes
    need the same memory). That first call compiles, with the garbage collector paused.
    (A closure, not a method of the program: see :class:`TraceRecord`.)"""
    proven: set = set()  # argument shapes (and static values) that have run successfully

    def call(*args: Any) -> Any:
        # A StaticArgument has no shape: it stands for itself (hashed by its value).
        key = tuple([getattr(a, "shape", a) for a in args])
        if key in proven:
            return run(*args)
        copies = list(args)
        for i in donate:
            copies[i] = copy_array(args[i])
        # A new executable: JAX traces, lowers and compiles (or reads it back from disk),
        # allocating many objects that stay alive or die young; a collection meanwhile
        # would re-scan every live object of the session (see collector_paused). On a
        # fresh process's first call, a full collection fell in the lowering: ~0.03 s,
        # 3% of bench/bench_first_result.py.
        with collector_paused():
            results = run(*copies)
        proven.add(key)
        return results

    return call


def copy_array(value: Any) -> Any:
    """A copy of a JAX array in its own buffers, where it is (sharded the same way,
    also over the devices of several processes). An array JAX may move (not committed
    to its device) stays so: committed, it would refuse a call whose other arguments
    lie on another device, as the array itself would not."""
    committed = getattr(value, "committed", True)
    return jax.device_put(value, value.sharding if committed else None, may_alias=False)


class StaticArgument:
    """An argument the program specializes on: hashable by dtype, shape and bytes, so
    ``jax.jit`` compiles once per distinct value (``static_argnums``)."""

    __slots__ = ("array", "_key")

    def __init__(self, array: Any) -> None:
        self.array = np.asarray(array)
        self._key = (self.array.dtype.str, self.array.shape, self.array.tobytes())

    def __hash__(self) -> int:
        return hash(self._key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StaticArgument) and self._key == other._key


@dataclass
class ProgramCache:
    """Programs by key, least recently used dropped first beyond ``maxsize`` programs or
    ``config.program_cache_mb`` of their memory (``Program.nbytes``; the most recently
    used program is kept whatever its size); counts hits, misses, traces.

    The memory is checked whenever a program is looked up or added: a program's traces
    (one per new argument signature, at its calls) add to its size in between. Dropping
    a program frees it unless a function still uses it (the function keeps it and runs).
    """

    maxsize: int = 128
    hits: int = 0
    misses: int = 0
    traces: int = 0
    _entries: "collections.OrderedDict[Any, Program]" = field(default_factory=collections.OrderedDict)
    # Functions are compiled from several threads too.
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def get(self, key: Any) -> Program | None:
        with self._lock:
            program = self._entries.get(key)
            if program is not None:
                self._entries.move_to_end(key)
                self.hits += 1
            self._drop_beyond_bounds()
            return program

    def put(self, key: Any, program: Program) -> None:
        with self._lock:
            self.misses += 1
            self._entries[key] = program
            self._entries.move_to_end(key)
            self._drop_beyond_bounds()

    def _drop_beyond_bounds(self) -> None:
        entries = self._entries
        while len(entries) > self.maxsize:
            entries.popitem(last=False)
        budget = config.program_cache_mb << 20
        held = sum(program.nbytes for program in entries.values())
        while held > budget and len(entries) > 1:
            held -= entries.popitem(last=False)[1].nbytes

    @property
    def nbytes(self) -> int:
        """The memory its programs hold, in bytes (estimated: ``program_memory.py``)."""
        with self._lock:
            return sum(program.nbytes for program in self._entries.values())

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


program_cache = ProgramCache()


def compiled_program(inputs: Sequence[Variable], outputs: Sequence[Variable], nodes: list[Apply],
                     donate: tuple[int, ...], mode_key: Any, static: tuple[int, ...] = (),
                     shardings: tuple | None = None, bare: bool = False,
                     n_outputs: int | None = None) -> Program:
    """The jitted program for this graph: from the cache when an equal graph was
    compiled before, else built (and cached).

    Arguments at ``static`` positions arrive as :class:`StaticArgument` and reach the
    graph as NumPy values, so lengths computed from them are static. The last
    ``len(donate)`` outputs are the new values of the arguments at ``donate`` (shared
    variables' updates), whose buffers the program may reuse: only while each keeps its
    shape (:class:`ChangedShape`). A program that checks values returns its error
    beside its outputs (``checks.own_checks``, or checkify for checks in loop bodies and
    branches: ``checks.checkified_outcome``); a failed check must leave shared variables
    as they were, so it donates only when it can return their old values (both do,
    unless this JAX's checkify hides whether a check failed).

    ``shardings``: ``(in_shardings, out_shardings)``, one JAX sharding (or None: JAX
    decides) per argument and per output; ``jax.jit`` then compiles one SPMD program.
    ``bare``: the one output (no update) is returned itself (see :class:`Program`).
    ``n_outputs``: how many of ``outputs`` are the function's (the rest are updates);
    a checked program returns its flag in one of them (``check_flag.py``).
    """
    enable_persistent_cache()
    # index_checks decides which checks the rules emit (read when they are built, below).
    key = HashedKey((graph_signature(inputs, outputs, nodes), donate, mode_key, static,
                     config.index_checks, shardings, bare, n_outputs))
    program = program_cache.get(key)
    if program is not None:
        return program
    # What the functions below refer to (never the Program: see TraceRecord).
    record = TraceRecord(nbytes=graph_bytes(nodes))
    per_trace = trace_bytes(nodes)

    def remember(shapes: TraceShapes) -> None:
        record.last_trace = shapes

    run = build_program(inputs, outputs, nodes, record=remember)
    if donate:
        run = keep_shapes(run, donate)
    checked = has_checks(nodes)
    # Checks only in the program's own graph: the program computes its error (and keeps
    # the old values) itself; checks in loop bodies or branches need checkify.
    own = checked and not checks_in_inner_graphs(nodes)
    if own:
        run = own_checks(run, record.checks, donate)
    # checkify's error says in the program whether a check failed (jax_private.py):
    # then the program keeps the old values, donates and carries its flag as own_checks.
    inner = checked and not own and checkify_predicates_readable()
    # The position of the output carrying the checks' flag (one transfer for both).
    carrier = carrier_position(outputs[:n_outputs]) if (own or inner) and n_outputs \
        and shardings is None else None
    carrier_dtype = None if carrier is None else np.dtype(outputs[carrier].type.dtype)

    def traced(*args: Any) -> Any:
        # This body runs only while JAX traces (once per new input shape/dtype/static value).
        record.traces += 1
        record.nbytes += per_trace
        program_cache.traces += 1
        statics = {i: args[i].array for i in static}
        dynamic = [a for i, a in enumerate(args) if i not in statics]

        def run_all(*values: Any) -> Any:
            supplied = iter(values)
            full = [statics[i] if i in statics else next(supplied) for i in range(len(args))]
            with collector_paused():
                return run(*full)

        if not checked:
            results = run_all(*dynamic)
            return results[0] if bare else results
        error, results = (run_all if own else with_checks(run_all, record.checks))(*dynamic)
        if inner:  # the donated arguments are never static
            error, results = checkified_outcome(error, results, [args[i] for i in donate])
        if carrier is not None and carries(results[carrier]):
            results = list(results)
            results[carrier] = pack(error.code, results[carrier], carrier_dtype)
            error = error._replace(code=None)  # the code travels in the carrier
        return error, results[0] if bare else results

    # A check that fails, or an op's perform raising in its host callback, must leave the
    # shared variables as they were: such a program donates only when it returns the old
    # values (a failed perform returns nothing).
    donated = donate if (own or inner or not checked) and not holds_host_ops(nodes) else ()
    jitted = jax.jit(traced, static_argnums=static, donate_argnums=donated,
                     **_jit_shardings(shardings, static, checked, bare))
    folder = executables_folder()
    # Executables of programs over several devices or specialized on values stay JAX's.
    keep = folder is not None and shardings is None and not static
    runs = disk_cached_call(jitted, record, nodes, key.parts, folder) if keep else jitted
    packed = None
    # Several small outputs of one dtype, no update: also packed in one buffer (one
    # output's dispatch and copy instead of several: packed_outputs.py).
    layout = OutputLayout.of(outputs) if not checked and not static and not donate \
        and shardings is None and not bare and n_outputs == len(outputs) else None
    if layout is not None:
        packed_jitted = jax.jit(packing(traced, layout))
        packed = PackedRun(disk_cached_call(packed_jitted, record, nodes, (*key.parts, "packed"), folder)
                           if keep else packed_jitted, layout)
    if carrier is not None:
        runs = _unpacking(runs, carrier, outputs[carrier].type.ndim, carrier_dtype, bare)
    entry = Program(jitted=jitted, nodes=nodes, checked=checked, keeps_old_values=checked and bool(donated),
                    static=static, plain=not checked and not static, bare=bare, donate=donated,
                    whole_graph=True, run=runs,
                    call=donating_call(runs, donated) if donated else runs, packed=packed,
                    record=record)
    program_cache.put(key, entry)
    return entry


def _unpacking(run: Callable[..., Any], carrier: int, ndim: int, dtype: np.dtype,
               bare: bool) -> Callable[..., Any]:
    """``run`` (a checked program whose flag travels in output ``carrier``: see
    ``check_flag.py``) returning ``(error, results)`` as every checked program does
    (its error a ``CheckOutcome`` or ``CheckifyOutcome``), the carrier read to the host
    once and split into the code and the output."""

    def call(*args: Any) -> tuple[Any, Any]:
        error, results = run(*args)
        if error.code is not None:  # a carrier too large for this trace: the code apart
            return error, results
        if bare:
            code, results = unpack(results, ndim, dtype)
        else:
            results = list(results)
            code, results[carrier] = unpack(results[carrier], ndim, dtype)
        return error._replace(code=code), results

    return call


def _jit_shardings(shardings: tuple | None, static: tuple[int, ...], checked: bool,
                   bare: bool) -> dict:
    """``jax.jit``'s ``in_shardings``/``out_shardings`` for the program's arguments and
    results (static arguments have none; a checked program returns ``(error, results)``,
    whose error JAX places; a bare one its one output)."""
    if shardings is None:
        return {}
    ins, outs = shardings
    in_shardings = tuple(s for i, s in enumerate(ins) if i not in static)
    out_shardings = outs[0] if bare else list(outs)
    return {"in_shardings": in_shardings,
            "out_shardings": (None, out_shardings) if checked else out_shardings}


class ChangedShape(Exception):
    """An update changes its shared variable's shape (raised while tracing): no result
    has the shape of the buffer it was donated, so the program must not donate (XLA
    could not reuse that buffer, and JAX would warn about it)."""


def keep_shapes(run: Callable[..., list[Any]], donate: Sequence[int]) -> Callable[..., list[Any]]:
    """``run``, raising :class:`ChangedShape` while tracing when one of its last
    ``len(donate)`` results (the new values of the arguments at ``donate``) does not
    have the shape of that argument."""

    def guarded(*args: Any) -> list[Any]:
        results = run(*args)
        first = len(results) - len(donate)
        for k, position in enumerate(donate):
            if np.shape(results[first + k]) != np.shape(args[position]):
                raise ChangedShape(position)
        return results

    return guarded
