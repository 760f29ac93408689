"""Structural equality of graphs: Theano's ``equal_computations`` and ``is_same_graph``.

Two graphs compute the same thing when their outputs are the same variable, equal
constants (same type and bytes), inputs paired by ``in_xs``/``in_ys``, or outputs of the
same index of nodes applying equal ops to inputs that are, recursively, the same. This
is what merging the two graphs into one (``core/rewriting/merge.py``) would find; it is
written as a walk so that comparing needs no function graph.

The same matching compares a graph before and after a rewrite
(:func:`rewrite_changes`): a node is unchanged when the other graph has one applying an
equal op to matched inputs, whatever object it is; the others were removed or added.
"""

from __future__ import annotations

import collections
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np

from symnb.core.graph import Apply, Constant, Variable
from symnb.core.graph.history import GraphState

__all__ = ["equal_computations", "is_same_graph", "same_computation", "StructuralKeys",
           "RewriteChanges", "rewrite_changes"]

InputsOf = Callable[[Apply], Sequence[Variable]]


def _own_inputs(node: Apply) -> Sequence[Variable]:
    return node.inputs


def equal_computations(xs: Sequence[Variable], ys: Sequence[Variable],
                       in_xs: Sequence[Variable] | None = None,
                       in_ys: Sequence[Variable] | None = None) -> bool:
    """True when each of ``xs`` computes what the matching one of ``ys`` does, taking
    ``in_xs[i]`` and ``in_ys[i]`` as the same input (Theano's ``scan_utils`` function)."""
    if len(xs) != len(ys) or len(in_xs or ()) != len(in_ys or ()):
        return False
    paired = {id(x): y for x, y in zip(in_xs or (), in_ys or ())}
    seen: dict[tuple[int, int], bool] = {}
    return all(_same(x, y, paired, seen, _own_inputs, _own_inputs) for x, y in zip(xs, ys))


def same_computation(x: Variable, y: Variable, x_inputs_of: InputsOf, y_inputs_of: InputsOf) -> bool:
    """True when ``x`` computes what ``y`` does, each graph read through its own
    ``inputs_of`` (two states of one graph, :mod:`symnb.core.graph.history`). A variable
    met on both sides is the same there: it stops the walk."""
    return _same(x, y, {}, {}, x_inputs_of, y_inputs_of)


def is_same_graph(var1: Variable, var2: Variable, givens: dict | None = None) -> bool:
    """True when ``var1`` and ``var2`` compute the same thing (Theano's ``gof.graph``
    function); ``givens`` pairs variables of the first graph with ones of the second."""
    givens = dict(givens or {})
    return equal_computations([var1], [var2], list(givens), list(givens.values()))


def _same(x: Variable, y: Variable, paired: dict, seen: dict, x_inputs_of: InputsOf,
          y_inputs_of: InputsOf) -> bool:
    stack = [(x, y)]
    while stack:  # a walk, not recursion: graphs thousands of nodes deep stay comparable
        a, b = stack.pop()
        key = (id(a), id(b))
        if key in seen:
            continue
        seen[key] = True
        if not _locally_same(a, b, paired):
            return False
        if a is not b and id(a) not in paired and a.owner is not None:
            stack.extend(zip(x_inputs_of(a.owner), y_inputs_of(b.owner)))
    return True


def _locally_same(a: Variable, b: Variable, paired: dict) -> bool:
    """Equal here (same variable, paired inputs, equal constants or equal ops), before
    looking at the inputs."""
    if id(a) in paired or id(b) in paired.values():
        return paired.get(id(a)) is b
    if a is b:
        return True
    if a.type != b.type:
        return False
    if isinstance(a, Constant) or isinstance(b, Constant):
        return (isinstance(a, Constant) and isinstance(b, Constant)
                and np.array_equal(a.data, b.data, equal_nan=a.data.dtype.kind in "fc"))
    if a.owner is None or b.owner is None:
        return False
    return (a.owner.op == b.owner.op and a.index == b.index
            and len(a.owner.inputs) == len(b.owner.inputs))


class StructuralKeys:
    """Numbers for variables such that two get the same number exactly when they compute
    the same thing: the same root, equal constants, or the same output of equal ops on
    inputs of the same numbers (hash-consing). One instance numbers several graphs
    comparably; each graph is numbered with its own ``inputs_of``."""

    def __init__(self) -> None:
        self._numbers: dict[Any, int] = {}

    def number(self, key: Any) -> int:
        return self._numbers.setdefault(key, len(self._numbers))

    def of_variable(self, var: Variable, numbers: dict[int, int]) -> int:
        """``var``'s number: from ``numbers`` (a graph's, :meth:`of_graph`) or as a root."""
        return numbers[id(var)] if id(var) in numbers else self._root(var)

    def of_graph(self, order: list[Apply], inputs_of: InputsOf,
                 edges: dict[tuple[int, int], int] | None = None) -> tuple[dict[int, int], dict[int, int]]:
        """``({id(variable): number}, {id(node): number})`` over the nodes of ``order``
        (each after its inputs' nodes) and the roots they read. ``edges``: ``{(id(node),
        input position): number}`` read there instead of the input's own."""
        of_var: dict[int, int] = {}
        of_node: dict[int, int] = {}
        edges = edges or {}
        for node in order:
            inputs = tuple(edges[(id(node), i)] if (id(node), i) in edges
                           else of_var.get(id(v)) if v.owner is not None else self._root(v)
                           for i, v in enumerate(inputs_of(node)))
            of_node[id(node)] = number = self.number(self._op_key(node.op) + (inputs,))
            for out in node.outputs:
                of_var[id(out)] = self.number(("output", number, out.index))
        return of_var, of_node

    @staticmethod
    def _op_key(op: Any) -> tuple:
        try:
            hash(op)
        except TypeError:  # an op whose properties cannot be hashed equals only itself
            return ("op object", id(op))
        return ("op", op)

    def _root(self, var: Variable) -> int:
        if isinstance(var, Constant):
            return self.number(("constant", var.type, var.data.shape, var.data.tobytes()))
        return self.number(("root", id(var)))


class RewriteChanges(NamedTuple):
    """What one rewrite changed: the nodes of the graph before it that no node after it
    matches (``removed``), and the reverse (``added``); each state's order and its
    variables' structural numbers (equal numbers: the same computation)."""

    removed: list[Apply]
    added: list[Apply]
    before_order: list[Apply]
    after_order: list[Apply]
    before_numbers: dict[int, int]
    after_numbers: dict[int, int]
    keys: StructuralKeys


def rewrite_changes(before: GraphState, after: GraphState, record: Any) -> RewriteChanges:
    """Compare the graph before and after the step ``record`` (a
    :class:`~symnb.core.graph.fgraph.RewriteRecord`) node by node, structurally (not by
    their text). The readers the step moved read the replacement as the replaced value:
    a node is not changed by reading the value a rewrite swapped in for an equal one."""
    keys = StructuralKeys()
    before_order, after_order = before.order(), after.order()
    before_numbers, before_nodes = keys.of_graph(before_order, before.inputs_of)
    replaced = keys.of_variable(record.old, before_numbers)
    moved = {(id(client), i): replaced for client, i in record.clients if client != "output"}
    after_numbers, after_nodes = keys.of_graph(after_order, after.inputs_of, moved)
    # Matched as multisets: a graph may compute one thing twice (the gradient builds
    # sigmoid(z) stably while a rewrite turns the forward 1 / (1 + exp(-z)) into another
    # sigmoid(z)); one more of a key after the step is one added node, not zero.
    old_region = {id(n) for n in _ancestors(record.old, before.inputs_of)}
    new_region = {id(n) for n in record.imported}
    removed = _unmatched(before_order, before_nodes, after_nodes, old_region)
    added = _unmatched(after_order, after_nodes, before_nodes, new_region)
    return RewriteChanges(removed, added, before_order, after_order, before_numbers,
                          after_numbers, keys)


def _unmatched(order: list[Apply], keys_here: dict[int, int], keys_there: dict[int, int],
               region: set[int]) -> list[Apply]:
    """The nodes of ``order`` left over once each is matched to a node of the other side
    with the same key, one for one; the nodes of ``region`` (the step's own) are the
    ones left over first."""
    spare = collections.Counter(keys_here.values())
    spare.subtract(collections.Counter(keys_there.values()))
    left: set[int] = set()
    for node in sorted(order, key=lambda n: id(n) not in region):  # the region's first
        if spare[keys_here[id(node)]] > 0:
            spare[keys_here[id(node)]] -= 1
            left.add(id(node))
    return [n for n in order if id(n) in left]


def _ancestors(var: Variable, inputs_of: Callable[[Apply], Sequence[Variable]]) -> list[Apply]:
    """The nodes ``var`` is computed from (its own first), reading inputs through ``inputs_of``."""
    seen: dict[int, Apply] = {}
    stack = [var]
    while stack:
        node = stack.pop().owner
        if node is not None and id(node) not in seen:
            seen[id(node)] = node
            stack.extend(inputs_of(node))
    return list(seen.values())
