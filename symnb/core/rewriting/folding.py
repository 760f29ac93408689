"""Constant folding: a node whose inputs are all constants becomes a constant.

The value is computed by the op's NumPy ``perform`` (the reference implementation),
so a folded graph computes exactly what the unfolded one would. A node whose
``perform`` fails on its constant inputs is left alone: the error then surfaces when
the function runs, naming the user's line. Results larger than ``MAX_FOLDED_BYTES``
are not folded (a large constant is better computed on the device than stored in the
program), nor are ops with effects (``static_evaluable = False``).
"""

from __future__ import annotations

import warnings

import numpy as np

from symnb.core.fgraph import FunctionGraph
from symnb.core.graph import Apply, Constant
from symnb.core.op import Op
from symnb.core.rewriting.basic import node_rewriter
from symnb.core.rewriting.utils import make_constant

__all__ = ["constant_folding", "MAX_FOLDED_BYTES"]

MAX_FOLDED_BYTES = 1 << 20


@node_rewriter([Op])
def constant_folding(fgraph: FunctionGraph, node: Apply):
    """op(constants...) -> the constant it computes."""
    if not node.inputs or not node.op.static_evaluable:
        return None
    if not all(isinstance(inp, Constant) for inp in node.inputs):
        return None
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            values = node.op.perform(node, [inp.data for inp in node.inputs])
    except Exception:  # the graph's own error, reported when the function runs
        return None
    if any(np.asarray(v).nbytes > MAX_FOLDED_BYTES for v in values):
        return None
    return [make_constant(value, out.type.dtype) for value, out in zip(values, node.outputs)]
