"""Assembling a profile's report: XLA's trace (or the node-by-node replay) of the
program on the last call's arguments, scaled so that the rows sum to the real call."""

from __future__ import annotations

import contextlib
from typing import Any

import jax

from symnb.compile.devices import on_device
from symnb.compile.footprint import storage_footprint
from symnb.compile.profiling_records import ProfileReport
from symnb.compile.profiling_xla import (
    attribute_to_nodes, compiled_facts, hlo_scopes, module_name, trace_operations,
)


__all__ = ["make_report"]

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
    facts = None
    if program.whole_graph:
        try:
            return _from_xla_trace(stats, program, full, footprint, repeats)
        except RuntimeError:  # the profiler is busy (a trace of the user's own is running)
            pass
    raw = stats.replay_node_seconds(list(arrays), max(1, repeats // 2))
    call = stats.call_median or sum(raw.values())
    factor = call / (sum(raw.values()) or 1.0)
    nodes = {i: s * factor for i, s in raw.items()}
    lines: dict[str, float] = {}
    for i, s in nodes.items():
        site = fn.nodes[i].site
        key = site.describe(verb="") if site else "(built by symnb)"
        lines[key] = lines.get(key, 0.0) + s
    return ProfileReport(REPLAY, call, call, 0.0, nodes, lines, 0.0, {}, facts, footprint)


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
    found = attribute_to_nodes(times.seconds, hlo_scopes(facts.hlo_text), fn.nodes)
    call = stats.call_median or times.run_median
    # The program's time is its XLA operations' own time in the trace (not the traced
    # runs' wall time: the profiler and JAX's dispatch slow those down); the rest of
    # the real call is outside the program.
    measured = sum(found.node_seconds.values()) + found.unattributed
    program_seconds = min(measured, call) if measured else min(times.run_median, call)
    factor = program_seconds / measured if measured else 0.0
    return ProfileReport(
        XLA_TRACE, call, program_seconds, call - program_seconds,
        {i: s * factor for i, s in found.node_seconds.items()},
        {line: s * factor for line, s in found.line_seconds.items()},
        found.unattributed * factor, found.split_among, facts, footprint, measured,
        tuple((s * factor, tuple((i, share * factor) for i, share in shares))
              for s, shares in found.fused))



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
