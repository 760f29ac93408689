"""Theano's ``Lop`` and ``Rop``: vector-Jacobian and Jacobian-vector products.

``Lop(f, wrt, u)`` is backpropagation seeded with ``u`` (``grad`` with
``known_grads``). ``Rop(f, wrt, v)`` is computed from it, without an ``R_op`` per op:
``Lop(f, wrt, u)`` is linear in ``u``, so the gradient with respect to ``u`` of
``sum(Lop(f, wrt, u) * v)`` is ``J v`` (the "double backward" trick); ``u`` is a
placeholder that no longer appears in the result, and is then replaced by zeros.
"""

from __future__ import annotations

from typing import Any, Sequence

from symnb.core.graph.errors import label
from symnb.core.graph.basic import Variable, ancestors, clone_replace
from symnb.core.gradient import grad
from symnb.core.gradient_types import is_null
from symnb.core.graph.inner_graph import placeholder_like
from symnb.core.tensor import math as m
from symnb.core.tensor.alloc import zeros_like
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.tensor.reduction import sum as _sum
from symnb.core.graph.traceback_filter import api_boundary

__all__ = ["Lop", "Rop"]


def _as_list(value: Any) -> tuple[list[Any], bool]:
    if isinstance(value, (list, tuple)):
        return list(value), False
    return [value], True


def _paired(points: list[Any], variables: list[Variable], what: str) -> list[Variable]:
    if len(points) != len(variables):
        raise ValueError(f"{what}: {len(variables)} variable(s) but {len(points)} eval_points")
    paired = []
    for var, point in zip(variables, points):
        point = as_tensor_variable(point)
        if point.ndim != var.ndim:
            raise TypeError(f"{what}: eval_point {label(point)!r} ({point.type.short()}) does not "
                            f"match {label(var)!r} ({var.type.short()})")
        paired.append(point.astype(var.dtype) if point.dtype != var.dtype else point)
    return paired


@api_boundary
def Lop(f: Any, wrt: Any, eval_points: Any, consider_constant: Any = None,
        disconnected_inputs: str = "raise") -> Any:
    """``sum_i eval_points[i] * d f[i] / d wrt``: the vector-Jacobian product (one
    result per ``wrt``; ``f`` and ``eval_points`` are one variable or matching lists)."""
    f_list, _ = _as_list(f)
    f_list = [as_tensor_variable(v) for v in f_list]
    points = _paired(_as_list(eval_points)[0], f_list, "Lop")
    wrt_list, single = _as_list(wrt)
    result = grad(None, wrt_list, consider_constant=consider_constant,
                  disconnected_inputs=disconnected_inputs, known_grads=dict(zip(f_list, points)))
    return result[0] if single else list(result)


@api_boundary
def Rop(f: Any, wrt: Any, eval_points: Any) -> Any:
    """``sum_j d f / d wrt[j] * eval_points[j]``: the Jacobian-vector product (one
    result per ``f``, of its shape; ``wrt`` and ``eval_points`` are one variable or
    matching lists)."""
    f_list, single = _as_list(f)
    f_list = [as_tensor_variable(v) for v in f_list]
    wrt_list, _ = _as_list(wrt)
    points = _paired(_as_list(eval_points)[0], wrt_list, "Rop")
    dummies = [placeholder_like(out, value=_zeros_value(out), name=f"u_{label(out)}")
               for out in f_list]
    pulled = grad(None, wrt_list, known_grads=dict(zip(f_list, dummies)),
                  disconnected_inputs="ignore", null_gradients="return")
    for var, g in zip(wrt_list, pulled):
        if is_null(g):  # Theano's Rop raises ValueError through a non-differentiable op
            raise ValueError(f"Rop: the Jacobian with respect to {label(var)!r} is not defined: "
                             f"{g.type.why_null}")
    contraction = _sum(m.mul(pulled[0], points[0]))
    for g, v in zip(pulled[1:], points[1:]):
        contraction = m.add(contraction, _sum(m.mul(g, v)))
    pushed = grad(contraction, dummies, disconnected_inputs="ignore")
    # Linear in the placeholders: what is left of them (a zero-valued branch) is zero.
    replace = {u: zeros_like(out) for u, out in zip(dummies, f_list)}
    if any(any(a is u for u in dummies) for a in ancestors(pushed)):
        pushed = clone_replace(list(pushed), replace)
    return pushed[0] if single else list(pushed)


def _zeros_value(var: Variable) -> Any:
    import numpy as np

    if not var.has_test_value:
        return None
    return np.zeros_like(var.test_value)
