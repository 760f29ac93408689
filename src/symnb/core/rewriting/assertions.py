"""Asserts whose conditions are known to hold when compiling are removed.

A condition that is a constant (directly, or after constant folding, e.g.
``T.eq(x.ndim, y.ndim)``) and all true needs no check at run time: dropping it keeps
the program free of checks (and so able to donate shared buffers). A constant
condition that is false is kept: the function then raises, naming the assert's line.
"""

from __future__ import annotations

import numpy as np

from symnb.core.graph.fgraph import FunctionGraph
from symnb.core.graph.basic import Apply, Constant
from symnb.core.graph.rewriting import node_rewriter
from symnb.core.rewriting.passes import register_rewrite
from symnb.core.tensor.assertion import Assert

__all__ = ["local_remove_true_asserts"]


def _known_true(condition) -> bool:
    return isinstance(condition, Constant) and bool(np.all(condition.data))


@node_rewriter([Assert])
def local_remove_true_asserts(fgraph: FunctionGraph, node: Apply):
    """Assert(x, true constants..., c) -> Assert(x, c); with no condition left -> x."""
    x, *conditions = node.inputs
    remaining = [c for c in conditions if not _known_true(c)]
    if len(remaining) == len(conditions):
        return None
    if not remaining:
        return [x]
    return [node.op.make_node(x, *remaining).outputs[0]]


# In both levels that rewrite: after constant folding has made conditions constant.
register_rewrite("canonicalize")(local_remove_true_asserts)
register_rewrite("constant_folding")(local_remove_true_asserts)
