"""``symnb.sparse``'s ops inside the XLA program, on dense matrices.

A compiled program holds each sparse value as its dense matrix (``SparseType.to_program``
converts at the boundary; ``docs/porting.md`` says why: XLA's shapes are static, and a
matrix's number of stored entries is known only from its value). Each rule computes the
dense matrix of what the op's ``perform`` computes on SciPy matrices; a matrix's stored
entries are its nonzero entries (the boundary refuses stored zeros). ``csm_properties``,
whose outputs' lengths are the number of stored entries, is refused.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from symnb.core.graph.type import TensorType
from symnb.core.sparse import ops
from symnb.core.sparse.elemwise import StructuredElemwise
from symnb.lower_xla.convert import as_dtype
from symnb.lower_xla.registry import known_on_host, lower

_HIGHEST = jax.lax.Precision.HIGHEST  # float32 products as NumPy's (rules/blas.py says why)


def _out_dtype(node, index=0):
    return node.outputs[index].type.dtype


def _elementwise(compute):
    def rule(op, node):
        dtype = _out_dtype(node)
        return lambda *arrays: as_dtype(compute(*(as_dtype(a, dtype) for a in arrays)), dtype)
    return rule


def _structured_multiply(x, y):
    # Only x's stored entries are multiplied (0 * inf stays an absent entry, as in SciPy).
    return jnp.where(x != 0, x * y, jnp.zeros((), x.dtype))


for op_class, compute in ((ops.AddSS, jnp.add), (ops.AddSD, jnp.add),
                          (ops.MulSS, _structured_multiply), (ops.MulSD, _structured_multiply),
                          (ops.Neg, jnp.negative)):
    lower.register(op_class)(_elementwise(compute))


@lower.register(ops.DenseFromSparse)
@lower.register(ops.SparseFromDense)
@lower.register(ops.Cast)
def _same_matrix(op, node):
    dtype = _out_dtype(node)
    return lambda x: as_dtype(x, dtype)


@lower.register(ops.Transpose)
def _transpose(op, node):
    return lambda x: x.T


@lower.register(ops.SpOnesLike)
def _ones_like(op, node):
    dtype = _out_dtype(node)
    return lambda x: (x != 0).astype(dtype)


@lower.register(ops.StructuredDot)
@lower.register(ops.Dot)
@lower.register(ops.TrueDot)
def _product(op, node):
    dtype = _out_dtype(node)
    precision = _HIGHEST if np.dtype(dtype).kind in "fc" else None
    return lambda x, y: jnp.matmul(as_dtype(x, dtype), as_dtype(y, dtype), precision=precision)


@lower.register(ops.HStack)
@lower.register(ops.VStack)
def _stack(op, node):
    dtype = _out_dtype(node)
    return lambda *blocks: jnp.concatenate([as_dtype(b, dtype) for b in blocks], axis=op.axis)


@lower.register(ops.SpSum)
def _sum(op, node):
    dtype = _out_dtype(node)
    return lambda x: jnp.sum(as_dtype(x, dtype), axis=op.axis)


def _major_positions(indptr, count):
    """The row (csr) or column (csc) of each of ``count`` stored entries."""
    return jnp.searchsorted(indptr, jnp.arange(count), side="right") - 1


@lower.register(ops.CSM)
def _csm(op, node):
    dtype = _out_dtype(node)

    def build(*args):
        data, indices, indptr, shape = known_on_host(
            args, [3], lambda traced: "the shape of a sparse matrix built by CSM must be known "
                                      "when the function is compiled (a constant, or computed "
                                      "from input shapes): symnb holds sparse matrices dense in "
                                      "its XLA programs, whose shapes are fixed")
        rows, cols = int(shape[0]), int(shape[1])
        major = _major_positions(indptr, data.shape[0])
        r, c = (major, indices) if op.format == "csr" else (indices, major)
        return jnp.zeros((rows, cols), dtype).at[r, c].add(as_dtype(data, dtype))

    return build


@lower.register(ops.CSMGrad)
def _csm_grad(op, node):
    dtype = _out_dtype(node)

    def gather(indices, indptr, g):
        major = _major_positions(indptr, indices.shape[0])
        values = g[major, indices] if op.format == "csr" else g[indices, major]
        return as_dtype(values, dtype)

    return gather


@lower.register(ops.CSMProperties)
def _csm_properties(op, node):
    raise NotImplementedError(
        "csm_properties (csm_data, csm_indices, csm_indptr, x.size) inside a compiled "
        "function: its outputs' lengths are the matrix's number of stored entries, known only "
        "from its value, and an XLA program's shapes are fixed when it is compiled (symnb holds "
        "sparse matrices dense there). Read them from the SciPy value (x.data, x.indices, "
        "x.indptr), or use the test value (var.tag.test_value)")


@lower.register(StructuredElemwise)
def _structured_elemwise(op, node):
    # The tensor op's own rule on the dense matrix, kept at the stored entries (x != 0:
    # what f gives on the zeros elsewhere, a NaN of log(0) included, is dropped).
    x_var, *scalar_vars = node.inputs
    inner = op.tensor_op.make_node(TensorType.variable_type(TensorType(x_var.type.dtype, (None, None))),
                                   *scalar_vars)
    compute = lower(op.tensor_op, inner)
    dtype = _out_dtype(node)

    def structured(x, *scalars):
        values = as_dtype(compute(x, *scalars), dtype)
        return jnp.where(x != 0, values, jnp.zeros((), dtype))

    return structured
