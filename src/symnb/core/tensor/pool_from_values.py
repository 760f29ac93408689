"""Pooling whose window, stride and padding are computed in the graph.

Theano's pooling took them as symbolic vectors; Lasagne computes them from the input's
symbolic shape (``SpatialPyramidPoolingLayer``: ``ws = (height + n - 1) // n``). XLA
needs them when compiling, so :class:`PoolFromValues` holds them as int-vector inputs
and, given their values, runs the pooling op of those values (``Pool``, ``MaxPoolGrad``
or ``AveragePoolGrad``): its ``perform`` for the test values, its lowering in the
compiled program, which specializes on the input shapes they come from, as a reshape
to a computed shape does. A window known when the graph is built gives ``Pool`` itself.
"""

from __future__ import annotations

from typing import Any, Sequence

from symnb.core.graph.errors import build_error, label
from symnb.core.graph import Apply, Variable
from symnb.core.graph.op import Op, snake_case
from symnb.core.tensor import math as m
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.tensor.shape import vector_entries
from symnb.core.graph.type import TensorType, is_float

__all__ = ["PoolFromValues"]


class PoolFromValues(Op):
    """The pooling op ``op_class`` (``Pool``, ``MaxPoolGrad`` or ``AveragePoolGrad``, the
    class: this module sits below theirs) of ``x`` over its last ``ndim`` axes, with the
    window ``ws``, ``stride`` and ``pad`` given as int vectors:
    ``PoolFromValues(...)(x, ws, stride, pad[, g])`` (``g``: the output gradient)."""

    __props__ = ("ndim", "ignore_border", "mode", "op_class")

    def __init__(self, ndim: int, ignore_border: bool, mode: str, op_class: type) -> None:
        self.ndim, self.ignore_border, self.mode = int(ndim), bool(ignore_border), mode
        self.op_class = op_class

    def public_name(self) -> str:
        name = snake_case(self.op_class.__name__)
        return f"pool_{self.ndim}d" if name == "pool" else name

    def display_name(self) -> str:
        border = ", ignore_border" if self.ignore_border else ""
        return f"PoolFromValues{{{self.op_class.__name__}, {self.ndim}d, {self.mode}{border}}}"

    @property
    def pools(self) -> bool:
        """Whether this is the pooling itself (not a gradient: the shape of ``x``)."""
        return not self.op_class.is_gradient

    def make_node(self, x: Any, ws: Variable, stride: Variable, pad: Variable, *grad: Any) -> Apply:
        x = as_tensor_variable(x)
        self.op_class.bound(self.ndim, (1,) * self.ndim, (1,) * self.ndim, (0,) * self.ndim,
                            self.ignore_border, self.mode).check_input(x)
        grad = [as_tensor_variable(g) for g in grad]
        if self.pools:
            shape = x.type.shape[:-self.ndim] + (None,) * self.ndim
        else:
            shape = x.type.shape
        return Apply(self, [x, ws, stride, pad, *grad], [TensorType(x.dtype, shape)])

    def concrete(self, node: Apply, ws: Sequence[int], stride: Sequence[int], pad: Sequence[int]
                 ) -> tuple[PoolBase, Apply]:
        """The op of these window values, and its node on ``node``'s tensor inputs."""
        ws, stride, pad = (tuple(int(v) for v in vec) for vec in (ws, stride, pad))
        if min(ws) < 1 or min(stride) < 1 or min(pad) < 0 or any(p >= w for p, w in zip(pad, ws)):
            raise ValueError(f"pool: the window {ws}, stride {stride} and padding {pad} computed for "
                             f"{label(node.inputs[0])!r} must be >= 1, >= 1 and smaller than the "
                             f"window")
        if any(pad) and not self.ignore_border:
            raise ValueError(f"pool: padding works only with ignore_border=True; got pad={pad}")
        op = self.op_class.bound(self.ndim, ws, stride, pad, self.ignore_border, self.mode)
        return op, op.make_node(node.inputs[0], *node.inputs[4:])

    def perform(self, node: Apply, inputs: Sequence[Any]) -> list[Any]:
        x, ws, stride, pad, *grad = inputs
        op, inner = self.concrete(node, ws, stride, pad)
        return op.perform(inner, [x, *grad])

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        shape = input_shapes[0]
        if not self.pools:
            return [tuple(shape)]
        ws, stride, pad = (vector_entries(v, self.ndim) for v in node.inputs[1:4])
        return [tuple(shape[:-self.ndim]) + tuple(
            _symbolic_length(n, w, s, p, self.ignore_border)
            for n, w, s, p in zip(shape[-self.ndim:], ws, stride, pad))]

    def L_op(self, inputs, outputs, output_grads):
        x, ws, stride, pad = inputs[:4]
        if not self.pools:
            raise build_error("the second derivative of pooling with a computed window is not "
                              "supported; give ws, stride and pad as ints", NotImplementedError)
        if not is_float(x.dtype):
            return [None] * 4
        gradient = self.op_class.gradient_class(self.mode)
        grad = PoolFromValues(self.ndim, self.ignore_border, self.mode, gradient)(x, ws, stride, pad,
                                                                                 output_grads[0])
        return [grad, None, None, None]


def _symbolic_length(n: Any, ws: Any, stride: Any, pad: Any, ignore_border: bool) -> Any:
    """``pool_output_length`` for symbolic window values (one expression for both cases
    of ignore_border=False, chosen by ``switch``)."""
    padded = n + 2 * pad
    full = m.maximum((padded - ws) // stride + 1, 0)
    if ignore_border:
        return full
    partial = m.maximum((padded - 1 - ws) // stride + 1, 0) + 1
    return m.switch(m.ge(stride, ws), (padded - 1) // stride + 1, partial)
