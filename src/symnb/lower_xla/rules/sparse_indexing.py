"""Sparse indexing, comparisons, the structure ops (``remove0``, ``diag``,
``square_diagonal``) and the vector and sampled products (``col_scale``, ``mul_s_v``,
``sampling_dot``...) inside the XLA program, on dense matrices.

A sparse matrix is its dense matrix in a compiled program (``rules/sparse.py``), so
``x[i, j]``, ``x[a:b, c:d]``, ``x[rows]`` and ``x[rows, cols]`` of a sparse ``x`` are the
dense indexing of it: the sparse ops describe their index as the dense ops do
(``idx_list``), and the dense ops' rules, index checks (NumPy's IndexError, not XLA's
clamping) and static slice bounds (the function specializes on symbolic ones) serve them.
The gradients of ``x[rows]`` and ``x[rows, cols]`` write into zeros, the last write
winning for a repeated index as in Theano's loop (a scatter alone leaves that to XLA).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from symnb.core.sparse import comparison as cmp
from symnb.core.sparse import indexing as ix
from symnb.core.sparse import structure, vector_ops
from symnb.core.tensor import subtensor as st
from symnb.lower_xla.checks import may_check
from symnb.lower_xla.convert import as_dtype
from symnb.lower_xla.registry import lower, static_inputs
from symnb.lower_xla.rules import subtensor as _dense_rules  # noqa: F401  (registered first: read below)
from symnb.lower_xla.rules.subtensor_checks import index_checker

for sparse_op, dense_op in ((ix.GetItemScalar, st.Subtensor), (ix.GetItem2d, st.Subtensor),
                            (ix.GetItemList, st.AdvancedSubtensor),
                            (ix.GetItem2Lists, st.AdvancedSubtensor)):
    lower.register(sparse_op)(lower.dispatch(dense_op))
    static_inputs.register(sparse_op)(static_inputs.dispatch(dense_op))
for checked in (ix.GetItemScalar, ix.GetItem2d, ix.GetItemList, ix.GetItem2Lists,
                ix.GetItemListGrad, ix.GetItem2ListsGrad):
    may_check.register(checked)(may_check.dispatch(st.Subtensor))


def _last_writer(flat_index, length):
    """For each of ``length`` places, the position of the last write there (-1: none)."""
    writes = jnp.arange(flat_index.shape[0])
    return jnp.full((length,), -1, writes.dtype).at[flat_index].max(writes)


@lower.register(ix.GetItemListGrad)
def _item_list_grad(op, node):
    check_indices = index_checker(node)
    dtype = node.outputs[0].type.dtype

    def grad(x, rows, gz):
        check_indices(np.shape(x), (rows,))
        n_rows = x.shape[0]
        writer = _last_writer(jnp.where(rows < 0, rows + n_rows, rows), n_rows)
        picked = jnp.asarray(gz)[jnp.maximum(writer, 0)]
        return as_dtype(jnp.where((writer >= 0)[:, None], picked, 0), dtype)

    return grad


@lower.register(ix.GetItem2ListsGrad)
def _item_2lists_grad(op, node):
    check_indices = index_checker(node)
    dtype = node.outputs[0].type.dtype

    def grad(x, rows, cols, gz):
        check_indices(np.shape(x), (rows, cols))
        n_rows, n_cols = x.shape
        rows = jnp.where(rows < 0, rows + n_rows, rows)
        cols = jnp.where(cols < 0, cols + n_cols, cols)
        writer = _last_writer(rows * n_cols + cols, n_rows * n_cols)
        picked = jnp.asarray(gz)[jnp.maximum(writer, 0)]
        return as_dtype(jnp.where(writer >= 0, picked, 0).reshape(n_rows, n_cols), dtype)

    return grad


@lower.register(cmp.ComparisonSS)
@lower.register(cmp.ComparisonSD)
def _comparison(op, node):
    compare = type(op).comparison  # operator.lt ...: the same on jax arrays
    return lambda x, y: compare(jnp.asarray(x), jnp.asarray(y)).astype(jnp.uint8)


@lower.register(structure.Remove0)
@lower.register(structure.EnsureSortedIndices)
def _remove0(op, node):
    return lambda x: x  # a stored zero is a zero in the dense matrix


@lower.register(structure.Diag)
def _diag(op, node):
    def diagonal(x):
        if x.shape[0] != x.shape[1]:  # shapes are static while tracing: refused then
            raise ValueError(f"Diag only applies to a square matrix; {node.inputs[0]} has shape "
                             f"{tuple(x.shape)}")
        return jnp.diagonal(x)

    return diagonal


@lower.register(structure.SquareDiagonal)
def _square_diagonal(op, node):
    return jnp.diag


def _stored(x, values):
    """``values`` at ``x``'s stored (nonzero) entries, zero elsewhere: a structured
    result (inf or NaN of ``values`` elsewhere dropped, as SciPy computes none there)."""
    return jnp.where(x != 0, values, jnp.zeros((), values.dtype))


@lower.register(vector_ops.ColScaleCSC)
@lower.register(vector_ops.RowScaleCSC)
def _scale(op, node):
    dtype = node.outputs[0].type.dtype
    return lambda x, s: _stored(x, as_dtype(x, dtype) * as_dtype(jnp.expand_dims(s, 1 - op.axis), dtype))


@lower.register(vector_ops.MulSV)
def _mul_s_v(op, node):
    return lambda x, y: x * y[None, :]  # Theano's: the dense product


@lower.register(vector_ops.StructuredAddSV)
def _structured_add_s_v(op, node):
    return lambda x, y: x + (x != 0).astype(x.dtype) * y[None, :]  # Theano's formula


@lower.register(vector_ops.AddSSData)
def _add_s_s_data(op, node):
    return jnp.add  # one pattern: the data's sum is the dense matrices' sum


@lower.register(vector_ops.SamplingDot)
def _sampling_dot(op, node):
    dtype = node.outputs[0].type.dtype
    precision = jax.lax.Precision.HIGHEST  # float32 products as NumPy's (rules/blas.py)

    def sampled(x, y, p):
        product = jnp.matmul(as_dtype(x, dtype), as_dtype(y, dtype).T, precision=precision)
        return _stored(p, as_dtype(p, dtype) * product)

    return sampled
