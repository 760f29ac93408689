"""Products -> jnp.dot / jnp.matmul / jnp.tensordot / jax.lax.dot_general (batched).

Operands are cast to NumPy's result dtype first (JAX promotes ``int32 . float32`` to
float32, NumPy to float64), and float products ask for ``Precision.HIGHEST`` so that
float32 results match NumPy's to ~1e-6 on accelerators, where the default precision
may round operands to bfloat16/TF32. On CPU it costs nothing: XLA computes float32
products in full precision either way (measured with jax 0.10.2 on a 256x784 @ 784x512
float32 product: bit-identical results, 1.04 ms with and without). Shape mismatches
raise the same message as at build time.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from symnb.core.tensor import blas
from symnb.core.tensor.blas_batched import BatchedTensordot
from symnb.lower_xla.convert import as_dtype
from symnb.lower_xla.registry import lower
from symnb.lower_xla.rules.shape import with_input_names


def _precision(node):
    kind = np.dtype(node.outputs[0].type.dtype).kind
    return jax.lax.Precision.HIGHEST if kind in "fc" else None


def _contraction(op, node, product):
    dtype = node.outputs[0].type.dtype
    precision = _precision(node)

    def contract(x, y):
        # The build-time message, with real shapes (and, in the report, the inputs' names).
        with_input_names(lambda names: op.check((names[0], names[1]), x.shape, y.shape), 2, quoted=False)
        return product(as_dtype(x, dtype), as_dtype(y, dtype), precision=precision)

    return contract


@lower.register(blas.Dot)
def _dot(op, node):
    return _contraction(op, node, jnp.dot)


@lower.register(blas.Tensordot)
def _tensordot(op, node):
    return _contraction(op, node, lambda x, y, precision: jnp.tensordot(
        x, y, axes=op.axes, precision=precision))


@lower.register(BatchedTensordot)
def _batched_tensordot(op, node):
    # One dot_general with axis 0 as its batch dimension: its result holds the batch, then
    # the free axes of x, then those of y, the op's order.
    dimensions = (op.axes, ((0,), (0,)))
    return _contraction(op, node, lambda x, y, precision: jax.lax.dot_general(
        x, y, dimensions, precision=precision))


@lower.register(blas.Matmul)
def _matmul(op, node):
    dtype = node.outputs[0].type.dtype
    precision = _precision(node)

    def matmul(x, y):
        with_input_names(lambda names: op.output_shape((names[0], names[1]), x.shape, y.shape), 2,
                         quoted=False)
        return jnp.matmul(as_dtype(x, dtype), as_dtype(y, dtype), precision=precision)

    return matmul
