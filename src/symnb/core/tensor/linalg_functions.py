"""Theano's ``theano.tensor.nlinalg`` functions: compositions of other ops (their
gradients come with them), ``matrix_power``, ``trace``, ``norm``, ``tensorsolve``, and
the builders of ``nlinalg_diag``'s ops, ``extract_diag``, ``alloc_diag``, ``tensorinv``.

Differences from Theano, each to avoid a silently wrong number: ``matrix_power`` of a
negative power inverts and 0 gives the identity, as NumPy (Theano returned 1); ``norm``
of a vector takes ``abs(x) ** ord`` (Theano's ``abs(x ** ord)`` is NaN for fractional
orders of negative entries).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from symnb.core.graph.basic import Variable
from symnb.core.graph.errors import build_error, label
from symnb.core.tensor import math as m
from symnb.core.tensor.alloc import eye
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.tensor.blas import dot
from symnb.core.tensor.linalg_base import matrix_operand
from symnb.core.tensor.nlinalg import matrix_inverse
from symnb.core.tensor.nlinalg_diag import AllocDiag, ExtractDiag, TensorInv
from symnb.core.tensor.reduction import max as _max, min as _min, sum as _sum
from symnb.core.tensor.shape import product, reshape, shape_i, transpose
from symnb.core.tensor.slinalg import solve

__all__ = ["matrix_power", "trace", "extract_diag", "alloc_diag", "norm", "tensorinv",
           "tensorsolve"]


def matrix_power(M: Any, n: int) -> Variable:
    """``M`` to the integer power ``n`` (``numpy.linalg.matrix_power``): by repeated
    squaring; the identity for 0, powers of the inverse below 0."""
    M = matrix_operand("matrix_power", M, square=True)
    n = int(n)
    if n == 0:
        return eye(shape_i(M, 0), dtype=M.dtype)
    power = matrix_inverse(M) if n < 0 else M
    result, remaining = None, abs(n)
    while remaining:  # the bits of |n|, least significant first
        if remaining & 1:
            result = power if result is None else dot(result, power)
        remaining >>= 1
        if remaining:
            power = dot(power, power)
    return result


def trace(X: Any) -> Variable:
    """The sum of the main diagonal of ``X``."""
    return _sum(extract_diag(X))


def extract_diag(x: Any) -> Variable:
    """The main diagonal of ``x`` (``numpy.diagonal(x)``: of axes 0 and 1, as the last
    axis of the result; Theano's ``ExtractDiag()``)."""
    return ExtractDiag()(x)


def alloc_diag(x: Any) -> Variable:
    """The square matrix with the vector ``x`` on its diagonal (Theano's ``AllocDiag()``)."""
    return AllocDiag()(x)


def norm(x: Any, ord: Any = None) -> Variable:
    """Theano's ``norm``: of a vector, ``ord`` None (2-norm), ``'inf'``/``'-inf'`` (or
    ``np.inf``), 0 (the count of nonzero entries) or a number ``p`` (``sum(|x|^p)^(1/p)``);
    of a matrix, None or ``'fro'`` (Frobenius), ``'inf'``/``'-inf'`` (max/min row sum of
    ``|x|``), 1/-1 (max/min column sum)."""
    x = as_tensor_variable(x)
    ord = {np.inf: "inf", -np.inf: "-inf"}.get(ord, ord) if not isinstance(ord, str) else ord
    if x.ndim == 1:
        return _vector_norm(x, ord)
    if x.ndim == 2:
        return _matrix_norm(x, ord)
    raise build_error(f"norm: {label(x)!r} ({x.type.short()}) must be a vector or a matrix",
                      NotImplementedError if x.ndim > 2 else ValueError, inputs=[x])


def _vector_norm(x: Variable, ord: Any) -> Variable:
    if ord is None:
        return m.sqrt(_sum(m.square(x)))
    if ord == "inf":
        return _max(m.abs(x))
    if ord == "-inf":
        return _min(m.abs(x))
    if ord == 0:
        return _sum(m.neq(x, 0), dtype="int64")
    if isinstance(ord, (int, float)) and not isinstance(ord, bool):
        return m.pow(_sum(m.pow(m.abs(x), ord)), 1.0 / ord)
    raise build_error(f"norm: invalid norm order {ord!r} for the vector {label(x)!r}", inputs=[x])


#: matrix norm order -> the reduction of the sums of |x| along an axis (1: rows, 0: columns)
_MATRIX_NORMS = {"inf": (_max, 1), "-inf": (_min, 1), 1: (_max, 0), -1: (_min, 0)}


def _matrix_norm(x: Variable, ord: Any) -> Variable:
    if ord is None or ord == "fro":
        return m.sqrt(_sum(m.square(x)))
    if ord not in _MATRIX_NORMS:
        raise build_error(f"norm: order {ord!r} is not supported for the matrix {label(x)!r} "
                          f"(None, 'fro', 'inf', '-inf', 1 and -1 are, as in Theano)", inputs=[x])
    reduce, axis = _MATRIX_NORMS[ord]
    return reduce(_sum(m.abs(x), axis=axis))


def tensorinv(a: Any, ind: int = 2) -> Variable:
    """``numpy.linalg.tensorinv``: the inverse of ``a`` for ``tensordot(., ., ind)``, of
    shape ``a.shape[ind:] + a.shape[:ind]`` (Theano's ``TensorInv(ind)``)."""
    return TensorInv(ind)(a)


def tensorsolve(a: Any, b: Any, axes: Sequence[int] | None = None) -> Variable:
    """``numpy.linalg.tensorsolve``: ``x`` such that ``tensordot(a, x, x.ndim) == b``;
    ``axes`` of ``a`` are moved to the end first."""
    a, b = as_tensor_variable(a), as_tensor_variable(b)
    if axes is not None:
        order = [i for i in range(a.ndim) if i not in [k % a.ndim for k in axes]]
        a = transpose(a, order + [k % a.ndim for k in axes])
    if not 0 <= b.ndim < a.ndim:
        raise build_error(f"tensorsolve: {label(a)!r} ({a.type.short()}) needs more dimensions "
                          f"than {label(b)!r} ({b.type.short()})", ValueError, inputs=[a, b])
    solved = [shape_i(a, i) for i in range(b.ndim, a.ndim)]
    rows = product([shape_i(a, i) for i in range(b.ndim)])
    solution = solve(reshape(a, [rows, product(solved)]), reshape(b, [rows]))
    return reshape(solution, solved)
