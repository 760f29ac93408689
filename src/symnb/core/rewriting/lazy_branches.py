"""Branches of ``ifelse`` over the whole function: shared work outside, exclusive inside.

``ifelse`` decides what goes into a branch when it is built, knowing only its own
branches and condition; ``sn.grad`` builds the gradient's IfElse from the forward
branches. Neither knows what the rest of the function computes: a branch may
recompute what another branch, or the forward pass, also computes. Two passes fix
the branches once the function's graph is whole (Theano's IfElse had no inner
graphs: its branches were operands computed on demand by a lazy linker):

- ``ifelse_lift`` (first): every IfElse's branch nodes move out onto the outer
  graph, the IfElse reading its branch outputs as operands; ``merge`` then makes one
  node of each computation the branches and the rest of the graph repeated;
- ``ifelse_lazy`` (before fusion; always run after ``ifelse_lift``): a node all of
  whose readers lead only to the ``then`` (or only to the ``else``) branches of
  IfElses on one condition moves back into each of those branches, the IfElse taking
  what the node reads as operands. What anything else needs (the condition, the
  other branch, another output, an update) stays outside, computed once.

The lowered program thus holds each outer value once, and runs only the taken
branch's own work (``lax.cond`` operands are the shared values). A value two
branches on the same condition need (a forward branch's value its gradient reads)
is computed in each of them: only the taken one runs, and no branch computes what
the untaken side would not have.
"""

from __future__ import annotations

from typing import Callable, Sequence

from symnb.core.gradient import register_seed_rewrite
from symnb.core.graph.basic import Apply, Variable, clone_replace, graph_inputs, toposort
from symnb.core.graph.fgraph import FunctionGraph
from symnb.core.graph.rewriting import GraphPass
from symnb.core.ifelse import IfElse, branch_graphs
from symnb.core.rewriting.merge import MergePass, constant_key

__all__ = ["IfElseLift", "IfElseLazy", "RESTORES_LAZINESS", "branch_seeds"]

#: The rewrites whose replaced value may raise where the new one does not: a lifted
#: IfElse computes both branches (an Assert of the untaken one fails), the rebuilt one
#: only the taken one. DebugMode then judges the final graph against the user's.
RESTORES_LAZINESS = frozenset({"ifelse_lazy"})

#: Which branches of which condition a node's value is needed by: ``(condition, role)``.
Guard = tuple[Variable, str]


class IfElseLift(GraphPass):
    """Move every IfElse's branch nodes onto the outer graph (nested ones too).

    Lifted IfElses of the same structure (the same operands' types and outputs, the
    same name) get one op, so ``merge`` makes one node of two equal ones: the
    function's and the copy ``sn.grad`` differentiated (:func:`branch_seeds`).
    """

    name = "ifelse_lift"

    def apply(self, fgraph: FunctionGraph) -> int:
        lifted: dict[tuple, IfElse] = {}  # structure -> its op
        done: set[int] = set()  # ids of the ops made here
        count = 0
        while True:  # a lifted branch may hold IfElses: they are lifted next
            pending = [n for n in fgraph.nodes_of(IfElse) if id(n.op) not in done]
            if not pending:
                return count
            new = rebuild(fgraph, pending[0], lambda var, role: False, self.name, lifted)
            done.add(id(new.op))
            count += 1


class IfElseLazy(GraphPass):
    """Move into each IfElse's branches the nodes only they need (see the module)."""

    name = "ifelse_lazy"

    def apply(self, fgraph: FunctionGraph) -> int:
        nodes = fgraph.nodes_of(IfElse)
        if not nodes:
            return 0
        guards = _guards(fgraph)
        for node in nodes:  # in topological order: an IfElse in a branch is rebuilt first
            condition = node.inputs[0]

            def inside(var: Variable, role: str) -> bool:
                owner = var.owner
                return owner not in fgraph.apply_nodes or guards.get(owner) == (condition, role)

            new = rebuild(fgraph, node, inside, self.name)
            if node in guards:
                guards[new] = guards[node]
        return len(nodes)


def rebuild(fgraph: FunctionGraph, node: Apply, inside: Callable[[Variable, str], bool],
            reason: str, ops: dict[tuple, IfElse] | None = None) -> Apply:
    """Replace the IfElse ``node`` by one whose branches hold the nodes ``inside``
    admits (``branch_graphs``); return the new node. ``ops``: when given, one op per
    structure of branches that hold no nodes (the lift's)."""
    op = node.op
    condition, values = node.inputs[0], node.inputs[1:]
    # Marked copies: the new branches' copies stay matched with the user's variables
    # (a function's input cutting inside a branch: core/graph/copies.py).
    outer = [clone_replace(g.outputs, dict(zip(g.inputs, values)), mark_copies=True)
             for g in op.inner_graphs]
    operands, then_graph, else_graph = branch_graphs(*outer, inside, value_of=_known_value)
    new_op = IfElse(then_graph, else_graph, op.name)
    if ops is not None:
        new_op = ops.setdefault(_structure(new_op), new_op)
    new = new_op.make_node(condition, *operands)
    new.site = node.site
    for old, out in zip(node.outputs, new.outputs):
        out.name = old.name
        if old in fgraph.clients:
            fgraph.replace(old, out, reason=reason)
    return new


def _structure(op: IfElse) -> tuple:
    """What an IfElse whose branches hold no nodes computes: its name, its operands'
    types, and which operand (or constant) each branch output is."""
    places = {id(v): i for i, v in enumerate(op.then_graph.inputs)}

    def output(var: Variable) -> object:
        return places[id(var)] if id(var) in places else (var.type, constant_key(var))

    return (op.name, tuple(v.type for v in op.then_graph.inputs),
            tuple(output(v) for v in op.then_graph.outputs),
            tuple(output(v) for v in op.else_graph.outputs))


def _known_value(var: Variable):
    """The test value the function's graph already holds (none is computed here)."""
    return var._test_value


def _guards(fgraph: FunctionGraph) -> dict[Apply, Guard]:
    """The nodes whose every reader leads only to the branches of one role of IfElses
    on one condition, with that ``(condition, role)``."""
    guards: dict[Apply, Guard] = {}
    roles = {node: _operand_roles(node.op) for node in fgraph.nodes_of(IfElse)}
    for node in reversed(fgraph.toposort()):
        found: set = set()
        for out in node.outputs:
            for client, i in fgraph.clients.get(out, ()):
                if isinstance(client, str):
                    found.add(None)
                elif client in roles:
                    found.add((client.inputs[0], roles[client][i - 1]) if i > 0 else None)
                else:
                    found.add(guards.get(client))
                if None in found or len(found) > 1:
                    break
        if len(found) == 1 and None not in found:
            guards[node] = found.pop()
    return guards


def _operand_roles(op: IfElse) -> list[str | None]:
    """Per operand, the one branch that reads it (None: both, or neither)."""
    used = []
    for graph in op.inner_graphs:
        read = {id(v) for n in graph.nodes for v in n.inputs} | {id(v) for v in graph.outputs}
        used.append(read)
    roles: list[str | None] = []
    for place in op.then_graph.inputs:
        in_then, in_else = id(place) in used[0], id(place) in used[1]
        roles.append("then" if in_then and not in_else else "else" if in_else and not in_then else None)
    return roles


def branch_seeds(seeds: dict[int, tuple[Variable, Variable]], kept: Sequence[Variable],
                 blockers: Sequence[Variable]) -> dict[int, tuple[Variable, Variable]]:
    """``sn.grad``'s seeds moved onto a copy of their graph whose IfElses hold, in
    each branch, only what that branch alone needs in the whole cost graph (the passes
    above, on a FunctionGraph of it); the same seeds when the graph holds no IfElse.

    ``ifelse`` decided its branches knowing only them: a branch may hold a copy of
    upstream work that the rest of the cost graph also does. The gradient of an
    IfElse is built from its branches (``ifelse_grad``), so differentiating the
    written graph would backpropagate through each such copy apart from the original,
    and stacked ``ifelse`` layers would grow the gradient quadratically. The copy's
    nodes compute what the user's do; compiling merges the two. Kept as written when a
    ``wrt`` or ``consider_constant`` variable is computed by the graph (a copy would
    not reach it).
    """
    sources = [var for var, _ in seeds.values()]
    nodes = toposort(sources, list(blockers))
    if not any(isinstance(n.op, IfElse) for n in nodes):
        return seeds
    if any(v.owner is not None for v in (*kept, *blockers)):
        return seeds
    fgraph = FunctionGraph(graph_inputs(sources), sources)
    for graph_pass in (IfElseLift(), MergePass(), IfElseLazy()):
        graph_pass.apply(fgraph)
    return {id(new): (new, g) for new, (_, g) in zip(fgraph.outputs, seeds.values())}


register_seed_rewrite(branch_seeds)
