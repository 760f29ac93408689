"""IfElse -> ``jax.lax.cond``: XLA runs only the taken branch.

Each branch's inner graph is lowered by the same registry. A condition already
known when the program is traced selects its branch then (the other is not even
traced); when the branches give different shapes, the function specializes on the
inputs the condition comes from, so that it is known then. Operands known while
tracing (a shape computed outside) reach the branches by closure, not as operands of
the cond, so they stay known inside (``passed_as_is``): a branch may size an array
with them. Operands a branch's lengths are computed from (a slice bound read from a
shared variable, in the copy of a value ``ifelse`` made into its branch) are declared
(``static_inputs``): the function specializes on what they come from, so they are known
while tracing, as they would be outside the branch.
"""

from __future__ import annotations

from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from symnb.core.graph.errors import label
from symnb.core.graph.basic import Apply, value_ancestors
from symnb.core.ifelse import IfElse
from symnb.core.graph.type import describe_shape
from symnb.lower_xla.checks import checked_inner
from symnb.lower_xla.interpreter import build_program
from symnb.lower_xla.registry import (StaticValueRequired, known_on_host, lower, passed_as_is,
                                      static_inputs)


@lower.register(IfElse)
def _ifelse(op: IfElse, node: Apply) -> Callable[..., Any]:
    dtypes = [out.type.dtype for out in node.outputs]
    then_fn = _branch(op.then_graph, dtypes)
    else_fn = _branch(op.else_graph, dtypes)
    needed = sorted(_branch_needs(op))

    def run(condition: Any, *values: Any) -> tuple:
        if needed:  # the operands the branches' lengths need: NumPy, or specialize on them
            values = known_on_host((condition, *values), needed, lambda traced: (
                f"{op.display_name()}: lengths in its branches are computed from operands "
                f"known only at run time; XLA needs static shapes"))[1:]
        if isinstance(condition, np.ndarray):
            return (then_fn if bool(condition) else else_fn)(*values)
        traced = [v for v in values if not isinstance(v, np.ndarray)]
        then_run, else_run = _closing_over_static(then_fn, values), _closing_over_static(else_fn, values)
        _check_same_shapes(op, node, then_run, else_run, traced)
        return lax.cond(condition.astype(bool), then_run, else_run, *traced)

    return checked_inner(run, op.inner_graphs)


@passed_as_is.register(IfElse)
def _every_operand(op: IfElse, node: Apply) -> dict[int, int]:
    """Both branches take every operand; those known while tracing by closure."""
    return {i: i + 1 for i in range(len(op.then_graph.inputs))}


@static_inputs.register(IfElse)
def _branch_lengths(op: IfElse, node: Apply) -> dict[int, str]:
    """The operands the branches' lengths are computed from (node input positions)."""
    return {p: "a branch's length" for p in _branch_needs(op)}


def _branch_needs(op: IfElse) -> set[int]:
    """Positions (among the node's inputs: after the condition) of the operands whose
    values the branches' nodes need while tracing (``static_inputs``) are computed from."""
    memo = op.__dict__.get("_branch_needs")  # ops are immutable: decided once
    if memo is None:
        lengths = [n.inputs[p] for graph in op.inner_graphs for n in graph.nodes
                   for p in static_inputs(n.op, n)]
        roots = {id(v) for v in value_ancestors(lengths) if v.owner is None} if lengths else set()
        memo = {i + 1 for i, var in enumerate(op.then_graph.inputs) if id(var) in roots}
        op.__dict__["_branch_needs"] = memo
    return memo


def _closing_over_static(branch: Callable[..., tuple], values: tuple) -> Callable[..., tuple]:
    """``branch`` taking only the traced ``values`` (the cond's operands), the ones
    known while tracing (NumPy arrays) bound by closure."""
    def run(*traced: Any) -> tuple:
        given = iter(traced)
        return branch(*[v if isinstance(v, np.ndarray) else next(given) for v in values])

    return run


def _branch(graph, dtypes: list[str]) -> Callable[..., tuple]:
    program = build_program(graph.inputs, graph.outputs, graph.nodes)

    def run(*values: Any) -> tuple:
        return tuple(jnp.asarray(r).astype(d) for r, d in zip(program(*values), dtypes))

    return run


def _check_same_shapes(op: IfElse, node: Apply, then_fn: Callable, else_fn: Callable,
                       values: tuple) -> None:
    """lax.cond needs both branches to give the same shapes. When they differ, the
    condition is needed while tracing: the function then specializes on the inputs it
    comes from (one program per condition value, running only the taken branch), or
    says which output differs."""
    then_types = jax.eval_shape(then_fn, *values)
    else_types = jax.eval_shape(else_fn, *values)
    for i, (a, b) in enumerate(zip(then_types, else_types)):
        if a.shape != b.shape:
            then_out, else_out = op.then_graph.outputs[i], op.else_graph.outputs[i]
            raise StaticValueRequired(
                f"{op.display_name()}: output #{i} has shape {describe_shape(a.shape)} in the then "
                f"branch ({label(then_out)!r}, {then_out.site.describe()}) and "
                f"{describe_shape(b.shape)} in the else branch ({label(else_out)!r}, "
                f"{else_out.site.describe()}); XLA needs both branches of ifelse to give the same "
                f"shape, or a condition computed from the function's arguments (not from shared "
                f"variables or loop steps)", (0,))
