"""``Composite``: several elementwise ops fused into one node.

The fusion rewrite replaces a chain of elementwise nodes by one Composite node whose
op holds the chain as an inner graph (``op.graph``, an
:class:`~symnb.core.graph.inner_graph.InnerGraph` as loops and branches hold theirs) over its
inputs ``i0, i1, ...`` (one per
distinct value read from outside the chain; single-element constants stay inline).
The inner nodes are the fused nodes themselves, with their creation sites, and the
inner inputs the variables they read, with their names and sites: an error raised by
an inner op still names the user's line and variables. Its name reads like Theano's:
``Composite{((i0 + i0) + i1)}``.

Only the positions of the inner inputs matter: ``perform`` and the lowering bind the
node's actual inputs to them in order.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from symnb.core.graph.errors import label
from symnb.core.graph.basic import Apply, Constant, Variable, format_constant
from symnb.core.graph.inner_graph import InnerGraph
from symnb.core.graph.op import Op
from symnb.core.tensor.elemwise import Cast, Elemwise

__all__ = ["Composite"]

#: Inner expressions longer than this are abbreviated in the display name.
_NAME_LIMIT = 120

#: Comparisons read as Theano wrote them in fused names: ``GE(i0, 0.0)``.
_UPPER = {"eq", "neq", "lt", "le", "gt", "ge"}


class Composite(Op):
    """A fused elementwise computation: the outputs of ``graph`` computed from its inputs
    by elementwise ops (broadcasting as NumPy does)."""

    __props__ = ("signature",)
    names_inner_graph = True  # Composite{tanh((i0 + i1))}

    def __init__(self, inner_inputs: Sequence[Variable], inner_outputs: Sequence[Variable],
                 inner_nodes: Sequence[Apply] | None = None) -> None:
        """``inner_nodes``: the nodes from the inputs to the outputs in topological order,
        when the caller knows them (else they are found by a walk)."""
        self.graph = InnerGraph(inner_inputs, inner_outputs, inner_nodes)
        for inner in self.graph.nodes:
            if not isinstance(inner.op, Elemwise):
                raise TypeError(f"Composite can only fuse elementwise ops, not {inner.op.display_name()}")
        self.signature = _signature(self.graph)
        self._hash = hash((Composite, self.signature))
        self._name: str | None = None

    def __hash__(self) -> int:
        return self._hash

    @property
    def inner_graphs(self) -> tuple[InnerGraph]:
        return (self.graph,)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Composite) and self._hash == other._hash
                and self.signature == other.signature)

    def display_name(self) -> str:
        if self._name is None:
            self._name = "Composite{" + ", ".join(_expressions(self)) + "}"
        return self._name

    def public_name(self) -> str:
        """``fused``: what a rewrite made of several elementwise ops (views list them)."""
        return "fused"

    # -- the Op interface ---------------------------------------------------------------
    def make_node(self, *inputs: Variable) -> Apply:
        expected = self.graph.inputs
        if len(inputs) != len(expected):
            raise TypeError(f"{self.display_name()} takes {len(expected)} inputs, got {len(inputs)}")
        for i, (outer, inner) in enumerate(zip(inputs, expected)):
            if outer.dtype != inner.dtype or outer.ndim != inner.ndim:
                raise TypeError(f"input {i} of {self.display_name()} ({label(outer)!r}) has type "
                                f"{outer.type.short()}, expected {inner.type.short()}")
        return Apply(self, inputs, [v.type for v in self.graph.outputs])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        # An inner node's error propagates as is: the Composite node reports it.
        return self.graph.run(inputs)

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        # Every input reaches the output through broadcasting ops: the output shape is
        # the broadcast of the input shapes, exactly as for one elementwise op.
        return Elemwise.infer_shape(self, node, input_shapes)  # type: ignore[arg-type]

    def L_op(self, inputs, outputs, output_grads):
        raise NotImplementedError("Composite nodes exist only in optimized graphs; take "
                                  "gradients on the graph before compiling it")


def _signature(graph: InnerGraph) -> tuple:
    """A hashable description of the inner graph: equal for equal computations."""
    inputs, nodes, outputs = graph.inputs, graph.nodes, graph.outputs
    refs: dict[Variable, Any] = {v: i for i, v in enumerate(inputs)}

    def ref(var: Variable) -> Any:
        found = refs.get(var)
        if found is None:  # an inline constant: by value
            found = refs[var] = ("c", var.type, var.data.tobytes())
        return found

    steps = []
    for inner in nodes:
        steps.append((inner.op, tuple(ref(v) for v in inner.inputs), inner.outputs[0].type))
        refs[inner.outputs[0]] = len(steps) + len(inputs) - 1
    return (tuple(v.type for v in inputs), tuple(steps), tuple(ref(v) for v in outputs))


def _expressions(op: Composite) -> list[str]:
    """The inner outputs as expressions over ``i0, i1, ...``, abbreviated past a length."""
    texts: dict[Variable, str] = {v: f"i{k}" for k, v in enumerate(op.graph.inputs)}
    for inner in op.graph.nodes:
        args = [format_constant(v.data) if isinstance(v, Constant) else texts[v] for v in inner.inputs]
        text = _format(inner.op, args)
        texts[inner.outputs[0]] = text if len(text) <= _NAME_LIMIT else "..."
    return [format_constant(v.data) if isinstance(v, Constant) else texts[v] for v in op.graph.outputs]


def _format(op: Elemwise, args: list[str]) -> str:
    """An inner node as text: its row's operator symbol (infix, or prefix for one input)
    as ``pprint`` writes it, else its name in function form."""
    row = op.spec
    if row.symbol is not None:
        return f"({args[0]} {row.symbol} {args[1]})" if len(args) == 2 else f"({row.symbol}{args[0]})"
    name = row.op_name.upper() if row.name in _UPPER else op.scalar_name
    if isinstance(op, Cast):
        name = f"Cast{{{op.dtype}}}"
    return f"{name}({', '.join(args)})"
