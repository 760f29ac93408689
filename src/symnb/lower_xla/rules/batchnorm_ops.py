"""Theano's batch-normalization ops (core/tensor/batchnorm_ops.py) -> the same formulas on
jax.numpy (``train_forward``, ``inference_forward``, ``running_averages`` and
``train_gradients`` are written for an array module). Compiling with rewrites replaces
these nodes by elementwise graphs first (core/rewriting/batchnorm.py); these rules run a
graph compiled without them (``optimizer=None``)."""

from __future__ import annotations

import jax.numpy as jnp

from symnb.core.tensor import batchnorm_ops as bn
from symnb.lower_xla.registry import lower


def _axes_checked(op, node):
    op._check_axes(node.inputs[0].ndim)  # known while tracing: an error at compile time
    return op.axes


@lower.register(bn.AbstractBatchNormTrain)
def _train(op, node):
    axes = _axes_checked(op, node)
    dtypes = [o.type.dtype for o in node.outputs]

    def run(x, scale, bias, epsilon, factor, *running):
        epsilon, factor = bn.no_wider(epsilon, x.dtype), bn.no_wider(factor, x.dtype)
        out, mean, invstd, var = bn.train_forward(jnp, x, scale, bias, epsilon, axes)
        results = [out, mean, invstd]
        if running:
            n = float(x.size) / float(scale.size)
            results += bn.running_averages(mean, var, running[0], running[1], factor, n)
        return tuple(r.astype(d) for r, d in zip(results, dtypes))

    return run


@lower.register(bn.AbstractBatchNormInference)
def _inference(op, node):
    dtype = node.outputs[0].type.dtype
    return lambda x, scale, bias, mean, var, epsilon: bn.inference_forward(
        jnp, x, scale, bias, mean, var, bn.no_wider(epsilon, x.dtype)).astype(dtype)


@lower.register(bn.AbstractBatchNormTrainGrad)
def _train_grad(op, node):
    axes = _axes_checked(op, node)
    dtypes = [o.type.dtype for o in node.outputs]

    def run(x, dy, scale, x_mean, x_invstd, epsilon):
        grads = bn.train_gradients(jnp, x, dy, scale, x_mean, x_invstd, axes)
        return tuple(g.astype(d) for g, d in zip(grads, dtypes))

    return run
