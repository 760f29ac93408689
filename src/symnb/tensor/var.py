"""``T.var``: Theano's module of the tensor variable classes (``theano.tensor.var``)."""

from symnb.core.tensor.variable import TensorConstant as TensorConstant, TensorVariable as TensorVariable
from symnb.core.tensor.variable import _TensorOperators as _tensor_py_operators  # Theano's mix-in

__all__ = ["TensorVariable", "TensorConstant"]
