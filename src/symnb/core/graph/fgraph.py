"""``FunctionGraph``: the graph a compiled function owns, and rewrites edit.

A FunctionGraph copies the user's graph between its inputs and outputs (so rewrites
never touch the user's variables), keeps the clients of every variable (who reads it),
and offers one editing primitive, :meth:`FunctionGraph.replace`, which checks types,
imports the new nodes and drops the nodes nothing reads any more. Every walk is
iterative: a graph ten thousand nodes deep is as easy as a shallow one.

Inputs are not copied: they are the function's own input and shared variables, which
the compiled program binds to its arguments.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Sequence, Union

from symnb.core.graph.errors import SymnbError, label
from symnb.core.graph.basic import Apply, Constant, Variable, toposort
from symnb.core.graph.type import TensorType
from symnb.core.graph.test_value_memory import copy_dropped

__all__ = ["FunctionGraph", "InconsistencyError", "RewriteRecord", "types_compatible"]

#: A client of a variable: ``(node, input index)``, or ``("output", output index)``.
Client = tuple[Union[Apply, str], int]


class InconsistencyError(SymnbError, TypeError):
    """A replacement of the wrong type, or a graph whose bookkeeping is broken."""


class RewriteRecord(NamedTuple):
    """One applied rewrite: its name, the node it replaced, and the node now computing
    the replaced value (``None`` when that value is an input or a constant).

    ``domain`` is None when the rewrite is exact (keeps the value for every input), else
    the rewrite's own words for where it is exact (``"where x is finite and non-zero"``).
    ``clients``: the readers of ``old`` that were moved to ``new``, and ``imported``: the
    nodes the replacement brought into the graph. A later rewrite edits the inputs of the
    nodes it keeps, so these two are what lets the graph of any step be read back
    (:mod:`symnb.core.graph.history`).
    """

    name: str
    before: Apply | None
    after: Apply | None
    old: Variable
    new: Variable
    domain: str | None = None
    clients: tuple = ()
    imported: tuple = ()

    @property
    def exact(self) -> bool:
        """True when the replacement keeps the value for every input."""
        return self.domain is None


def types_compatible(old: TensorType, new: TensorType) -> bool:
    """True when ``new`` may stand for ``old``: same dtype and ndim, and no static length
    that contradicts the other's."""
    return (old.dtype == new.dtype and old.ndim == new.ndim
            and all(a is None or b is None or a == b for a, b in zip(old.shape, new.shape)))


class FunctionGraph:
    """A copy of the graph from ``inputs`` to ``outputs``, with clients and editing.

    - ``inputs``/``outputs``: lists of variables (outputs change when replaced);
    - ``apply_nodes``: the set of nodes; ``clients[var]``: who reads ``var``;
    - ``history``: every replacement made, as :class:`RewriteRecord`;
    - ``equiv``: user variable -> its copy here (when ``clone=True``).
    """

    def __init__(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
                 clone: bool = True) -> None:
        self.inputs = list(inputs)
        self.apply_nodes: set[Apply] = set()
        # Clients are kept as insertion-ordered dicts used as sets: removing one is O(1)
        # even for a constant read by thousands of nodes.
        self.clients: dict[Variable, dict[Client, None]] = {}
        self.history: list[RewriteRecord] = []
        self.equiv: dict[Variable, Variable] = {}
        self._order: list[Apply] | None = None
        for var in self.inputs:
            if var.owner is not None:
                raise InconsistencyError(f"input {label(var)!r} of a FunctionGraph is computed by "
                                         f"{var.owner.op.display_name()}; inputs must be roots")
            self.clients.setdefault(var, {})
        outputs = list(outputs)
        if clone:
            outputs, copies = self._clone(outputs)
            self._register(copies)
            self._order = copies  # copied in topological order
        else:
            self._import(outputs)
        self.outputs: list[Variable] = []
        for i, out in enumerate(outputs):
            self.outputs.append(out)
            self.clients.setdefault(out, {})[("output", i)] = None

    # -- building -----------------------------------------------------------------------
    def _clone(self, outputs: list[Variable]) -> tuple[list[Variable], list[Apply]]:
        """Copies of the nodes between the inputs and ``outputs`` (same ops, names,
        creation sites and test values, shared not copied), in topological order."""
        equiv = self.equiv
        for var in self.inputs:
            equiv[var] = var
        copies = []
        for node in toposort(outputs, self.inputs):
            new_inputs = [equiv.get(v, v) for v in node.inputs]
            copy = Apply(node.op, new_inputs, [o.type for o in node.outputs], site=node.site)
            for old, new in zip(node.outputs, copy.outputs):
                new.name = old.name
                new._test_value = value = old._test_value
                if value is None:  # pending, or dropped to save memory (recomputed alike)
                    copy_dropped(old, new)
                equiv[old] = new
            copies.append(copy)
        return [equiv.get(v, v) for v in outputs], copies

    def _new_nodes(self, variables: Sequence[Variable]) -> list[Apply]:
        """The nodes computing ``variables`` that are not here yet, topologically ordered."""
        return toposort(variables, self._known_roots(variables))

    def _import(self, variables: Sequence[Variable]) -> list[Apply]:
        """Add the nodes computing ``variables`` that are not here yet; return them."""
        new_nodes = self._new_nodes(variables)
        self._register(new_nodes)
        return new_nodes

    def _register(self, nodes: list[Apply]) -> None:
        """Record ``nodes`` (topologically ordered) and the edges they read."""
        if nodes:
            self._order = None
        clients = self.clients
        for node in nodes:
            self.apply_nodes.add(node)
            for i, inp in enumerate(node.inputs):
                readers = clients.get(inp)
                if readers is None:
                    readers = clients[inp] = {}
                readers[(node, i)] = None
            for out in node.outputs:
                if out not in clients:
                    clients[out] = {}

    def _known_roots(self, variables: Sequence[Variable]) -> list[Variable]:
        """The variables at which an import walk stops: those already in the graph.

        Found by a walk that itself stops at known variables, so importing a small new
        subgraph costs its own size, not the graph's.
        """
        stop, seen, stack = [], set(), list(variables)
        while stack:
            var = stack.pop()
            if var in seen:
                continue
            seen.add(var)
            if var in self.clients and (var.owner is None or var.owner in self.apply_nodes):
                stop.append(var)
            elif var.owner is not None:
                stack.extend(var.owner.inputs)
        return stop

    # -- editing ----------------------------------------------------------------------------
    def replace(self, old: Variable, new: Variable, reason: str = "replace",
                check: bool = True, domain: str | None = None) -> list[Apply]:
        """Make every client of ``old`` read ``new`` instead; return the nodes imported.

        ``new`` must have ``old``'s dtype and ndim and a compatible static shape. Nodes
        that no longer feed any output are dropped. ``domain``: None when ``new`` equals
        ``old`` for every input, else where it does (recorded in ``history``).
        """
        if old is new:
            return []
        if old not in self.clients:
            raise InconsistencyError(f"{label(old)!r} is not a variable of this graph")
        if check and not types_compatible(old.type, new.type):
            raise InconsistencyError(
                f"rewrite {reason!r} would replace {label(old)!r} ({old.type.short()}) by "
                f"{label(new)!r} ({new.type.short()}): the dtype and number of dimensions must "
                f"match and static lengths must agree")
        imported = self._new_nodes([new])
        self._check_acyclic(old, new, imported)
        self._register(imported)
        moved = self.clients[old]
        if isinstance(old, Constant):
            del self.clients[old]  # a constant read by no one is no longer part of the graph
        else:
            self.clients[old] = {}
        targets = self.clients.setdefault(new, {})
        for client, i in moved:
            if client == "output":
                self.outputs[i] = new
            else:
                client.inputs[i] = new
            targets[(client, i)] = None
        self.history.append(RewriteRecord(reason, old.owner, new.owner, old, new, domain,
                                          tuple(moved), tuple(imported)))
        self._order = None
        if old.owner is not None:
            self._prune(old.owner)
        return [n for n in imported if n in self.apply_nodes]

    def _check_acyclic(self, old: Variable, new: Variable, imported: list[Apply]) -> None:
        """Catch the common way a rewrite makes the graph loop: a new node reading ``old``.

        A full check (does ``new`` depend on ``old`` at all?) would walk the graph on
        every replacement; a local rewrite builds ``new`` from the replaced node's
        inputs, which cannot depend on ``old``. ``validate`` detects any cycle.
        """
        for node in imported:
            if any(inp is old for inp in node.inputs):
                raise InconsistencyError(f"replacing {label(old)!r} by {label(new)!r} would make "
                                         f"the graph cyclic ({new!r} is computed from it)")

    def _prune(self, start: Apply) -> None:
        """Drop ``start`` and, transitively, the nodes feeding only dropped nodes."""
        stack = [start]
        while stack:
            node = stack.pop()
            if node not in self.apply_nodes:
                continue
            if any(self.clients.get(out) for out in node.outputs):
                continue
            self.apply_nodes.discard(node)
            for out in node.outputs:
                self.clients.pop(out, None)
            for i, inp in enumerate(node.inputs):
                readers = self.clients.get(inp)
                if readers is None:
                    continue
                readers.pop((node, i), None)
                if not readers and inp.owner is not None:
                    stack.append(inp.owner)
                elif not readers and isinstance(inp, Constant):
                    del self.clients[inp]

    # -- reading ------------------------------------------------------------------------------
    def toposort(self) -> list[Apply]:
        """The nodes, each after the nodes computing its inputs (cached until an edit)."""
        if self._order is None:
            self._order = toposort(self.outputs, self.inputs)
        return list(self._order)

    @property
    def variables(self) -> set[Variable]:
        """Every variable of the graph: inputs, constants and node outputs."""
        found = set(self.inputs) | set(self.outputs)
        for node in self.apply_nodes:
            found.update(node.inputs)
            found.update(node.outputs)
        return found

    def nodes_of(self, op_class: type) -> list[Apply]:
        """The nodes whose op is an instance of ``op_class``, in topological order."""
        return [n for n in self.toposort() if isinstance(n.op, op_class)]

    def validate(self) -> None:
        """Check the bookkeeping: every input of a node is an input, a constant or
        computed here; clients match the edges; every node feeds an output; no cycle."""
        listed = set(self.inputs)
        for node in self.apply_nodes:
            for i, inp in enumerate(node.inputs):
                if inp.owner is None and inp not in listed and not isinstance(inp, Constant):
                    raise InconsistencyError(
                        f"{node!r} reads {label(inp)!r}, which is neither an input of the graph "
                        f"nor a constant ({inp.site.describe('created at')})")
                if inp.owner is not None and inp.owner not in self.apply_nodes:
                    raise InconsistencyError(f"{node!r} reads {label(inp)!r}, computed outside the graph")
                if (node, i) not in self.clients.get(inp, ()):
                    raise InconsistencyError(f"{label(inp)!r} does not list {node!r} as a client")
            if not any(self.clients.get(out) for out in node.outputs):
                raise InconsistencyError(f"{node!r} is in the graph but nothing reads its outputs")
        for i, out in enumerate(self.outputs):
            if ("output", i) not in self.clients.get(out, ()):
                raise InconsistencyError(f"output {i} ({label(out)!r}) is not listed as a client")
        self._check_no_cycle()

    def _check_no_cycle(self) -> None:
        """Kahn's algorithm: every node can be ordered after the nodes it reads."""
        waiting = {node: sum(inp.owner is not None for inp in node.inputs) for node in self.apply_nodes}
        ready = [node for node, count in waiting.items() if count == 0]
        ordered = 0
        while ready:
            node = ready.pop()
            ordered += 1
            for out in node.outputs:
                for client, _ in self.clients.get(out, ()):
                    if client != "output":
                        waiting[client] -= 1
                        if waiting[client] == 0:
                            ready.append(client)
        if ordered != len(self.apply_nodes):
            raise InconsistencyError(f"the graph has a cycle: {len(self.apply_nodes) - ordered} "
                                     f"node(s) depend on their own outputs")

    def __repr__(self) -> str:
        return (f"FunctionGraph({', '.join(map(label, self.inputs))} -> "
                f"{', '.join(v.auto_name() for v in self.outputs)}; {len(self.apply_nodes)} nodes)")

    def __len__(self) -> int:
        return len(self.apply_nodes)

    def __contains__(self, item: Any) -> bool:
        if isinstance(item, Apply):
            return item in self.apply_nodes
        return item in self.clients
