"""Theano's ``theano.compile.ops`` names: ``as_op`` (a NumPy function as an op) and its
op class, ``DeepCopyOp`` and ``ViewOp``. The ops live with the op library (``symnb.core.tensor``)."""

from symnb.core.tensor.deep_copy import DeepCopyOp as DeepCopyOp
from symnb.core.tensor.deep_copy import deep_copy_op as deep_copy_op
from symnb.core.tensor.deep_copy import ViewOp as ViewOp, view_op as view_op
from symnb.core.tensor.from_function import FromFunctionOp as FromFunctionOp
from symnb.core.tensor.from_function import as_op as as_op

__all__ = ["as_op", "FromFunctionOp", "DeepCopyOp", "deep_copy_op", "ViewOp", "view_op"]
