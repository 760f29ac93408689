"""Theano's ``TensorFromScalar`` and ``ScalarFromTensor``: the ops converting between
Theano's scalar variables and 0-d tensors.

symnb's scalars *are* 0-d tensors, so both ops are views of a 0-d tensor (their value is
the input's, lowered as :class:`~symnb.core.tensor.deep_copy.ViewOp` is); they exist so
that a graph written with them (``T.tensor_from_scalar(s)``, ``ScalarFromTensor()(x)``)
builds and computes what Theano's did. A tensor with axes is refused at build time.
"""

from __future__ import annotations

from typing import Any

from symnb.core.graph.basic import Apply
from symnb.core.graph.errors import build_error, label
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.tensor.deep_copy import ViewOp

__all__ = ["TensorFromScalar", "ScalarFromTensor", "tensor_from_scalar", "scalar_from_tensor"]


class _ScalarView(ViewOp):
    """A view of a 0-d tensor (a scalar, in symnb)."""

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        if x.ndim != 0:
            raise build_error(f"{type(self).__name__} takes a scalar (a 0-d tensor); "
                              f"{label(x)!r} has {x.ndim} dimensions", TypeError)
        return Apply(self, [x], [x.type])


class TensorFromScalar(_ScalarView):
    """``TensorFromScalar()(s)``: the scalar ``s`` as a 0-d tensor of its dtype."""


class ScalarFromTensor(_ScalarView):
    """``ScalarFromTensor()(t)``: the 0-d tensor ``t`` as a scalar of its dtype."""


tensor_from_scalar = TensorFromScalar()
scalar_from_tensor = ScalarFromTensor()
