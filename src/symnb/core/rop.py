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
from symnb.core.graph.basic import Constant, Variable, ancestors, clone_replace, toposort
from symnb.core.gradient import DisconnectedInputError, _where, float_dtype_of, grad
from symnb.core.gradient_types import disconnected_type, is_disconnected, is_null
from symnb.core.graph.source import warn_at_user_line
from symnb.core.graph.inner_graph import placeholder_like
from symnb.core.graph.type import is_float
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


def _paired(points: list[Any], variables: list[Variable], what: str,
            mismatch: type[Exception] = TypeError) -> list[Variable]:
    if len(points) != len(variables):
        raise ValueError(f"{what}: {len(variables)} variable(s) but {len(points)} eval_points")
    paired = []
    for var, point in zip(variables, points):
        point = as_tensor_variable(point)
        if point.ndim != var.ndim:  # (Rop: Theano's ValueError)
            raise mismatch(f"{what}: eval_point {label(point)!r} ({point.type.short()}) does not "
                            f"match {label(var)!r} ({var.type.short()})")
        # (the dtype of a float variable; a gradient stays float for an integer one)
        same = point.dtype == var.dtype or not is_float(var.dtype)
        paired.append(point if same else point.astype(var.dtype))
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
def Rop(f: Any, wrt: Any, eval_points: Any, disconnected_outputs: str = "raise",
        return_disconnected: str = "zero") -> Any:
    """``sum_j d f / d wrt[j] * eval_points[j]``: the Jacobian-vector product (one
    result per ``f``, of its shape; ``wrt`` and ``eval_points`` are one variable or
    matching lists; a list or tuple ``f`` gives a list or tuple).

    An output computed through an op that has no R-operator (``x.shape``, ``argmax``, an
    op whose ``R_op`` returns None) is disconnected, as in Theano:
    ``disconnected_outputs`` ``'raise'`` (:class:`DisconnectedInputError`, a
    ValueError), ``'warn'`` or ``'ignore'``; ``return_disconnected`` ``'zero'`` (zeros
    like the output), ``'None'`` or ``'Disconnected'``. An output that merely does not
    depend on ``wrt`` gets zeros, as Theano's zero eval points at the other inputs gave."""
    if disconnected_outputs not in ("raise", "warn", "ignore"):
        raise ValueError(f"Rop: disconnected_outputs must be 'raise', 'warn' or 'ignore', "
                         f"got {disconnected_outputs!r}")
    if str(return_disconnected).lower() not in ("zero", "none", "disconnected"):
        raise ValueError(f"Rop: return_disconnected must be 'zero', 'None' or 'Disconnected', "
                         f"got {return_disconnected!r}")
    f_list, single = _as_list(f)
    f_list = [as_tensor_variable(v) for v in f_list]
    wrt_list, _ = _as_list(wrt)
    points = _paired(_as_list(eval_points)[0], wrt_list, "Rop", ValueError)
    # The placeholders are float even for an integer output (a gradient is a float), so
    # that output's zeros leave its placeholder unused: disconnected, as Theano's R_op
    # of argmax or of a shape says.
    dummies = [placeholder_like(out, value=_zeros_value(out, float_dtype_of(out)),
                                name=f"u_{label(out)}", dtype=float_dtype_of(out))
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
    pushed = grad(contraction, dummies, disconnected_inputs="ignore",
                  return_disconnected="Disconnected")
    # Linear in the placeholders: what is left of them (a zero-valued branch) is zero.
    replace = {u: zeros_like(out, u.dtype) for u, out in zip(dummies, f_list)}
    connected = [i for i, p in enumerate(pushed) if not is_disconnected(p)]
    kept = [pushed[i] for i in connected]
    if any(any(a is u for u in dummies) for a in ancestors(kept)):
        kept = clone_replace(kept, replace)
    results: list[Any] = [None] * len(f_list)
    for i, value in zip(connected, kept):
        results[i] = value
    without_rop = _without_rop(f_list, wrt_list)
    for i, out in enumerate(f_list):
        if id(out) in without_rop:
            results[i] = _disconnected(out, disconnected_outputs, return_disconnected)
        elif i not in connected:
            results[i] = zeros_like(out)
    if single:
        return results[0]
    return tuple(results) if isinstance(f, tuple) else results


def _without_rop(outputs: list[Variable], wrt: list[Variable]) -> set[int]:
    """Variables whose R-operator Theano's ``Rop`` found to be None (its convention,
    op by op): the output of a non-differentiable op of a variable (a shape), of
    ``argmax``, of a user's op whose ``R_op`` says None; an elementwise op's when every
    input's is (a constant has zeros), another op's when its first (data) input's is.
    Roots and ``wrt`` have one (their eval point: given, or zeros)."""
    from symnb.core.tensor.elemwise import Elemwise
    from symnb.core.tensor.reduction import ArgReduce

    none: set[int] = set()
    for node in toposort(outputs, wrt):
        op = node.op
        if not op.differentiable:
            lacking = any(not isinstance(i, Constant) for i in node.inputs)
        elif isinstance(op, ArgReduce):
            lacking = True
        elif "R_op" in type(op).__dict__ and not type(op).__module__.startswith("symnb."):
            points = [None if id(i) in none else i for i in node.inputs]
            lacking = all(p is None for p in op.R_op(node.inputs, points))
        elif isinstance(op, Elemwise):
            lacking = all(id(i) in none for i in node.inputs)
        else:
            lacking = bool(node.inputs) and id(node.inputs[0]) in none
        if lacking:
            none.update(id(o) for o in node.outputs)
    return none


def _disconnected(out: Variable, policy: str, return_disconnected: str) -> Any:
    """What Rop gives for an output ``wrt`` does not reach (Theano's messages)."""
    message = (f"Rop: the output {label(out)!r} ({out.type.short()}{_where(out)}) does not depend "
               f"on the variables in wrt, or only through a non-differentiable or "
               f"integer-valued op")
    if policy == "raise":
        raise DisconnectedInputError(message)
    if policy == "warn":
        warn_at_user_line(message)
    kind = str(return_disconnected).lower()
    if kind == "zero":
        return zeros_like(out)
    if kind == "disconnected":
        return disconnected_type()
    return None


def _zeros_value(var: Variable, dtype: str) -> Any:
    import numpy as np

    if not var.has_test_value:
        return None
    return np.zeros_like(var.test_value, dtype=dtype)
