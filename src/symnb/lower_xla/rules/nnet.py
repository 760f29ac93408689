"""softmax / log_softmax -> jax.nn (numerically stable), on inputs cast to NumPy's float dtype."""

from __future__ import annotations

import jax

from symnb.core.tensor import nnet
from symnb.lower_xla.convert import as_dtype
from symnb.lower_xla.registry import lower


@lower.register(nnet.Softmax)
def _softmax(op, node):
    dtype = node.outputs[0].type.dtype
    return lambda x: jax.nn.softmax(as_dtype(x, dtype), axis=op.axis)


@lower.register(nnet.LogSoftmax)
def _log_softmax(op, node):
    dtype = node.outputs[0].type.dtype
    return lambda x: jax.nn.log_softmax(as_dtype(x, dtype), axis=op.axis)
