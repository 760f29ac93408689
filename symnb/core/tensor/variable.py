"""Tensor variables: the NumPy-like surface (operators, methods) of graph variables."""

from __future__ import annotations

from types import ModuleType

import numpy as np

from symnb.core.graph import Constant, Variable
from symnb.core.traceback_filter import api_boundaries

__all__ = ["TensorVariable", "TensorConstant"]

# symnb.core.tensor binds itself here once all its modules are imported; the methods
# below call the public functions through it (they import this module, not the reverse).
_T: ModuleType | None = None


@api_boundaries  # errors show the user's line, not these methods: core/traceback_filter.py
class _TensorOperators:
    """Operators and methods shared by every tensor variable, constant and shared one."""

    __slots__ = ()
    __array_priority__ = 1000  # numpy_array + var -> var.__radd__, not an object array

    # arithmetic
    def __add__(self, other): return _T.add(self, other)
    def __radd__(self, other): return _T.add(other, self)
    def __sub__(self, other): return _T.sub(self, other)
    def __rsub__(self, other): return _T.sub(other, self)
    def __mul__(self, other): return _T.mul(self, other)
    def __rmul__(self, other): return _T.mul(other, self)
    def __truediv__(self, other): return _T.true_div(self, other)
    def __rtruediv__(self, other): return _T.true_div(other, self)
    def __floordiv__(self, other): return _T.floor_div(self, other)
    def __rfloordiv__(self, other): return _T.floor_div(other, self)
    def __mod__(self, other): return _T.mod(self, other)
    def __rmod__(self, other): return _T.mod(other, self)
    def __pow__(self, other): return _T.pow(self, other)
    def __rpow__(self, other): return _T.pow(other, self)
    def __matmul__(self, other): return _T.matmul(self, other)
    def __rmatmul__(self, other): return _T.matmul(other, self)
    def __neg__(self): return _T.neg(self)
    def __pos__(self): return self
    def __abs__(self): return _T.abs(self)
    def __invert__(self): return _T.invert(self)

    # comparisons and logic (return real bool tensors)
    def __lt__(self, other): return _T.lt(self, other)
    def __le__(self, other): return _T.le(self, other)
    def __gt__(self, other): return _T.gt(self, other)
    def __ge__(self, other): return _T.ge(self, other)
    def __and__(self, other): return _T.and_(self, other)
    def __rand__(self, other): return _T.and_(other, self)
    def __or__(self, other): return _T.or_(self, other)
    def __ror__(self, other): return _T.or_(other, self)
    def __xor__(self, other): return _T.xor(self, other)
    def __rxor__(self, other): return _T.xor(other, self)

    # Variables are graph nodes: == is identity (as in Theano); use T.eq for values.
    __hash__ = object.__hash__

    def __bool__(self):
        raise TypeError(
            "a symbolic variable has no truth value while the graph is built; "
            "use T.switch or sn.ifelse for a condition, or .test_value to inspect it")

    def __iter__(self):
        raise TypeError("a symbolic tensor cannot be iterated; index it (x[i]) or use sn.scan")

    def __len__(self):
        raise TypeError("len() of a symbolic tensor is unknown while building; use x.shape[0]")

    # indexing
    def __getitem__(self, index): return _T.getitem(self, index)

    # methods
    def sum(self, axis=None, keepdims=False, dtype=None): return _T.sum(self, axis, keepdims=keepdims, dtype=dtype)
    def prod(self, axis=None, keepdims=False, dtype=None): return _T.prod(self, axis, keepdims=keepdims, dtype=dtype)
    def max(self, axis=None, keepdims=False): return _T.max(self, axis, keepdims=keepdims)
    def min(self, axis=None, keepdims=False): return _T.min(self, axis, keepdims=keepdims)
    def mean(self, axis=None, keepdims=False, dtype=None): return _T.mean(self, axis, keepdims=keepdims, dtype=dtype)
    def var(self, axis=None, keepdims=False, ddof=0): return _T.var(self, axis, keepdims=keepdims, ddof=ddof)
    def std(self, axis=None, keepdims=False, ddof=0): return _T.std(self, axis, keepdims=keepdims, ddof=ddof)
    def argmax(self, axis=None, keepdims=False): return _T.argmax(self, axis, keepdims=keepdims)
    def argmin(self, axis=None, keepdims=False): return _T.argmin(self, axis, keepdims=keepdims)
    def any(self, axis=None, keepdims=False): return _T.any(self, axis, keepdims=keepdims)
    def all(self, axis=None, keepdims=False): return _T.all(self, axis, keepdims=keepdims)
    def dot(self, other): return _T.dot(self, other)
    def reshape(self, *shape, ndim=None):
        if len(shape) == 1 and not isinstance(shape[0], int):
            shape = shape[0]
        return _T.reshape(self, shape, ndim=ndim)
    def dimshuffle(self, *pattern):
        if len(pattern) == 1 and isinstance(pattern[0], (list, tuple)):
            pattern = pattern[0]
        return _T.dimshuffle(self, pattern)
    def transpose(self, *axes):
        if len(axes) == 1 and isinstance(axes[0], (list, tuple)):
            axes = axes[0]
        return _T.transpose(self, axes or None)
    @property
    def T(self): return _T.transpose(self)
    def flatten(self, ndim=1): return _T.flatten(self, ndim)
    def squeeze(self, axis=None): return _T.squeeze(self, axis)
    def astype(self, dtype): return _T.cast(self, dtype)
    def nonzero(self, return_matrix=False): return _T.nonzero(self, return_matrix=return_matrix)
    def clip(self, a_min, a_max): return _T.clip(self, a_min, a_max)
    def round(self): return _T.round(self)
    def __round__(self): return _T.round(self)
    @property
    def shape(self): return _T.shape(self)
    @property
    def size(self): return _T.prod(_T.shape(self))

    def eval(self, inputs_to_values: dict | None = None) -> np.ndarray:
        """Compile and run this variable's graph on ``inputs_to_values``."""
        from symnb.lower_xla.function import evaluate

        return evaluate(self, inputs_to_values or {})


class TensorVariable(_TensorOperators, Variable):
    """A symbolic tensor: an input, or an output of an Apply node."""

    __slots__ = ()


class TensorConstant(_TensorOperators, Constant):
    """A tensor with a fixed value (``data``)."""

    __slots__ = ()


def bind_api(module: ModuleType) -> None:
    global _T
    _T = module
