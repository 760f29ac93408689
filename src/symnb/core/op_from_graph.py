"""``OpFromGraph``: a graph used as one op (Theano's ``theano.compile.builders.OpFromGraph``).

``op = OpFromGraph([x, y], [x * y + 1])`` makes an op; ``op(a, b)`` a node computing the
graph on ``a`` and ``b``. The op holds a copy of the graph over inputs of its own (an
:class:`~symnb.core.graph.inner_graph.InnerGraph`), closed over what else it reads
(shared variables, as Theano's: extra inputs of each node). Its NumPy ``perform`` runs
that graph; its XLA lowering inlines it into the program (rules/op_from_graph.py), where
XLA fuses it with its neighbours, whatever ``inline`` says. Its gradient differentiates
the inner graph (``known_grads`` from the output gradients) unless ``grad_overrides``
says otherwise, as in Theano: a callable ``(inputs, output_grads) -> input grads``, or
one entry per input (``'default'``, a callable as above whose entry is used, or a
``NullType``/``DisconnectedType`` variable).

Compared by identity, as Theano's: two ``OpFromGraph`` of the same graph are two ops.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from symnb.core.graph.basic import Apply, Constant, Variable, clone_replace
from symnb.core.graph.errors import build_error, label
from symnb.core.graph.inner_graph import InnerGraph, close_over, infer_inner_shapes, placeholder_like
from symnb.core.graph.op import Op
from symnb.core.graph.type import is_float
from symnb.core.gradient_types import is_disconnected, is_null
from symnb.core.tensor.basic import as_tensor_variable

__all__ = ["OpFromGraph"]


class OpFromGraph(Op):
    """The graph from ``inputs`` to ``outputs`` as an op (Theano's signature; ``inline``,
    ``rop_overrides`` and ``connection_pattern`` are accepted: the lowering always
    inlines, the R-operator and connections are the inner graph's)."""

    def __init__(self, inputs: Sequence[Variable], outputs: Sequence[Variable] | Variable,
                 inline: bool = False, grad_overrides: Any = "default",
                 rop_overrides: Any = "default", connection_pattern: Any = None,
                 name: str | None = None, **kwargs: Any) -> None:
        if kwargs:  # Theano passed them on to function(): symnb compiles the outer graph only
            raise build_error(f"OpFromGraph: unknown arguments {sorted(kwargs)} (the inner graph "
                              f"is inlined into the function using it: give them to that "
                              f"function)", TypeError)
        outputs = [outputs] if isinstance(outputs, Variable) else list(outputs)
        for what, group in (("inputs", inputs), ("outputs", outputs)):
            for var in group:
                if not isinstance(var, Variable):
                    raise build_error(f"OpFromGraph: {what} must be symbolic variables, got "
                                      f"{type(var).__name__}", TypeError)
        for var in inputs:
            if isinstance(var, Constant):
                raise build_error(f"OpFromGraph: input {label(var)!r} is a constant; constants "
                                  f"cannot be inputs", TypeError)
        self.inline, self.name = bool(inline), name
        self.grad_overrides, self.rop_overrides = grad_overrides, rop_overrides
        self.connection_pattern = connection_pattern
        own = [placeholder_like(v) for v in inputs]
        own_outputs = clone_replace(outputs, dict(zip(inputs, own)))
        # What the graph reads besides its inputs (shared variables): extra node inputs.
        self.implicit, placeholders, own_outputs = close_over(own, own_outputs)
        self.n_inputs = len(own)
        self.graph = InnerGraph(own + placeholders, own_outputs)

    # -- identity ------------------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        return self is other

    def __hash__(self) -> int:
        return id(self)

    def display_name(self) -> str:
        return self.name or "OpFromGraph"

    @property
    def inner_graphs(self) -> tuple[InnerGraph]:
        return (self.graph,)

    # -- the Op interface ----------------------------------------------------------------
    def make_node(self, *inputs: Any) -> Apply:
        if len(inputs) != self.n_inputs:
            raise build_error(f"{self.display_name()} takes {self.n_inputs} inputs, got "
                              f"{len(inputs)}", TypeError)
        inputs = [as_tensor_variable(v) for v in inputs]
        for i, (outer, inner) in enumerate(zip(inputs, self.graph.inputs)):
            if outer.dtype != inner.dtype or outer.ndim != inner.ndim or any(
                    a is not None and b is not None and a != b
                    for a, b in zip(outer.type.shape, inner.type.shape)):
                raise build_error(f"input {i} of {self.display_name()} ({label(outer)!r}) has type "
                                  f"{outer.type.short()}, expected {inner.type.short()}", TypeError)
        return Apply(self, inputs + list(self.implicit), [v.type for v in self.graph.outputs])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return self.graph.run(inputs, where=f"{self.display_name()}")

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return infer_inner_shapes(self.graph, input_shapes, self.display_name())

    def L_op(self, inputs, outputs, output_grads):
        overrides = self.grad_overrides
        if callable(overrides):
            grads = list(overrides(list(inputs[:self.n_inputs]), list(output_grads)))
            return grads + [None] * len(self.implicit)
        default = self._inner_grads(inputs, output_grads)
        if isinstance(overrides, str):  # 'default'
            return default
        if len(overrides) != self.n_inputs:
            raise build_error(f"{self.display_name()}: grad_overrides has {len(overrides)} entries "
                              f"for {self.n_inputs} inputs", ValueError)
        grads = []
        for entry, grad in zip(overrides, default):
            if isinstance(entry, str) and entry == "default":
                grads.append(grad)
            elif callable(entry):
                grads.append(entry(list(inputs[:self.n_inputs]), list(output_grads)))
            elif is_null(entry) or is_disconnected(entry):
                grads.append(entry)
            else:
                raise build_error(f"{self.display_name()}: a grad_overrides entry must be "
                                  f"'default', a callable or a NullType/DisconnectedType "
                                  f"variable, got {entry!r}", TypeError)
        return grads + default[self.n_inputs:]

    def _inner_grads(self, inputs: Sequence[Variable], output_grads: Sequence[Any]) -> list[Any]:
        """The inner graph differentiated on ``inputs``: ``known_grads`` from the outputs'."""
        from symnb.core.gradient import grad  # the gradient builds on the ops

        outs = clone_replace(self.graph.outputs, dict(zip(self.graph.inputs, inputs)))
        known = {o: g for o, g in zip(outs, output_grads)
                 if g is not None and not is_disconnected(g) and is_float(o.dtype)}
        wrt = [v for v in inputs if is_float(v.dtype)]
        if not known or not wrt:
            return [None] * len(inputs)
        got = grad(None, wrt, known_grads=known, disconnected_inputs="ignore",
                   return_disconnected="none", null_gradients="return")
        found = {id(v): g for v, g in zip(wrt, got)}
        return [found.get(id(v)) for v in inputs]
