"""Small predicates and builders shared by the rewrites."""

from __future__ import annotations

from typing import Any

import numpy as np

from symnb.core.graph.basic import Variable
from symnb.core.graph.op import Op
from symnb.core.graph.rewriting import build
from symnb.core.tensor import elemwise as ew
from symnb.core.tensor.patterns import is_fill_constant, other_operand, owner_op
from symnb.core.tensor.variable import TensorConstant
from symnb.core.graph.type import TensorType

__all__ = ["owner_op", "is_fill_constant", "other_operand", "as_type_of", "unary_like",
           "make_constant", "single_reader"]


def as_type_of(var: Variable, out: Variable) -> Variable | None:
    """``var`` cast to ``out``'s dtype when needed; None when it cannot stand for
    ``out`` (another number of dimensions)."""
    if var.ndim != out.ndim:
        return None
    if var.dtype != out.dtype:
        var = build(ew.Cast(out.dtype), var)
    return var


def unary_like(op: Op, x: Variable, out: Variable) -> Variable | None:
    """``op(x)`` computed in ``out``'s dtype: ``x`` is cast first when its dtype differs,
    so the result has the precision NumPy would give ``out``."""
    if x.ndim != out.ndim:
        return None
    if x.dtype != out.dtype:
        x = build(ew.Cast(out.dtype), x)
    result = build(op, x)
    return result if result.dtype == out.dtype else None


def make_constant(value: Any, dtype: str) -> TensorConstant:
    """A read-only constant of exactly ``dtype``."""
    data = np.asarray(value, dtype=dtype)
    return TensorConstant(TensorType(dtype, data.shape), data)


def single_reader(fgraph: Any, var: Variable) -> bool:
    """True when exactly one node reads ``var`` (once or more) and it is no output."""
    readers = fgraph.clients.get(var, {})
    clients = {c for c, _ in readers}
    return len(clients) == 1 and "output" not in clients
