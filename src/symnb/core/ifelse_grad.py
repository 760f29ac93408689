"""The gradient of ``ifelse``: the gradient of the taken branch, itself lazy.

Each branch's gradient is built by ``grad`` on its inner graph, then moved back
over the IfElse node's inputs; the two are joined by a new ``ifelse`` on the same
condition, so only the taken branch's gradient is computed. An input that one
branch does not use gets zeros from it.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from symnb.core.gradient import grad
from symnb.core.graph.basic import Constant, Variable, clone_replace
from symnb.core.graph.inner_graph import InnerGraph
from symnb.core.tensor.alloc import zeros_like
from symnb.core.graph.type import is_float

__all__ = ["ifelse_grad"]


def ifelse_grad(op: Any, inputs: Sequence[Variable], outputs: Sequence[Variable],
                output_grads: Sequence[Variable | None], ifelse: Callable[..., Any]
                ) -> list[Variable | None]:
    """Gradients of ``[condition, *values]`` (``IfElse.L_op``): none for the condition;
    ``ifelse`` (the builder, from the op's module) joins the branches' gradients."""
    values = list(inputs[1:])
    then_grads = _branch_grads(op.then_graph, values, output_grads)
    else_grads = _branch_grads(op.else_graph, values, output_grads)
    wanted = [j for j in range(len(values)) if then_grads[j] is not None or else_grads[j] is not None]
    if not wanted:
        return [None] * len(inputs)
    then_list = [then_grads[j] if then_grads[j] is not None else zeros_like(values[j]) for j in wanted]
    else_list = [else_grads[j] if else_grads[j] is not None else zeros_like(values[j]) for j in wanted]
    chosen = ifelse(inputs[0], then_list, else_list, name=f"grad_of_{op.name}" if op.name else None)
    grads: list[Variable | None] = [None] * len(inputs)
    for j, g in zip(wanted, chosen):
        grads[1 + j] = g
    return grads


def _branch_grads(graph: InnerGraph, values: list[Variable], output_grads: Sequence[Variable | None]
                  ) -> list[Variable | None]:
    """Per IfElse input, the gradient through this branch, over the outer inputs."""
    known: dict[Variable, Variable] = {}
    for out, g in zip(graph.outputs, output_grads):
        if g is None or isinstance(out, Constant) or not is_float(out.dtype):
            continue
        known[out] = known[out] + g if out in known else g
    wrt = [(j, v) for j, v in enumerate(graph.inputs) if is_float(v.dtype)]
    result: list[Variable | None] = [None] * len(values)
    if not known or not wrt:
        return result
    grads = grad(None, [v for _, v in wrt], known_grads=known,
                 disconnected_inputs="ignore", return_disconnected="none")
    found = [(j, g) for (j, _), g in zip(wrt, grads) if g is not None]
    outer = clone_replace([g for _, g in found], dict(zip(graph.inputs, values)))
    for (j, _), g in zip(found, outer):
        result[j] = g
    return result
