"""Join, Stack and Split -> jax.numpy, inputs cast to NumPy's promoted dtype first."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from symnb.core.tensor.join import Join, Split, Stack, check_split, check_values
from symnb.lower_xla.registry import lower, static_inputs
from symnb.lower_xla.rules.shape import static_argument, with_input_names


@lower.register(Join)
def _join(op, node):
    dtype = node.outputs[0].type.dtype

    def concatenate(*arrays):
        with_input_names(lambda names: check_values(names, arrays, op.axis), len(arrays))
        return jnp.concatenate([jnp.asarray(a, dtype=dtype) for a in arrays], axis=op.axis)

    return concatenate


@lower.register(Stack)
def _stack(op, node):
    dtype = node.outputs[0].type.dtype

    def stack(*arrays):
        with_input_names(lambda names: check_values(names, arrays, None), len(arrays))
        return jnp.stack([jnp.asarray(a, dtype=dtype) for a in arrays], axis=op.axis)

    return stack


@lower.register(Split)
def _split(op, node):
    def split(x, *sizes):
        lengths = [int(static_argument(s, node, 1 + i, "piece length")) for i, s in enumerate(sizes)]
        with_input_names(lambda names: check_split(names[0], tuple(x.shape), lengths, op.axis), 1)
        return tuple(jnp.split(x, np.cumsum(lengths)[:-1].tolist(), axis=op.axis))

    return split


@static_inputs.register(Split)
def _piece_lengths(op, node) -> dict[int, str]:
    return {position: "a piece length" for position in range(1, len(node.inputs))}
