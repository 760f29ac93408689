"""``softmax`` and ``log_softmax`` along an axis, numerically stable, and Theano's
cross-entropy losses.

Both normalizations subtract the maximum along the axis before exponentiating, so
large inputs do not overflow. Integer and bool inputs are promoted as ``np.exp``
promotes them (int32 -> float64, int8 -> float16).

The losses are written as Theano wrote them (``-log(p[arange(n), y])``,
``-(t * log(p) + (1 - t) * log(1 - p))``); on ``softmax``/``sigmoid`` outputs, ``T.log``
builds the stable forms (``log_softmax``, ``softplus``: see
:mod:`symnb.core.tensor.stable_forms`), so their values and gradients stay finite for
any finite logits.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Sequence

import numpy as np

from symnb.core.graph.errors import build_error, label
from symnb.core.graph.basic import Apply, Variable
from symnb.core.graph.op import Op
from symnb.core.tensor import math as m
from symnb.core.tensor.alloc import arange
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.tensor.reduction import normalize_axes
from symnb.core.tensor.reduction import sum as _sum
from symnb.core.tensor.subtensor import getitem
from symnb.core.graph.type import TensorType, is_float, is_integer

__all__ = ["softmax", "log_softmax", "categorical_crossentropy", "binary_crossentropy",
           "Softmax", "LogSoftmax"]


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


def categorical_crossentropy(coding_dist: object, true_dist: object) -> Variable:
    """The cross-entropy between predicted distributions and true ones (Theano's
    ``T.nnet.categorical_crossentropy``), one value per distribution.

    ``coding_dist`` holds one predicted distribution per slice along its last axis
    (typically ``softmax(logits)``). ``true_dist`` is either

    - an integer vector of class indices, one per row of the matrix ``coding_dist``:
      the result is ``-log(coding_dist[arange(n), true_dist])``;
    - or distributions of ``coding_dist``'s shape (one-hot rows, or probabilities):
      the result is ``-sum(true_dist * log(coding_dist), axis=-1)``.

    With ``coding_dist = softmax(x)`` both are computed from ``log_softmax(x)``, so the
    value and the gradient stay finite for any finite logits.
    """
    coding_dist, true_dist = as_tensor_variable(coding_dist), as_tensor_variable(true_dist)
    if true_dist.ndim == coding_dist.ndim:
        return m.neg(_sum(m.mul(true_dist, m.log(coding_dist)), axis=coding_dist.ndim - 1))
    if true_dist.ndim != coding_dist.ndim - 1:
        raise build_error(
            f"categorical_crossentropy: rank mismatch between the coding distribution "
            f"{label(coding_dist)!r} ({coding_dist.type.short()}) and the true distribution "
            f"{label(true_dist)!r} ({true_dist.type.short()}): true_dist must have the same "
            f"number of dimensions, or one fewer (class indices)", TypeError)
    if coding_dist.ndim != 2 or not is_integer(true_dist.dtype):
        raise build_error(
            f"categorical_crossentropy: with class indices, coding_dist must be a matrix and "
            f"true_dist a vector of integers; got {label(coding_dist)!r} "
            f"({coding_dist.type.short()}) and {label(true_dist)!r} ({true_dist.type.short()})",
            TypeError)
    rows = arange(coding_dist.shape[0])
    return m.neg(m.log(getitem(coding_dist, (rows, true_dist))))


def binary_crossentropy(output: object, target: object) -> Variable:
    """The elementwise cross-entropy of binary variables (Theano's
    ``T.nnet.binary_crossentropy``): ``-(target * log(output) + (1 - target) *
    log(1 - output))``, not summed.

    ``output`` holds predicted probabilities, ``target`` the true ones (often exactly 0
    or 1). With ``output = sigmoid(z)`` it is computed as softplus of the logits, so the
    value and the gradient stay finite for any finite ``z``.
    """
    output, target = as_tensor_variable(output), as_tensor_variable(target)
    return m.neg(m.add(m.mul(target, m.log(output)),
                       m.mul(m.sub(1.0, target), m.log(m.sub(1.0, output)))))
