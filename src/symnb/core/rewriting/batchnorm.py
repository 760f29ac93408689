"""Theano's batch-normalization ops become elementwise graphs when compiled (Theano's
``local_abstract_batch_norm_train``, ``_train_grad`` and ``_inference``).

Each node is replaced by the graph of the formulas its ``perform`` computes
(core/tensor/batchnorm_ops.py, written once for NumPy, jax.numpy and symnb's tensor
functions), so the other rewrites can merge, simplify and fuse it with its neighbours.
The gradient was built on the abstract nodes before (``sn.grad`` runs first), so what
``consider_constant`` blocked stays blocked. Theano ran these rewrites at both of its
optimizer levels; so do these (``canonicalize`` and ``constant_folding``), and its tests
check that no abstract node is left.
"""

from __future__ import annotations

from symnb.core.graph.basic import Apply
from symnb.core.graph.fgraph import FunctionGraph
from symnb.core.graph.rewriting import node_rewriter
from symnb.core.rewriting.passes import register_rewrite
from symnb.core.tensor import batchnorm_ops as bn
from symnb.core.tensor import math as m
from symnb.core.tensor.shape import shape_i

__all__ = ["local_abstract_batch_norm_train", "local_abstract_batch_norm_train_grad",
           "local_abstract_batch_norm_inference"]


def _valid_axes(node: Apply) -> bool:
    """False where the axes do not fit the input: the node is left for its rule, which
    raises Theano's error."""
    return max(node.op.axes) < node.inputs[0].ndim


@node_rewriter([bn.AbstractBatchNormTrain])
def local_abstract_batch_norm_train(fgraph: FunctionGraph, node: Apply):
    """AbstractBatchNormTrain -> mean, var, the normalization (and the running averages)."""
    if not _valid_axes(node):
        return None
    x, scale, bias, epsilon, factor = node.inputs[:5]
    axes = node.op.axes
    out, mean, invstd, var = bn.train_forward(bn.GRAPH, x, scale, bias, bn.no_wider(epsilon, x.dtype), axes)
    results = [out, mean, invstd]
    if len(node.inputs) > 5:
        count = shape_i(x, axes[0])
        for axis in axes[1:]:
            count = m.mul(count, shape_i(x, axis))
        results += bn.running_averages(mean, var, *node.inputs[5:7], bn.no_wider(factor, x.dtype),
                                       m.cast(count, x.dtype))
    return results


@node_rewriter([bn.AbstractBatchNormTrainGrad])
def local_abstract_batch_norm_train_grad(fgraph: FunctionGraph, node: Apply):
    """AbstractBatchNormTrainGrad -> the gradients' elementwise graph."""
    if not _valid_axes(node):
        return None
    x, dy, scale, x_mean, x_invstd, _ = node.inputs
    return list(bn.train_gradients(bn.GRAPH, x, dy, scale, x_mean, x_invstd, node.op.axes))


@node_rewriter([bn.AbstractBatchNormInference])
def local_abstract_batch_norm_inference(fgraph: FunctionGraph, node: Apply):
    """AbstractBatchNormInference -> ``(x - mean) * (scale / sqrt(var + epsilon)) + bias``."""
    x, scale, bias, mean, var, epsilon = node.inputs
    return [bn.inference_forward(bn.GRAPH, x, scale, bias, mean, var, bn.no_wider(epsilon, x.dtype))]


# In both levels that rewrite (fast_compile runs constant folding, fast_run canonicalize).
for _rewrite in (local_abstract_batch_norm_train, local_abstract_batch_norm_train_grad,
                 local_abstract_batch_norm_inference):
    register_rewrite("canonicalize")(_rewrite)
    register_rewrite("constant_folding")(_rewrite)
