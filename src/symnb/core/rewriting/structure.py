"""Simplifications of shape ops, reductions and products (the ``canonicalize`` pass).

- ``shape(x)`` -> a constant when ``x``'s static shape is fully known;
- ``shape(op(...))`` and ``shape_i(op(...))`` -> the op's ``infer_shape`` of its inputs'
  shapes (Theano's ``ShapeFeature``): a shape no longer runs the op that makes the value;
- ``reshape(reshape(x, s1), s2) -> reshape(x, s2)``; a reshape to ``x``'s own known
  shape disappears; ``reshape(f(x), s) -> f(reshape(x, s))`` for an elementwise ``f`` of
  one input (so that the rewrites reading ``f`` see it);
- ``dimshuffle(dimshuffle(x))`` -> one dimshuffle; an identity dimshuffle disappears;
- ``sum(sum(x, a1), a2) -> sum(x, a1 + a2)``;
- ``dot(a.T, b.T) -> dot(b, a).T`` and ``dot(a, b).T -> dot(b.T, a.T)`` when that
  leaves fewer transposes (the remaining ones then cancel).
"""

from __future__ import annotations

import numpy as np

from symnb.core.graph.fgraph import FunctionGraph
from symnb.core.graph.basic import Apply, Variable
from symnb.core.graph.rewriting import build, node_rewriter
from symnb.core.rewriting.utils import as_type_of, make_constant, owner_op, single_reader
from symnb.core.tensor.blas import Dot
from symnb.core.tensor.elemwise import Elemwise
from symnb.core.tensor.reduction import Sum
from symnb.core.tensor.stable_forms import lifted_reshape
from symnb.core.graph.op import Op
from symnb.core.graph.source import Site
from symnb.core.graph.type import TensorType
from symnb.core.tensor.shape import DimShuffle, Reshape, Shape, ShapeI, as_shape_vector, shape_i

__all__ = ["REWRITES", "may_mismatch"]


@node_rewriter([Shape])
def local_static_shape(fgraph: FunctionGraph, node: Apply):
    """shape(x) -> its value, when x's static shape is fully known."""
    x = node.inputs[0]
    if not x.type.fully_known:
        return None
    return make_constant(np.array(x.type.shape, dtype=np.int64).reshape(x.ndim), "int64")


def _inferred_shape(fgraph: FunctionGraph, var: Variable) -> tuple | None:
    """``var``'s shape from its owner's ``infer_shape`` (entries: ints or int scalars built
    from the owner's inputs' shapes, never from its outputs), or None where the owner has
    none or it does not apply (an op holding graphs that may fail, inputs not all tensors)."""
    node = var.owner
    if node is None or type(node.op).infer_shape is Op.infer_shape \
            or not node.op.shape_without_running(node):
        return None
    if isinstance(node.op, (Shape, ShapeI)) or node.op.has_effects:
        return None
    # Where the op itself checks that its inputs' shapes agree (a broadcast, a reshape's
    # size), the inferred shape would skip that check and give a shape where the op raises.
    if isinstance(node.op, Reshape) or (isinstance(node.op, Elemwise) and may_mismatch(node)):
        return None
    if not all(isinstance(v.type, TensorType) for v in (*node.inputs, *node.outputs)):
        return None
    input_shapes = [tuple(shape_i(i, d) for d in range(i.ndim)) for i in node.inputs]
    try:
        shapes = node.op.infer_shape(node, input_shapes)
    except NotImplementedError:
        return None
    entries = tuple(shapes[node.outputs.index(var)])
    # An entry reading the node's own outputs would keep the op in the graph: no gain.
    if any(isinstance(e, Variable) and _reads(e, node) for e in entries):
        return None
    return entries


def may_mismatch(node: Apply) -> bool:
    """Whether the broadcast of ``node``'s inputs may fail: on some axis, two inputs have
    lengths not known to agree (each unknown, or different, and not 1)."""
    ndim = max(i.ndim for i in node.inputs)
    shapes = [(1,) * (ndim - i.ndim) + i.type.shape for i in node.inputs]
    for lengths in zip(*shapes):
        stretched = [n for n in lengths if n != 1]
        if len(stretched) > 1 and (None in stretched or len(set(stretched)) > 1):
            return True
    return False


def _without_sites(shape: Variable, fgraph: FunctionGraph) -> Variable:
    """``shape``, with the sites of the nodes built for it emptied. ``infer_shape`` and
    the shape vector built them as a user's call would, with the site of the line compiling
    the function; empty, the pass gives them the replaced node's (as ``build``'s nodes get
    it). The graph's own nodes, which an entry may read (an input's shape, a slice bound),
    keep the user's sites."""
    stack, seen = [shape], set(map(id, fgraph.inputs))
    while stack:
        v = stack.pop()
        if id(v) in seen or v.owner is None or v.owner in fgraph.apply_nodes:
            continue
        seen.add(id(v))
        v.owner.site = Site()  # empty: the pass fills it in
        stack.extend(v.owner.inputs)
    return shape


def _reads(var: Variable, node: Apply) -> bool:
    """Whether ``var`` is computed from an output of ``node``."""
    stack, seen = [var], set()
    while stack:
        v = stack.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        if v.owner is node:
            return True
        if v.owner is not None:
            stack.extend(v.owner.inputs)
    return False


@node_rewriter([Shape])
def local_shape_to_infer_shape(fgraph: FunctionGraph, node: Apply):
    """shape(op(...)) -> the op's inferred shape (the op need not run for its shape)."""
    x = node.inputs[0]
    if x.type.fully_known:
        return None  # local_static_shape
    entries = _inferred_shape(fgraph, x)
    return None if entries is None else _without_sites(as_shape_vector(entries, x.ndim), fgraph)


@node_rewriter([ShapeI])
def local_shape_i_to_infer_shape(fgraph: FunctionGraph, node: Apply):
    """shape_i(op(...), i) -> entry i of the op's inferred shape."""
    entries = _inferred_shape(fgraph, node.inputs[0])
    if entries is None:
        return None
    entry = entries[node.op.i]
    return make_constant(np.array(int(entry)), "int64") if not isinstance(entry, Variable) \
        else _without_sites(as_type_of(entry, node.outputs[0]), fgraph)


@node_rewriter([Reshape], exact="where the inner reshape is valid (where it is not, the original "
                               "raises and the rewritten graph may compute a value)")
def local_reshape_reshape(fgraph: FunctionGraph, node: Apply):
    """reshape(reshape(x, s1), s2) -> reshape(x, s2)."""
    inner = owner_op(node.inputs[0], Reshape)
    if inner is None:
        return None
    return build(node.op, inner.inputs[0], node.inputs[1])


@node_rewriter([Reshape])
def local_useless_reshape(fgraph: FunctionGraph, node: Apply):
    """reshape(x, s) -> x when x's static shape is fully known and equals the result's."""
    x, out = node.inputs[0], node.outputs[0]
    if x.type.fully_known and x.type.shape == out.type.shape:
        return x
    return None


@node_rewriter([Reshape])
def local_reshape_lift(fgraph: FunctionGraph, node: Apply):
    """reshape(f(x), s) -> f(reshape(x, s)) for an elementwise f of one input (Theano's
    ``local_reshape_lift``, in canonicalize and stabilize as there): the rewrites of the
    reshape's readers then see f (``log(1 - sigmoid(x).reshape(s))`` becomes a softplus)."""
    return lifted_reshape(node.op, node.inputs)



def _compose(outer: tuple, inner: tuple) -> tuple:
    """The pattern of dimshuffle(outer) applied after dimshuffle(inner)."""
    return tuple("x" if p == "x" else inner[p] for p in outer)


@node_rewriter([DimShuffle])
def local_dimshuffle_dimshuffle(fgraph: FunctionGraph, node: Apply):
    """dimshuffle(dimshuffle(x, p1), p2) -> dimshuffle(x, p1 o p2)."""
    inner = owner_op(node.inputs[0], DimShuffle)
    if inner is None:
        return None
    x = inner.inputs[0]
    return build(DimShuffle(x.ndim, _compose(node.op.pattern, inner.op.pattern)), x)


@node_rewriter([DimShuffle])
def local_useless_dimshuffle(fgraph: FunctionGraph, node: Apply):
    """dimshuffle(x, (0, 1, ..., n-1)) -> x."""
    x = node.inputs[0]
    return x if node.op.pattern == tuple(range(x.ndim)) else None


@node_rewriter([Sum])
def local_sum_sum(fgraph: FunctionGraph, node: Apply):
    """sum(sum(x, axis=a1), axis=a2) -> sum(x, axis=a1 and a2 in x's axes)."""
    inner = owner_op(node.inputs[0], Sum)
    if inner is None or inner.op.keepdims != node.op.keepdims:
        return None
    if not single_reader(fgraph, node.inputs[0]):  # the inner sum is needed anyway
        return None
    if inner.op.dtype != node.op.dtype and node.op.dtype is not None:
        return None
    if inner.op.acc_dtype != node.op.acc_dtype:  # (one accumulator for both, as Theano's)
        return None
    x = inner.inputs[0]
    if node.op.keepdims:
        axes = set(inner.op.axis) | set(node.op.axis)
    else:
        # The outer axes count the axes the inner sum kept.
        kept = [a for a in range(x.ndim) if a not in inner.op.axis]
        axes = set(inner.op.axis) | {kept[a] for a in node.op.axis}
    merged = build(Sum(tuple(sorted(axes)), keepdims=node.op.keepdims, dtype=inner.op.dtype,
                       acc_dtype=inner.op.acc_dtype), x)
    return merged if merged.type.dtype == node.outputs[0].type.dtype else None


def _transposed(var: Variable) -> Variable | None:
    """The matrix ``m`` when ``var`` is ``m.T``, else None."""
    node = owner_op(var, DimShuffle)
    if node is not None and node.op.input_ndim == 2 and node.op.pattern == (1, 0):
        return node.inputs[0]
    return None


def _transpose(var: Variable) -> Variable:
    return build(DimShuffle(2, (1, 0)), var)


def _is_matrix_dot(node: Apply) -> bool:
    return isinstance(node.op, Dot) and all(v.ndim == 2 for v in node.inputs)


@node_rewriter([Dot])
def local_dot_of_transposes(fgraph: FunctionGraph, node: Apply):
    """dot(a.T, b.T) -> dot(b, a).T (one transpose instead of two)."""
    if not _is_matrix_dot(node):
        return None
    a, b = (_transposed(v) for v in node.inputs)
    if a is None or b is None:
        return None
    return _transpose(build(Dot(), b, a))


@node_rewriter([DimShuffle])
def local_transpose_of_dot(fgraph: FunctionGraph, node: Apply):
    """dot(a, b).T -> dot(b.T, a.T) when a or b is itself a transpose (which cancels)."""
    if node.op.input_ndim != 2 or node.op.pattern != (1, 0):
        return None
    product = node.inputs[0].owner
    if product is None or not _is_matrix_dot(product):
        return None
    a, b = product.inputs
    ua, ub = _transposed(a), _transposed(b)
    if (ua is None) == (ub is None):  # both: local_dot_of_transposes handles it
        return None
    left = ub if ub is not None else _transpose(b)
    right = ua if ua is not None else _transpose(a)
    return build(Dot(), left, right)


REWRITES = [
    local_static_shape, local_shape_to_infer_shape, local_shape_i_to_infer_shape,
    local_reshape_reshape, local_useless_reshape, local_reshape_lift, local_dimshuffle_dimshuffle,
    local_useless_dimshuffle, local_sum_sum, local_dot_of_transposes, local_transpose_of_dot,
]
