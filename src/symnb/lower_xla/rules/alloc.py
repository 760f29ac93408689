"""Array creation -> jax.numpy.

These ops are not run at trace time by the interpreter (they are ``costly_to_fold``):
their lengths must be static, and a result small enough to embed
(``symnb.core.graph.static.small_enough_to_inline``) is returned as a NumPy value (so it stays
static, e.g. an ``arange`` used to build a shape) while a large one is built on the
device instead of being baked into the program as a constant.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from symnb.core.graph.static import small_enough_to_inline
from symnb.core.tensor.alloc import Alloc, Arange, Eye, Tri, alloc_problem, arange_length
from symnb.lower_xla.registry import lower, static_inputs
from symnb.lower_xla.rules.shape import refuse, static_argument, with_input_names

@lower.register(Alloc)
def _alloc(op, node):
    dtype = node.outputs[0].type.dtype

    def alloc(value, shape):
        target = tuple(int(n) for n in static_argument(shape, node, 1, "shape"))
        with_input_names(lambda names: refuse(alloc_problem(names[0], tuple(value.shape), target)), 1)
        if isinstance(value, np.ndarray) and small_enough_to_inline(target):
            return op.perform(node, [value, shape])[0]
        return jnp.broadcast_to(jnp.asarray(value, dtype=dtype), target)

    return alloc


@static_inputs.register(Alloc)
def _alloc_shape(op, node) -> dict[int, str]:
    return {1: "a shape"}


@lower.register(Arange)
def _arange(op, node):
    def arange(start, stop, step):
        bounds = [static_argument(v, node, i, "range bound")[()]
                  for i, v in enumerate((start, stop, step))]
        if small_enough_to_inline((arange_length(*bounds),)):
            return op.perform(node, [np.asarray(b) for b in bounds])[0]
        return jnp.arange(*bounds, dtype=op.dtype)

    return arange


@static_inputs.register(Arange)
def _arange_bounds(op, node) -> dict[int, str]:
    return {0: "a range bound", 1: "a range bound", 2: "a range bound"}


@lower.register(Eye)
@lower.register(Tri)
def _diagonals(op, node):
    # k may be a value of the program: ones where column - row == k (eye), <= k (tri).
    keep = jnp.equal if isinstance(op, Eye) else jnp.less_equal

    def diagonals(n, m, k):
        rows, cols = (int(static_argument(v, node, i, "size")) for i, v in enumerate((n, m)))
        if isinstance(k, np.ndarray) and small_enough_to_inline((rows, cols)):
            return op.perform(node, [np.asarray(rows), np.asarray(cols), k])[0]
        above = jnp.arange(cols)[None, :] - jnp.arange(rows)[:, None]
        return keep(above, k).astype(op.dtype)

    return diagonals


@static_inputs.register(Eye)
@static_inputs.register(Tri)
def _diagonals_size(op, node) -> dict[int, str]:
    return {0: "a size", 1: "a size"}
