"""``DeepCopyOp``: Theano's op that returns a copy of its input (``deep_copy_op(x)``), and
``ViewOp``, Theano's op that returns its input as it is (``view_op(x)``).

Theano put it where a function's output would otherwise alias an input or a shared value;
symnb's compiled functions return fresh arrays on their own, so it appears only where a
graph applies it. Its value is a copy: mutating the result never changes the input.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from symnb.core.graph.basic import Apply
from symnb.core.graph.op import Op
from symnb.core.tensor.basic import as_tensor_variable

__all__ = ["DeepCopyOp", "deep_copy_op", "ViewOp", "view_op"]


class DeepCopyOp(Op):
    """``DeepCopyOp()(x)``: a copy of ``x``, of the same type."""

    __props__ = ()

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        return Apply(self, [x], [x.type])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [np.array(inputs[0], copy=True)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[0]]

    def L_op(self, inputs, outputs, output_grads):
        return [output_grads[0]]


deep_copy_op = DeepCopyOp()


class ViewOp(Op):
    """``ViewOp()(x)``: ``x`` itself, of the same type (Theano's ``compile.view_op``: a
    node standing for a value; PyMC3 makes an observed variable a view of its data). Its
    value is read-only, as the input's: there is no in-place op to mutate it."""

    __props__ = ()

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        return Apply(self, [x], [x.type])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [inputs[0]]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[0]]

    def L_op(self, inputs, outputs, output_grads):
        return [output_grads[0]]


view_op = ViewOp()
