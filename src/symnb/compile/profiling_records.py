"""What a profile records: a compile, and the report of a call's time by node and line.

Apart from ``profiling.py`` so that the report and the tables, which ``ProfileStats``
imports when asked, import these records and not ``ProfileStats`` back.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from symnb.core.graph.type import describe_shape

__all__ = ["CompileRecord", "ProfileReport", "describe_signature"]


class CompileRecord(NamedTuple):
    """A call that traced and compiled the program: the argument shapes that caused it,
    the call's whole time, and its tracing, lowering and XLA-compile seconds."""

    shapes: tuple
    seconds: float
    tracing: float
    lowering: float
    xla_compile: float


class ProfileReport(NamedTuple):
    """Per-node and per-line seconds per call, summing (with ``outside`` and
    ``unattributed``) to ``call_seconds``, the real time of a call."""

    source: str                     # how the node times were measured
    call_seconds: float             # the real time of one call (the calls' median)
    program_seconds: float          # of which XLA's operations ran (their own time, traced)
    outside_seconds: float          # the rest: checks, dispatch, transfers, output copies
    node_seconds: dict[int, float]  # scaled, per toposort index (every node)
    line_seconds: dict[str, float]  # scaled, per user line
    unattributed: float             # XLA operations no node's scope names (copies, layouts)
    split_among: dict[int, int]     # node -> nodes an XLA operation (a fusion) was split among
    facts: Any                      # profiling_xla.CompiledFacts, or None
    footprint: list[Any]            # footprint.Footprint entries, largest first
    traced_seconds: float = 0.0     # XLA's operations as traced, before scaling to the call
    # scaled, each XLA operation split among several nodes (a fusion): (its seconds,
    # ((node index, the share node_seconds gives it), ...)); () when none was measured
    fused: tuple = ()


def describe_signature(shapes: tuple) -> str:
    """``float32 (256, 784), int32 (256,)``: the argument shapes of a compile."""
    return ", ".join(f"{dtype} {describe_shape(shape)}" for shape, dtype in shapes)
