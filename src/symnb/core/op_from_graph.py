"""``OpFromGraph``: a graph used as one op (Theano's ``theano.compile.builders.OpFromGraph``).

``op = OpFromGraph([x, y], [x * y + 1])`` makes an op; ``op(a, b)`` a node computing the
graph on ``a`` and ``b``. The op holds a copy of the graph over inputs of its own (an
:class:`~symnb.core.graph.inner_graph.InnerGraph`), closed over what else it reads
(shared variables, as Theano's: extra inputs of each node). Its NumPy ``perform`` runs
that graph; its XLA lowering inlines it into the program (rules/op_from_graph.py), where
XLA fuses it with its neighbours, whatever ``inline`` says. Its gradient differentiates
the inner graph (``known_grads`` from the output gradients) unless ``grad_overrides``
says otherwise, as in Theano: a callable ``(inputs, output_grads) -> input grads`` (an
``OpFromGraph`` is called on the variables in a row), or one entry per input
(``'default'``, a callable as above whose entry is used, or a
``NullType``/``DisconnectedType`` variable); ``lop_overrides`` likewise, its callables
taking ``(inputs, outputs, output_grads)``.

Compared by identity, as Theano's: two ``OpFromGraph`` of the same graph are two ops.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Sequence

import numpy as np

from symnb.core.graph.basic import Apply, Constant, Variable, clone_replace
from symnb.core.graph.errors import build_error, label
from symnb.core.graph.keywords import unexpected_keywords_message
from symnb.core.graph.inner_graph import InnerGraph, close_over, infer_inner_shapes, known_test_value, placeholder_like
from symnb.core.graph.op import Op
from symnb.core.graph.type import is_float
from symnb.core.gradient_types import is_disconnected, is_null
from symnb.core.tensor.basic import as_tensor_variable

__all__ = ["OpFromGraph"]


#: The keywords of ``theano.function`` (Theano's ``OpFromGraph`` passed its others there).
FUNCTION_KEYWORDS = ("mode", "updates", "givens", "no_default_updates", "accept_inplace", "name",
                     "rebuild_strict", "allow_input_downcast", "profile", "on_unused_input")


class OpFromGraph(Op):
    """The graph from ``inputs`` to ``outputs`` as an op (Theano 1.0.5's signature;
    ``inline`` is accepted: the lowering always inlines; ``rop_overrides``, a callable
    ``(inputs, eval_points)`` or an ``OpFromGraph``, gives ``Rop`` through this op, as
    Theano's R_op did: see ``_lop_carrying_rop``)."""

    def __init__(self, inputs: Sequence[Variable], outputs: Sequence[Variable] | Variable,
                 inline: bool = False, lop_overrides: Any = "default",
                 grad_overrides: Any = "default", rop_overrides: Any = "default",
                 connection_pattern: Any = None, name: str | None = None, **kwargs: Any) -> None:
        # ``kwargs``: what Theano passed to the function compiling the inner graph
        # (``on_unused_input``, ``mode``...); symnb compiles the graph using the op instead.
        unknown = sorted(set(kwargs) - set(FUNCTION_KEYWORDS))
        if unknown:
            own = [p for p in inspect.signature(OpFromGraph).parameters if p != "kwargs"]
            raise build_error(unexpected_keywords_message("OpFromGraph", unknown,
                                                          [*own, *FUNCTION_KEYWORDS]), TypeError)
        self.function_kwargs = kwargs
        if not (isinstance(rop_overrides, str) and rop_overrides == "default") and \
                not (callable(rop_overrides) or isinstance(rop_overrides, OpFromGraph)):
            # Theano's list form (one entry per output) is not taken: an entry left out
            # would be ignored, giving other numbers than Theano's.
            raise build_error("OpFromGraph: rop_overrides must be 'default', a callable "
                              "(inputs, eval_points) -> one result per output, or an "
                              "OpFromGraph; a list of entries per output is not supported",
                              NotImplementedError)
        if not (isinstance(lop_overrides, str) and lop_overrides == "default") and \
                not (isinstance(grad_overrides, str) and grad_overrides == "default"):
            raise build_error("OpFromGraph: give lop_overrides or grad_overrides, not both",
                              ValueError)
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
        self.grad_overrides, self.lop_overrides = grad_overrides, lop_overrides
        self.rop_overrides = rop_overrides
        self._connection_pattern = connection_pattern
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

    def public_name(self) -> str:
        return self.name or "op_from_graph"

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

    def connection_pattern(self, node: Apply | None) -> list[list[bool]]:
        """Theano's: per input (the shared variables read last), per output, whether the
        output depends on it (as given to the constructor, else read from the graph)."""
        if self._connection_pattern is not None:
            return [list(row) for row in self._connection_pattern]
        # Which inputs each variable depends on, through each inner node's own pattern
        # (an inner OpFromGraph's), else every output on every input.
        depends: dict[int, set[int]] = {id(v): {i} for i, v in enumerate(self.graph.inputs)}
        for inner in self.graph.nodes:
            pattern = getattr(inner.op, "connection_pattern", None)
            rows = pattern(inner) if callable(pattern) else None
            for k, out in enumerate(inner.outputs):
                depends[id(out)] = set().union(*[
                    depends.get(id(v), set()) for j, v in enumerate(inner.inputs)
                    if rows is None or rows[j][k]])
        reach = [depends.get(id(out), set()) for out in self.graph.outputs]
        return [[i in r for r in reach] for i in range(len(self.graph.inputs))]

    def L_op(self, inputs, outputs, output_grads):
        explicit, grads_in = list(inputs[:self.n_inputs]), list(output_grads)
        if not (isinstance(self.lop_overrides, str) and self.lop_overrides == "default"):
            # Theano's lop_overrides take (inputs, outputs, output_grads)
            call = _caller(self.lop_overrides, explicit, list(outputs), grads_in)
            overrides = self.lop_overrides
        else:
            call = _caller(self.grad_overrides, explicit, None, grads_in)
            overrides = self.grad_overrides
        if callable(overrides) or isinstance(overrides, OpFromGraph):
            grads = call(overrides)
            return grads + [None] * len(self.implicit)
        if isinstance(overrides, str) and not self._default_rop():
            return self._lop_carrying_rop(inputs, outputs, output_grads)
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
            elif callable(entry) or isinstance(entry, OpFromGraph):
                got = call(entry)
                grads.append(got[0] if isinstance(got, list) and len(got) == 1 else got)
            elif is_null(entry) or is_disconnected(entry):
                grads.append(entry)
            else:
                raise build_error(f"{self.display_name()}: a grad_overrides entry must be "
                                  f"'default', a callable or a NullType/DisconnectedType "
                                  f"variable, got {entry!r}", TypeError)
        return grads + default[self.n_inputs:]

    def _default_rop(self) -> bool:
        return isinstance(self.rop_overrides, str) and self.rop_overrides == "default"

    def _lop_carrying_rop(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
                          output_grads: Sequence[Any]) -> list[Any]:
        """The gradient of a node whose op has ``rop_overrides``, as a node that carries it.

        symnb's ``Rop`` differentiates the vector-Jacobian product ``J^T g`` with respect
        to ``g`` (``core/rop.py``), and that derivative applied to ``v`` is ``J v``: the
        product is made here an ``OpFromGraph`` of ``(inputs, g)`` whose gradient with
        respect to ``g`` is the override (``rop_overrides(inputs, v)``), and with respect
        to the inputs the inner graph's own. Its values are the default gradient's."""
        explicit = list(inputs[:self.n_inputs])
        seeds = [g if g is not None and not is_disconnected(g) and not is_null(g)
                 else _zeros_of(o) for g, o in zip(output_grads, outputs)]
        xs = [placeholder_like(v, value=known_test_value(v)) for v in explicit]
        gs = [placeholder_like(g, value=known_test_value(g)) for g in seeds]
        default = self._inner_grads(xs + list(inputs[self.n_inputs:]), gs)[:self.n_inputs]
        wrt = [i for i, g in enumerate(default) if g is not None]
        if not wrt:
            return [None] * len(inputs)
        rop, n = self.rop_overrides, self.n_inputs

        def pushed(k: int) -> Callable[[list, list], list]:
            def entry(given: list, grads: list) -> list:  # (xs + gs, one grad per output)
                by_input = {i: g for i, g in zip(wrt, grads)}
                points = [by_input[i] if by_input.get(i) is not None and not is_disconnected(by_input[i])
                          else _zeros_of(x) for i, x in enumerate(given[:n])]
                got = rop(*given[:n], *points) if isinstance(rop, OpFromGraph) else rop(given[:n], points)
                got = list(got) if isinstance(got, (list, tuple)) else [got]
                return [got[k]]
            return entry

        vjp = OpFromGraph(xs + gs, [default[i] for i in wrt], name=f"{self.display_name()}_vjp",
                          grad_overrides=["default"] * n + [pushed(k) for k in range(len(gs))])
        results = vjp(*explicit, *seeds)
        results = list(results) if isinstance(results, (list, tuple)) else [results]
        grads: list[Any] = [None] * len(inputs)
        for i, g in zip(wrt, results):
            grads[i] = g
        return grads

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


def _zeros_of(var: Variable) -> Variable:
    from symnb.core.tensor.alloc import zeros_like  # the tensor ops build on the core

    return zeros_like(var)


def _caller(override: Any, inputs: list, outputs: list | None, output_grads: list) -> Callable:
    """How Theano called an override: an OpFromGraph on the variables in a row
    (inputs, [outputs,] output gradients), a function on the lists; a list back."""
    def call(entry: Any) -> list:
        lists = [inputs] + ([outputs] if outputs is not None else []) + [output_grads]
        if isinstance(entry, OpFromGraph):
            got = entry(*[v for group in lists for v in group])
            return list(got) if isinstance(got, (list, tuple)) else [got]
        # Theano called a function on fresh variables of the inputs' (and gradients')
        # types, making the gradient an OpFromGraph of its own: the function may set their
        # test values (PyMC3's MvNormalLogp sets its output gradient's to 1), which a
        # computed gradient's would refuse. Built on stand-ins holding the real test
        # values, its result is then rebuilt on the real variables.
        stand_ins = [[_stand_in(v) for v in group] for group in lists]
        got = entry(*stand_ins)
        got = list(got) if isinstance(got, (list, tuple)) else [got]
        replace = {s: v for group, real in zip(stand_ins, lists) for s, v in zip(group, real) if s is not v}
        built = [g for g in got if isinstance(g, Variable)]
        rebuilt = iter(clone_replace(built, replace) if built and replace else built)
        return [next(rebuilt) if isinstance(g, Variable) else g for g in got]
    return call


def _stand_in(var: Any) -> Any:
    """A fresh root variable of tensor ``var``'s type holding its test value; anything
    else (a constant, a disconnected or null gradient) as it is."""
    if not isinstance(var, Variable) or isinstance(var, Constant) or is_null(var) \
            or is_disconnected(var) or not hasattr(var.type, "dtype"):
        return var
    return placeholder_like(var, value=known_test_value(var))
