"""Theano's argmax rewrites (``theano/tensor/nnet/nnet.py``'s ``local_argmax_pushdown``,
and ``max_and_argmax`` reduced to the output read), in the ``specialize`` pass:

- ``local_max_and_argmax``: ``max_and_argmax(x)`` with its argmax unread -> ``max(x)``,
  with its max unread -> ``argmax(x)``;
- ``local_argmax_pushdown``: the argmax of an increasing function of ``x`` is the argmax
  of ``x`` (``exp``, ``log``, ``tanh``, ``sigmoid``, ``softplus``, a softmax along the
  argmax's axis, ``softmax_with_bias``): a classifier's prediction skips the
  normalization. Inexact where the function rounds distinct values to one (declared).
"""

from __future__ import annotations

from symnb.core.graph.basic import Apply, Variable
from symnb.core.graph.fgraph import FunctionGraph
from symnb.core.graph.rewriting import build, node_rewriter
from symnb.core.rewriting.nnet_patterns import ROW
from symnb.core.rewriting.passes import register_rewrite
from symnb.core.tensor import elemwise as ew
from symnb.core.tensor import nnet, nnet_ops
from symnb.core.tensor.basic_theano_ops import MaxAndArgmax
from symnb.core.tensor.reduction import Argmax, Max
from symnb.core.tensor.shape import DimShuffle

__all__ = ["local_max_and_argmax", "local_argmax_pushdown"]


@register_rewrite("specialize")
@node_rewriter([MaxAndArgmax])
def local_max_and_argmax(fgraph: FunctionGraph, node: Apply):
    """max_and_argmax(x) with its argmax unread -> max(x); with its max unread ->
    argmax(x) (one axis, or all of them)."""
    x = node.inputs[0]
    the_max, the_argmax = node.outputs
    if not fgraph.clients.get(the_argmax):
        return {the_max: build(Max(node.op.axis), x)}
    if fgraph.clients.get(the_max):
        return None
    if node.op.axis == tuple(range(x.ndim)):
        return {the_argmax: build(Argmax(None), x)}
    if len(node.op.axis) == 1:
        return {the_argmax: build(Argmax(node.op.axis[0]), x)}
    return None


#: Elementwise functions increasing in their input: they keep the argmax.
_INCREASING = (ew.Exp, ew.Log, ew.Tanh, ew.Sigmoid, ew.Softplus)


@register_rewrite("specialize")
@node_rewriter([Argmax], exact=(
    "where the function keeps distinct values of x distinct (exp overflowing to inf, "
    "sigmoid or tanh rounding to 1, log of a negative x: ties or NaN the argmax of x has not)"))
def local_argmax_pushdown(fgraph: FunctionGraph, node: Apply):
    """argmax(f(x)) -> argmax(x) for f increasing (exp, log, tanh, sigmoid, softplus, a
    softmax along the argmax's axis); argmax(softmax_with_bias(x, b), 1) -> argmax(x + b, 1)."""
    fx = node.inputs[0]
    inner = fx.owner
    if inner is None:
        return None
    if isinstance(inner.op, _INCREASING) and inner.inputs[0].type.shape == fx.type.shape:
        pre = inner.inputs[0]
    elif isinstance(inner.op, nnet.Softmax) and inner.op.axis == _axes(node, fx):
        pre = inner.inputs[0]
    elif isinstance(inner.op, nnet_ops.SoftmaxWithBias) and _axes(node, fx) == (1,):
        pre = build(ew.Add(), inner.inputs[0], build(DimShuffle(1, ROW), inner.inputs[1]))
    else:
        return None
    if pre.ndim != fx.ndim:
        return None
    return [build(node.op, pre)]


def _axes(node: Apply, x: Variable) -> tuple[int, ...]:
    """The argmax's axes, non-negative (``argmax(x, axis=-1)`` keeps -1)."""
    return tuple(a % x.ndim for a in node.op.reduced_axes(x.ndim))
