"""Sparse variables and constants (Theano's ``SparseVariable``, ``SparseConstant``) with
Theano's operators (``x + y``, ``x * y``, ``-x``, ``x.T``, ``x.toarray()``...), and the
symbolic inputs ``csr_matrix('x')`` / ``csc_matrix('x')``. Installs them on
``SparseType`` (which the ops below use to make their outputs)."""

from __future__ import annotations

from typing import Any

import numpy as np

from symnb.core.graph.basic import Constant, Variable
from symnb.core.graph.config import config
from symnb.core.graph.source import capture_site
from symnb.core.sparse import comparison, indexing, ops
from symnb.core.sparse.type import FORMATS, SparseType

__all__ = ["SparseVariable", "SparseConstant", "matrix", "csr_matrix", "csc_matrix",
           "sparse_operators"]


class sparse_operators:
    """Theano's ``_sparse_py_operators``: what a sparse variable's operators build."""

    T = property(lambda self: ops.transpose(self), doc="The transpose (a csr becomes csc).")
    ndim = property(lambda self: 2)
    format = property(lambda self: self.type.format)

    def astype(self, dtype: Any) -> Variable:
        return ops.cast(self, dtype)

    def __neg__(self) -> Variable:
        return ops.neg(self)

    def __add__(left, right: Any) -> Variable:
        return ops.add(left, right)

    def __radd__(right, left: Any) -> Variable:
        return ops.add(left, right)

    def __sub__(left, right: Any) -> Variable:
        return ops.sub(left, right)

    def __rsub__(right, left: Any) -> Variable:
        return ops.sub(left, right)

    def __mul__(left, right: Any) -> Variable:
        return ops.mul(left, right)

    def __rmul__(left, right: Any) -> Variable:
        return ops.mul(left, right)

    # Theano's comparison operators (uint8: sparse of two sparse operands, else dense);
    # == and != stay Python's identity, as in Theano (use sparse.eq / sparse.neq).
    def __lt__(self, other: Any) -> Variable:
        return comparison.lt(self, other)

    def __le__(self, other: Any) -> Variable:
        return comparison.le(self, other)

    def __gt__(self, other: Any) -> Variable:
        return comparison.gt(self, other)

    def __ge__(self, other: Any) -> Variable:
        return comparison.ge(self, other)

    def __getitem__(self, args: Any) -> Variable:
        """Theano's sparse indexing: ``x[i, j]`` (a dense scalar), ``x[a:b, c:d]`` and
        ``x[a:b]`` (sparse), ``x[[rows]]`` (sparse), ``x[[rows], [cols]]`` (a dense vector)."""
        return indexing.getitem(self, args)

    def __dot__(left, right: Any) -> Variable:
        return ops.structured_dot(left, right)

    def __rdot__(right, left: Any) -> Variable:
        return ops.structured_dot(left, right)

    def toarray(self) -> Variable:
        """The dense matrix (``dense_from_sparse``)."""
        return ops.dense_from_sparse(self)

    @property
    def shape(self) -> Variable:
        """The symbolic shape (of the dense matrix, which a program holds anyway)."""
        from symnb.core.tensor.shape import shape

        return shape(ops.dense_from_sparse(self))

    @property
    def size(self) -> Variable:
        """The number of stored entries (stored zeros count), as in Theano."""
        return ops.csm_data(self).shape[0]

    def sum(self, axis: int | None = None, sparse_grad: bool = False) -> Variable:
        return ops.sp_sum(self, axis, sparse_grad)

    def zeros_like(self) -> Variable:
        """A sparse matrix of ``self``'s shape, format and dtype with no stored entry."""
        return ops.mul_s_d(self, np.asarray(0, dtype=self.type.dtype))


class SparseVariable(sparse_operators, Variable):
    """A symbolic sparse matrix (csr or csc): its value is a SciPy matrix."""

    __slots__ = ()

    def __str__(self) -> str:
        return self.name if self.name else f"SparseVariable{{{self.type.format},{self.type.dtype}}}"

    def __repr__(self) -> str:
        return str(self)


class SparseConstant(sparse_operators, Constant):
    """A sparse matrix held in the graph (``as_sparse_variable(scipy_matrix)``)."""

    __slots__ = ()

    def __init__(self, type: SparseType, data: Any, name: str | None = None) -> None:
        Variable.__init__(self, type, name=name)
        value = type.filter(data, allow_downcast=True).copy()
        for part in (value.data, value.indices, value.indptr):
            part.flags.writeable = False
        self.data = value
        self._test_value = value

    def merge_key(self) -> tuple:
        """Equal for constants of the same type, shape and stored entries (the merge
        pass's key: ``symnb.core.rewriting.merge.constant_key``)."""
        m = self.data
        return (self.type, m.shape, m.data.tobytes(), m.indices.tobytes(), m.indptr.tobytes())

    def clone(self) -> "SparseConstant":
        return SparseConstant(self.type, self.data, name=self.name)

    def auto_name(self) -> str:
        if self.name is not None:
            return self.name
        return f"Sparse{{{self.type.format},{self.type.dtype},shape={self.data.shape},nnz={self.data.nnz}}}"

    def __str__(self) -> str:
        return self.auto_name()


def _make_input(stype: SparseType, name: str | None = None) -> SparseVariable:
    return SparseVariable(stype, name=name, site=capture_site(config.traceback__limit))


def matrix(format: str, name: str | None = None, dtype: Any = None) -> SparseVariable:
    """A symbolic sparse input of ``format`` (``'csr'`` or ``'csc'``) and ``dtype``
    (default ``floatX``)."""
    return _make_input(SparseType(format, config.floatX if dtype is None else dtype), name)


def csr_matrix(name: str | None = None, dtype: Any = None) -> SparseVariable:
    """A symbolic csr matrix input."""
    return matrix("csr", name, dtype)


def csc_matrix(name: str | None = None, dtype: Any = None) -> SparseVariable:
    """A symbolic csc matrix input."""
    return matrix("csc", name, dtype)


SparseType.variable_type = SparseVariable
SparseType.constant_type = SparseConstant
SparseType.make_sparse_input = staticmethod(_make_input)
