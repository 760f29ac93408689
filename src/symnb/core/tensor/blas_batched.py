"""Theano's ``batched_tensordot``: per-example products over a shared first (batch) axis.

``batched_tensordot(x, y, axes)[b] == np.tensordot(x[b], y[b], axes shifted by one)``: one
op, :class:`BatchedTensordot`, a contraction whose operands also share axis 0 (XLA computes
it as one ``dot_general`` with a batch dimension). The result holds the batch axis, then
the free axes of ``x``, then those of ``y``, as Theano's did. ``T.batched_dot`` builds it
for operands of more than 3 dimensions (``symnb.core.tensor.math_extra``).
"""

from __future__ import annotations

import operator
from typing import Any, Sequence

import numpy as np

from symnb.core.graph.basic import Variable
from symnb.core.graph.errors import build_error, label
from symnb.core.graph.type import describe_shape
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.tensor.blas import Axes, Contraction, Fail, Names, _in_order, _normalized

__all__ = ["BatchedTensordot", "batched_tensordot"]


def _free(ndim: int, contracted: Sequence[int]) -> list[int]:
    """The axes of an operand kept in the result, the batch axis (0) aside."""
    return [i for i in range(1, ndim) if i not in contracted]


class BatchedTensordot(Contraction):
    """``np.tensordot(x[b], y[b])`` for each ``b`` along axis 0 of both operands;
    ``axes`` (two tuples of axes, none of them 0) pairs the contracted axes."""

    __props__ = ("axes",)
    fn_name = "batched_tensordot"

    def __init__(self, axes: Axes) -> None:
        self.axes = (tuple(axes[0]), tuple(axes[1]))

    def contracted(self, x_ndim: int, y_ndim: int) -> Axes:
        return self.axes

    def output_shape(self, x_shape: Sequence, y_shape: Sequence) -> tuple:
        ax, ay = self.axes
        batch = x_shape[0] if x_shape[0] is not None else y_shape[0]
        return ((batch,) + tuple(x_shape[i] for i in _free(len(x_shape), ax))
                + tuple(y_shape[i] for i in _free(len(y_shape), ay)))

    def check(self, names: Names, x_shape: Sequence, y_shape: Sequence,
              fail: Fail = ValueError) -> None:
        """Raise ``fail(message)`` when the batch axes or paired axes differ in length."""
        nx, ny = x_shape[0], y_shape[0]
        if nx is not None and ny is not None and nx != ny:
            raise fail(f"batched_tensordot: {names[0]} has shape {describe_shape(x_shape)} and "
                       f"{names[1]} has shape {describe_shape(y_shape)}: their batch axes "
                       f"(axis 0) have lengths {nx} and {ny}")
        super().check(names, x_shape, y_shape, fail)

    def compute(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        # As Theano did: the operands as batches of matrices, multiplied by np.matmul.
        ax, ay = self.axes
        free_x, free_y = _free(x.ndim, ax), _free(y.ndim, ay)
        batch, inner = x.shape[0], int(np.prod([x.shape[i] for i in ax]))
        rows = int(np.prod([x.shape[i] for i in free_x]))
        cols = int(np.prod([y.shape[i] for i in free_y]))
        left = x.transpose([0, *free_x, *ax]).reshape(batch, rows, inner)
        right = y.transpose([0, *ay, *free_y]).reshape(batch, inner, cols)
        shape = (batch, *(x.shape[i] for i in free_x), *(y.shape[i] for i in free_y))
        return np.matmul(left, right).reshape(shape)

    def L_op(self, inputs, outputs, output_grads):
        x, y = inputs
        (g,) = output_grads
        ax, ay = self.axes
        free_x, free_y = _free(x.ndim, ax), _free(y.ndim, ay)
        nfx = len(free_x)
        # g has the axes [batch] + free_x + free_y. Contracting it with y over free_y leaves
        # the batch, x's free axes, then y's contracted axes in y's order, each standing
        # for its partner in x (and symmetrically for y).
        # Integer operands too: Theano's gradient of the continuous extension.
        gx = BatchedTensordot((tuple(range(1 + nfx, 1 + nfx + len(free_y))), tuple(free_y)))(g, y)
        gx = _in_order(gx, [0, *free_x, *(ax[ay.index(j)] for j in sorted(ay))])
        gy = BatchedTensordot((tuple(free_x), tuple(range(1, 1 + nfx))))(x, g)
        gy = _in_order(gy, [0, *(ay[ax.index(i)] for i in sorted(ax)), *free_y])
        return [gx, gy]


def batched_tensordot(x: Any, y: Any, axes: Any = 2) -> Variable:
    """Theano's ``T.batched_tensordot``: ``np.tensordot(x[b], y[b], ...)`` for each ``b``
    along the first (batch) axis, which both operands share and keep.

    ``axes``: an int ``n`` sums over the last ``n`` axes of ``x`` and axes ``1..n`` of
    ``y``; a pair ``[axes_of_x, axes_of_y]`` (ints or sequences) pairs them in order. The
    batch axis 0 is never summed over. The result's axes: the batch, then the free axes of
    ``x``, then those of ``y``.
    """
    x, y = as_tensor_variable(x), as_tensor_variable(y)
    for var in (x, y):
        if var.ndim == 0:
            raise build_error(f"batched_tensordot: {label(var)!r} is a scalar; each operand "
                              f"needs a batch axis", TypeError, inputs=[x, y])
    return BatchedTensordot(_batched_axes(x, y, axes))(x, y)


def _batched_axes(x: Variable, y: Variable, axes: Any) -> Axes:
    """Theano's ``axes`` argument as two tuples of non-negative axes, none the batch axis."""
    if isinstance(axes, np.ndarray):
        axes = axes.tolist()
    if not isinstance(axes, (list, tuple)):
        try:
            n = operator.index(axes)
        except TypeError:
            raise build_error(f"batched_tensordot: axes must be an int or a pair of axis "
                              f"sequences, got {axes!r}", TypeError) from None
        for var in (x, y):
            if not 0 <= n < var.ndim:
                raise build_error(f"batched_tensordot: axes={n} sums over {n} axes of "
                                  f"{label(var)!r} ({var.type.short()}) besides its batch axis; "
                                  f"it has {var.ndim - 1}", ValueError)
        return tuple(range(x.ndim - n, x.ndim)), tuple(range(1, n + 1))
    if len(axes) != 2:
        raise build_error(f"batched_tensordot: axes must be an int or a pair [axes of x, axes "
                          f"of y], got {axes!r}", ValueError)
    ax, ay = (tuple(np.asarray(a).ravel().tolist()) for a in axes)
    if len(ax) != len(ay):
        raise build_error(f"batched_tensordot: axes {axes!r} pair {len(ax)} axes of {label(x)!r} "
                          f"with {len(ay)} of {label(y)!r}; give as many of each", ValueError)
    pair = []
    for given, var in ((ax, x), (ay, y)):
        normalized = _normalized(given, var, "batched_tensordot")
        if 0 in normalized:
            raise build_error(f"batched_tensordot: axes {list(given)} of {label(var)!r} include "
                              f"its batch axis 0, which is never summed over", ValueError)
        pair.append(normalized)
    return pair[0], pair[1]
