"""``softmax`` and ``log_softmax`` along an axis, numerically stable.

Both normalizations subtract the maximum along the axis before exponentiating, so
large inputs do not overflow. Integer and bool inputs are promoted as ``np.exp``
promotes them (int32 -> float64, int8 -> float16). Theano's cross-entropy losses built
on them are in :mod:`symnb.core.tensor.losses`.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Sequence

import numpy as np

from symnb.core.graph.basic import Apply, Variable
from symnb.core.graph.op import Op
from symnb.core.tensor import math as m
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.tensor.reduction import normalize_axes
from symnb.core.tensor.reduction import sum as _sum
from symnb.core.graph.type import TensorType, is_float

__all__ = ["softmax", "log_softmax", "Softmax", "LogSoftmax"]


@lru_cache(maxsize=None)
def _float_dtype(dtype: str) -> str:
    return str(np.exp(np.zeros(0, dtype=dtype)).dtype)


class _Normalize(Op):
    """Base class: an op normalizing ``x`` along ``axis`` (a tuple of non-negative ints)."""

    __props__ = ("axis",)

    def __init__(self, axis: tuple[int, ...]) -> None:
        self.axis = tuple(axis)

    def make_node(self, x: Variable) -> Apply:
        x = as_tensor_variable(x)
        return Apply(self, [x], [TensorType(_float_dtype(x.dtype), x.type.shape)])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        dtype = node.outputs[0].type.dtype
        x = np.asarray(inputs[0], dtype=dtype)
        # ``initial`` makes the max of an empty axis -inf instead of an error.
        shifted = x - np.max(x, axis=self.axis, keepdims=True, initial=-np.inf)
        return [np.asarray(self.normalize(shifted), dtype=dtype)]

    def normalize(self, shifted: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[0]]


class Softmax(_Normalize):
    """``exp(x) / sum(exp(x), axis)``."""

    def log_op(self) -> "LogSoftmax":
        """The op ``log(softmax(x))`` is computed with (its stable form): a LogSoftmax
        over the same axes (Theano's ``T.nnet.Softmax`` gives Theano's ``LogSoftmax``)."""
        return LogSoftmax(self.axis)

    def normalize(self, shifted: np.ndarray) -> np.ndarray:
        e = np.exp(shifted)
        return e / np.sum(e, axis=self.axis, keepdims=True)

    def L_op(self, inputs, outputs, output_grads):
        (y,), (g,) = outputs, output_grads
        if not is_float(inputs[0].dtype):
            return [None]
        # dx = y * (g - sum(g * y))
        return [m.mul(y, m.sub(g, _sum(m.mul(g, y), axis=self.axis, keepdims=True)))]


class LogSoftmax(_Normalize):
    """``x - log(sum(exp(x), axis))``."""

    def normalize(self, shifted: np.ndarray) -> np.ndarray:
        # The sum is >= 1 (the maximum contributes exp(0)) except over an empty axis,
        # where log(0) is harmless: the result is empty.
        with np.errstate(divide="ignore"):
            return shifted - np.log(np.sum(np.exp(shifted), axis=self.axis, keepdims=True))

    def L_op(self, inputs, outputs, output_grads):
        (y,), (g,) = outputs, output_grads
        if not is_float(inputs[0].dtype):
            return [None]
        # dx = g - softmax(x) * sum(g)
        return [m.sub(g, m.mul(m.exp(y), _sum(g, axis=self.axis, keepdims=True)))]


def softmax(x: object, axis: object = -1) -> Variable:
    """``exp(x) / exp(x).sum(axis, keepdims=True)``, computed without overflow.

    ``axis`` is an int, a tuple of ints, or None for all axes.
    """
    x = as_tensor_variable(x)
    return Softmax(normalize_axes(axis, x, "softmax"))(x)


def log_softmax(x: object, axis: object = -1) -> Variable:
    """``log(softmax(x, axis))``, computed without overflow or log(0)."""
    x = as_tensor_variable(x)
    return LogSoftmax(normalize_axes(axis, x, "log_softmax"))(x)
