"""The jacobian and the hessian: ``sn.grad`` row by row, unrolled when the length is
static, else through a ``scan`` (Theano's recipe).

Above both ``gradient.py`` and ``scan/``: the scan builds on gradients, and gradients of
scans are scans.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from symnb.core.graph.errors import label
from symnb.core.gradient import _check_policies, _finish, _where, grad
from symnb.core.graph.basic import Variable
from symnb.core.scan.basic import scan
from symnb.core.tensor.alloc import arange, zeros, zeros_like
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.tensor.join import stack
from symnb.core.tensor.reduction import sum as _sum
from symnb.core.tensor.shape import shape_i

__all__ = ["jacobian", "hessian"]


def jacobian(expression: Variable, wrt: Variable | Sequence[Variable],
             consider_constant: Iterable[Variable] | None = None,
             disconnected_inputs: str = "raise") -> Any:
    """d expression[i] / d wrt, stacked along a new leading axis (one row per element).

    ``expression`` is a vector (or a scalar); the result for ``wrt`` of shape ``s`` has
    shape ``(len(expression),) + s``. A vector of statically known length gets one
    gradient per element, unrolled; one of unknown length gets them from a ``scan`` over
    its elements, as Theano does. A row that does not depend on ``wrt`` is zeros;
    ``disconnected_inputs`` applies when no row does.
    """
    expression = as_tensor_variable(expression)
    single = isinstance(wrt, Variable)
    wrt_list = [wrt] if single else list(wrt)
    if expression.ndim == 0:
        return grad(expression, wrt, consider_constant, disconnected_inputs)
    if expression.ndim != 1:
        raise TypeError(
            f"jacobian: {label(expression)!r} has type {expression.type.short()}"
            f"{_where(expression)}; it must be a vector (flatten a tensor first)")
    _check_policies(disconnected_inputs, "zero")
    if expression.type.shape[0] is None:
        result = _jacobian_by_scan(expression, wrt_list, consider_constant, disconnected_inputs)
        return result[0] if single else result
    rows = [grad(expression[i], wrt_list, consider_constant, disconnected_inputs="ignore",
                 return_disconnected="none")
            for i in range(expression.type.shape[0])]
    result = []
    for k, var in enumerate(wrt_list):
        column = [row[k] for row in rows]
        if all(g is None for g in column):
            result.append(_finish_jacobian(expression, var, disconnected_inputs))
            continue
        result.append(stack([zeros_like(var) if g is None else g for g in column]))
    return result[0] if single else result


def _jacobian_by_scan(expression: Variable, wrt: list[Variable],
                      consider_constant: Iterable[Variable] | None, policy: str) -> list[Variable]:
    """Theano's recipe: a scan over ``arange(len(expression))`` whose step takes the
    gradient of ``expression[i]`` (the step receives the outer variables themselves)."""
    for var in wrt:  # the policy applies to the whole expression, as for the unrolled rows
        grad(_sum(expression), var, consider_constant, disconnected_inputs=policy)

    def row(i, expr, *variables):
        return grad(expr[i], list(variables), consider_constant, disconnected_inputs="ignore")

    rows, _ = scan(row, sequences=arange(shape_i(expression, 0)),
                   non_sequences=[expression, *wrt], return_list=True, name="jacobian")
    return list(rows)


def _finish_jacobian(expression: Variable, var: Variable, policy: str) -> Variable:
    """The all-zero jacobian of an expression that does not depend on ``var``, or an error."""
    _finish(var, None, policy, "none")
    length = expression.type.shape[0]
    return zeros([length, *(shape_i(var, d) for d in range(var.ndim))], dtype=var.dtype)


def hessian(cost: Variable, wrt: Variable | Sequence[Variable],
            consider_constant: Iterable[Variable] | None = None,
            disconnected_inputs: str = "raise") -> Any:
    """Second derivatives of the scalar ``cost`` with respect to each vector in ``wrt``:
    a square matrix per vector (through a scan when its length is not static)."""
    single = isinstance(wrt, Variable)
    wrt_list = [wrt] if single else list(wrt)
    result = []
    for var in wrt_list:
        if var.ndim != 1:
            raise TypeError(f"hessian: {label(var)!r} has type {var.type.short()}{_where(var)}; "
                            f"each variable must be a vector")
        first = grad(cost, var, consider_constant, disconnected_inputs)
        # A gradient that no longer depends on ``var`` (a cost linear in it) is not a
        # disconnected input: its hessian is zero.
        result.append(jacobian(first, var, consider_constant, disconnected_inputs="ignore"))
    return result[0] if single else result
