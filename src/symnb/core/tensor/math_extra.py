"""Theano's tensor functions that are exact compositions of existing ops:
``xlogx``, ``xlogy0``, ``isclose``/``allclose``, ``max_and_argmax``, ``batched_dot``,
``diag``, ``triu``/``tril``, ``sgn``, ``ptp``, ``smallest``, ``ceil_intdiv``,
``swapaxes``, ``horizontal_stack``/``vertical_stack`` and ``cov``. Each is written as NumPy defines the result
(NaN, infinities and zeros included), so the test value and the compiled program
agree with NumPy without an op of its own."""

from __future__ import annotations

from typing import Any

from symnb.core.graph.errors import build_error, label
from symnb.core.graph.basic import Constant, Variable
from symnb.core.tensor import math as m
from symnb.core.tensor.alloc import arange, zeros
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.tensor.blas import matmul
from symnb.core.tensor.blas_batched import batched_tensordot
from symnb.core.tensor.reduction import all as _all
from symnb.core.tensor.join import concatenate, stack
from symnb.core.tensor.reduction import argmax, max as _max, min as _min
from symnb.core.tensor.shape import shape_i
from symnb.core.tensor.subtensor import getitem, set_subtensor

__all__ = ["xlogx", "xlogy0", "isclose", "allclose", "max_and_argmax", "batched_dot", "diag",
           "triu", "tril", "sgn", "to_one_hot", "ptp", "smallest", "ceil_intdiv", "swapaxes",
           "horizontal_stack", "vertical_stack", "cov", "diagonal"]

sgn = m.sign  # Theano's name for the sign function


def xlogx(x: Any) -> Variable:
    """``x * log(x)``, and 0 where ``x`` is 0 (Theano's ``T.xlogx.xlogx``). The gradient
    at 0 is 0 (Theano's op gave -inf there)."""
    x = as_tensor_variable(x)
    zero = m.eq(x, 0)
    safe = m.switch(zero, 1, x)  # log is never taken of 0, so no NaN reaches the gradient
    return m.switch(zero, 0, m.mul(safe, m.log(safe)))


def xlogy0(x: Any, y: Any) -> Variable:
    """``x * log(y)``, and 0 where ``x`` is 0 (Theano's ``T.xlogx.xlogy0``)."""
    x, y = as_tensor_variable(x), as_tensor_variable(y)
    zero = m.eq(x, 0)
    safe_y = m.switch(zero, 1, y)
    return m.switch(zero, 0, m.mul(x, m.log(safe_y)))


def isclose(a: Any, b: Any, rtol: float = 1e-5, atol: float = 1e-8, equal_nan: bool = False
            ) -> Variable:
    """``np.isclose``: ``|a - b| <= atol + rtol * |b|`` where ``b`` is finite, equal
    infinities are close, and NaNs are close to each other when ``equal_nan``."""
    a, b = as_tensor_variable(a), as_tensor_variable(b)
    within = m.le(m.abs(m.sub(a, b)), m.add(atol, m.mul(rtol, m.abs(b))))
    finite = m.invert(m.or_(m.isinf(b), m.isnan(b)))
    close = m.or_(m.and_(within, finite), m.eq(a, b))
    if equal_nan:
        close = m.or_(close, m.and_(m.isnan(a), m.isnan(b)))
    return close


def allclose(a: Any, b: Any, rtol: float = 1e-5, atol: float = 1e-8, equal_nan: bool = False
             ) -> Variable:
    """``np.allclose``: a bool scalar, True when every element is close (``isclose``)."""
    return _all(isclose(a, b, rtol, atol, equal_nan))


def max_and_argmax(a: Any, axis: Any = None, keepdims: bool = False) -> list[Variable]:
    """``[max(a, axis), argmax(a, axis)]`` in one ``MaxAndArgmax`` node (Theano's
    ``T.max_and_argmax``): ``axis`` None (or ``NoneConst``), an int, a list of ints or a
    constant; the argmax of several axes indexes their flattened block."""
    from symnb.core.graph.none_type import is_none_constant
    from symnb.core.tensor.basic_theano_ops import MaxAndArgmax
    from symnb.core.tensor.shape_extra import shape_padaxis

    a = as_tensor_variable(a)
    if is_none_constant(axis):
        axis = None
    if isinstance(axis, Constant):
        axis = axis.data.tolist()
    elif isinstance(axis, Variable):
        raise build_error(f"max_and_argmax: the axis {label(axis)!r} is symbolic; it must be an "
                          "int, a list of ints or a constant", NotImplementedError)
    outputs = MaxAndArgmax(tuple(range(a.ndim)) if axis is None else axis)(a)
    if keepdims:
        axes = outputs[0].owner.op.axis
        for d in axes:
            outputs = [shape_padaxis(o, d) for o in outputs]
    return list(outputs)


def batched_dot(a: Any, b: Any) -> Variable:
    """``np.dot(a[i], b[i])`` for each ``i`` along the first (batch) axis (Theano's
    ``T.batched_dot``): 3-d by 3-d is a batched matrix product, 2-d rows are treated as
    batches of vectors, a 1-d operand scales the other one per batch, and operands of more
    dimensions contract the last axis of ``a`` with the second-to-last of ``b``
    (``batched_tensordot``)."""
    a, b = as_tensor_variable(a), as_tensor_variable(b)
    for var in (a, b):
        if var.ndim == 0:
            raise build_error(f"batched_dot: {label(var)!r} is a scalar; each operand needs a "
                              f"batch axis", TypeError, inputs=[a, b])
    if a.ndim == 1:
        return m.mul(a.dimshuffle(0, *["x"] * (b.ndim - 1)), b)
    if b.ndim == 1:
        return m.mul(a, b.dimshuffle(0, *["x"] * (a.ndim - 1)))
    if a.ndim > 3 or b.ndim > 3:  # as Theano: the last axis of a, the second-to-last of b
        return batched_tensordot(a, b, [[a.ndim - 1], [max(1, b.ndim - 2)]])
    left = a if a.ndim == 3 else a.dimshuffle(0, "x", 1)      # a batch of row vectors
    right = b if b.ndim == 3 else b.dimshuffle(0, 1, "x")     # a batch of column vectors
    product = matmul(left, right)
    if a.ndim == 2 and b.ndim == 2:
        return product.dimshuffle(0)  # drops the two length-1 axes
    if a.ndim == 2:
        return product.dimshuffle(0, 2)
    if b.ndim == 2:
        return product.dimshuffle(0, 1)
    return product


def _diagonal_positions(length: Any, k: int) -> tuple[Variable, Variable]:
    base = arange(length)
    return (m.add(base, -k) if k < 0 else base), (m.add(base, k) if k > 0 else base)


def diag(v: Any, k: int = 0) -> Variable:
    """``np.diag``: of a vector, the square matrix with ``v`` on its ``k``-th diagonal; of
    a matrix, its ``k``-th diagonal as a vector."""
    v = as_tensor_variable(v)
    k = int(k)
    if v.ndim == 1:
        n = shape_i(v, 0)
        size = m.add(n, abs(k)) if k else n
        rows, cols = _diagonal_positions(n, k)
        return set_subtensor(getitem(zeros([size, size], dtype=v.dtype), (rows, cols)), v)
    if v.ndim == 2:
        r, c = shape_i(v, 0), shape_i(v, 1)
        length = m.minimum(r, m.sub(c, k)) if k >= 0 else m.minimum(m.add(r, k), c)
        rows, cols = _diagonal_positions(m.maximum(length, 0), k)
        return getitem(v, (rows, cols))
    raise build_error(f"diag: {label(v)!r} has {v.ndim} dimensions; diag takes a vector or a "
                      f"matrix", ValueError, inputs=[v])


def _triangle(x: Any, k: int, lower: bool, name: str) -> Variable:
    x = as_tensor_variable(x)
    if x.ndim < 2:
        raise build_error(f"{name}: {label(x)!r} has {x.ndim} dimension(s); it needs at least 2",
                          ValueError, inputs=[x])
    rows = arange(shape_i(x, x.ndim - 2)).dimshuffle(0, "x")
    cols = arange(shape_i(x, x.ndim - 1)).dimshuffle("x", 0)
    shifted = m.add(rows, int(k))
    keep = m.le(cols, shifted) if lower else m.ge(cols, shifted)
    return m.switch(keep, x, 0)


def tril(m_: Any, k: int = 0) -> Variable:
    """``np.tril``: the elements on and below the ``k``-th diagonal, zeros elsewhere
    (on the last two axes)."""
    return _triangle(m_, k, True, "tril")


def triu(m_: Any, k: int = 0) -> Variable:
    """``np.triu``: the elements on and above the ``k``-th diagonal, zeros elsewhere
    (on the last two axes)."""
    return _triangle(m_, k, False, "triu")


def to_one_hot(y: Any, nb_class: int, dtype: Any = None) -> Variable:
    """Rows of ``nb_class`` zeros with a 1 at each class in the int vector ``y``
    (Theano's ``extra_ops.to_one_hot``; ``dtype`` defaults to floatX). A class outside
    ``[0, nb_class)`` is an index error, as in Theano."""
    y = as_tensor_variable(y)
    if y.ndim != 1 or y.type.numpy_dtype.kind not in "iu":
        raise build_error(f"to_one_hot: y ({label(y)}) must be an int vector; got {y.type.short()}",
                          TypeError)
    rows = shape_i(y, 0)
    out = zeros((rows, nb_class), dtype=dtype)
    return set_subtensor(getitem(out, (arange(rows), y)), 1)


def ptp(a: Any, axis: Any = None) -> Variable:
    """Peak to peak: ``max(a, axis) - min(a, axis)`` (Theano's ``T.ptp``; the whole
    array when ``axis`` is None)."""
    a = as_tensor_variable(a)
    return _max(a, axis) - _min(a, axis)


def smallest(*args: Any) -> Variable:
    """The elementwise smallest of the arguments, as Python's ``min`` (Theano's
    ``T.smallest``): ``switch(a < b, a, b)`` for two, the minimum of their stack else."""
    if len(args) == 2:
        a, b = args
        return m.switch(m.lt(a, b), a, b)
    return _min(stack(list(args)), axis=0)


def ceil_intdiv(a: Any, b: Any) -> Variable:
    """``ceil(a / b)`` computed in integers (Theano's ``T.ceil_intdiv``): ``a // b`` plus
    one where the division leaves a remainder; exact for int64 too."""
    div = m.floor_div(a, b)
    return m.cast(m.neq(m.mod(a, b), 0), div.dtype) + div


def swapaxes(y: Any, axis1: int, axis2: int) -> Variable:
    """``y`` with the axes ``axis1`` and ``axis2`` exchanged (``np.swapaxes``)."""
    y = as_tensor_variable(y)
    order = list(range(y.ndim))
    order[axis1], order[axis2] = order[axis2], order[axis1]
    return y.dimshuffle(order)


def _stack_matrices(args: tuple, axis: int, name: str) -> Variable:
    tensors = [as_tensor_variable(a) for a in args]
    if len(tensors) < 2:
        raise build_error(f"{name} takes at least two matrices, got {len(tensors)}", ValueError)
    for t in tensors:
        if t.ndim != 2:
            raise build_error(f"{name} takes matrices; {label(t)!r} has {t.ndim} dimensions",
                              TypeError)
    return concatenate(tensors, axis=axis)


def horizontal_stack(*args: Any) -> Variable:
    """Matrices joined side by side (along axis 1; Theano's, matrices only)."""
    return _stack_matrices(args, 1, "horizontal_stack")


def vertical_stack(*args: Any) -> Variable:
    """Matrices joined one below the other (along axis 0; Theano's, matrices only)."""
    return _stack_matrices(args, 0, "vertical_stack")


def cov(m_: Any, y: Any = None, rowvar: bool = True, bias: bool = False, ddof: Any = None,
        fweights: Any = None, aweights: Any = None) -> Variable:
    """The covariance matrix of the variables of the matrix ``m_`` (Theano's ``T.cov``,
    NumPy's ``np.cov`` for matrices): a row per variable, observations in the columns (a
    column per variable with ``rowvar=False``); ``y``, more variables, joined below;
    normalized by ``N - ddof`` (``ddof`` 1, or 0 with ``bias``). As Theano computes it: the
    result's length-1 axes known when built are squeezed (a (1, N) matrix gives (1, 1), not
    NumPy's 0-d)."""
    if fweights is not None:
        raise NotImplementedError("cov: fweights are not implemented (as in Theano)")
    if aweights is not None:
        raise NotImplementedError("cov: aweights are not implemented (as in Theano)")
    m_ = as_tensor_variable(m_)
    if not rowvar:
        m_ = m_.T  # Theano's test "m.shape[0] != 1" was always true (symbolic !=)
    if y is not None:
        y = as_tensor_variable(y)
        m_ = concatenate((m_, y if rowvar else y.T), axis=0)
    if ddof is None:
        ddof = 0 if bias else 1
    fact = shape_i(m_, 1) - ddof
    m_ = m_ - m_.mean(axis=1, keepdims=True)
    c = matmul(m_, m_.T)
    c = c * m.true_div(as_tensor_variable(1), fact)
    return c.squeeze()


def diagonal(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Variable:
    """``np.diagonal(a, offset, axis1, axis2)`` (Theano's ``T.diagonal``, ``x.diagonal``):
    the diagonal of the axes ``axis1``, ``axis2`` (offset above the main one when
    positive, below when negative), as the last axis of the result."""
    a = as_tensor_variable(a)
    if a.ndim < 2:
        raise build_error(f"diagonal: {label(a)!r} ({a.type.short()}) has {a.ndim} dimension(s); "
                          "it needs at least 2", ValueError)
    axis1, axis2 = axis1 % a.ndim, axis2 % a.ndim
    if axis1 == axis2:
        raise build_error(f"diagonal: axis1 and axis2 are both {axis1}", ValueError)
    offset = int(offset)
    rest = [d for d in range(a.ndim) if d not in (axis1, axis2)]
    moved = a.dimshuffle(rest + [axis1, axis2])
    first, second = max(-offset, 0), max(offset, 0)
    # the diagonal's length: max(0, min(rows - first, cols - second))
    length = m.maximum(m.minimum(shape_i(a, axis1) - first, shape_i(a, axis2) - second), 0)
    index = arange(length)
    return getitem(moved, (Ellipsis, index + first, index + second))
