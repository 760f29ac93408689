"""Algebraic simplification of elementwise expressions (the ``canonicalize`` pass).

Each rewrite keeps the replaced value's dtype (casting when NumPy's promotion made the
result wider than the operand) and its shape: a neutral constant is removed only when
it cannot widen the result by broadcasting. Like Theano, the rewrites assume ordinary
numbers: ``x / x`` becomes 1 even where x is 0, ``exp(log(x))`` becomes x even where x
is negative.
"""

from __future__ import annotations

import numpy as np

from symnb.core.fgraph import FunctionGraph
from symnb.core.graph import Apply
from symnb.core.rewriting.basic import build, node_rewriter
from symnb.core.rewriting.utils import as_type_of, make_constant, other_operand, owner_op
from symnb.core.tensor import elemwise as ew
from symnb.core.tensor.alloc import Alloc
from symnb.core.tensor.shape import Shape

__all__ = ["REWRITES", "ones_like_output"]

#: Constants of at most this many elements are built directly; larger ones with Alloc.
_SMALL_CONSTANT = 64


@node_rewriter([ew.Mul])
def local_mul_one(fgraph: FunctionGraph, node: Apply):
    """x * 1 -> x, 1 * x -> x."""
    x = other_operand(node, 1)
    return None if x is None else as_type_of(x, node.outputs[0])


@node_rewriter([ew.Add])
def local_add_zero(fgraph: FunctionGraph, node: Apply):
    """x + 0 -> x, 0 + x -> x."""
    x = other_operand(node, 0)
    return None if x is None else as_type_of(x, node.outputs[0])


@node_rewriter([ew.Sub])
def local_sub_zero(fgraph: FunctionGraph, node: Apply):
    """x - 0 -> x."""
    x, zero = node.inputs
    if other_operand(node, 0) is not x or x is zero:
        return None
    return as_type_of(x, node.outputs[0])


@node_rewriter([ew.TrueDiv])
def local_div_one(fgraph: FunctionGraph, node: Apply):
    """x / 1 -> x."""
    x, one = node.inputs
    if other_operand(node, 1) is not x or x is one:
        return None
    return as_type_of(x, node.outputs[0])


@node_rewriter([ew.TrueDiv])
def local_div_self(fgraph: FunctionGraph, node: Apply):
    """x / x -> ones shaped like x (of the division's dtype)."""
    x, y = node.inputs
    if x is not y:
        return None
    return [ones_like_output(node.outputs[0], x)]


def ones_like_output(out, like):
    """Ones of ``out``'s type, shaped like ``like`` (same shape as ``out``): a constant
    when the static shape is known and small, else an ``Alloc`` of 1."""
    shape = out.type.shape
    if None not in shape and int(np.prod(shape, dtype=np.int64)) <= _SMALL_CONSTANT:
        return make_constant(np.ones(shape), out.type.dtype)
    return build(Alloc(), make_constant(1, out.type.dtype), build(Shape(), like))


@node_rewriter([ew.Neg])
def local_neg_neg(fgraph: FunctionGraph, node: Apply):
    """-(-x) -> x."""
    inner = owner_op(node.inputs[0], ew.Neg)
    return None if inner is None else as_type_of(inner.inputs[0], node.outputs[0])


@node_rewriter([ew.Exp])
def local_exp_log(fgraph: FunctionGraph, node: Apply):
    """exp(log(x)) -> x."""
    inner = owner_op(node.inputs[0], ew.Log)
    return None if inner is None else as_type_of(inner.inputs[0], node.outputs[0])


@node_rewriter([ew.Log])
def local_log_exp(fgraph: FunctionGraph, node: Apply):
    """log(exp(x)) -> x."""
    inner = owner_op(node.inputs[0], ew.Exp)
    return None if inner is None else as_type_of(inner.inputs[0], node.outputs[0])


@node_rewriter([ew.Cast])
def local_useless_cast(fgraph: FunctionGraph, node: Apply):
    """A cast to the dtype its input already has -> the input."""
    x = node.inputs[0]
    return x if x.dtype == node.op.dtype else None


@node_rewriter([ew.Cast])
def local_cast_cast(fgraph: FunctionGraph, node: Apply):
    """cast(cast(x, wider), d) -> cast(x, d) when the inner cast loses nothing."""
    inner = owner_op(node.inputs[0], ew.Cast)
    if inner is None:
        return None
    x = inner.inputs[0]
    if not np.can_cast(x.dtype, inner.op.dtype, casting="safe"):
        return None
    return x if x.dtype == node.op.dtype else build(ew.Cast(node.op.dtype), x)


REWRITES = [
    local_useless_cast, local_cast_cast, local_mul_one, local_add_zero, local_sub_zero,
    local_div_one, local_div_self, local_neg_neg, local_exp_log, local_log_exp,
]
