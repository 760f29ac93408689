"""Tests of symnb.printing, and a tiny two-output op they print."""

from __future__ import annotations

import numpy as np

from symnb.core.graph.basic import Apply
from symnb.core.graph.op import Op
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.graph.type import TensorType


class MinMax(Op):
    """Two outputs: the minimum and the maximum of ``x`` (a multi-output node to print)."""

    def make_node(self, x):
        x = as_tensor_variable(x)
        scalar = TensorType(x.dtype, ())
        return Apply(self, [x], [scalar, scalar])

    def perform(self, node, inputs):
        (x,) = inputs
        dtype = node.outputs[0].type.dtype
        return [np.asarray(x.min(), dtype=dtype), np.asarray(x.max(), dtype=dtype)]
