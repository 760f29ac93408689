"""MRG31k3p draws (``mrg_uniform``) and ``DotModulo`` -> XLA.

``mrg_uniform``: a loop of ``ceil(n / nstreams)`` steps, each advancing every stream
once (``mrg.next_states``, the arithmetic ``perform`` runs); value ``i`` is stream
``i % nstreams``'s, and in the last step only the streams that give a value advance, as
in Theano. The size must be static (constants or computed from input shapes).
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import lax

from symnb.core.tensor.random.mrg import DotModulo, check_draw_size, mrg_uniform, next_states, to_unit
from symnb.lower_xla.registry import lower, static_inputs
from symnb.lower_xla.rules.shape import static_argument


@static_inputs.register(mrg_uniform)
def _mrg_size(op, node) -> dict[int, str]:
    return {1: "a size"}


@lower.register(mrg_uniform)
def _mrg_uniform(op, node):
    dtype = op.output_type.dtype

    def sample(rstate, size):
        shape = tuple(int(n) for n in static_argument(size, node, 1, "size"))
        n = check_draw_size(shape)
        streams = rstate.shape[0]
        steps = -(-n // streams)
        lanes = jnp.arange(streams)

        def step(state, k):
            new, value = next_states(jnp, state)
            active = k * streams + lanes < n
            return jnp.where(active[:, None], new, state), value

        state, values = lax.scan(step, rstate.astype(jnp.int32), jnp.arange(steps))
        out = to_unit(jnp, values.reshape(-1)[:n], dtype).reshape(shape)
        return state, out

    return sample


@lower.register(DotModulo)
def _dot_modulo(op, node):
    out_dtype = node.outputs[0].dtype

    def dot_modulo(A, s, m, A2, s2, m2):
        def mat_vec_mod(A, s, m):  # mrg.matVecModM, in int64
            A, s, m = (jnp.asarray(v).astype(jnp.int64) for v in (A, s, m))
            return jnp.sum((A * s) % m, axis=1) % m

        return jnp.concatenate((mat_vec_mod(A, s, m), mat_vec_mod(A2, s2, m2))).astype(out_dtype)

    return dot_modulo
