"""Giving a call's measured time to the function's nodes and the user's lines.

Every measured XLA operation is kept whole (:class:`~records.Operation`): an operation
of one node is that node's own time; an operation XLA fused from several nodes' work is
one unit whose members are listed, with no share of its time invented for each (its
time was measured for the whole); an operation no node's scope names is XLA's own work
(copies, layout changes). With the time outside the XLA program (argument checks,
dispatch, transfers, output copies) these units add up to the real call:
:func:`call_units` lists them, :class:`NodeTimes` hands them to the graph pictures.
"""

from __future__ import annotations

import re
from typing import Iterable, NamedTuple, Sequence

from symnb.compile.profiling.records import Operation, ProfileReport
from symnb.core.graph.basic import Apply, walk_nodes
from symnb.lower_xla.interpreter import scope_name, scope_names

__all__ = ["operations_of", "Unit", "call_units", "NodeTimes", "node_times", "OUTSIDE",
           "UNNAMED", "where"]

OUTSIDE = "(outside the XLA program: argument checks, dispatch, transfers, output copies)"
UNNAMED = "(XLA work no node names: copies and layout changes XLA added)"

_REPEAT = re.compile(r"#\d+$")  # scope_names' suffix for a node's repeat of op and line


def operations_of(times: dict[str, float], scopes: dict[str, list[tuple[str, ...]]],
                  nodes: Sequence[Apply]) -> list[Operation]:
    """Each traced operation (``times``: seconds per run by HLO name) with the nodes and
    lines its work is for, read from its scopes (``xla.hlo_scopes``). Each node of the
    program has a scope of its own (:func:`scope_names`), so an operation's members are
    exactly the nodes whose work XLA put in it."""
    by_scope = {scope: index for index, scope in enumerate(scope_names(nodes))}
    lines = _scope_lines(nodes)
    found = []
    for name, seconds in times.items():
        members: dict[int, None] = {}
        op_lines: dict[str, None] = {}
        for path in scopes.get(name) or [()]:
            member = by_scope.get(path[0]) if path else None
            if member is None:
                continue  # an instruction XLA added inside the operation
            members[member] = None
            inner = _REPEAT.sub("", path[-1])
            op_lines[lines.get(inner) or lines.get(_REPEAT.sub("", path[0])) or inner] = None
        found.append(Operation(name, seconds, tuple(sorted(members)), tuple(op_lines)))
    return found


def _scope_lines(nodes: Sequence[Apply]) -> dict[str, str]:
    """Scope -> the user's line it names (``file.py:12: y = x * 2``), for every node of
    the graph and of its inner graphs (a loop body's scopes name the body's lines)."""
    lines: dict[str, str] = {}
    for node in walk_nodes(nodes):
        if node.site:
            lines.setdefault(scope_name(node), where(node))
    return lines


def where(node: Apply) -> str:
    """The user's line that built ``node``, as every table names it."""
    return node.site.describe(verb="") if node.site else "(built by symnb)"


class Unit(NamedTuple):
    """A part of the call with a time of its own: a node's own operations, one fused
    operation, XLA's unnamed work, or the time outside the program."""

    kind: str                # "node", "fused", "unnamed" or "outside"
    seconds: float           # per call
    share: float             # of the call (0..1); all units of a call add up to 1
    members: tuple[int, ...]  # the nodes (indices in f.nodes): one for "node"
    name: str = ""           # a fused operation's XLA name


def call_units(report: ProfileReport) -> list[Unit]:
    """The call as units that add up to it: each node's own time (nodes with none are
    left out), each fused operation as one unit, XLA's unnamed work, the time outside
    the program (listed even at 0 s, so every view lists the same rows)."""
    total = report.call_seconds or 1.0
    units = [Unit("node", s, s / total, (i,)) for i, s in report.node_seconds.items() if s > 0]
    units += [Unit("fused", op.seconds, op.seconds / total, op.members, op.name)
              for op in report.fused]
    if report.unattributed > 0:
        units.append(Unit("unnamed", report.unattributed, report.unattributed / total, ()))
    outside = max(report.outside_seconds, 0.0)
    units.append(Unit("outside", outside, outside / total, ()))
    return units


class FusedUnit(NamedTuple):
    """A fused operation as a picture draws it: one box, its time, its member nodes."""

    name: str
    seconds: float
    members: tuple[Apply, ...]


class NodeTimes(dict):
    """``{node: its own seconds per call}``, what a graph picture colours boxes by, with
    the rest of the call: ``fused`` operations (one unit each, their members without a
    time of their own), ``unnamed`` XLA work, the time ``outside`` the program, and
    ``call_seconds`` they all add up to. A plain dict of times is a NodeTimes with none
    of the rest."""

    def __init__(self, own: Iterable[tuple[Apply, float]] = (), fused: Sequence[FusedUnit] = (),
                 unnamed: float = 0.0, outside: float = 0.0, call_seconds: float | None = None,
                 source: str = "") -> None:
        super().__init__(own)
        self.fused = tuple(fused)
        self.unnamed, self.outside = unnamed, outside
        self.call_seconds = call_seconds
        self.source = source

    def fused_members(self) -> dict[int, str]:
        """``{id(node): the fused operation's name}`` for every member of one (a node in
        several: the first)."""
        found: dict[int, str] = {}
        for unit in self.fused:
            for node in unit.members:
                found.setdefault(id(node), unit.name)
        return found


def node_times(report: ProfileReport | None, nodes: Sequence[Apply]) -> NodeTimes:
    """The report's units keyed by the nodes of ``nodes`` (``f.nodes``); empty before
    the first call."""
    if report is None:
        return NodeTimes()
    # In the program's order (then by name), not by time: a picture labels them F1, F2...
    # and must label them alike from run to run.
    fused = [FusedUnit(op.name, op.seconds, tuple(nodes[i] for i in op.members))
             for op in sorted(report.fused, key=lambda op: (op.members, op.name))]
    return NodeTimes(((nodes[i], s) for i, s in report.node_seconds.items()), fused,
                     report.unattributed, max(report.outside_seconds, 0.0),
                     report.call_seconds, report.source)
