"""Theano's ``theano.compile.ops`` names: ``as_op`` (a NumPy function as an op) and its
op class. The op lives with the op library (``symnb.core.tensor.from_function``)."""

from symnb.core.tensor.from_function import FromFunctionOp as FromFunctionOp
from symnb.core.tensor.from_function import as_op as as_op

__all__ = ["as_op", "FromFunctionOp"]
