"""The gradient of ``ifelse``: an IfElse over the branches' gradients, itself lazy.

The gradient node reads the forward node's operands and the output gradients, and
its branches are the gradients of the forward branches, built by ``grad`` on each
inner graph: it never walks the outer graph, so what is upstream of the forward
node is read as an operand, never copied into a branch (stacked ``ifelse`` layers
keep a training step linear in size). Only the taken branch's gradient is computed;
an input that a branch does not use gets zeros from it. Compiling then moves out of
the branches what the rest of the function also computes
(``core/rewriting/lazy_branches.py``).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from symnb.core.gradient import grad
from symnb.core.graph.basic import Constant, Variable, clone_replace
from symnb.core.graph.inner_graph import InnerGraph, known_test_value, placeholder_like
from symnb.core.tensor.alloc import zeros_like
from symnb.core.graph.type import is_float

__all__ = ["ifelse_grad"]


def ifelse_grad(op: Any, inputs: Sequence[Variable], outputs: Sequence[Variable],
                output_grads: Sequence[Variable | None], make_op: Callable[..., Any]
                ) -> list[Variable | None]:
    """Gradients of ``[condition, *values]`` (``IfElse.L_op``): none for the condition.

    ``make_op(then_graph, else_graph, name)`` makes the gradient's IfElse op (the op's
    class, from the module above this one).
    """
    seeds = [(i, g) for i, g in enumerate(output_grads)
             if g is not None and is_float(outputs[i].dtype)]
    values = list(inputs[1:])
    value_places = [placeholder_like(v, value=known_test_value(v)) for v in op.then_graph.inputs]
    seed_places = [placeholder_like(g, value=known_test_value(g)) for _, g in seeds]
    then_grads = _branch_grads(op.then_graph, value_places, seeds, seed_places)
    else_grads = _branch_grads(op.else_graph, value_places, seeds, seed_places)
    wanted = [j for j in range(len(values)) if then_grads[j] is not None or else_grads[j] is not None]
    if not wanted:
        return [None] * len(inputs)
    places = [*value_places, *seed_places]
    branches = [InnerGraph(places, [found[j] if found[j] is not None else zeros_like(value_places[j])
                                    for j in wanted], role=role)
                for found, role in ((then_grads, "then"), (else_grads, "else"))]
    gradient_op = make_op(*branches, name=f"grad_of_{op.name}" if op.name else None)
    chosen = gradient_op(inputs[0], *values, *[g for _, g in seeds])
    chosen = chosen if isinstance(chosen, list) else [chosen]
    grads: list[Variable | None] = [None] * len(inputs)
    for j, g in zip(wanted, chosen):
        grads[1 + j] = g
    return grads


def _branch_grads(graph: InnerGraph, value_places: list[Variable],
                  seeds: list[tuple[int, Variable]], seed_places: list[Variable]
                  ) -> list[Variable | None]:
    """Per IfElse value, the gradient through this branch, over the placeholders of the
    values and of the output gradients (None where the branch does not depend on it)."""
    # The copies remember what they copy: a cut inside the forward branch cuts here too.
    outs = clone_replace(graph.outputs, dict(zip(graph.inputs, value_places)), mark_copies=True)
    known: dict[Variable, Variable] = {}
    for (i, _), g in zip(seeds, seed_places):
        out = outs[i]
        if isinstance(out, Constant):
            continue
        known[out] = known[out] + g if out in known else g
    wrt = [(j, v) for j, v in enumerate(value_places) if is_float(v.dtype)]
    result: list[Variable | None] = [None] * len(value_places)
    if not known or not wrt:
        return result
    grads = grad(None, [v for _, v in wrt], known_grads=known,
                 disconnected_inputs="ignore", return_disconnected="none")
    for (j, _), g in zip(wrt, grads):
        result[j] = g
    return result
