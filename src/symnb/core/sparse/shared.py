"""Shared variables holding a SciPy csr or csc matrix (Theano's ``SparseTensorSharedVariable``,
made by ``shared(scipy_matrix)``). The stored value is the dense matrix a compiled
program reads and updates (``SparseType.to_program``); ``get_value`` gives the SciPy
matrix of the variable's format."""

from __future__ import annotations

from typing import Any

import numpy as np

from symnb.core.graph.errors import label
from symnb.core.graph.traceback_filter import api_boundary
from symnb.core.sparse.type import SparseType, is_sparse_value
from symnb.core.sparse.variable import sparse_operators
from symnb.core.tensor.shared import SharedVariable, register_shared_constructor

__all__ = ["SparseSharedVariable", "sparse_shared"]


class SparseSharedVariable(sparse_operators, SharedVariable):
    """A shared sparse matrix: sparse operators, SciPy values."""

    __slots__ = ()

    def _store(self, value: Any, caller: str, borrow: bool = False) -> None:
        # The stored value is the dense matrix the program reads: always made anew, so
        # borrow (Theano's aliasing) has nothing to keep.
        try:
            matrix = self.type.filter(value, strict=self.strict, allow_downcast=self.allow_downcast)
        except TypeError as error:
            raise TypeError(f"the value given to {caller} does not fit shared variable "
                            f"{label(self)!r}: {error}") from None
        dense = self.type.to_program(matrix, f"{caller} of {label(self)!r}")
        dense.flags.writeable = False
        matrix = matrix.copy()
        with self.lock:
            self._value = dense
            self._private = True  # made here: it may go to the device as is
            self._test_value = matrix

    @api_boundary
    def get_value(self, borrow: bool = False, return_internal_type: bool = False) -> Any:
        """The current value: a SciPy matrix of the variable's format (a new one)."""
        with self.lock:
            return self.type.from_program(np.asarray(self._value))


def sparse_shared(value: Any, name: str | None = None, strict: bool = False,
                  allow_downcast: bool | None = None, borrow: bool = False,
                  format: str | None = None) -> SparseSharedVariable:
    """``shared(scipy_matrix)``: a shared variable of the matrix's format (or ``format``)
    and dtype, holding a copy."""
    if not is_sparse_value(value):
        raise TypeError(f"Expected a sparse matrix in the sparse shared variable constructor. "
                        f"Received: {type(value).__name__}")
    format = format or value.format
    if format not in ("csr", "csc"):
        raise TypeError(f"shared: a scipy.sparse {value.format} matrix; symnb.sparse (as Theano) "
                        "takes csr and csc matrices")
    value = value.asformat(format)
    return SparseSharedVariable(SparseType(format, value.dtype), value, name=name, strict=strict,
                                allow_downcast=allow_downcast)


register_shared_constructor(is_sparse_value, sparse_shared)
