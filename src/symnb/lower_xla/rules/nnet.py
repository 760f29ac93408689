"""softmax / log_softmax -> jax.nn (numerically stable), on inputs cast to NumPy's float dtype;
Theano's T.nnet ops (softmax with bias, the cross-entropies with class indices...)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from symnb.core.graph.basic import Constant
from symnb.core.graph.errors import GraphRuntimeError
from symnb.core.tensor import nnet, nnet_ops
from symnb.lower_xla.checks import CheckKind, may_check, register_check_kind, require
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


# -- Theano's T.nnet ops (core/tensor/nnet_ops.py) --------------------------------------------
# A class index out of [0, n_classes) raises ValueError when the function runs, as the
# ops' perform (and Theano's) does; XLA alone would clamp it.

def _class_index_message(node, facts: dict[str, int]) -> str:
    return (f"{node.op.display_name()}: y_i value out of bounds: class index {facts['value']} is "
            f"not in [0, {facts['length']})")


register_check_kind("nnet_class_index", CheckKind(_class_index_message, plain=ValueError,
                                                  error=GraphRuntimeError))


def _check_classes(node, y_idx, n_classes: int) -> None:
    if y_idx.shape[0] == 0:
        return
    xp = np if isinstance(y_idx, np.ndarray) else jnp  # a constant is checked while tracing
    bad = (y_idx < 0) | (y_idx >= n_classes)
    value = y_idx[xp.argmax(bad)]
    require((value >= 0) & (value < n_classes), node, "nnet_class_index", value=value,
            length=n_classes)


@may_check.register(nnet_ops.CrossentropySoftmaxArgmax1HotWithBias)
@may_check.register(nnet_ops.CrossentropySoftmax1HotWithBiasDx)
@may_check.register(nnet_ops.CrossentropyCategorical1Hot)
@may_check.register(nnet_ops.CrossentropyCategorical1HotGrad)
def _may_check_classes(op, node, known: set[int]) -> bool:
    y_idx = node.inputs[-1]
    return not isinstance(y_idx, Constant) and id(y_idx) not in known


@lower.register(nnet_ops.SoftmaxWithBias)
def _softmax_with_bias(op, node):
    return lambda x, b: jax.nn.softmax(x + b, axis=1)


@lower.register(nnet_ops.SoftmaxGrad)
def _softmax_grad(op, node):
    def run(dy, sm):
        dx = dy * sm
        return dx - jnp.sum(dx, axis=1, keepdims=True) * sm
    return run


@lower.register(nnet_ops.CrossentropySoftmaxArgmax1HotWithBias)
def _crossentropy_softmax_argmax(op, node):
    am_dtype = node.outputs[2].type.dtype

    def run(x, b, y_idx):
        _check_classes(node, y_idx, x.shape[1])
        row = x + b
        log_sm = jax.nn.log_softmax(row, axis=1)
        nll = -jnp.take_along_axis(log_sm, y_idx[:, None], axis=1)[:, 0]
        return nll, jnp.exp(log_sm), jnp.argmax(row, axis=1).astype(am_dtype)
    return run


@lower.register(nnet_ops.CrossentropySoftmax1HotWithBiasDx)
def _crossentropy_softmax_dx(op, node):
    def run(dy, sm, y_idx):
        _check_classes(node, y_idx, sm.shape[1])
        dy = jnp.broadcast_to(jnp.reshape(dy, (-1,)), (sm.shape[0],))
        hot = jax.nn.one_hot(y_idx, sm.shape[1], dtype=sm.dtype)
        return dy[:, None] * (sm - hot)
    return run


@lower.register(nnet_ops.CrossentropyCategorical1Hot)
def _crossentropy_categorical(op, node):
    def run(coding, one_of_n):
        _check_classes(node, one_of_n, coding.shape[1])
        return -jnp.log(jnp.take_along_axis(coding, one_of_n[:, None], axis=1)[:, 0])
    return run


@lower.register(nnet_ops.CrossentropyCategorical1HotGrad)
def _crossentropy_categorical_grad(op, node):
    def run(g_y, coding, one_of_n):
        _check_classes(node, one_of_n, coding.shape[1])
        hot = jax.nn.one_hot(one_of_n, coding.shape[1], dtype=coding.dtype)
        picked = jnp.take_along_axis(coding, one_of_n[:, None], axis=1)
        return hot * (-g_y[:, None] / picked)
    return run


@lower.register(nnet_ops.Prepend_scalar_constant_to_each_row)
def _prepend_constant(op, node):
    def run(mat):
        column = jnp.full((mat.shape[0], 1), op.val, dtype=mat.dtype)
        return jnp.concatenate([column, mat], axis=1)
    return run


@lower.register(nnet_ops.Prepend_scalar_to_each_row)
def _prepend_scalar(op, node):
    def run(val, mat):
        column = jnp.full((mat.shape[0], 1), val, dtype=mat.dtype)
        return jnp.concatenate([column, mat], axis=1)
    return run
