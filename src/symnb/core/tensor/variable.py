"""Tensor variables: the NumPy-like surface (operators, methods) of graph variables."""

from __future__ import annotations

import numpy as np

from symnb.core.graph.basic import Constant, Variable
from symnb.core.graph.type import TensorType
# The operators and methods call the public functions of these modules, which make
# nodes whose outputs are of the classes below (registered on TensorType at the end).
from symnb.core.tensor import blas as _blas
from symnb.core.tensor import elemwise as _elemwise
from symnb.core.tensor import math as _math
from symnb.core.tensor import reduction as _reduction
from symnb.core.tensor import shape as _shape
from symnb.core.tensor import subtensor as _subtensor
from symnb.core.tensor.basic import typed_input
from symnb.core.graph.traceback_filter import api_boundaries

__all__ = ["TensorVariable", "TensorConstant", "install_evaluator"]

#: What ``var.eval()`` calls: installed by ``symnb.compile`` (a layer above the core), so
#: the core reaches the compiler without importing it.
_evaluator: list = []


def install_evaluator(evaluate) -> None:
    """Install ``evaluate(var, inputs_to_values) -> array``, what ``var.eval`` runs."""
    _evaluator[:] = [evaluate]


@api_boundaries  # errors show the user's line, not these methods: core/graph/traceback_filter.py
class _TensorOperators:
    """Operators and methods shared by every tensor variable, constant and shared one."""

    __slots__ = ()
    __array_priority__ = 1000  # numpy_array + var -> var.__radd__, not an object array

    # arithmetic
    def __add__(self, other): return _math.add(self, other)
    def __radd__(self, other): return _math.add(other, self)
    def __sub__(self, other): return _math.sub(self, other)
    def __rsub__(self, other): return _math.sub(other, self)
    def __mul__(self, other): return _math.mul(self, other)
    def __rmul__(self, other): return _math.mul(other, self)
    def __truediv__(self, other): return _math.true_div(self, other)
    def __rtruediv__(self, other): return _math.true_div(other, self)
    def __floordiv__(self, other): return _math.floor_div(self, other)
    def __rfloordiv__(self, other): return _math.floor_div(other, self)
    def __mod__(self, other): return _math.mod(self, other)
    def __rmod__(self, other): return _math.mod(other, self)
    # Theano's divmod(x, y): (x // y, x % y)
    def __divmod__(self, other): return _math.floor_div(self, other), _math.mod(self, other)
    def __rdivmod__(self, other): return _math.floor_div(other, self), _math.mod(other, self)
    def __pow__(self, other): return _math.pow(self, other)
    def __rpow__(self, other): return _math.pow(other, self)
    def __matmul__(self, other): return _blas.matmul(self, other)
    def __rmatmul__(self, other): return _blas.matmul(other, self)
    # Theano's protocol for theano.dot(l, r) (symnb.dot)
    def __dot__(self, other): return _blas.dot(self, other)
    def __rdot__(self, other): return _blas.dot(other, self)
    def __neg__(self): return _math.neg(self)
    def __pos__(self): return self
    def __abs__(self): return _math.abs(self)
    def __invert__(self): return _math.invert(self)

    # comparisons and logic (return real bool tensors)
    def __lt__(self, other): return _math.lt(self, other)
    def __le__(self, other): return _math.le(self, other)
    def __gt__(self, other): return _math.gt(self, other)
    def __ge__(self, other): return _math.ge(self, other)
    def __and__(self, other): return _math.and_(self, other)
    def __rand__(self, other): return _math.and_(other, self)
    def __or__(self, other): return _math.or_(self, other)
    def __ror__(self, other): return _math.or_(other, self)
    def __xor__(self, other): return _math.xor(self, other)
    def __rxor__(self, other): return _math.xor(other, self)

    # Variables are graph nodes: == is identity (as in Theano); use T.eq for values.
    __hash__ = object.__hash__

    def __bool__(self):
        """Theano's rule: every variable is truthy (so ``if not input:`` tests for
        None, as the classic RBM/dA constructors do), except the result of a
        comparison, which raises so that ``a < b < c`` (Python's ``(a < b) and
        (b < c)``) fails loudly instead of silently keeping only ``b < c``."""
        owner = self.owner
        if owner is not None and isinstance(owner.op, _COMPARISONS):
            raise TypeError(
                "the result of a comparison has no truth value while the graph is built "
                "(a chained comparison such as a < b < c, or `if x < y:`); use T.and_ to "
                "combine comparisons, T.switch or sn.ifelse for a condition, or "
                ".test_value to inspect it")
        return True

    def __iter__(self):
        # Theano's rule: a vector whose length is known when the graph is built yields
        # x[0], x[1], ... (``a, b = x.shape``); any other tensor refuses, so that a
        # builtin ``sum(x)`` or a loop over a value-dependent length fails loudly.
        length = self.type.shape[0] if self.type.ndim == 1 else None
        if length is None:
            raise TypeError("a symbolic tensor cannot be iterated unless it is a vector of "
                            f"known length (this is {self.type.short()}); index it (x[i]) "
                            "or use sn.scan")
        return (self[i] for i in range(length))

    def __len__(self):
        raise TypeError("len() of a symbolic tensor is unknown while building; use x.shape[0]")

    # indexing
    def __getitem__(self, index): return _subtensor.getitem(self, index)

    # methods
    def sum(self, axis=None, keepdims=False, dtype=None, acc_dtype=None):
        return _reduction.sum(self, axis, keepdims=keepdims, dtype=dtype, acc_dtype=acc_dtype)

    def prod(self, axis=None, keepdims=False, dtype=None, acc_dtype=None, no_zeros_in_input=False):
        return _reduction.prod(self, axis, keepdims=keepdims, dtype=dtype, acc_dtype=acc_dtype,
                               no_zeros_in_input=no_zeros_in_input)

    def fill(self, value):
        """Theano's ``x.fill(value)``: ``value`` broadcast to ``x``'s shape (``T.fill(x, value)``)."""
        from symnb.core.tensor.alloc import fill  # (alloc builds on this module)
        return fill(self, value)
    def max(self, axis=None, keepdims=False): return _reduction.max(self, axis, keepdims=keepdims)
    def min(self, axis=None, keepdims=False): return _reduction.min(self, axis, keepdims=keepdims)
    def mean(self, axis=None, keepdims=False, dtype=None, acc_dtype=None):
        return _reduction.mean(self, axis, keepdims=keepdims, dtype=dtype, acc_dtype=acc_dtype)
    # Theano's signatures: ddof before keepdims
    def var(self, axis=None, ddof=0, keepdims=False, corrected=False):
        return _reduction.var(self, axis, ddof=ddof, keepdims=keepdims, corrected=corrected)
    def std(self, axis=None, ddof=0, keepdims=False, corrected=False):
        return _reduction.std(self, axis, ddof=ddof, keepdims=keepdims, corrected=corrected)
    def argmax(self, axis=None, keepdims=False): return _reduction.argmax(self, axis, keepdims=keepdims)
    def argmin(self, axis=None, keepdims=False): return _reduction.argmin(self, axis, keepdims=keepdims)
    def any(self, axis=None, keepdims=False): return _reduction.any(self, axis, keepdims=keepdims)
    def all(self, axis=None, keepdims=False): return _reduction.all(self, axis, keepdims=keepdims)
    def dot(self, other): return _blas.dot(self, other)
    def reshape(self, *args, shape=None, ndim=None):
        # NumPy's x.reshape(2, 3) or x.reshape((2, 3)); Theano's x.reshape(shape=(2, 3), ndim=2)
        if shape is None:
            shape = args[0] if len(args) == 1 and not isinstance(args[0], int) else args
        elif args:
            raise TypeError("reshape() got the shape twice: positionally and as shape=")
        return _shape.reshape(self, shape, ndim=ndim)
    def dimshuffle(self, *pattern):
        if len(pattern) == 1 and isinstance(pattern[0], (list, tuple)):
            pattern = pattern[0]
        return _shape.dimshuffle(self, pattern)
    def transpose(self, *axes):
        if len(axes) == 1 and isinstance(axes[0], (list, tuple)):
            axes = axes[0]
        return _shape.transpose(self, axes or None)
    @property
    def T(self): return _shape.transpose(self)
    def flatten(self, ndim=1): return _shape.flatten(self, ndim)
    def squeeze(self, axis=None): return _shape.squeeze(self, axis)
    def ravel(self): return _shape.flatten(self, 1)  # Theano's: flatten to one dimension
    # Theano's methods from extra_ops (imported when called: extra_ops builds on this module)
    def searchsorted(self, v, side="left", sorter=None):
        from symnb.core.tensor.extra_ops_numpy import searchsorted
        return searchsorted(self, v, side=side, sorter=sorter)
    def cumsum(self, axis=None):
        from symnb.core.tensor.extra_ops import cumsum
        return cumsum(self, axis)
    def cumprod(self, axis=None):
        from symnb.core.tensor.extra_ops import cumprod
        return cumprod(self, axis)
    def repeat(self, repeats, axis=None):
        from symnb.core.tensor.shape_extra import repeat
        return repeat(self, repeats, axis)
    def sort(self, axis=-1, kind="quicksort", order=None):
        from symnb.core.tensor.extra_ops import sort
        return sort(self, axis, kind, order)
    def argsort(self, axis=-1, kind="quicksort", order=None):
        from symnb.core.tensor.extra_ops import argsort
        return argsort(self, axis, kind, order)
    # Theano's methods of tensor.basic's functions (imported when called: they build on it)
    def ptp(self, axis=None):
        from symnb.core.tensor.math_extra import ptp
        return ptp(self, axis)
    def diagonal(self, offset=0, axis1=0, axis2=1):
        from symnb.core.tensor.math_extra import diagonal
        return diagonal(self, offset, axis1, axis2)
    def trace(self):
        from symnb.core.tensor.linalg_functions import trace
        return trace(self)
    def choose(self, choices, out=None, mode="raise"):
        from symnb.core.tensor.basic_theano_ops import choose
        return choose(self, choices, out=out, mode=mode)
    def conj(self):
        from symnb.core.tensor.special import conj
        return conj(self)
    conjugate = conj

    @property
    def real(self):
        """Theano's ``x.real`` (``T.real(x)``)."""
        from symnb.core.tensor.special import real
        return real(self)

    @property
    def imag(self):
        """Theano's ``x.imag`` (``T.imag(x)``)."""
        from symnb.core.tensor.special import imag
        return imag(self)

    def compress(self, a, axis=None):  # Theano's argument order: x.compress(condition)
        from symnb.core.tensor.extra_ops_numpy import compress
        return compress(a, self, axis=axis)

    # Theano's elementwise methods: NumPy's ufuncs call them on a symbolic tensor
    # (np.exp(x) is x.exp() on an object), so np.exp(x) builds T.exp(x), as in Theano.
    def exp(self): return _math.exp(self)
    def expm1(self): return _math.expm1(self)
    def log(self): return _math.log(self)
    def log1p(self): return _math.log1p(self)
    def sqrt(self): return _math.sqrt(self)
    def sin(self): return _math.sin(self)
    def cos(self): return _math.cos(self)
    def tan(self): return _math.tan(self)
    def tanh(self): return _math.tanh(self)
    def floor(self): return _math.floor(self)
    def ceil(self): return _math.ceil(self)
    def arccos(self): return _special().arccos(self)
    def arccosh(self): return _special().arccosh(self)
    def arcsin(self): return _special().arcsin(self)
    def arcsinh(self): return _special().arcsinh(self)
    def arctan(self): return _special().arctan(self)
    def arctanh(self): return _special().arctanh(self)
    def cosh(self): return _special().cosh(self)
    def sinh(self): return _special().sinh(self)
    def deg2rad(self): return _special().deg2rad(self)
    def rad2deg(self): return _special().rad2deg(self)
    def exp2(self): return _special().exp2(self)
    def log2(self): return _special().log2(self)
    def log10(self): return _special().log10(self)

    def swapaxes(self, axis1, axis2):
        """The tensor with ``axis1`` and ``axis2`` exchanged (Theano's, NumPy's ``swapaxes``)."""
        axes = list(range(self.ndim))
        a1, a2 = _shape.normalize_axis(axis1, self.ndim, self), _shape.normalize_axis(axis2, self.ndim, self)
        axes[a1], axes[a2] = axes[a2], axes[a1]
        return _shape.dimshuffle(self, axes)

    def norm(self, L, axis=None, keepdims=False):
        """Theano's ``x.norm(L, axis)``: ``(|x| ** L).sum(axis) ** (1 / L)``; L = 0 and
        infinite L are refused, as in Theano."""
        if L == 0 or np.isinf(L):
            raise NotImplementedError(f"norm: L={L} is not supported (as in Theano); "
                                      "use T.nlinalg.norm for matrix and infinity norms")
        summed = _reduction.sum(_math.pow(_math.abs(self), L), axis, keepdims=keepdims)
        return _math.pow(summed, 1.0 / L)
    def astype(self, dtype): return _math.cast(self, dtype)

    def zeros_like(self, dtype=None):
        """Zeros of this variable's shape (and dtype, or ``dtype``): Theano's method."""
        from symnb.core.tensor.alloc import zeros_like  # (alloc builds on this module)
        return zeros_like(self, dtype)

    def ones_like(self, dtype=None):
        """Ones of this variable's shape (and dtype, or ``dtype``): Theano's method."""
        from symnb.core.tensor.alloc import ones_like
        return ones_like(self, dtype)

    def nonzero(self, return_matrix=False): return _subtensor.nonzero(self, return_matrix=return_matrix)

    def take(self, indices, axis=None, mode="raise"):
        from symnb.core.tensor.subtensor_theano import take  # (it builds on this module)
        return take(self, indices, axis, mode)
    def clip(self, a_min, a_max): return _math.clip(self, a_min, a_max)
    def round(self, mode=None): return _math.round(self, mode)

    def copy(self, name=None):
        """A symbolic copy (an identity node, Theano's ``tensor_copy``) named ``name``; the
        tags (test value aside, which is computed again) are not copied."""
        copied = _math.tensor_copy(self)
        copied.name = name
        return copied

    def __round__(self): return _math.round(self)
    @property
    def shape(self): return _shape.shape(self)
    @property
    def size(self): return _reduction.prod(_shape.shape(self))

    def eval(self, inputs_to_values: dict | None = None) -> np.ndarray:
        """Compile and run this variable's graph on ``inputs_to_values``."""
        if not _evaluator:
            raise RuntimeError("var.eval() needs the compiler: import symnb (symnb.compile "
                               "installs it)")
        return _evaluator[0](self, inputs_to_values or {})


def _special():
    """symnb.core.tensor.special (imported when first used: it imports this module)."""
    from symnb.core.tensor import special

    return special


class TensorVariable(_TensorOperators, Variable):
    """A symbolic tensor: an input, or an output of an Apply node."""

    __slots__ = ()


class TensorConstant(_TensorOperators, Constant):
    """A tensor with a fixed value (``data``)."""

    __slots__ = ()


_COMPARISONS = (_elemwise.Eq, _elemwise.Neq, _elemwise.Lt, _elemwise.Le, _elemwise.Gt,
                _elemwise.Ge)

# The IR's type makes this package's variables (core/graph/type.py sits below the ops).
TensorType.register_variables(TensorVariable, TensorConstant, typed_input)
