"""What a profile records: a compile, the XLA operations of a call with the nodes whose
work each one does, and the report they make.

Apart from ``stats.py`` so that measuring, attributing and rendering, which
``ProfileStats`` imports when asked, import these records and not ``ProfileStats`` back.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from symnb.core.graph.type import describe_shape

__all__ = ["CompileRecord", "Operation", "ProfileReport", "describe_signature"]


class CompileRecord(NamedTuple):
    """A call that traced and compiled the program: the argument shapes that caused it,
    the call's whole time, and its tracing, lowering and XLA-compile seconds."""

    shapes: tuple
    seconds: float
    tracing: float
    lowering: float
    xla_compile: float


class Operation(NamedTuple):
    """One measured operation of the program: an XLA operation (or, in a node-by-node
    replay, one node), its time per call and the nodes whose work it does.

    An operation of several nodes (a fusion) is one unit: its time is measured for the
    whole, so it is never split among its members, which carry no time of their own."""

    name: str                  # XLA's name (``fusion.3``, ``dot.2``); ``#i`` for a replayed node
    seconds: float             # per call, scaled to the real call
    members: tuple[int, ...]   # indices in ``f.nodes`` (toposort order); () for XLA's own work
    lines: tuple[str, ...]     # the user's lines of that work, in the program's order

    @property
    def fused(self) -> bool:
        """Several nodes' work in this one operation."""
        return len(self.members) > 1


class ProfileReport(NamedTuple):
    """A call's time as measured operations, which with ``outside_seconds`` sum to
    ``call_seconds``, the real time of a call."""

    source: str                     # how the operations were measured
    call_seconds: float             # the real time of one call (the calls' median)
    program_seconds: float          # of which XLA's operations ran (their own time, traced)
    outside_seconds: float          # the rest: checks, dispatch, transfers, output copies
    operations: tuple               # Operation entries, scaled to the real call
    node_count: int                 # nodes in ``f.nodes``
    facts: Any                      # xla.CompiledFacts, or None
    footprint: list[Any]            # footprint.Footprint entries, largest first
    traced_seconds: float = 0.0     # XLA's operations as traced, before scaling to the call

    @property
    def node_seconds(self) -> dict[int, float]:
        """Each node's own time per call (every index of ``f.nodes``): its operations of
        no other node. A node whose work is all in fused operations has 0."""
        own = dict.fromkeys(range(self.node_count), 0.0)
        for op in self.operations:
            if len(op.members) == 1:
                own[op.members[0]] += op.seconds
        return own

    @property
    def fused(self) -> tuple[Operation, ...]:
        """The operations that do several nodes' work, costliest first."""
        return tuple(sorted((op for op in self.operations if op.fused), key=lambda op: -op.seconds))

    @property
    def unattributed(self) -> float:
        """XLA work no node's scope names (copies, layout changes XLA added)."""
        return sum(op.seconds for op in self.operations if not op.members)


def describe_signature(shapes: tuple) -> str:
    """``float32 (256, 784), int32 (256,)``: the argument shapes of a compile."""
    return ", ".join(f"{dtype} {describe_shape(shape)}" for shape, dtype in shapes)
