"""Algebraic simplification of elementwise expressions (the ``canonicalize`` pass).

Each rewrite keeps the replaced value's dtype (casting when NumPy's promotion made the
result wider than the operand) and its shape: a neutral constant is removed only when
it cannot widen the result by broadcasting.

Two rewrites are Theano's and change values outside ordinary numbers; they declare it
(see :mod:`symnb.core.graph.rewriting`), and DebugMode reports them by name as notes:
``x / x -> 1`` is exact only where x is finite and non-zero, ``log(exp(x)) -> x`` only
where ``exp(x)`` neither overflows nor underflows. ``exp(log(x))`` keeps NaN where x is
negative: it becomes ``switch(x >= 0, abs(x), nan)`` (``log(-0.0)`` is ``-inf``, so
``exp(log(-0.0))`` is ``+0.0``: ``abs`` gives that sign too).
"""

from __future__ import annotations

import numpy as np

from symnb.core.graph.fgraph import FunctionGraph
from symnb.core.graph.basic import Apply
from symnb.core.graph.rewriting import build, node_rewriter
from symnb.core.rewriting.utils import as_type_of, make_constant, other_operand, owner_op
from symnb.core.graph.static import small_enough_to_inline
from symnb.core.tensor import elemwise as ew
from symnb.core.tensor.alloc import Alloc
from symnb.core.tensor.shape import Shape

__all__ = ["REWRITES", "ones_like_output"]

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


@node_rewriter([ew.TrueDiv], exact="where x is finite and non-zero (0 / 0 and inf / inf are NaN)")
def local_div_self(fgraph: FunctionGraph, node: Apply):
    """x / x -> ones shaped like x (of the division's dtype)."""
    x, y = node.inputs
    if x is not y:
        return None
    return [ones_like_output(node.outputs[0], x)]


def ones_like_output(out, like):
    """Ones of ``out``'s type, shaped like ``like`` (same shape as ``out``): a constant
    when the static shape is known and small enough to embed, else an ``Alloc`` of 1."""
    shape = out.type.shape
    if None not in shape and small_enough_to_inline(shape):
        return make_constant(np.ones(shape), out.type.dtype)
    return build(Alloc(), make_constant(1, out.type.dtype), build(Shape(), like))


@node_rewriter([ew.Neg])
def local_neg_neg(fgraph: FunctionGraph, node: Apply):
    """-(-x) -> x."""
    inner = owner_op(node.inputs[0], ew.Neg)
    return None if inner is None else as_type_of(inner.inputs[0], node.outputs[0])


@node_rewriter([ew.Exp], exact="where x is not within a few ulps of the dtype's largest value "
                                "(exp(log(x)) rounds up to inf there: the 63 largest float32s)")
def local_exp_log(fgraph: FunctionGraph, node: Apply):
    """exp(log(x)) -> switch(x >= 0, abs(x), nan): x where log is defined (0 for -0.0),
    NaN where x is negative or NaN, as the original."""
    inner = owner_op(node.inputs[0], ew.Log)
    if inner is None:
        return None
    out = node.outputs[0]
    x = as_type_of(inner.inputs[0], out)
    if x is None:
        return None
    defined = build(ew.Ge(), x, make_constant(0, out.dtype))
    return build(ew.Switch(), defined, build(ew.Abs(), x), make_constant(np.nan, out.dtype))


@node_rewriter([ew.Log], exact="where exp(x) is a finite normal number of the result's dtype "
                               "(|x| below about 87 in float32, 708 in float64, 9 in float16): "
                               "beyond, exp overflows to inf or underflows towards 0")
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
    if not casts_exactly(x.dtype, inner.op.dtype):
        return None
    return x if x.dtype == node.op.dtype else build(ew.Cast(node.op.dtype), x)


def casts_exactly(source: str, target: str) -> bool:
    """True when every value of ``source`` is a value of ``target`` (a lossless cast).

    NumPy calls int64 -> float64 "safe", but it rounds above 2**53; casting through it
    would round twice (``2**60 + 2**36 + 1`` then gives another float32 than directly).
    """
    if not np.can_cast(source, target, casting="safe"):
        return False
    source, target = np.dtype(source), np.dtype(target)
    if source.kind in "iu" and target.kind in "fc":
        magnitude_bits = np.iinfo(source).bits - (source.kind == "i")
        return magnitude_bits <= np.finfo(target).nmant + 1
    return True


REWRITES = [
    local_useless_cast, local_cast_cast, local_mul_one, local_add_zero, local_sub_zero,
    local_div_one, local_div_self, local_neg_neg, local_exp_log, local_log_exp,
]
