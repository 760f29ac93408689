"""Reverse-mode differentiation over symnb graphs: ``sn.grad`` and friends.

The gradient graph is built from each op's ``L_op`` rule with ordinary tensor ops, so
it carries test values like any graph, and its nodes record the user's ``sn.grad``
line as their creation site (the first frame outside symnb).
"""

from __future__ import annotations

import warnings
from typing import Any, Iterable, Sequence

from symnb.core.errors import SymnbError, label
from symnb.core.graph import Apply, Variable, toposort
from symnb.core.tensor import math as m
from symnb.core.tensor.basic import as_tensor_variable, constant

__all__ = ["grad", "DisconnectedInputError", "NullGradientError", "disconnected_grad",
           "jacobian", "hessian"]


class DisconnectedInputError(SymnbError, ValueError):
    """The cost does not depend (differentiably) on a variable in ``wrt``."""


class NullGradientError(SymnbError, TypeError):
    """A gradient was asked for where none exists (an integer or boolean variable)."""


def disconnected_grad(x: Any) -> Variable:
    """``x`` for values, a constant for differentiation (the seeds' ``block_gradient``)."""
    return m.stop_gradient(x)


def grad(cost: Variable | None, wrt: Variable | Sequence[Variable],
         consider_constant: Iterable[Variable] | None = None,
         disconnected_inputs: str = "raise", known_grads: dict | None = None,
         return_disconnected: str = "zero") -> Any:
    """Gradients of the scalar ``cost`` with respect to ``wrt`` (one variable or a list).

    - ``consider_constant``: variables through which no gradient flows.
    - ``known_grads``: ``{variable: its gradient}``, added to (or, with ``cost=None``,
      replacing) the backpropagation from ``cost``: backprop from a separating set.
    - ``disconnected_inputs``: ``'raise'`` (default), ``'warn'`` or ``'ignore'`` when the
      cost does not depend on a ``wrt`` variable; ``return_disconnected``: ``'zero'``
      (zeros like the variable) or ``'none'`` for such variables.
    """
    _check_policies(disconnected_inputs, return_disconnected)
    single = isinstance(wrt, Variable)
    wrt_list = [wrt] if single else list(wrt)
    for var in wrt_list:
        _check_differentiable_variable(var)
    seeds = _seeds(cost, known_grads)
    blockers = list(consider_constant or [])
    grads = _backpropagate(seeds, wrt_list, blockers)
    results = [_finish(v, grads.get(id(v)), disconnected_inputs, return_disconnected)
               for v in wrt_list]
    return results[0] if single else results


def _check_policies(disconnected_inputs: str, return_disconnected: str) -> None:
    if disconnected_inputs not in ("raise", "warn", "ignore"):
        raise ValueError(f"disconnected_inputs must be 'raise', 'warn' or 'ignore', "
                         f"got {disconnected_inputs!r}")
    if return_disconnected not in ("zero", "none", "disconnected"):
        raise ValueError(f"return_disconnected must be 'zero', 'none' or 'disconnected', "
                         f"got {return_disconnected!r}")


def _check_differentiable_variable(var: Any) -> None:
    if not isinstance(var, Variable):
        raise TypeError(f"grad: wrt must be symbolic variables, got {type(var).__name__}")
    if not var.dtype.startswith(("float", "complex")):
        raise NullGradientError(
            f"grad: cannot differentiate with respect to {label(var)!r}, of integer/bool dtype "
            f"{var.dtype} (created at {var.site.short()}); its gradient is undefined. "
            f"Cast it to a float dtype before use if you need a gradient.")


def _seeds(cost: Variable | None, known_grads: dict | None) -> dict[int, tuple[Variable, Variable]]:
    seeds: dict[int, tuple[Variable, Variable]] = {}
    if cost is not None:
        cost = as_tensor_variable(cost)
        if cost.ndim != 0:
            raise TypeError(f"grad: the cost must be a scalar; {label(cost)!r} has type "
                            f"{cost.type.short()}. Reduce it first (e.g. cost.sum() or cost.mean()), "
                            f"or pass known_grads for a non-scalar expression.")
        if not cost.dtype.startswith(("float", "complex")):
            raise NullGradientError(f"grad: the cost {label(cost)!r} has integer/bool dtype "
                                    f"{cost.dtype}, which has no gradient")
        seeds[id(cost)] = (cost, constant(1, dtype=cost.dtype))
    for var, g in (known_grads or {}).items():
        g = as_tensor_variable(g)
        if g.ndim != var.ndim:
            raise TypeError(f"grad: known_grads[{label(var)!r}] has {g.ndim} dimension(s), "
                            f"expected {var.ndim} like the variable ({var.type.short()})")
        g = m.cast(g, var.dtype)
        if id(var) in seeds:
            g = m.add(seeds[id(var)][1], g)
        seeds[id(var)] = (var, g)
    if not seeds:
        raise ValueError("grad: give a cost, or known_grads when cost is None")
    return seeds


def _backpropagate(seeds: dict[int, tuple[Variable, Variable]], wrt: list[Variable],
                   blockers: list[Variable]) -> dict[int, Variable]:
    """Accumulated gradients of every variable between ``wrt`` and the seeds."""
    sources = [var for var, _ in seeds.values()]
    blocked = {id(v) for v in blockers}
    nodes = toposort(sources, blockers)
    relevant = _nodes_leading_to(nodes, wrt, blocked)
    contributions: dict[int, list[Variable]] = {key: [g] for key, (_, g) in seeds.items()}
    for node in reversed(nodes):
        if id(node) not in relevant:
            continue
        output_grads = [_total(contributions.get(id(o))) for o in node.outputs]
        if all(g is None for g in output_grads):
            continue
        for inp, g in zip(node.inputs, _input_grads(node, output_grads)):
            if g is not None and id(inp) not in blocked:
                contributions.setdefault(id(inp), []).append(g)
    return {key: _total(gs) for key, gs in contributions.items()}


def _nodes_leading_to(nodes: list[Apply], wrt: list[Variable], blocked: set[int]) -> set[int]:
    """Nodes with an input that depends on some ``wrt`` variable (forward reachability)."""
    reached = {id(v) for v in wrt}
    relevant = set()
    for node in nodes:
        if node.op.differentiable and any(id(i) in reached and id(i) not in blocked for i in node.inputs):
            relevant.add(id(node))
            reached.update(id(o) for o in node.outputs)
    return relevant


def _total(grads: list[Variable] | None) -> Variable | None:
    if not grads:
        return None
    total = grads[0]
    for g in grads[1:]:
        total = m.add(total, g)
    return total


def _input_grads(node: Apply, output_grads: list[Variable | None]) -> list[Variable | None]:
    grads = node.op.L_op(node.inputs, node.outputs, output_grads)
    if len(grads) != len(node.inputs):
        raise AssertionError(f"{node.op.display_name()}.L_op returned {len(grads)} gradients "
                             f"for {len(node.inputs)} inputs")
    return [_fit(inp, g, node) for inp, g in zip(node.inputs, grads)]


def _fit(inp: Variable, g: Variable | None, node: Apply) -> Variable | None:
    """The gradient as the input's dtype; None for integer inputs (no gradient flows)."""
    if g is None or not inp.dtype.startswith(("float", "complex")):
        return None
    g = as_tensor_variable(g)
    if g.ndim != inp.ndim:
        raise AssertionError(f"{node.op.display_name()}.L_op: gradient of {label(inp)!r} has "
                             f"{g.ndim} dimension(s), expected {inp.ndim}")
    return m.cast(g, inp.dtype)


def _finish(var: Variable, g: Variable | None, policy: str, return_disconnected: str) -> Variable | None:
    if g is not None:
        return g
    message = (f"grad: the cost does not depend on {label(var)!r} ({var.type.short()}, created at "
               f"{var.site.short()}: {var.site.line}), or only through a blocked path "
               f"(consider_constant / disconnected_grad / non-differentiable op). "
               f"Pass disconnected_inputs='ignore' to get zeros.")
    if policy == "raise":
        raise DisconnectedInputError(message)
    if policy == "warn":
        warnings.warn(message, stacklevel=3)
    if return_disconnected == "zero":
        from symnb.core.tensor.alloc import zeros_like

        return zeros_like(var)
    return None


def jacobian(expression: Variable, wrt: Variable | Sequence[Variable],
             consider_constant: Iterable[Variable] | None = None,
             disconnected_inputs: str = "raise") -> Any:
    """d expression[i] / d wrt, stacked along a new leading axis (one row per element).

    ``expression`` must be a vector (or a scalar) whose length is statically known.
    """
    from symnb.core.tensor.join import stack

    expression = as_tensor_variable(expression)
    single = isinstance(wrt, Variable)
    wrt_list = [wrt] if single else list(wrt)
    if expression.ndim == 0:
        return grad(expression, wrt, consider_constant, disconnected_inputs)
    if expression.ndim != 1 or expression.type.shape[0] is None:
        raise TypeError(
            f"jacobian: {label(expression)!r} has type {expression.type.short()}; it must be a "
            f"vector of statically known length (give its inputs a static shape, e.g. "
            f"T.vector('x', shape=(3,)), or flatten a tensor of known shape)")
    rows = [grad(expression[i], wrt_list, consider_constant, disconnected_inputs)
            for i in range(expression.type.shape[0])]
    result = [stack([row[k] for row in rows]) for k in range(len(wrt_list))]
    return result[0] if single else result


def hessian(cost: Variable, wrt: Variable | Sequence[Variable],
            consider_constant: Iterable[Variable] | None = None,
            disconnected_inputs: str = "raise") -> Any:
    """Second derivatives of the scalar ``cost`` with respect to each vector in ``wrt``."""
    single = isinstance(wrt, Variable)
    wrt_list = [wrt] if single else list(wrt)
    result = []
    for var in wrt_list:
        first = grad(cost, var, consider_constant, disconnected_inputs)
        result.append(jacobian(first, var, consider_constant, disconnected_inputs))
    return result[0] if single else result
