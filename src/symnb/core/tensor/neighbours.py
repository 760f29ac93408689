"""``images2neibs`` and ``neibs2images`` (Theano's ``nnet.neighbours``): image patches as rows.

``images2neibs(x, (r, c), step)`` takes a 4-d ``x`` of shape ``(n, k, rows, cols)`` and
returns a matrix with one row per patch, ``r * c`` long (the patch flattened in
row-major order); the rows go over ``n``, then ``k``, then the patches' grid row by row.
Modes, as in Theano:

- ``'valid'``: the patches must tile the image exactly (``(rows - r) % step == 0``);
- ``'ignore_borders'``: as valid, dropping what the last patch does not reach;
- ``'half'`` / ``'full'``: as valid on the image zero-padded by ``r // 2`` / ``r - 1``
  (and the same for columns) on each side;
- ``'wrap_centered'``: patches centred on every ``step``-th pixel, wrapping around the
  borders (odd patch sizes, images at least as large as a patch).

``neibs2images`` is its transpose: each patch added back where it came from (the
inverse for patches that tile the image, as Theano used it). Both are gathers of
statically known positions; their NumPy ``perform`` methods index with whole arrays.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from symnb.core.graph.errors import build_error, label
from symnb.core.graph.basic import Apply, Variable
from symnb.core.graph.op import Op
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.tensor.conv_shapes import normalize_ints
from symnb.core.tensor.shape import as_shape_vector, shape, static_entries
from symnb.core.graph.type import TensorType, describe_shape, is_float

__all__ = ["Images2Neibs", "Neibs2Images", "images2neibs", "neibs2images", "NEIB_MODES"]

NEIB_MODES = ("valid", "half", "full", "ignore_borders", "wrap_centered")


class NeibsBase(Op):
    """The patch geometry shared by the two ops."""

    __props__ = ("mode", "neib_shape", "neib_step")

    def __init__(self, mode: str, neib_shape: Sequence[int], neib_step: Sequence[int]) -> None:
        self.mode = mode
        self.neib_shape, self.neib_step = tuple(neib_shape), tuple(neib_step)

    def grid_length(self, name: str, axis: int, length: int | None) -> int | None:
        """The number of patches along image ``axis`` (2 or 3); a ValueError when they do not fit."""
        if length is None:
            return None
        size, step = self.neib_shape[axis - 2], self.neib_step[axis - 2]
        if self.mode == "wrap_centered":
            if length < size:
                raise ValueError(f"images2neibs: {name} has {length} positions on axis {axis}, fewer "
                                 f"than the patch's {size} ('wrap_centered' needs at least as many)")
            return -(-length // step)
        reach = {"valid": length - size, "ignore_borders": length - size,
                 "half": length - size % 2, "full": length + size - 2}[self.mode]
        if self.mode == "ignore_borders":
            return max(reach // step + 1, 0)
        if length < size or reach % step:
            raise ValueError(f"images2neibs: in mode {self.mode!r}, patches of {size} every {step} do not "
                             f"tile the {length} positions of {name} on axis {axis}")
        return reach // step + 1

    def matrix_shape(self, name: str, image: Sequence[int | None]) -> tuple[int | None, int]:
        grid = [self.grid_length(name, axis, image[axis]) for axis in (2, 3)]
        lengths = [image[0], image[1]] + grid
        rows = None if None in lengths else int(np.prod(lengths))
        return rows, self.neib_shape[0] * self.neib_shape[1]

    def source_indices(self, image: Sequence[int]) -> tuple[np.ndarray, np.ndarray, tuple]:
        """Row and column indices (each ``(grid, patch)``) into the image padded by the
        returned paddings, for every tap of every patch."""
        indices, pads = [], []
        for axis in (2, 3):
            size, step = self.neib_shape[axis - 2], self.neib_step[axis - 2]
            grid = self.grid_length("the image", axis, image[axis])
            taps = np.arange(grid)[:, None] * step + np.arange(size)[None, :]
            pad = {"half": size // 2, "full": size - 1}.get(self.mode, 0)
            if self.mode == "wrap_centered":
                taps = (taps - size // 2) % image[axis]
            indices.append(taps)
            pads.append((pad, pad))
        return indices[0], indices[1], tuple(pads)

    def gather(self, image: np.ndarray) -> np.ndarray:
        rows, cols, pads = self.source_indices(image.shape)
        padded = np.pad(image, ((0, 0), (0, 0)) + pads)
        patches = padded[:, :, rows[:, None, :, None], cols[None, :, None, :]]  # n, k, gr, gc, r, c
        return patches.reshape(-1, self.neib_shape[0] * self.neib_shape[1])

    def scatter(self, neibs: np.ndarray, image: Sequence[int], dtype: str) -> np.ndarray:
        """The transpose of :meth:`gather`: each patch added back at its positions."""
        rows, cols, pads = self.source_indices(image)
        padded = (image[2] + sum(pads[0]), image[3] + sum(pads[1]))
        flat = (rows[:, None, :, None] * padded[1] + cols[None, :, None, :]).ravel()  # per patch entry
        planes = image[0] * image[1]
        offsets = np.arange(planes)[:, None] * (padded[0] * padded[1])
        index = (offsets + flat[None, :]).ravel()
        total = np.bincount(index, weights=neibs.reshape(-1), minlength=planes * padded[0] * padded[1])
        total = total.reshape(tuple(image[:2]) + padded)
        crop = total[:, :, pads[0][0]:pads[0][0] + image[2], pads[1][0]:pads[1][0] + image[3]]
        return np.ascontiguousarray(crop, dtype=dtype)


class Images2Neibs(NeibsBase):
    """The patches of a 4-d tensor as the rows of a matrix."""

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        if x.ndim != 4:
            raise build_error(f"images2neibs: {label(x)!r} must be 4-d (n, k, rows, cols); got "
                              f"{x.type.short()}", TypeError)
        try:
            out = self.matrix_shape(repr(label(x)), x.type.shape)
        except ValueError as err:
            raise build_error(str(err)) from None
        return Apply(self, [x], [TensorType(x.dtype, out)])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        (x,) = inputs
        self.matrix_shape(repr(label(node.inputs[0])), x.shape)  # a clear error if they do not fit
        return [np.ascontiguousarray(self.gather(x))]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        static = node.outputs[0].type.shape
        if static[0] is not None:
            return [static]
        from symnb.core.tensor import math as m

        n, k, rows, cols = input_shapes[0]
        grid = []
        for length, size, step in zip((rows, cols), self.neib_shape, self.neib_step):
            reach = {"valid": length - size, "ignore_borders": length - size,
                     "half": length - size % 2, "full": length + size - 2}.get(self.mode)
            grid.append(-((-length) // step) if reach is None else m.maximum(reach // step + 1, 0))
        return [(n * k * grid[0] * grid[1], static[1])]

    def L_op(self, inputs, outputs, output_grads):
        (x,), (g,) = inputs, output_grads
        if not is_float(x.dtype):
            return [None]
        return [Neibs2Images(*self._props())(g, shape(x))]


class Neibs2Images(NeibsBase):
    """The transpose of :class:`Images2Neibs`: patches (rows) added back into an image of
    the given 4-d shape."""

    def make_node(self, neibs: Any, image_shape: Any) -> Apply:
        neibs = as_tensor_variable(neibs)
        if neibs.ndim != 2:
            raise build_error(f"neibs2images: {label(neibs)!r} must be a matrix of patches; got "
                              f"{neibs.type.short()}", TypeError)
        image_shape = as_shape_vector(image_shape, 4, "original_shape")
        image = tuple(static_entries(image_shape))
        try:
            expected = self.matrix_shape("the image", image)
        except ValueError as err:
            raise build_error(str(err)) from None
        check_patches(repr(label(neibs)), neibs.type.shape, expected, image, build_error)
        return Apply(self, [neibs, image_shape], [TensorType(neibs.dtype, image)])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        neibs, image = inputs[0], tuple(int(n) for n in inputs[1])
        check_patches(repr(label(node.inputs[0])), neibs.shape, self.matrix_shape("the image", image), image)
        return [self.scatter(neibs, image, node.outputs[0].type.dtype)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        from symnb.core.tensor.shape import vector_entries

        return [tuple(vector_entries(node.inputs[1], 4))]

    def L_op(self, inputs, outputs, output_grads):
        (g,) = output_grads
        return [Images2Neibs(*self._props())(g), None]


def check_patches(name: str, actual: Sequence, expected: Sequence, image: Sequence, fail=ValueError) -> None:
    for axis, (got, want) in enumerate(zip(actual, expected)):
        if got is not None and want is not None and got != want:
            raise fail(f"neibs2images: {name} has shape {describe_shape(actual)}, but an image of "
                       f"shape {describe_shape(image)} has {describe_shape(expected)} patches "
                       f"(axis {axis} differs)")


def _geometry(neib_shape: Any, neib_step: Any, mode: str) -> tuple:
    if mode not in NEIB_MODES:
        raise build_error(f"images2neibs: mode must be one of {', '.join(map(repr, NEIB_MODES))}; "
                          f"got {mode!r}", ValueError)
    fail = lambda message: build_error(f"images2neibs: {message}")  # noqa: E731
    neib_shape = normalize_ints(_constant_list(neib_shape), 2, "neib_shape", fail)
    if neib_step is None:
        neib_step = neib_shape
    else:
        neib_step = normalize_ints(_constant_list(neib_step), 2, "neib_step", fail)
    if mode == "wrap_centered" and (neib_shape[0] % 2 == 0 or neib_shape[1] % 2 == 0):
        raise build_error(f"images2neibs: mode 'wrap_centered' needs odd patch sizes; got {neib_shape}")
    return neib_shape, neib_step


def _constant_list(value: Any) -> Any:
    if isinstance(value, Variable):
        entries = static_entries(value)
        if None in entries:
            raise build_error("images2neibs: neib_shape and neib_step must be known when the graph "
                              "is built (ints or constants)", TypeError)
        return entries
    return list(value) if isinstance(value, (tuple, np.ndarray)) else value


def images2neibs(ten4: Any, neib_shape: Any, neib_step: Any = None, mode: str = "valid") -> Variable:
    """The ``neib_shape`` patches of the images of ``ten4`` (4-d), one per row, taken every
    ``neib_step`` (default: ``neib_shape``, disjoint patches); see the module's modes."""
    neib_shape, neib_step = _geometry(neib_shape, neib_step, mode)
    return Images2Neibs(mode, neib_shape, neib_step)(as_tensor_variable(ten4))


def neibs2images(neibs: Any, neib_shape: Any, original_shape: Any, mode: str = "valid") -> Variable:
    """The images of shape ``original_shape`` rebuilt from their disjoint ``neib_shape``
    patches (the rows of ``neibs``), as Theano's ``neibs2images``: zeros where
    ``'ignore_borders'`` dropped the border."""
    if mode not in ("valid", "ignore_borders"):
        raise build_error(f"neibs2images: mode must be 'valid' or 'ignore_borders'; got {mode!r}", ValueError)
    neib_shape, neib_step = _geometry(neib_shape, None, mode)
    return Neibs2Images(mode, neib_shape, neib_step)(as_tensor_variable(neibs), original_shape)
