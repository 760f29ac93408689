"""What XLA itself says about a compiled function's program, for its profile.

- Cost and memory: the program compiled ahead of time (``jitted.lower(...).compile()``)
  gives ``cost_analysis()`` (flops, bytes accessed) and ``memory_analysis()``
  (argument, output, temporary and aliased bytes).
- Which nodes each operation works for (:func:`hlo_scopes`): each HLO instruction's
  ``op_name`` metadata holds the ``OpClass(file.py:line)`` named scopes the lowering
  writes (``interpreter.scope_name``): the outermost scope is the node of ``f.nodes``,
  the innermost one the user's line (inside a loop body, the body's line). A fusion's
  scopes are those of the instructions fused into it. ``measure.py`` times the
  operations, ``attribute.py`` gives their times to the nodes.

Loops: XLA's ``cost_analysis`` counts a while loop's body once, however many times it
runs (a scan of 200 steps reports one step's flops). ``loop_cost_correction`` adds the
missing ``trip_count - 1`` runs: each body is made the entry of a module of its own
(the compiled HLO text, with the body marked ``ENTRY``) and XLA's own cost analysis
reads it; the trip count is the ``known_trip_count`` XLA writes in the while's backend
config. We chose this over compiling a scan's inner graph alone (``build_program`` on
the inner shapes) because it is exact for the program that runs: the same fusions and
the same cost model as the rest of the count, every while loop (not only scans; the
backward scans of a gradient too), with no second compile.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass
from typing import Any, Sequence

import jax

from symnb.lower_xla.jax_private import hlo_cost_analyser

__all__ = ["CompiledFacts", "compiled_facts", "hlo_scopes", "module_name",
           "without_stack_frames", "loop_cost_correction"]

_SCOPE = re.compile(r"^[A-Za-z_]\w*\([^()]*:\d+\)(#\d+)?$")
_INSTRUCTION = re.compile(r"^\s*(?:ROOT\s+)?%([\w.\-]+)\s*=\s*(.*)$")
_CALLS = re.compile(r"calls=%([\w.\-]+)")
_OP_NAME = re.compile(r'op_name="([^"]*)"')
_COMPUTATION = re.compile(r"^(?:ENTRY\s+)?%([\w.\-]+)\s.*\{\s*$")
_WHILE = re.compile(r"\swhile\(.*?condition=%([\w.\-]+), body=%([\w.\-]+)")
_TRIP_COUNT = re.compile(r'"known_trip_count":\{"n":"(\d+)"\}')
_COST_KEYS = ("flops", "bytes accessed", "transcendentals")


@dataclass
class CompiledFacts:
    """XLA's analyses of the program compiled for one argument signature."""

    flops: float
    bytes_accessed: float
    transcendentals: float
    argument_bytes: int
    output_bytes: int
    temp_bytes: int
    alias_bytes: int
    code_bytes: int
    hlo_text: str
    uncounted_loops: int = 0  # while loops of unknown trip count: their bodies counted once
    #: The executable compiled here (``jax.stages.Compiled``): the one a profile times, as
    #: its operations are the ones ``hlo_text`` names.
    executable: Any = None

    @property
    def peak_bytes(self) -> int:
        """The most memory one call holds at once: its arguments, outputs and temporaries
        (outputs written into donated arguments counted once)."""
        return self.argument_bytes + self.output_bytes + self.temp_bytes - self.alias_bytes


def compiled_facts(program: Any, call_args: Sequence[Any], context: Any) -> CompiledFacts:
    """Compile ``program`` ahead of time for ``call_args`` and read XLA's analyses.

    Lowering traces the graph again; that trace is not a call's, so the program's
    trace counters (which tell a call that compiled from one that did not) are kept.
    It compiles without JAX's persistent cache: that cache's key leaves out the
    operations' metadata, so an executable read back from it may carry the node scopes
    of another graph of the same structure (another process's lines), which the
    profile could not map onto this function's nodes.
    """
    from symnb.lower_xla.cache import program_cache
    from symnb.lower_xla.persistent_cache import jax_cache_bypassed

    counted = (program.traces, program_cache.traces)
    try:
        with context() if context is not None else contextlib.nullcontext(), jax_cache_bypassed():
            compiled = program.jitted.lower(*call_args).compile()
    finally:
        program.record.traces, program_cache.traces = counted
    cost = compiled.cost_analysis() or {}
    if isinstance(cost, list):  # older JAX: one dict per device
        cost = cost[0] if cost else {}
    memory = compiled.memory_analysis()
    hlo_text = compiled.as_text()
    extra, uncounted = loop_cost_correction(hlo_text)
    total = {key: float(cost.get(key, 0.0)) + extra.get(key, 0.0) for key in _COST_KEYS}
    return CompiledFacts(
        flops=total["flops"], bytes_accessed=total["bytes accessed"],
        transcendentals=total["transcendentals"],
        argument_bytes=int(getattr(memory, "argument_size_in_bytes", 0)),
        output_bytes=int(getattr(memory, "output_size_in_bytes", 0)),
        temp_bytes=int(getattr(memory, "temp_size_in_bytes", 0)),
        alias_bytes=int(getattr(memory, "alias_size_in_bytes", 0)),
        code_bytes=int(getattr(memory, "generated_code_size_in_bytes", 0)),
        hlo_text=hlo_text, uncounted_loops=uncounted, executable=compiled)


def loop_cost_correction(hlo_text: str) -> tuple[dict[str, float], int]:
    """What XLA's cost analysis of ``hlo_text`` misses by counting each while loop's body
    (and condition) once: for each loop of the entry computation, ``trips - 1`` more runs
    of its body and ``trips`` more of its condition, a nested loop's runs multiplied by
    its enclosing loops'. Returns the cost to add ({flops, bytes accessed,
    transcendentals}) and how many loops had no known trip count (left counted once)."""
    computations, entry = _computation_texts(hlo_text)
    if entry is None or "while(" not in hlo_text:
        return {}, 0
    analyse = _body_cost_analyser(hlo_text, computations)
    if analyse is None:  # this jaxlib offers no HLO cost analysis: the count stays XLA's
        return {}, sum(1 for text in computations.values() for _ in _WHILE.finditer(text))
    try:
        return _missed_loop_cost(computations, entry, analyse)
    except (RuntimeError, ValueError):  # XLA could not read a body alone: its count stays
        return {}, sum(1 for text in computations.values() for _ in _WHILE.finditer(text))


def _missed_loop_cost(computations: dict[str, str], entry: str,
                      analyse: Any) -> tuple[dict[str, float], int]:
    uncounted = [0]
    corrected: dict[str, dict[str, float]] = {}

    def missed(name: str) -> dict[str, float]:
        """Cost of computation ``name``'s loops that XLA's count of it left out."""
        extra = dict.fromkeys(_COST_KEYS, 0.0)
        for line in computations[name].splitlines():
            found = _WHILE.search(line)
            if found is None:
                continue
            trips = _TRIP_COUNT.search(line)
            if trips is None:
                uncounted[0] += 1
            runs = int(trips.group(1)) if trips else 1
            for part, part_runs in ((found.group(1), runs + 1), (found.group(2), runs)):
                once = analyse(part)
                if part not in corrected:
                    inner = missed(part)
                    corrected[part] = {k: once[k] + inner[k] for k in _COST_KEYS}
                for key in _COST_KEYS:
                    extra[key] += part_runs * corrected[part][key] - once[key]
        return extra

    return missed(entry), uncounted[0]


def _computation_texts(hlo_text: str) -> tuple[dict[str, str], str | None]:
    """Each computation's text by name, and the entry computation's name."""
    texts: dict[str, list[str]] = {}
    entry = None
    current: list[str] | None = None
    for line in hlo_text.splitlines():
        header = _COMPUTATION.match(line)
        if header:
            current = texts.setdefault(header.group(1), [])
            entry = header.group(1) if line.startswith("ENTRY") else entry
        elif line.startswith("}"):
            current = None
        elif current is not None:
            current.append(line)
    return {name: "\n".join(lines) for name, lines in texts.items()}, entry


def _body_cost_analyser(hlo_text: str, computations: dict[str, str]) -> Any:
    """A function giving XLA's cost analysis of one computation of ``hlo_text`` (run
    once, as the entry of a module of its own), or None where jaxlib offers none."""
    cost_analysis = hlo_cost_analyser()
    if cost_analysis is None:
        return None
    client = jax.devices()[0].client
    lines = hlo_text.splitlines()
    cache: dict[str, dict[str, float]] = {}

    def analyse(name: str) -> dict[str, float]:
        if name not in cache:
            module = ["HloModule loop_body"]
            for line in lines[1:]:
                line = line[len("ENTRY "):] if line.startswith("ENTRY ") else line
                found = _COMPUTATION.match(line)
                module.append(f"ENTRY {line}" if found and found.group(1) == name else line)
            cost = cost_analysis(client, "\n".join(module))
            cache[name] = {key: float(cost.get(key, 0.0)) for key in _COST_KEYS}
        return cache[name]

    return analyse


_STACK_SECTIONS = ("FileNames", "FunctionNames", "FileLocations", "StackFrames")
_STACK_FRAME_ID = re.compile(r",? stack_frame_id=\d+")


def without_stack_frames(hlo_text: str) -> str:
    """The HLO text without XLA's index of Python stack frames (the ``FileNames``,
    ``FunctionNames``, ``FileLocations`` and ``StackFrames`` blocks after the module
    line, and each instruction's ``stack_frame_id``): paths of the kernel, tornado and
    symnb's own calls that say nothing about the program. Each operation keeps its
    ``op_name``, the symnb scope naming its node and line."""
    blocks = hlo_text.split("\n\n")
    kept = [b for b in blocks if b.split("\n", 1)[0].strip() not in _STACK_SECTIONS]
    return re.sub(r"\n{3,}", "\n\n", _STACK_FRAME_ID.sub("", "\n\n".join(kept)))


def module_name(hlo_text: str) -> str:
    """The HLO module's name (``jit_traced``), as trace events name it."""
    first = hlo_text.split("\n", 1)[0]
    return first.split()[1].rstrip(",") if first.startswith("HloModule") else ""


def hlo_scopes(hlo_text: str) -> dict[str, list[tuple[str, ...]]]:
    """For each HLO instruction: the symnb scope paths of the work it does (a fusion's:
    its fused instructions'), in the program's order; () for an instruction no scope
    names."""
    computations: dict[str, list[tuple[str, tuple[str, ...], str | None]]] = {}
    current: list | None = None
    for line in hlo_text.splitlines():
        header = _COMPUTATION.match(line)
        if header:
            current = computations.setdefault(header.group(1), [])
            continue
        found = _INSTRUCTION.match(line)
        if found is None or current is None:
            continue
        op_name = _OP_NAME.search(line)
        path = tuple(part for part in op_name.group(1).split("/") if _SCOPE.match(part)) \
            if op_name else ()
        calls = _CALLS.search(line) if "fusion(" in line else None
        current.append((found.group(1), path, calls.group(1) if calls else None))
    result: dict[str, list[tuple[str, ...]]] = {}
    for instructions in computations.values():
        for name, path, fused in instructions:
            parts = [p for _, p, _ in computations.get(fused, ()) if p] if fused else []
            result[name] = parts or [path]
    return result
