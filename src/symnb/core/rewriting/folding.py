"""Constant folding: a node whose inputs are all constants becomes a constant.

The value is computed by the op's NumPy ``perform`` (the reference implementation),
so a folded graph computes exactly what the unfolded one would. Whether a node may be
folded is decided with every other "computed ahead of the program" question in
:mod:`symnb.core.graph.static` (:func:`~symnb.core.graph.static.fold`): not ops with effects or
costly ones, not results larger than ``MAX_FOLDED_BYTES``, and not a node whose
``perform`` fails on its constant inputs (the error then surfaces when the function
runs, naming the user's line).
"""

from __future__ import annotations

from symnb.core.graph.fgraph import FunctionGraph
from symnb.core.graph.basic import Apply
from symnb.core.graph.op import Op
from symnb.core.graph.rewriting import node_rewriter
from symnb.core.rewriting.utils import make_constant
from symnb.core.graph.static import fold

__all__ = ["constant_folding"]


@node_rewriter([Op])
def constant_folding(fgraph: FunctionGraph, node: Apply):
    """op(constants...) -> the constant it computes."""
    values = fold(node)
    if values is None:
        return None
    return [make_constant(value, out.type.dtype) for value, out in zip(values, node.outputs)]
