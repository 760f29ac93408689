"""``Composite``: several elementwise ops fused into one node.

The fusion rewrite replaces a chain of elementwise nodes by one Composite node whose
op holds the chain as a small inner graph over its inputs ``i0, i1, ...`` (one per
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

from symnb.core.errors import label
from symnb.core.graph import Apply, Constant, Variable, format_constant, toposort
from symnb.core.op import Op
from symnb.core.tensor.elemwise import Elemwise

__all__ = ["Composite"]

#: Inner expressions longer than this are abbreviated in the display name.
_NAME_LIMIT = 120

_INFIX = {"Add": "+", "Sub": "-", "Mul": "*", "TrueDiv": "/", "FloorDiv": "//", "Mod": "%",
          "Pow": "**"}
_UPPER = {"Eq", "Neq", "Lt", "Le", "Gt", "Ge"}


class Composite(Op):
    """A fused elementwise computation: ``inner_outputs`` computed from ``inner_inputs``
    by elementwise ops (broadcasting as NumPy does)."""

    __props__ = ("signature",)

    def __init__(self, inner_inputs: Sequence[Variable], inner_outputs: Sequence[Variable],
                 inner_nodes: Sequence[Apply] | None = None) -> None:
        """``inner_nodes``: the nodes from the inputs to the outputs in topological order,
        when the caller knows them (else they are found by a walk)."""
        self.inner_inputs = tuple(inner_inputs)
        self.inner_outputs = tuple(inner_outputs)
        if inner_nodes is None:
            inner_nodes = toposort(self.inner_outputs, self.inner_inputs)
        self.inner_nodes = tuple(inner_nodes)
        for inner in self.inner_nodes:
            if not isinstance(inner.op, Elemwise):
                raise TypeError(f"Composite can only fuse elementwise ops, not {inner.op.display_name()}")
        self.signature = _signature(self.inner_inputs, self.inner_nodes, self.inner_outputs)
        self._hash = hash((Composite, self.signature))
        self._name: str | None = None
        self._graph = None

    def __hash__(self) -> int:
        return self._hash

    @property
    def inner_graphs(self) -> tuple:
        """The fused chain as one inner graph (for walks over whole graphs)."""
        if self._graph is None:
            from symnb.core.scan.inner import InnerGraph  # the module imports tensor ops

            self._graph = InnerGraph(self.inner_inputs, self.inner_outputs, self.inner_nodes)
        return (self._graph,)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Composite) and self._hash == other._hash
                and self.signature == other.signature)

    def display_name(self) -> str:
        if self._name is None:
            self._name = "Composite{" + ", ".join(_expressions(self)) + "}"
        return self._name

    # -- the Op interface ---------------------------------------------------------------
    def make_node(self, *inputs: Variable) -> Apply:
        if len(inputs) != len(self.inner_inputs):
            raise TypeError(f"{self.display_name()} takes {len(self.inner_inputs)} inputs, "
                            f"got {len(inputs)}")
        for i, (outer, inner) in enumerate(zip(inputs, self.inner_inputs)):
            if outer.dtype != inner.dtype or outer.ndim != inner.ndim:
                raise TypeError(f"input {i} of {self.display_name()} ({label(outer)!r}) has type "
                                f"{outer.type.short()}, expected {inner.type.short()}")
        return Apply(self, inputs, [v.type for v in self.inner_outputs])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        env: dict[Variable, Any] = dict(zip(self.inner_inputs, inputs))
        for inner in self.inner_nodes:
            args = [v.data if isinstance(v, Constant) else env[v] for v in inner.inputs]
            env[inner.outputs[0]] = inner.op.perform(inner, args)[0]
        return [env[v] if not isinstance(v, Constant) else v.data for v in self.inner_outputs]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        # Every input reaches the output through broadcasting ops: the output shape is
        # the broadcast of the input shapes, exactly as for one elementwise op.
        return Elemwise.infer_shape(self, node, input_shapes)  # type: ignore[arg-type]

    def L_op(self, inputs, outputs, output_grads):
        raise NotImplementedError("Composite nodes exist only in optimized graphs; take "
                                  "gradients on the graph before compiling it")


def _signature(inputs: tuple[Variable, ...], nodes: tuple[Apply, ...],
               outputs: tuple[Variable, ...]) -> tuple:
    """A hashable description of the inner graph: equal for equal computations."""
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
    texts: dict[Variable, str] = {v: f"i{k}" for k, v in enumerate(op.inner_inputs)}
    for inner in op.inner_nodes:
        args = [format_constant(v.data) if isinstance(v, Constant) else texts[v] for v in inner.inputs]
        text = _format(inner.op, args)
        texts[inner.outputs[0]] = text if len(text) <= _NAME_LIMIT else "..."
    return [format_constant(v.data) if isinstance(v, Constant) else texts[v] for v in op.inner_outputs]


def _format(op: Op, args: list[str]) -> str:
    kind = type(op).__name__
    if kind in _INFIX and len(args) == 2:
        return f"({args[0]} {_INFIX[kind]} {args[1]})"
    if kind == "Neg":
        return f"(-{args[0]})"
    name = kind.upper() if kind in _UPPER else getattr(op, "scalar_name", kind)
    if kind == "Cast":
        name = f"Cast{{{op.dtype}}}"
    return f"{name}({', '.join(args)})"
