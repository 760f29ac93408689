"""Inner graphs: the closed graphs an op holds and runs (a loop body, the branches of a
condition, a fused elementwise chain).

An inner graph computes its outputs from its own input variables only (constants
aside). Building one from user code means *closing over* the outer variables the
code used: each such variable becomes an extra inner input (and an extra input of
the op that holds the graph). The NumPy reference runs an inner graph with the one
evaluator (``symnb.core.graph.evaluate``) -- nothing is compiled -- and a failing node is
reported with its own creation site (the user's line inside the step function or
branch), not the op's.

Every op holding inner graphs describes them through the same few members of
:class:`~symnb.core.graph.op.Op` (``inner_graphs``, ``inner_inputs``, ``inner_outputs``,
``inner_feeds``, ``inner_output_notes``): printing and whole-graph passes read those,
never an op's own attributes.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from symnb.core.graph.error_record import LoopLevel
from symnb.core.graph.errors import MissingTestValueError, SymnbError, label
from symnb.core.graph.evaluate import RAISE, at_line, evaluate
from symnb.core.graph.basic import Apply, Constant, Variable, ancestors, clone_replace, toposort

__all__ = ["InnerGraph", "close_over", "placeholder_like", "known_test_value",
           "infer_inner_shapes", "role_holding"]


class InnerGraph:
    """``outputs`` as a function of ``inputs``, with its nodes in execution order.

    ``role`` names the graph where the op holds several (an IfElse's ``"then"`` and
    ``"else"``); printers label its outputs with it.

    Compared by identity: two inner graphs are equal only if they are the same object,
    so ops holding them are equal only when they share their graph.
    """

    def __init__(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
                 nodes: Sequence[Apply] | None = None, role: str = "") -> None:
        """``nodes``: the nodes from ``inputs`` to ``outputs`` in execution order, when
        the caller knows them (else they are found by a walk)."""
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        self.nodes: list[Apply] = toposort(self.outputs, self.inputs) if nodes is None else list(nodes)
        self.role = role
        _check_closed(self)

    def run(self, values: Sequence[np.ndarray], where: str | None = None,
            loop: LoopLevel | None = None) -> list[np.ndarray]:
        """Evaluate the outputs with each node's NumPy ``perform``.

        ``where`` says which evaluation this is (e.g. ``"iteration 3 of scan 'step'"``):
        a failing node then raises :class:`InnerNodeError` naming it and the node's line.
        Without it, a failing node's own error propagates (a fused chain, whose node
        reports it). ``loop``: the loop and iteration this run is, entered in the error's
        record (``err.record.loops``, outermost first through nested loops).
        """
        env: dict[int, Any] = {id(v): value for v, value in zip(self.inputs, values)}
        evaluate(self.nodes, env, on_error=at_line(where, loop) if where is not None else RAISE)
        return [v.data if isinstance(v, Constant) else env[id(v)] for v in self.outputs]

    def __repr__(self) -> str:
        return f"<InnerGraph: {len(self.inputs)} inputs, {len(self.nodes)} nodes, {len(self.outputs)} outputs>"


def _check_closed(graph: InnerGraph) -> None:
    """Every root of the outputs must be an inner input or a constant."""
    known = {id(v) for v in graph.inputs}
    produced = {id(o) for node in graph.nodes for o in node.outputs}
    for node in graph.nodes:
        for var in node.inputs:
            if id(var) not in known and id(var) not in produced and not isinstance(var, Constant):
                raise AssertionError(f"internal error: inner graph uses outer variable {var!r}")


def role_holding(op: Any, node: Apply) -> str | None:
    """The role of the graph of ``op`` that holds ``node`` (an IfElse's ``"then"`` or
    ``"else"``) when ``op`` holds several graphs; None otherwise (a loop body, a fused
    chain): what messages add to the holder's name."""
    graphs = op.inner_graphs
    if len(graphs) < 2:
        return None
    return next((g.role or None for g in graphs if node in g.nodes), None)


def placeholder_like(var: Variable, shape: Sequence[int | None] | None = None,
                     value: np.ndarray | None = None, name: str | None = None,
                     dtype: str | None = None) -> Variable:
    """A fresh root variable of ``var``'s dtype (or ``dtype``) and ``shape`` (default
    ``var``'s) for an inner graph, holding ``value`` as its test value when one is given.

    It records ``var``'s creation site, so messages about it point where the user
    made the outer variable. Shared variables and constants become plain tensors.
    """
    ttype = var.type if shape is None and dtype is None else var.type.clone(dtype=dtype, shape=shape)
    inner = ttype.variable_type(ttype, name=name if name is not None else var.name, site=var.site)
    if value is not None:
        inner._test_value = _frozen(value)
    parameter = getattr(var.tag, "step_parameter", None) if var._tag is not None else None
    if name is None and parameter is not None:  # the same value inside: the step's own name for it
        inner.tag.step_parameter = parameter
    return inner


def _frozen(value: np.ndarray) -> np.ndarray:
    array = np.asarray(value)
    if array.flags.writeable:
        array = array.copy()
        array.flags.writeable = False
    return array


def known_test_value(var: Variable) -> np.ndarray | None:
    """``var``'s test value, computing it if pending (or again if it was dropped to save
    memory); None when it cannot be had."""
    value = var._test_value
    if value is not None:
        return value
    try:
        return var.test_value
    except (MissingTestValueError, SymnbError):
        return None


def close_over(inner_inputs: Sequence[Variable], outputs: Sequence[Variable]
               ) -> tuple[list[Variable], list[Variable], list[Variable]]:
    """Make the graph from ``inner_inputs`` to ``outputs`` closed.

    Returns ``(outer_vars, placeholders, new_outputs)``: the outer variables the graph
    uses (the frontier between what depends on ``inner_inputs`` and what does not),
    a placeholder per outer variable, and the outputs rewritten to use the
    placeholders. Computations that do not depend on the inner inputs stay outside
    (computed once, not per iteration).
    """
    dependent = {id(v) for v in inner_inputs}
    frontier: dict[int, Variable] = {}
    for node in toposort(outputs, inner_inputs):
        if not any(id(i) in dependent for i in node.inputs):
            continue
        dependent.update(id(o) for o in node.outputs)
        for var in node.inputs:
            if id(var) not in dependent and not isinstance(var, Constant):
                frontier.setdefault(id(var), var)
    for out in outputs:
        if id(out) not in dependent and not isinstance(out, Constant):
            frontier.setdefault(id(out), out)
    outer_vars = list(frontier.values())
    placeholders = [placeholder_like(v, value=known_test_value(v)) for v in outer_vars]
    if not outer_vars:
        return [], [], list(outputs)
    new_outputs = clone_replace(list(outputs), dict(zip(outer_vars, placeholders)))
    return outer_vars, placeholders, new_outputs


def infer_inner_shapes(graph: InnerGraph, input_shapes: Sequence[tuple], owner: str) -> list[tuple]:
    """The outputs' shapes given the inputs' (outer) shapes, by the inner nodes'
    ``infer_shape`` rules; static lengths are used where the types know them.

    Raises NotImplementedError when a shape depends on a value computed inside.
    """
    known: dict[int, tuple] = {id(v): tuple(s) for v, s in zip(graph.inputs, input_shapes)}
    for node in graph.nodes:
        in_shapes = [known[id(v)] if id(v) in known else tuple(v.data.shape) for v in node.inputs]
        for var, shape in zip(node.outputs, node.op.infer_shape(node, in_shapes)):
            known[id(var)] = tuple(shape)
    inner_vars = {id(v) for v in graph.inputs} | {id(o) for n in graph.nodes for o in n.outputs}
    shapes = []
    for out in graph.outputs:
        derived = known[id(out)] if id(out) in known else tuple(out.data.shape)
        row = tuple(s if s is not None else d for s, d in zip(out.type.shape, derived))
        for entry in row:
            if isinstance(entry, Variable) and any(id(a) in inner_vars for a in ancestors([entry])):
                raise NotImplementedError(
                    f"{owner}: the shape of {label(out)!r} depends on values computed inside "
                    f"its inner graph, so it has no expression outside")
        shapes.append(row)
    return shapes
