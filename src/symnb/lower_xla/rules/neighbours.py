"""images2neibs -> a gather of statically known positions; neibs2images -> the matching
scatter-add (its transpose)."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from symnb.core.tensor import neighbours
from symnb.lower_xla.registry import StaticValueRequired, lower
from symnb.lower_xla.rules.shape import with_input_names


def _gather(op: neighbours.NeibsBase, image_shape: tuple[int, ...]):
    rows, cols, pads = op.source_indices(image_shape)
    width = op.neib_shape[0] * op.neib_shape[1]

    def gather(x):
        padded = jnp.pad(x, ((0, 0), (0, 0)) + pads)
        return padded[:, :, rows[:, None, :, None], cols[None, :, None, :]].reshape(-1, width)

    return gather


@lower.register(neighbours.Images2Neibs)
def _images2neibs(op, node):
    def rule(x):
        # The build-time message when the patches do not fit.
        with_input_names(lambda names: op.matrix_shape(names[0], x.shape), 1)
        return _gather(op, x.shape)(x)

    return rule


@lower.register(neighbours.Neibs2Images)
def _neibs2images(op, node):
    dtype = node.outputs[0].type.dtype

    def rule(neibs, image_shape):
        if not isinstance(image_shape, np.ndarray):
            raise StaticValueRequired("neibs2images: the image shape must be known when the program "
                                      "is compiled", (1,))
        image = tuple(int(n) for n in image_shape)
        matrix = op.matrix_shape("the image", image)
        with_input_names(lambda names: neighbours.check_patches(names[0], neibs.shape, matrix, image), 1)
        rows, cols, pads = op.source_indices(image)
        patches = neibs.astype(dtype).reshape(image[:2] + rows.shape[:1] + cols.shape[:1] + op.neib_shape)
        padded = jnp.zeros(image[:2] + (image[2] + sum(pads[0]), image[3] + sum(pads[1])), dtype)
        padded = padded.at[:, :, rows[:, None, :, None], cols[None, :, None, :]].add(patches)
        return padded[:, :, pads[0][0]:pads[0][0] + image[2], pads[1][0]:pads[1][0] + image[3]]

    return rule
