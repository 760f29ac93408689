"""What a split function (``symnb.compile.split_program``) computes on the host, in
NumPy, between or before its XLA programs: a node's ``perform``, and a short first part
of elementwise operations on the arguments (``NumpyPrelude``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from symnb.core.graph.basic import Apply, Constant, Variable, toposort
from symnb.core.graph.errors import node_error
from symnb.core.tensor.elemwise import Elemwise
from symnb.core.tensor.shape import DimShuffle

__all__ = ["NumpyPrelude", "perform_on_host"]


def perform_on_host(node: Apply, inputs: list[Any]) -> list[np.ndarray]:
    """``node``'s outputs computed by its NumPy ``perform``; its failure names the
    node and the user's line that built it."""
    try:
        outputs = node.op.perform(node, [np.asarray(v) for v in inputs])
    except Exception as error:
        raise node_error(type(error) if isinstance(error, (ValueError, IndexError, TypeError))
                         else RuntimeError, node,
                         f"{type(error).__name__} in {node.op.display_name()} (run on the host, "
                         f"between two compiled programs): {error}",
                         values=inputs) from None
    return [np.asarray(v, dtype=out.dtype) for v, out in zip(outputs, node.outputs)]


class NumpyPrelude:
    """A first part computed in NumPy: a few elementwise operations on the arguments
    (``labels >= 0``, ``x > 0``), where a program would cost a dispatch and two
    transfers for the work of a loop over the array."""

    #: The ops that may run so: elementwise, no draw, no effect.
    OPS = (Elemwise, DimShuffle)
    #: At most this many nodes.
    MAX_NODES = 8

    def __init__(self, arguments: list[Variable], outputs: list[Variable],
                 nodes: list[Apply]) -> None:
        self.arguments, self.outputs, self.nodes = arguments, outputs, nodes

    @classmethod
    def make(cls, arguments: list[Variable], outputs: list[Variable]) -> "NumpyPrelude | None":
        nodes = toposort(outputs, arguments)
        if len(nodes) > cls.MAX_NODES or not all(isinstance(n.op, cls.OPS) for n in nodes):
            return None
        given = {id(v) for v in arguments}
        for node in nodes:
            if any(v.owner is None and id(v) not in given and not isinstance(v, Constant)
                   for v in node.inputs):
                return None  # a shared variable: read by the programs, under their locks
        return cls(arguments, outputs, nodes)

    def __call__(self, *values: Any) -> list[np.ndarray]:
        known = {id(v): np.asarray(a) for v, a in zip(self.arguments, values)}
        for node in self.nodes:
            inputs = [v.data if isinstance(v, Constant) else known[id(v)] for v in node.inputs]
            known.update(zip(map(id, node.outputs), perform_on_host(node, inputs)))
        return [known[id(v)] if id(v) in known else v.data for v in self.outputs]
