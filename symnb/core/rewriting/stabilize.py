"""Numerical stabilization: rewrite expressions that overflow or lose precision into
equivalent ones that do not (the ``stabilize`` pass).

- ``exp(x) / sum(exp(x), axis, keepdims)`` -> ``softmax(x, axis)``;
- ``log(softmax(x))`` -> ``log_softmax(x)`` (so a softmax cross-entropy
  ``-sum(y * log(softmax(z)))`` never takes the log of an underflowed 0), and a
  softmax also read elsewhere -> ``exp(log_softmax(x))`` (one normalization, not two);
- ``log(sigmoid(x))`` -> ``-softplus(-x)``, ``log(1 - sigmoid(x))`` -> ``-softplus(x)``;
- ``log(1 + exp(x))`` -> ``softplus(x)``, ``log(1 + x)`` -> ``log1p(x)``;
- ``exp(x) - 1`` -> ``expm1(x)``.

The new expression is computed in the replaced value's dtype (the input is cast first
when NumPy's promotion made the result wider than it).

Stabilizing changes values where the original overflows or underflows (that is its
purpose): those rewrites declare where they are exact, and DebugMode reports them as
notes there. ``log1p`` and ``expm1`` differ from the original by at most a rounding.
"""

from __future__ import annotations

from symnb.core.fgraph import FunctionGraph
from symnb.core.graph import Apply, Variable
from symnb.core.rewriting.basic import build, node_rewriter
from symnb.core.rewriting.utils import as_type_of, is_fill_constant, other_operand, owner_op, single_reader
from symnb.core.tensor import elemwise as ew
from symnb.core.tensor.nnet import LogSoftmax, Softmax
from symnb.core.tensor.reduction import Sum
from symnb.core.tensor.shape import DimShuffle
from symnb.core.type import is_float

__all__ = ["REWRITES"]


def _in_dtype(x: Variable, out: Variable) -> Variable:
    """``x`` cast to ``out``'s dtype (when it differs)."""
    return x if x.dtype == out.dtype else build(ew.Cast(out.dtype), x)


def _neg(x: Variable) -> Variable:
    return build(ew.Neg(), x)


def _float_operand(add: Apply, value: float) -> Variable | None:
    """The float operand of ``value + operand`` (either order) whose dtype is the sum's."""
    x = other_operand(add, value)
    if x is None or not is_float(x.dtype) or x.dtype != add.outputs[0].dtype:
        return None
    return x


@node_rewriter([ew.Log], exact="where no softmax(x) value underflows to 0 or a subnormal (x - max(x) "
                               "above about -87 in float32, -708 in float64), where the original's log is "
                               "-inf or imprecise")
def local_log_softmax(fgraph: FunctionGraph, node: Apply):
    """log(softmax(x)) -> log_softmax(x); the softmax, when also read elsewhere, becomes
    exp(log_softmax(x)) so the normalization is computed once."""
    softmax = owner_op(node.inputs[0], Softmax)
    if softmax is None:
        return None
    log_softmax = build(LogSoftmax(softmax.op.axis), softmax.inputs[0])
    replacements = {node.outputs[0]: as_type_of(log_softmax, node.outputs[0])}
    if not single_reader(fgraph, softmax.outputs[0]):
        replacements[softmax.outputs[0]] = build(ew.Exp(), log_softmax)
    return replacements


@node_rewriter([ew.Log], exact="where sigmoid(x) does not underflow (x above about -87 in float32, "
                               "-708 in float64), where the original's log is -inf or imprecise")
def local_log_sigmoid(fgraph: FunctionGraph, node: Apply):
    """log(sigmoid(x)) -> -softplus(-x)."""
    sigmoid = owner_op(node.inputs[0], ew.Sigmoid)
    if sigmoid is None or sigmoid.inputs[0].ndim != node.outputs[0].ndim:
        return None
    x = _in_dtype(sigmoid.inputs[0], node.outputs[0])
    return _neg(build(ew.Softplus(), _neg(x)))


@node_rewriter([ew.Log], exact="where 1 - sigmoid(x) keeps its precision (x below about 8 in float32, "
                               "17 in float64); beyond, the original loses digits, then is -inf")
def local_log1m_sigmoid(fgraph: FunctionGraph, node: Apply):
    """log(1 - sigmoid(x)) -> -softplus(x)."""
    sub = owner_op(node.inputs[0], ew.Sub)
    if sub is None or not is_fill_constant(sub.inputs[0], 1, sub.outputs[0]):
        return None
    sigmoid = owner_op(sub.inputs[1], ew.Sigmoid)
    if sigmoid is None or sigmoid.outputs[0].dtype != sub.outputs[0].dtype \
            or sigmoid.inputs[0].ndim != node.outputs[0].ndim:
        return None
    return _neg(build(ew.Softplus(), _in_dtype(sigmoid.inputs[0], node.outputs[0])))


@node_rewriter([ew.Log], exact="where exp(x) does not overflow (x below about 88 in float32, 709 in "
                               "float64), where the original is inf")
def local_log1p_exp(fgraph: FunctionGraph, node: Apply):
    """log(1 + exp(x)) -> softplus(x)."""
    add = owner_op(node.inputs[0], ew.Add)
    operand = None if add is None else _float_operand(add, 1)
    exp = None if operand is None else owner_op(operand, ew.Exp)
    if exp is None or exp.inputs[0].ndim != node.outputs[0].ndim:
        return None
    return build(ew.Softplus(), _in_dtype(exp.inputs[0], node.outputs[0]))


@node_rewriter([ew.Log])
def local_log1p(fgraph: FunctionGraph, node: Apply):
    """log(1 + x) -> log1p(x) for a float x."""
    add = owner_op(node.inputs[0], ew.Add)
    x = None if add is None else _float_operand(add, 1)
    if x is None:
        return None
    return as_type_of(build(ew.Log1p(), x), node.outputs[0])


@node_rewriter([ew.Sub])
def local_expm1(fgraph: FunctionGraph, node: Apply):
    """exp(x) - 1 -> expm1(x)."""
    e, one = node.inputs
    exp = owner_op(e, ew.Exp)
    out = node.outputs[0]
    if exp is None or not is_fill_constant(one, 1, out) or e.dtype != out.dtype or e.ndim != out.ndim:
        return None
    return build(ew.Expm1(), _in_dtype(exp.inputs[0], out))


def _summed_axes(denominator: Variable, numerator: Variable) -> tuple[int, ...] | None:
    """The axes of ``sum(numerator, axes, keepdims=True)`` when ``denominator`` is that
    sum (written with keepdims, or as a dimshuffle re-inserting the summed axes)."""
    shuffle = owner_op(denominator, DimShuffle)
    if shuffle is not None:
        total = owner_op(shuffle.inputs[0], Sum)
        if total is None or total.op.keepdims or total.inputs[0] is not numerator:
            return None
        ndim = numerator.ndim
        kept = iter(range(ndim - len(total.op.axis)))
        expected = tuple("x" if a in total.op.axis else next(kept) for a in range(ndim))
        return total.op.axis if shuffle.op.pattern == expected else None
    total = owner_op(denominator, Sum)
    if total is None or not total.op.keepdims or total.inputs[0] is not numerator:
        return None
    return total.op.axis


@node_rewriter([ew.TrueDiv], exact="where exp(x) does not overflow (x below about 88 in float32, 709 in "
                                   "float64) and does not underflow to 0 all along the axis: the "
                                   "original is NaN there")
def local_softmax(fgraph: FunctionGraph, node: Apply):
    """exp(x) / sum(exp(x), axis, keepdims=True) -> softmax(x, axis)."""
    numerator, denominator = node.inputs
    exp = owner_op(numerator, ew.Exp)
    if exp is None or numerator.dtype != node.outputs[0].dtype:
        return None
    axes = _summed_axes(denominator, numerator)
    if axes is None or denominator.dtype != numerator.dtype:
        return None
    return as_type_of(build(Softmax(axes), exp.inputs[0]), node.outputs[0])


REWRITES = [
    local_softmax, local_log_softmax, local_log_sigmoid, local_log1m_sigmoid,
    local_log1p_exp, local_log1p, local_expm1,
]
