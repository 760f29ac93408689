"""``SparseType``: Theano's type of sparse matrices (``csr`` or ``csc``, a dtype).

A sparse variable's value is a SciPy sparse matrix of its format (test values, shared
values, what a compiled function takes and returns). Its type is a kind of 2-d
``TensorType`` with unknown lengths, so that the graph IR, the walks and the compiler
handle it as they handle a matrix: inside a compiled program a sparse value *is* its
dense matrix (``docs/porting.md``: ``theano.sparse``, why a dense lowering), converted
from and to SciPy at the function's boundary by :meth:`SparseType.to_program` and
:meth:`SparseType.from_program`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse

from symnb.core.graph.type import TensorType, canonical_dtype

__all__ = ["SparseType", "FORMATS", "is_sparse_value"]

#: Theano's sparse formats and SciPy's class of each.
FORMATS = {"csr": scipy.sparse.csr_matrix, "csc": scipy.sparse.csc_matrix}


def is_sparse_value(value: Any) -> bool:
    """Whether ``value`` is a SciPy sparse matrix (or array)."""
    return scipy.sparse.issparse(value)


class SparseType(TensorType):
    """The type of a sparse matrix variable: ``SparseType(format, dtype)``, immutable,
    equal and hashable by both (interned, as ``TensorType``). Calling it makes a
    symbolic input (``SparseType('csr', 'float64')('x')``), as in Theano."""

    __slots__ = ("format",)
    _interned: dict[tuple, "SparseType"] = {}
    #: Theano's class attributes, read by code that checks its inputs.
    format_cls = FORMATS
    dtype_set = {"int8", "int16", "int32", "int64", "float32", "uint8", "uint16", "uint32",
                 "uint64", "float64", "complex64", "complex128"}
    is_sparse = True
    # The sparse package installs its variable classes and input maker (register_sparse).
    variable_type: type = None  # type: ignore[assignment]
    constant_type: type = None  # type: ignore[assignment]
    make_sparse_input: Any = None

    def __new__(cls, format: str, dtype: Any = None, shape: Any = None) -> "SparseType":
        if format not in FORMATS:
            raise ValueError(f"SparseType: format must be one of 'csr', 'csc'; got {format!r}")
        if dtype is None:
            from symnb.core.graph.config import config

            dtype = config.floatX
        name = canonical_dtype(dtype)
        if name not in cls.dtype_set:
            raise NotImplementedError(f"SparseType: unsupported dtype {name!r} "
                                      f"(Theano's sparse dtypes: {sorted(cls.dtype_set)})")
        key = (format, name)
        try:
            return cls._interned[key]
        except KeyError:
            pass
        self = object.__new__(cls)
        object.__setattr__(self, "dtype", name)
        object.__setattr__(self, "shape", (None, None))
        object.__setattr__(self, "numpy_dtype", np.dtype(name))
        object.__setattr__(self, "format", format)
        object.__setattr__(self, "_hash", hash(("sparse", format, name)))
        cls._interned[key] = self
        return self

    def __reduce__(self):
        return (SparseType, (self.format, self.dtype))

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, SparseType) and self.format == other.format
                and self.dtype == other.dtype)

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return f"SparseType({self.format}, {self.dtype})"

    def __str__(self) -> str:
        return f"Sparse[{self.dtype}, {self.format}]"

    def short(self) -> str:
        return f"{self.dtype} sparse {self.format}"

    @property
    def kind_name(self) -> str:
        return f"{self.format}_matrix"

    # ``SparseType(...)('x')``: a symbolic sparse input (installed by the sparse package).
    __call__ = property(lambda self: lambda name=None: self.make_sparse_input(self, name),
                        doc="``type(name=None)``: a new symbolic input of this type.")

    def clone(self, dtype: Any = None, shape: Any = None) -> "SparseType":
        return SparseType(self.format, self.dtype if dtype is None else dtype)

    # -- values ------------------------------------------------------------------------
    def filter(self, value: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        """Theano's ``SparseType.filter``: ``value`` as a SciPy matrix of this format and
        dtype, or TypeError. Unless ``strict``, a matrix of the other format or a dense
        array is converted by SciPy's class of this format (as Theano's filter does), and
        another dtype is cast when ``allow_downcast`` or the cast loses nothing."""
        right_format = is_sparse_value(value) and value.format == self.format
        if strict and not (right_format and value.dtype == self.numpy_dtype):
            what = f"{value.format} {value.dtype}" if is_sparse_value(value) else type(value).__name__
            raise TypeError(f"{self.short()}: expected a scipy.sparse {self.format} matrix of "
                            f"dtype {self.dtype} (strict), got {what}")
        if not right_format:
            value = self._converted(value)
        if value.dtype != self.numpy_dtype:
            if not (allow_downcast or np.can_cast(value.dtype, self.numpy_dtype, "safe")):
                raise TypeError(f"{self.short()}: casting {value.dtype} to {self.dtype} could "
                                f"lose information; pass allow_downcast=True to round it")
            value = value.astype(self.numpy_dtype)
        if value.ndim != 2:
            raise TypeError(f"{self.short()}: expected a matrix, got {value.ndim} dimensions")
        return FORMATS[self.format](value)

    def _converted(self, value: Any) -> Any:
        """``value`` (a sparse matrix of another format, an array) in this format."""
        if not is_sparse_value(value) and np.ndim(value) != 2:
            raise TypeError(f"{self.short()}: expected a {self.format} matrix (or a matrix to "
                            f"convert), got {type(value).__name__} of {np.ndim(value)} dimensions")
        try:
            return FORMATS[self.format](value)
        except (TypeError, ValueError) as err:
            raise TypeError(f"{self.short()}: cannot convert {type(value).__name__} to a "
                            f"{self.format} matrix: {err}") from None

    def is_valid_value(self, value: Any) -> bool:
        return is_sparse_value(value) and value.format == self.format

    def mismatch(self, value: Any) -> str | None:
        if not is_sparse_value(value):
            return f"expected a scipy.sparse {self.format} matrix, got {type(value).__name__}"
        if value.format != self.format:
            return f"expected a {self.format} matrix, got {value.format}"
        if str(value.dtype) != self.dtype:
            return f"expected dtype {self.dtype}, got {value.dtype}"
        return None

    @staticmethod
    def values_eq(a: Any, b: Any, force_same_dtype: bool = True) -> bool:
        """Theano's: same format, shape and entries (stored or not)."""
        return (is_sparse_value(a) and is_sparse_value(b) and a.format == b.format
                and a.shape == b.shape and abs(a - b).sum() == 0
                and (not force_same_dtype or a.dtype == b.dtype))

    @staticmethod
    def values_eq_approx(a: Any, b: Any, eps: float = 1e-6, allow_remove_inf: bool = False,
                         allow_remove_nan: bool = False) -> bool:
        """Theano's: same shape and entries within ``eps`` (absolute); the two flags are
        accepted, as Theano's sparse type accepts and ignores them."""
        if not (is_sparse_value(a) and is_sparse_value(b)) or a.shape != b.shape:
            return False
        difference = abs(a - b)
        return difference.nnz == 0 or float(difference.max()) < eps

    @staticmethod
    def may_share_memory(a: Any, b: Any) -> bool:
        from symnb.misc.may_share_memory import may_share_memory

        return may_share_memory(a, b)

    # -- the compiled program's boundary ------------------------------------------------
    def to_program(self, value: Any, what: str, exact_pattern: bool = True) -> np.ndarray:
        """A sparse value as the dense matrix a compiled program takes. Where the
        program reads which entries are stored (``exact_pattern``: a structured
        gradient, ``sp_ones_like``, a structured function), a matrix storing explicit
        zeros is refused: the dense matrix cannot tell them from absent entries, and the
        result would differ from Theano's. Elsewhere a stored zero is a zero."""
        value = self.filter(value, allow_downcast=False)
        if exact_pattern and value.nnz and not np.all(value.data != 0):
            raise ValueError(f"{what}: the {self.format} matrix stores explicit zeros, which a "
                             "compiled symnb program (dense inside, see docs/porting.md) "
                             "cannot tell from absent entries; call .eliminate_zeros() on it first")
        return value.toarray()

    def from_program(self, array: Any) -> Any:
        """A compiled program's dense matrix as a SciPy matrix of this format."""
        return FORMATS[self.format](np.asarray(array))
