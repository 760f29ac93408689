"""Theano's sparse comparisons (``eq``, ``neq``, ``lt``, ``gt``, ``le``, ``ge`` and the
operators ``<``, ``>``, ``<=``, ``>=`` of a sparse variable): SciPy's comparison as uint8.

Of two sparse matrices (of one format), a sparse uint8 matrix of that format; of a sparse
and a dense matrix, a dense uint8 matrix. Absent entries compare as zeros, as in SciPy,
so the dense matrix a compiled program holds gives the same values.
"""

from __future__ import annotations

import operator
from typing import Any, Callable, Sequence

import numpy as np

from symnb.core.graph.basic import Apply, Variable
from symnb.core.graph.errors import build_error, label
from symnb.core.sparse.ops import (
    SparseOp, _as_format, _check_same_shape, _sparse_output, _tensor_output,
    as_sparse_variable, by_sparseness,
)
from symnb.core.tensor.basic import as_tensor_variable

__all__ = ["ComparisonSS", "ComparisonSD", "EqualSS", "EqualSD", "NotEqualSS", "NotEqualSD",
           "LessThanSS", "LessThanSD", "GreaterThanSS", "GreaterThanSD", "LessEqualSS",
           "LessEqualSD", "GreaterEqualSS", "GreaterEqualSD", "eq", "neq", "lt", "gt", "le", "ge",
           "equal_s_s", "equal_s_d", "not_equal_s_s", "not_equal_s_d", "less_than_s_s",
           "less_than_s_d", "greater_than_s_s", "greater_than_s_d", "less_equal_s_s",
           "less_equal_s_d", "greater_equal_s_s", "greater_equal_s_d"]


class _Comparison(SparseOp):
    """``comparison(x, y)`` with a sparse ``x``, as uint8."""

    __props__ = ()
    discrete_outputs = True
    #: The comparison, on SciPy matrices and on the program's dense ones alike.
    comparison: Callable[[Any, Any], Any] = None  # type: ignore[assignment]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[0]]


class ComparisonSS(_Comparison):
    """A comparison of two sparse matrices of one format: sparse uint8, of that format."""

    def make_node(self, x: Any, y: Any) -> Apply:
        x, y = as_sparse_variable(x), as_sparse_variable(y)
        if x.type.format != y.type.format:
            raise build_error(f"{type(self).__name__}: {label(x)} is {x.type.format} and "
                              f"{label(y)} {y.type.format}; compare matrices of one format "
                              "(as Theano)", NotImplementedError)
        return Apply(self, [x, y], [_sparse_output(x.type.format, "uint8")])

    def perform(self, node: Apply, inputs: Sequence[Any]) -> list[Any]:
        x, y = inputs
        _check_same_shape(type(self).__name__, x, y)
        return [_as_format(type(self).comparison(x, y), node.outputs[0].type.format, "uint8")]


class ComparisonSD(_Comparison):
    """A comparison of a sparse and a dense matrix: a dense uint8 matrix."""

    def make_node(self, x: Any, y: Any) -> Apply:
        x, y = as_sparse_variable(x), as_tensor_variable(y)
        if y.type.ndim != 2:
            raise build_error(f"{type(self).__name__}: {label(y)} must be a matrix, got "
                              f"{y.type.short()}", TypeError)
        return Apply(self, [x, y], [_tensor_output("uint8", (None, None))])

    def perform(self, node: Apply, inputs: Sequence[Any]) -> list[np.ndarray]:
        x, y = inputs
        _check_same_shape(type(self).__name__, x, y)
        result = type(self).comparison(x, y)
        dense = result.toarray() if hasattr(result, "toarray") else np.asarray(result)
        return [dense.astype("uint8")]


def _pair(name: str, compare: Callable[[Any, Any], Any]) -> tuple[type, type]:
    attrs = {"comparison": staticmethod(compare), "__module__": __name__}
    ss = type(f"{name}SS", (ComparisonSS,), {**attrs, "__doc__": f"``{compare.__name__}`` "
                                             "of two sparse matrices (sparse uint8)."})
    sd = type(f"{name}SD", (ComparisonSD,), {**attrs, "__doc__": f"``{compare.__name__}`` "
                                             "of a sparse and a dense matrix (dense uint8)."})
    return ss, sd


EqualSS, EqualSD = _pair("Equal", operator.eq)
NotEqualSS, NotEqualSD = _pair("NotEqual", operator.ne)
LessThanSS, LessThanSD = _pair("LessThan", operator.lt)
GreaterThanSS, GreaterThanSD = _pair("GreaterThan", operator.gt)
LessEqualSS, LessEqualSD = _pair("LessEqual", operator.le)
GreaterEqualSS, GreaterEqualSD = _pair("GreaterEqual", operator.ge)


def _switch(ss: SparseOp, sd: SparseOp, ds: SparseOp, name: str) -> Callable[[Any, Any], Variable]:
    """Theano's ``__ComparisonSwitch``: ``ss`` of two sparse operands, ``sd`` of a sparse
    and a dense one, ``ds(y, x)`` of a dense ``x`` and a sparse ``y`` (the swapped
    comparison: a dense matrix is never the left operand)."""

    def compare(x: Any, y: Any) -> Variable:
        return by_sparseness(name, x, y, ss, sd, ds)

    compare.__name__ = compare.__qualname__ = name
    compare.__doc__ = f"Theano's sparse ``{name}(x, y)`` (uint8); at least one operand sparse."
    return compare


#: Theano's instances of the comparison ops.
equal_s_s, equal_s_d = EqualSS(), EqualSD()
not_equal_s_s, not_equal_s_d = NotEqualSS(), NotEqualSD()
less_than_s_s, less_than_s_d = LessThanSS(), LessThanSD()
greater_than_s_s, greater_than_s_d = GreaterThanSS(), GreaterThanSD()
less_equal_s_s, less_equal_s_d = LessEqualSS(), LessEqualSD()
greater_equal_s_s, greater_equal_s_d = GreaterEqualSS(), GreaterEqualSD()

eq = _switch(equal_s_s, equal_s_d, equal_s_d, "eq")
neq = _switch(not_equal_s_s, not_equal_s_d, not_equal_s_d, "neq")
lt = _switch(less_than_s_s, less_than_s_d, greater_than_s_d, "lt")
gt = _switch(greater_than_s_s, greater_than_s_d, less_than_s_d, "gt")
le = _switch(less_equal_s_s, less_equal_s_d, greater_equal_s_d, "le")
ge = _switch(greater_equal_s_s, greater_equal_s_d, less_equal_s_d, "ge")
