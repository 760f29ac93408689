"""Products: ``dot``, ``matmul`` (``x @ y``), ``tensordot`` and ``outer``, as in NumPy.

``dot`` and ``tensordot`` are both *contractions*: a sum of products over pairs of
axes, the output holding the remaining ("free") axes of ``x`` then those of ``y``
(``np.dot`` contracts the last axis of ``x`` with the second-to-last of ``y``, or
with the only axis of a vector; a 0-d operand contracts nothing). They share one base
class, hence one shape check, one shape inference and one gradient rule. ``matmul``
broadcasts its batch axes, so it is an op of its own. Output dtypes are NumPy's
(``int32 . float32`` is float64, ``bool . bool`` is bool).
"""

from __future__ import annotations

import operator
from functools import lru_cache
from typing import Callable, Sequence

import numpy as np

from symnb.core.graph.errors import build_error, label
from symnb.core.graph.basic import Apply, Variable
from symnb.core.graph.op import Op
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.tensor.elemwise import BroadcastError, broadcast_static_shapes
from symnb.core.graph.type import TensorType, describe_shape

__all__ = ["dot", "matmul", "tensordot", "outer", "Dot", "Matmul", "Tensordot"]

Axes = tuple[tuple[int, ...], tuple[int, ...]]
#: Makes the exception to raise from a message: a build error while building (it shows
#: the user's line), ``ValueError`` when running (the caller shows the node).
Fail = Callable[[str], Exception]
#: How messages name the two operands: their labels while building and computing test
#: values; "input #0"/"input #1" in compiled code, whose error report lists the inputs
#: (a compiled program may be shared by graphs whose variables have other names).
Names = tuple[str, str]


@lru_cache(maxsize=None)
def product_dtype(x_dtype: str, y_dtype: str) -> str:
    """The dtype of ``np.dot`` (and ``np.matmul``, ``np.tensordot``) for these dtypes."""
    return str(np.dot(np.zeros((1, 1), x_dtype), np.zeros((1, 1), y_dtype)).dtype)


def _mismatch(fn_name: str, names: Names, x_shape: Sequence, y_shape: Sequence,
              pairs: Sequence[tuple[int, int]]) -> str | None:
    """The error message when paired axes of the operands have different lengths."""
    x, y = names
    for ax, ay in pairs:
        nx, ny = x_shape[ax], y_shape[ay]
        if nx is not None and ny is not None and nx != ny:
            return (f"{fn_name}: {x} has shape {describe_shape(x_shape)} and {y} has shape "
                    f"{describe_shape(y_shape)}: inner dimensions {nx} and {ny} differ "
                    f"(axis {ax} of {x}, axis {ay} of {y})")
    return None


def _static_check(op: Op, inputs: Sequence[Variable]) -> Fail:
    """``fail`` for a check of static shapes in ``op.make_node``: the message in the layout
    of the node's failure on test values (the same mistake, found sooner)."""
    return lambda message: build_error(message, op=op, inputs=inputs)


def labels(node_or_inputs: Apply | Sequence[Variable]) -> Names:
    """The operands' names for messages."""
    inputs = node_or_inputs.inputs if isinstance(node_or_inputs, Apply) else node_or_inputs
    x, y = inputs
    return label(x), label(y)


def _free_axes(ndim: int, contracted: tuple[int, ...]) -> list[int]:
    return [i for i in range(ndim) if i not in contracted]


def _inverse_permutation(order: list[int]) -> list[int]:
    return [order.index(i) for i in range(len(order))]


def _all_finite(x: np.ndarray, y: np.ndarray) -> bool:
    """Whether both operands are finite (or not floats). BLAS may skip the terms of a
    zero operand (the reference BLAS and OpenBLAS's small kernels do), so that
    ``[[0]] @ [[inf]]`` is 0 there and NaN in IEEE arithmetic, which XLA computes: with a
    non-finite operand the products are computed term by term instead (``np.einsum``)."""
    return all(a.dtype.kind not in "fc" or bool(np.isfinite(a).all()) for a in (x, y))


class Contraction(Op):
    """Base class: ``x`` and ``y`` multiplied and summed over paired axes."""

    fn_name = ""

    def contracted(self, x_ndim: int, y_ndim: int) -> Axes:
        """The contracted axes of ``x`` and of ``y``, pairwise."""
        raise NotImplementedError

    def compute(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def output_shape(self, x_shape: Sequence, y_shape: Sequence) -> tuple:
        ax, ay = self.contracted(len(x_shape), len(y_shape))
        return (tuple(x_shape[i] for i in _free_axes(len(x_shape), ax))
                + tuple(y_shape[i] for i in _free_axes(len(y_shape), ay)))

    def check(self, names: Names, x_shape: Sequence, y_shape: Sequence,
              fail: Fail = ValueError) -> None:
        """Raise ``fail(message)`` when paired axes of these shapes differ."""
        ax, ay = self.contracted(len(x_shape), len(y_shape))
        message = _mismatch(self.fn_name, names, x_shape, y_shape, list(zip(ax, ay)))
        if message is not None:
            raise fail(message)

    def make_node(self, x: Variable, y: Variable) -> Apply:
        x, y = as_tensor_variable(x), as_tensor_variable(y)
        self.check(labels([x, y]), x.type.shape, y.type.shape, _static_check(self, [x, y]))
        out = TensorType(product_dtype(x.dtype, y.dtype), self.output_shape(x.type.shape, y.type.shape))
        return Apply(self, [x, y], [out])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x, y = inputs
        self.check(labels(node), x.shape, y.shape)
        if not _all_finite(x, y):
            return [np.asarray(self.ieee(x, y), dtype=node.outputs[0].type.dtype)]
        return [np.asarray(self.compute(x, y), dtype=node.outputs[0].type.dtype)]

    def ieee(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """The product with every term computed, ``0 * inf`` being NaN (see
        :func:`_all_finite`): ``np.einsum``'s own loop, over the contracted axes."""
        letters = iter("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        sx = [next(letters) for _ in range(x.ndim)]
        sy = [next(letters) for _ in range(y.ndim)]
        for ax, ay in zip(*self.contracted(x.ndim, y.ndim)):
            sy[ay] = sx[ax]
        ax, ay = self.contracted(x.ndim, y.ndim)
        out = [sx[i] for i in _free_axes(x.ndim, ax)] + [sy[i] for i in _free_axes(y.ndim, ay)]
        dtype = np.result_type(x, y)
        return np.einsum(f"{''.join(sx)},{''.join(sy)}->{''.join(out)}", x.astype(dtype),
                         y.astype(dtype), optimize=False)

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [self.output_shape(*input_shapes)]

    def L_op(self, inputs, outputs, output_grads):
        x, y = inputs
        (g,) = output_grads
        ax, ay = self.contracted(x.ndim, y.ndim)
        free_x, free_y = _free_axes(x.ndim, ax), _free_axes(y.ndim, ay)
        nfx = len(free_x)
        # g has the axes free_x + free_y. Contracting it with y over free_y leaves x's free
        # axes, then y's contracted axes in y's order, each standing for its x partner.
        # Integer operands too: Theano's gradient of the continuous extension.
        gx = tensordot(g, y, (list(range(nfx, nfx + len(free_y))), free_y))
        gx = _in_order(gx, free_x + [ax[ay.index(j)] for j in sorted(ay)])
        gy = tensordot(x, g, (free_x, list(range(nfx))))
        gy = _in_order(gy, [ay[ax.index(i)] for i in sorted(ax)] + free_y)
        return [gx, gy]


def _in_order(value: Variable, axes: list[int]) -> Variable:
    """``value``, whose axis k stands for axis ``axes[k]`` of an input, in the input's order."""
    from symnb.core.tensor import shape as sh

    if axes == sorted(axes):
        return value
    return sh.transpose(value, _inverse_permutation(axes))


class Dot(Contraction):
    """``np.dot``: shown as ``dot``, as in Theano."""

    fn_name = "dot"

    def display_name(self) -> str:
        return "dot"

    def contracted(self, x_ndim: int, y_ndim: int) -> Axes:
        if x_ndim == 0 or y_ndim == 0:
            return (), ()
        return (x_ndim - 1,), (0 if y_ndim == 1 else y_ndim - 2,)

    def compute(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.dot(x, y)


class Tensordot(Contraction):
    """``np.tensordot`` with ``axes`` normalized to two tuples of non-negative ints."""

    __props__ = ("axes",)
    fn_name = "tensordot"

    def __init__(self, axes: Axes) -> None:
        self.axes = (tuple(axes[0]), tuple(axes[1]))

    def contracted(self, x_ndim: int, y_ndim: int) -> Axes:
        return self.axes

    def compute(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.tensordot(x, y, axes=self.axes)


def _tensordot_axes(x: Variable, y: Variable, axes: object) -> Axes:
    """NumPy's ``axes`` argument (an int, or a pair of ints or sequences; arrays as Theano
    allows, e.g. ``np.array([[1, 3], [0, 2]])``) as two tuples."""
    if isinstance(axes, np.ndarray):
        axes = axes.tolist()
    if isinstance(axes, (tuple, list)) and len(axes) == 2:
        ax, ay = (tuple(np.asarray(a).tolist()) if isinstance(a, (tuple, list, np.ndarray))
                  else (a,) for a in axes)
    else:
        try:
            n = operator.index(axes)
        except TypeError:
            raise build_error(f"tensordot: axes must be an int or a pair of axis sequences, "
                              f"got {axes!r}", TypeError) from None
        if n < 0 or n > x.ndim or n > y.ndim:
            raise build_error(f"tensordot: axes={n} needs {label(x)} ({x.type.short()}) and "
                             f"{label(y)} ({y.type.short()}) to have at least {n} dimensions")
        ax, ay = tuple(range(x.ndim - n, x.ndim)), tuple(range(n))
    if len(ax) != len(ay):
        raise build_error(f"tensordot: axes {axes!r} pair {len(ax)} axes of {label(x)} with "
                         f"{len(ay)} of {label(y)}; give as many of each")
    return _normalized(ax, x), _normalized(ay, y)


def _normalized(axes: tuple, var: Variable, fn_name: str = "tensordot") -> tuple[int, ...]:
    out = []
    for a in axes:
        a = operator.index(a)
        if not -var.ndim <= a < var.ndim:
            raise build_error(f"{fn_name}: axis {a} is out of bounds for {label(var)}, which has "
                              f"{var.ndim} dimension(s) ({var.type.short()})", np.exceptions.AxisError)
        out.append(a % var.ndim)
    if len(set(out)) != len(out):
        raise build_error(f"{fn_name}: repeated axis in {axes!r} for {label(var)}")
    return tuple(out)


class Matmul(Op):
    """``np.matmul``: batched matrix products with NumPy broadcasting of the batch axes.

    A 1-d ``x`` is a row (a 1 is prepended to its shape, then removed from the result),
    a 1-d ``y`` a column.
    """

    def make_node(self, x: Variable, y: Variable) -> Apply:
        x, y = as_tensor_variable(x), as_tensor_variable(y)
        for var in (x, y):
            if var.ndim == 0:
                raise build_error(f"matmul: {label(var)} is 0-d ({var.type.short()}); matmul needs "
                                 f"at least one dimension (use T.mul or T.dot with a scalar)")
        shape = self.output_shape(labels([x, y]), x.type.shape, y.type.shape, _static_check(self, [x, y]))
        return Apply(self, [x, y], [TensorType(product_dtype(x.dtype, y.dtype), shape)])

    def output_shape(self, names: Names, x_shape: tuple, y_shape: tuple,
                     fail: Fail = ValueError) -> tuple:
        """The result's shape; ``fail(message)`` is raised when the shapes do not fit."""
        xs = x_shape if len(x_shape) > 1 else (1,) + tuple(x_shape)
        ys = y_shape if len(y_shape) > 1 else tuple(y_shape) + (1,)
        message = _mismatch("matmul", names, x_shape, y_shape, [(len(x_shape) - 1, len(ys) - 2)])
        if message is not None:
            raise fail(message)
        try:
            batch = broadcast_static_shapes([xs[:-2], ys[:-2]])
        except BroadcastError:
            raise fail(f"matmul: the batch axes of {names[0]} (shape {describe_shape(x_shape)}) "
                       f"and {names[1]} (shape {describe_shape(y_shape)}) do not broadcast"
                             ) from None
        return (tuple(batch) + (xs[-2],) * (len(x_shape) > 1) + (ys[-1],) * (len(y_shape) > 1))

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x, y = inputs
        self.output_shape(labels(node), x.shape, y.shape)  # raises a clear error on mismatch
        if not _all_finite(x, y):  # every term computed (see _all_finite)
            dtype = np.result_type(x, y)
            result = np.einsum("...ij,...jk->...ik", np.atleast_2d(x).astype(dtype),
                               y.reshape(y.shape + (1,) * (y.ndim == 1)).astype(dtype), optimize=False)
            result = result[..., 0] if y.ndim == 1 else result
            if x.ndim == 1:  # the row axis np.atleast_2d added
                result = result[..., 0, :] if y.ndim > 1 else result[..., 0]
            return [np.asarray(result, dtype=node.outputs[0].type.dtype)]
        return [np.asarray(np.matmul(x, y), dtype=node.outputs[0].type.dtype)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        from symnb.core.tensor.math import maximum

        x_shape, y_shape = input_shapes
        static = node.outputs[0].type.shape
        n_batch = len(static) - (len(x_shape) > 1) - (len(y_shape) > 1)
        xs = tuple(x_shape) if len(x_shape) > 1 else (1,) + tuple(x_shape)
        ys = tuple(y_shape) if len(y_shape) > 1 else tuple(y_shape) + (1,)
        xb = (1,) * (n_batch - len(xs) + 2) + xs[:-2]
        yb = (1,) * (n_batch - len(ys) + 2) + ys[:-2]
        batch = [known if known is not None else _batch_length(a, b, maximum)
                 for known, a, b in zip(static[:n_batch], xb, yb)]
        return [tuple(batch) + (xs[-2],) * (len(x_shape) > 1) + (ys[-1],) * (len(y_shape) > 1)]

    def L_op(self, inputs, outputs, output_grads):
        from symnb.core.tensor import shape as sh
        from symnb.core.tensor.broadcast import sum_to_shape

        x, y = inputs
        (g,) = output_grads
        # Work on >= 2-d operands: a vector x is a (1, k) row, a vector y a (k, 1) column,
        # and g gets the matching length-1 axes back. Batch axes along which an operand
        # was broadcast are summed away (sum_to_shape).
        x2 = sh.dimshuffle(x, ["x", 0]) if x.ndim == 1 else x
        y2 = sh.dimshuffle(y, [0, "x"]) if y.ndim == 1 else y
        g2 = sh.expand_dims(g, -1) if y.ndim == 1 else g
        g2 = sh.expand_dims(g2, -2) if x.ndim == 1 else g2
        # Integer operands too: Theano's gradient of the continuous extension.
        gx = sum_to_shape(matmul(g2, _swap_last(y2)), x2)
        gx = sh.squeeze(gx, 0) if x.ndim == 1 else gx
        gy = sum_to_shape(matmul(_swap_last(x2), g2), y2)
        gy = sh.squeeze(gy, -1) if y.ndim == 1 else gy
        return [gx, gy]


def _batch_length(a: object, b: object, maximum) -> object:
    if isinstance(a, int) and a == 1:
        return b
    if isinstance(b, int) and b == 1:
        return a
    return maximum(a, b)


def _swap_last(x: Variable) -> Variable:
    """``x`` with its last two axes swapped."""
    from symnb.core.tensor import shape as sh

    order = list(range(x.ndim))
    order[-2], order[-1] = order[-1], order[-2]
    return sh.transpose(x, order)


# -- the public functions ------------------------------------------------------------

def dot(x: object, y: object) -> Variable:
    """``np.dot``: inner product of vectors, matrix products, and for N-d operands a sum
    over the last axis of ``x`` and the second-to-last of ``y``; a scalar multiplies."""
    return Dot()(as_tensor_variable(x), as_tensor_variable(y))


def matmul(x: object, y: object) -> Variable:
    """``np.matmul`` (``x @ y``): matrix products, broadcast over leading batch axes."""
    return Matmul()(as_tensor_variable(x), as_tensor_variable(y))


def tensordot(x: object, y: object, axes: object = 2) -> Variable:
    """``np.tensordot``: sum of products over ``axes``.

    ``axes`` is an int ``n`` (the last ``n`` axes of ``x`` with the first ``n`` of ``y``)
    or a pair ``(axes_of_x, axes_of_y)`` of ints or sequences, paired in order.
    """
    x, y = as_tensor_variable(x), as_tensor_variable(y)
    return Tensordot(_tensordot_axes(x, y, axes))(x, y)


def outer(x: object, y: object) -> Variable:
    """``np.outer``: ``x.ravel()[:, None] * y.ravel()[None, :]``."""
    from symnb.core.tensor import math as m
    from symnb.core.tensor import shape as sh

    x, y = as_tensor_variable(x), as_tensor_variable(y)
    column = sh.dimshuffle(x if x.ndim == 1 else sh.flatten(x), [0, "x"])
    row = sh.dimshuffle(y if y.ndim == 1 else sh.flatten(y), ["x", 0])
    return m.mul(column, row)
