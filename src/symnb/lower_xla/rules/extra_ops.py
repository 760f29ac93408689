"""cumsum/cumprod, sort/argsort (stable, as the NumPy reference) and specify_shape
(a shape known while tracing: checked then, at no run-time cost), and Theano's extra_ops
named after NumPy's (searchsorted, diff, fill_diagonal, fill_diagonal_offset,
cpu_contiguous, unravel_index and ravel_multi_index, whose indices out of range are a
run-time check of the program: ``symnb.lower_xla.checks``), and Theano's ``TopKOp`` (the
same stable sort as its NumPy path, so both pick the same indices)."""

from __future__ import annotations

import functools

import jax.numpy as jnp

from symnb.core.graph.basic import Constant
from symnb.core.graph.errors import GraphRuntimeError, label
from symnb.core.tensor import extra_ops, extra_ops_numpy, multi_index, topk
from symnb.lower_xla.checks import CheckKind, may_check, register_check_kind, require
from symnb.lower_xla.registry import known_on_host, lower


@lower.register(extra_ops.CumOp)
def _cumulative(op, node):
    dtype = node.outputs[0].type.dtype
    function = jnp.cumsum if op.mode == "add" else jnp.cumprod
    return lambda x: function(x, axis=op.axis, dtype=dtype)


@lower.register(extra_ops.Sort)
def _sort(op, node):
    return lambda x: jnp.sort(x, axis=op.axis, stable=True)


@lower.register(extra_ops.Argsort)
def _argsort(op, node):
    return lambda x: jnp.argsort(x, axis=op.axis, stable=True).astype(jnp.int64)


@lower.register(extra_ops.SpecifyShape)
def checked_while_tracing(op, node):
    """The input as it is, after ``op.check(shape, name)`` (SpecifyShape's, Rebroadcast's)."""
    name = repr(label(node.inputs[0]))

    def run(x):
        op.check(tuple(x.shape), name)  # XLA shapes are static: checked while tracing
        return x

    return run


@lower.register(extra_ops_numpy.SearchsortedOp)
def _searchsorted(op, node):
    def run(x, v, sorter=None):
        if sorter is not None:  # NumPy's positions are in the sorted vector x[sorter]
            x = x[sorter]
        return jnp.searchsorted(x, v, side=op.side).astype(jnp.int64)

    return run


@lower.register(extra_ops_numpy.DiffOp)
def _diff(op, node):
    return lambda x: jnp.diff(x, n=op.n, axis=op.axis)


@lower.register(extra_ops_numpy.FillDiagonal)
def _fill_diagonal(op, node):
    name = repr(label(node.inputs[0]))

    def run(a, val):
        if a.ndim > 2 and len(set(a.shape)) > 1:  # NumPy refuses it too (shapes are static)
            raise ValueError(f"fill_diagonal: all dimensions of {name} must be of equal "
                             f"length beyond 2 dimensions, got {tuple(a.shape)}")
        indices = [jnp.arange(n) for n in a.shape]
        grids = jnp.meshgrid(*indices, indexing="ij", sparse=True)
        on_diagonal = functools.reduce(jnp.logical_and, [grids[0] == g for g in grids[1:]])
        return jnp.where(on_diagonal, val, a)

    return run


@lower.register(extra_ops_numpy.FillDiagonalOffset)
def _fill_diagonal_offset(op, node):
    def run(a, val, offset):
        rows, cols = jnp.arange(a.shape[0])[:, None], jnp.arange(a.shape[1])[None, :]
        return jnp.where(cols - rows == offset, val, a)

    return run


@lower.register(extra_ops_numpy.CpuContiguous)
def _cpu_contiguous(op, node):
    return lambda x: x  # XLA's arrays are contiguous


def _multi_index_message(node, facts):
    return (f"{node.op.display_name()}: index {facts['value']} is out of bounds for the shape "
            f"{label(node.inputs[-1])!r}")


class MultiIndexOutOfBounds(ValueError):
    """An index of unravel_index / ravel_multi_index out of range (NumPy's ValueError). A
    class of its own: a plain ValueError would claim every ValueError subclass raised by
    a node (LinAlgError) as this kind's (``checks.runtime_error_class``)."""


register_check_kind("multi_index", CheckKind(_multi_index_message, plain=MultiIndexOutOfBounds,
                                             error=GraphRuntimeError))


def _strides(dims, order):
    """The flat stride of each axis of an array of shape ``dims`` (a traced vector)."""
    count = dims.shape[0]
    axes = range(count) if order == "F" else range(count - 1, -1, -1)
    strides, stride = [None] * count, jnp.int64(1)
    for axis in axes:
        strides[axis] = stride
        stride = stride * dims[axis]
    return strides, stride  # (each axis's stride, the array's size)


def _first_bad(values, bad):
    """The first offending value (for the message): 0 when none is."""
    flat_bad, flat = jnp.ravel(bad), jnp.ravel(values)
    return flat[jnp.argmax(flat_bad)] if flat.size else jnp.int64(0)


@lower.register(multi_index.UnravelIndex)
def _unravel_index(op, node):
    def run(indices, dims):
        dims = jnp.asarray(dims, jnp.int64)
        indices = jnp.asarray(indices, jnp.int64)
        strides, size = _strides(dims, op.order)
        bad = (indices < 0) | (indices >= size)
        require(~jnp.any(bad), node, "multi_index", value=_first_bad(indices, bad))
        return [(indices // stride) % length for stride, length in zip(strides, dims)]

    return run


@lower.register(multi_index.RavelMultiIndex)
def _ravel_multi_index(op, node):
    def run(*inputs):
        *multi_index, dims = [jnp.asarray(i, jnp.int64) for i in inputs]
        strides, _ = _strides(dims, op.order)
        flat = jnp.int64(0)
        for axis, (index, stride) in enumerate(zip(multi_index, strides)):
            length = dims[axis]
            if op.mode == "wrap":
                index = index % length
            elif op.mode == "clip":
                index = jnp.clip(index, 0, length - 1)
            else:
                bad = (index < 0) | (index >= length)
                require(~jnp.any(bad), node, "multi_index", value=_first_bad(index, bad))
            flat = flat + index * stride
        return jnp.broadcast_to(flat, jnp.broadcast_shapes(*(i.shape for i in multi_index)))

    return run


@may_check.register(multi_index.UnravelIndex)
@may_check.register(multi_index.RavelMultiIndex)
def _multi_index_may_check(op, node, known):
    if getattr(op, "mode", "raise") != "raise":
        return False
    return any(not isinstance(v, Constant) and id(v) not in known for v in node.inputs)


@lower.register(topk.TopKOp)
def _topk(op, node):
    def top(x, kth):
        _, k = known_on_host((x, kth), (1,), lambda traced: (
            f"the number of values topk takes ({label(node.inputs[1])!r}) sets its result's "
            "length, which XLA needs before the program runs"))
        k, axis = int(k), op.axis % x.ndim
        topk.check_k(k, x.shape[axis], ValueError)
        results = op.results(jnp, x, topk.topk_order(jnp, x, k, axis), axis)
        return tuple(results) if len(results) > 1 else results[0]

    return top
