"""Theano's ``theano.misc.may_share_memory``: whether two values may share memory."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["may_share_memory"]


def _is_sparse(value: Any) -> bool:
    try:
        import scipy.sparse
    except ImportError:  # without SciPy, only arrays
        return False
    return scipy.sparse.issparse(value)


def _sparse_parts(value: Any) -> list[np.ndarray]:
    # What Theano's SparseType.may_share_memory compares: the data and index arrays.
    return [getattr(value, part) for part in ("data", "indices", "indptr") if hasattr(value, part)]


def may_share_memory(a: Any, b: Any, raise_other_type: bool = True) -> bool:
    """Whether ``a`` and ``b`` may share memory (Theano 1.0's function): NumPy arrays by
    :func:`numpy.may_share_memory`; a SciPy sparse matrix by its data and index arrays;
    an array and a sparse matrix never. Any other value is a ``TypeError`` (as Theano's,
    whose message this keeps), or False with ``raise_other_type=False``."""
    a_array, b_array = isinstance(a, np.ndarray), isinstance(b, np.ndarray)
    if a_array and b_array:
        return bool(np.may_share_memory(a, b))
    a_sparse, b_sparse = _is_sparse(a), _is_sparse(b)
    if not (a_array or a_sparse) or not (b_array or b_sparse):
        if raise_other_type:
            raise TypeError("may_share_memory support only ndarray and scipy.sparse or GpuArray type")
        return False
    parts_a = [a] if a_array else _sparse_parts(a)
    parts_b = [b] if b_array else _sparse_parts(b)
    return any(np.may_share_memory(x, y) for x in parts_a for y in parts_b)
