"""The gradient-shaping views (``zero_grad``, ``disconnected_grad``, ``grad_clip``...) are
removed from compiled graphs: their value is their input, and their work was done when the
gradient was built (Theano removed them too; its tests check that none is left)."""

from __future__ import annotations

from symnb.core.graph.basic import Apply
from symnb.core.graph.fgraph import FunctionGraph
from symnb.core.graph.rewriting import node_rewriter
from symnb.core.rewriting.passes import register_rewrite
from symnb.core.tensor.extra_ops import GradClip
from symnb.core.tensor.gradient_views import GradientView

__all__ = ["local_remove_gradient_views"]


@node_rewriter([GradientView, GradClip])
def local_remove_gradient_views(fgraph: FunctionGraph, node: Apply):
    """zero_grad(x), disconnected_grad(x), grad_clip(x, a, b)... -> x."""
    return [node.inputs[0]]


# In both levels that rewrite (fast_compile runs constant folding, fast_run canonicalize).
register_rewrite("canonicalize")(local_remove_gradient_views)
register_rewrite("constant_folding")(local_remove_gradient_views)
